"""One call counter serves every exercise that grades how often ``f`` is called."""

import pytest
from grading_helpers import failed_checks, grade
from test_grading_chapters_02_03 import CORRECT as CHAPTER03
from test_grading_checks import CORRECT as CHAPTER01
from test_grading_reverse import CORRECT as CHAPTER05

from micrograd_edu.grading.counting import Counted

EXERCISES = [
    ("01.numerical_gradient", CHAPTER01["numerical_gradient"]),
    ("03.jacobian_forward", CHAPTER03["jacobian_forward"]),
    ("05.vjp", CHAPTER05["vjp"]),
]


@pytest.mark.parametrize("exercise_id, answer", EXERCISES)
def test_the_graded_f_is_the_shared_counter_and_its_count_is_judged(exercise_id, answer):
    received = []

    def recording(f, *args):
        received.append(f)
        return answer(f, *args)

    def wasteful(f, xs, *args):
        for _ in range(3 * len(xs) + 2):  # more calls than any of the three allows
            f(*xs)
        return answer(f, xs, *args)

    name = exercise_id.split(".")[1]
    assert failed_checks(grade(exercise_id, {name: recording})) == set()
    assert received and all(type(f) is Counted for f in received)
    assert len(failed_checks(grade(exercise_id, {name: wasteful}))) == 1


def test_chapter01_f_takes_the_vector_or_its_entries():
    seen = []

    def both_forms(f, xs, h=1e-5):
        seen.append((f(list(xs)), f(*xs), f.calls))
        return CHAPTER01["numerical_gradient"](f, xs, h)

    result = grade("01.numerical_gradient", {"numerical_gradient": both_forms})
    assert failed_checks(result) == {"evaluates f O(n) times"}  # 2n + 2 calls: two too many
    assert seen and all(a == b and calls == 2 for a, b, calls in seen)


def test_a_submission_cannot_reset_the_count():
    f = Counted(lambda x: x)
    f(1.0)
    f(2.0)
    with pytest.raises(AttributeError):
        f.calls = 0
    with pytest.raises(AttributeError):
        f.count = [0]  # no new attributes either (slots)
    assert f.calls == 2
