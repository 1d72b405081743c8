"""The registry's rules for every chapter, on exercises made up here (judged from plain
observations, as the batch grader judges them): a check that waits for another earns
nothing and shows no ✔; points add up exactly; a hint is shown only when its mistake is
the explanation, after the plain explanations (type, shape, a constant factor); honest
answers are not marked down for their type."""

import array
import itertools
from collections import deque, namedtuple
from fractions import Fraction

import numpy as np
import pytest

from micrograd_edu.grading import EXERCISES
from micrograd_edu.grading.explain import REAL, explain
from micrograd_edu.grading.feedback import Feedback
from micrograd_edu.grading.gradescope import check_scores
from micrograd_edu.grading.plain import to_plain
from micrograd_edu.grading.registry import (
    Check,
    CheckResult,
    Exercise,
    ExerciseResult,
    Mistake,
    _shares,
    judge,
    register,
)


def _right(case):
    return {"value": case["x"] * 2}


def _judge(case, seen):
    return None if seen.get("value") == case["x"] * 2 else "wrong value"


def _check(name, **options):
    return Check(name, "", lambda rng: [], lambda f, c: {}, _judge, **options)


def _exercise(*checks, points=3):
    return Exercise("99.made_up", "made up", points, "", ("f",), checks)


def _observed(*per_check):
    return {"checks": [list(seen) for seen in per_check]}


CASES = [[{"x": 1.0}, {"x": 2.0}]]
RIGHT = [{"value": 2.0}, {"value": 4.0}]
WRONG = [{"value": 0.0}, {"value": 0.0}]


def test_a_check_that_waits_earns_nothing_and_shows_no_tick_while_its_premise_fails():
    ex = _exercise(_check("main"), _check("side"), _check("free", after=()))
    result = judge(ex, CASES * 3, _observed(WRONG, RIGHT, RIGHT))
    main, side, free = result.checks
    assert (main.passed, side.passed, free.passed) == (False, False, True)
    assert side.waiting == "main" and not side.failed and side.score == 0
    assert free.score == result.score == 1.0
    text = repr(Feedback(result))
    assert "✔ side" not in text and "– side (0/1)" in text and "until “main” holds" in text
    # once the premise holds, the same observation earns its share and its ✔
    result = judge(ex, CASES * 3, _observed(RIGHT, RIGHT, RIGHT))
    assert result.passed and result.score == 3 and "✔ side (1/1)" in repr(Feedback(result))


def test_a_waiting_check_that_fails_still_says_why():
    ex = _exercise(_check("main"), _check("side"))
    _, side = judge(ex, CASES * 2, _observed(WRONG, WRONG)).checks
    assert side.failed and side.reason == "wrong value" and side.waiting == "main"


def test_waiting_follows_a_chain_and_names_must_be_earlier_checks():
    ex = _exercise(_check("a"), _check("b", after=("a",)), _check("c", after=("b",)))
    a, b, c = judge(ex, CASES * 3, _observed(RIGHT, WRONG, RIGHT)).checks
    assert a.passed and b.failed and c.waiting == "b" and not c.passed
    with pytest.raises(ValueError, match="not an earlier check"):
        register(
            Exercise("99.bad_after", "x", 1, "", ("f",), (_check("a", after=("b",)), _check("b")))
        )


@pytest.mark.parametrize("points", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("checks", [1, 3, 6, 7, 9])
def test_the_checks_scores_add_up_to_the_exercise_score_whatever_passes(points, checks):
    ex = _exercise(*[_check(f"c{k}", after=()) for k in range(checks)], points=points)
    assert abs(sum(_shares(ex)) - points) < 1e-9
    for passing in itertools.product((True, False), repeat=min(checks, 6)):
        passing = (*passing, *(True,) * (checks - len(passing)))
        result = judge(ex, CASES * checks, _observed(*[RIGHT if p else WRONG for p in passing]))
        assert abs(sum(c.score for c in result.checks) - result.score) < 1e-9
        # so the gradebook's per-check columns show them (they read 0 when they do not add up)
        assert [s for _, s, _ in check_scores(result)] == [c.score for c in result.checks]


def test_every_registered_exercise_shares_its_points_exactly():
    for ex in EXERCISES.values():
        assert abs(sum(_shares(ex)) - ex.points) < 1e-9, ex.id


# --- hints: the plain explanations first, then a model that reproduces every failure ---

DOUBLED = Mistake(None, "doubled", name="doubled", factor=2.0)
ZEROED = Mistake(lambda case, seen: seen.get("value") == 0.0, "zeroed", name="zeroed")
PLUS_ONE = Mistake(
    lambda case, seen: seen.get("value") == case["x"] * 2 + 1, "plus one", name="plus one"
)


def _hints(seen, mistakes=(DOUBLED, ZEROED, PLUS_ONE), right=_right):
    ex = _exercise(_check("main", mistakes=mistakes, right=right))
    (result,) = judge(ex, CASES, _observed(seen)).checks
    return result


def test_a_model_that_reproduces_every_failure_gets_its_hint():
    assert _hints([{"value": 3.0}, {"value": 5.0}]).hint == "plus one"
    assert _hints([{"value": 4.0}, {"value": 8.0}]).hint == "doubled"


def test_a_model_that_fits_some_failures_only_gets_no_hint():
    found = _hints([{"value": 3.0}, {"value": 7.0}])
    assert found.failed and found.hint == ""


def test_a_constant_factor_hides_every_hint_but_that_factors():
    # zeroed's model fits both failures, but a plainer explanation does too: a factor 0
    found = _hints([{"value": 0.0}, {"value": 0.0}])
    assert found.hint == "" and "0 where the right value is not" in found.reason
    # with a model declared as the factor 0, that one is the explanation
    as_factor = Mistake(None, "nothing added", name="zero", factor=0.0)
    assert _hints([{"value": 0.0}, {"value": 0.0}], (ZEROED, as_factor)).hint == "nothing added"
    # and a made-up factor names what it saw, without a hint
    found = _hints([{"value": 6.0}, {"value": 12.0}])
    assert found.hint == "" and "3 times the right value" in found.reason


@pytest.mark.parametrize("seen", [[0.1, 0.2], None, "2.0", {"unsupported": "Liar"}])
def test_a_wrong_type_gets_no_hint_even_from_a_model_that_accepts_anything(seen):
    sloppy = Mistake(lambda case, seen: True, "sloppy", name="sloppy")
    found = _hints([{"value": seen}, {"value": seen}], (sloppy,))
    assert found.failed and found.hint == ""


def test_without_right_a_model_must_still_fit_every_failure():
    assert _hints([{"value": 3.0}, {"value": 5.0}], right=None).hint == "plus one"
    assert _hints([{"value": 3.0}, {"value": 7.0}], right=None).hint == ""


def test_explain_reads_types_shapes_and_factors():
    assert explain([({"h": REAL}, {"h": None})]).kind == "type"
    assert "3 items" in explain([({"g": [1.0, 2.0, 3.0]}, {"g": [1.0, 2.0]})]).text
    assert explain([({"g": [1.0, -2.0]}, {"g": [-1.0, 2.0]})]).factor == -1.0
    assert explain([({"g": [1.0, 0.0]}, {"g": [2.0, 1.0]})]) is None  # 0 where 0 belongs
    assert explain([({"g": [1.0]}, {"g": [2.0]}), ({"g": [1.0]}, {"g": [3.0]})]) is None
    assert explain([({"h": REAL}, {"h": 2.0})]) is None  # any number: no factor to read


# --- honest types -------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_any_sequence_any_real_and_any_array_read_as_plain_data():
    Pair = namedtuple("Pair", "forward reverse")
    assert to_plain(deque([1.0, np.float64(2.5)])) == [1.0, 2.5]
    assert to_plain(Pair(3, np.int64(4))) == [3, 4]
    assert to_plain(np.matrix([[1.0, 2.0]])) == [[1.0, 2.0]]
    assert to_plain(array.array("d", [0.5])) == [0.5]
    assert to_plain(range(3)) == [0, 1, 2]
    assert to_plain(Fraction(3, 4)) == 0.75 and to_plain(np.float32(0.5)) == 0.5
    assert to_plain(np.array(2.0)) == 2.0  # a 0-d array is its number
    assert to_plain(np.uint8(7)) == 7 and to_plain(np.bool_(True)) is True


def test_plain_data_reads_what_an_object_stores_never_its_methods():
    class Sneaky(float):
        def __float__(self):
            raise AssertionError("the grader must not call __float__")

        def __eq__(self, other):
            return True

    class SneakyList(list):
        def __iter__(self):
            raise AssertionError("nor an overridden __iter__")

        def __len__(self):
            raise AssertionError("nor __len__")

    class Anything:
        def __eq__(self, other):
            return True

    assert to_plain(Sneaky(1.0)) == 1.0 and type(to_plain(Sneaky(1.0))) is float
    assert to_plain(SneakyList([Sneaky(2.0)])) == [2.0]
    assert to_plain(Anything()) == {"unsupported": "Anything"}
    assert to_plain(np.array([1, 2], dtype=object)) == {"unsupported": "ndarray"}
    assert to_plain(np.array([1 + 2j])) == {"unsupported": "ndarray"}  # not a real number


def test_a_check_result_round_trips_with_its_waiting_field():
    from dataclasses import asdict

    from micrograd_edu.grading.judging import _result

    r = ExerciseResult("x", "t", 0.0, 1.0, "failed", (CheckResult("c", False, waiting="m"),))
    assert _result(asdict(r)) == r


def test_a_hint_another_check_contradicts_is_dropped():
    # "plus one" is modelled by both checks: the answer fits it on the first and not on the
    # second, so it is not the mistake made, on either
    ex = _exercise(*(_check(name, mistakes=(PLUS_ONE,), right=_right) for name in ("a", "b")))
    off = [{"value": 3.0}, {"value": 5.0}]
    result = judge(ex, CASES * 2, _observed(off, [{"value": 7.0}, {"value": 9.0}]))
    assert [c.hint for c in result.checks] == ["", ""]
    result = judge(ex, CASES * 2, _observed(off, off))
    assert [c.hint for c in result.checks] == ["plus one", "plus one"]
    # a check whose failures are explained plainly (here a factor) does not contradict
    result = judge(ex, CASES * 2, _observed(off, [{"value": 4.0}, {"value": 8.0}]))
    assert [c.hint for c in result.checks] == ["plus one", ""]
