"""The functions whose evaluations are graded are the grader's: it answers every call of
``f`` in its own process (a value, a forward pass, or values and a Jacobian: never the
secret scales it computes them from) and counts it there, so the count the judge reads is
never one the submission made or reported."""

import functools
import json
import os

import pytest
from grading_helpers import failed_checks, grade
from mistakes.chapter05 import CORRECT as CHAPTER05
from test_grading_chapters_02_03 import CORRECT as CHAPTER03
from test_grading_checks import CORRECT as CHAPTER01

from micrograd_edu import Value
from micrograd_edu.grading import exercise
from micrograd_edu.grading.batch import _Answers
from micrograd_edu.grading.registry import HELD, Served, draw_cases, inputs, judge, observe

EXERCISES = [  # (exercise, a right answer, the checks that count the calls)
    ("01.numerical_gradient", CHAPTER01["numerical_gradient"], {"evaluates f O(n) times"}),
    ("03.jacobian_forward", CHAPTER03["jacobian_forward"], {"one forward pass per input"}),
    (
        "05.vjp",
        CHAPTER05["vjp"],
        {"vᵀJ, exactly, from one call of f", "m = 1, v = [1]: the gradient"},
    ),
]


def _call(exercise_id, f, xs):
    """f at xs, called as the exercise's statement says (01's f takes the point as one list)."""
    return f(list(xs)) if exercise_id.startswith("01") else f(*xs)


class Pipe:
    """Stands in for the child's channel to the grader: what lies beyond it is in another
    process, so a walk over what the submission can reach stops here."""

    def __init__(self, served, check, case):
        self.served, self.check, self.case = served, check, case
        self.calls = 0

    def __call__(self, request):
        self.calls += 1
        return self.served(self.check, self.case, request)


def _reachable(root):
    """Everything a submission can walk to from ``root`` through closures, partials,
    attributes and containers, up to the pipe."""
    found, todo = {}, [root]
    while todo:
        obj = todo.pop()
        if id(obj) in found or isinstance(obj, type(os) | Pipe):
            continue
        found[id(obj)] = obj
        for cell in getattr(obj, "__closure__", None) or ():
            todo.append(cell.cell_contents)
        if isinstance(obj, functools.partial):
            todo += [obj.func, *obj.args, *obj.keywords.values()]
        todo += list(getattr(obj, "__dict__", {}).values())
        if isinstance(obj, dict):
            todo += list(obj.values())
        elif isinstance(obj, list | tuple):
            todo += list(obj)
    return list(found.values())


@pytest.mark.parametrize("exercise_id, answer, count_check", EXERCISES)
def test_extra_calls_fail_only_the_count(exercise_id, answer, count_check):
    def wasteful(f, xs, *args):
        for _ in range(3 * len(xs) + 2):  # more calls than any of the three allows
            _call(exercise_id, f, xs)
        return answer(f, xs, *args)

    name = exercise_id.split(".")[1]
    assert failed_checks(grade(exercise_id, {name: answer})) == set()
    assert failed_checks(grade(exercise_id, {name: wasteful})) == count_check


@pytest.mark.parametrize("exercise_id, answer, count_check", EXERCISES)
def test_nothing_within_reach_of_f_evaluates_it_uncounted(exercise_id, answer, count_check):
    # The f of the count check's case, built as the child builds it (inputs only, the pipe
    # to the grader): no secret entry of the case is within reach, and every function
    # that is, called at the point, either goes through the pipe or is not f.
    ex = exercise(exercise_id)
    cases = draw_cases(ex, "test")
    check, case = [c.name for c in ex.checks].index(sorted(count_check)[0]), 0
    pipe = Pipe(Served(ex, cases), check, case)
    caught = []

    def probe(f, xs, *args):
        caught.append((f, list(xs)))
        return answer(f, xs, *args)

    name = exercise_id.split(".")[1]
    ex.checks[check].run({name: probe}, {**inputs(cases)[check][case], "ask": pipe})
    f, xs = caught[0]
    assert not any(isinstance(o, dict) and HELD in o for o in _reachable(f))
    exact, tried = _call(exercise_id, f, xs), 0
    for other in _reachable(f):
        if callable(other) and other is not f and not isinstance(other, type):
            before = pipe.calls
            try:
                value = _call(exercise_id, other, xs)
            except Exception:
                continue
            tried += 1
            assert value != exact or pipe.calls > before, other
    # f holds nothing callable but its way to the pipe (the partial that asks the grader)
    assert tried <= 1


def test_chapter01_f_takes_the_point_as_any_sequence_and_refuses_its_entries():
    import numpy as np

    seen = []

    def any_sequence(f, xs, h=1e-5):
        seen.append((f(list(xs)), f(tuple(xs)), f(np.array(xs))))
        return CHAPTER01["numerical_gradient"](f, xs, h)

    result = grade("01.numerical_gradient", {"numerical_gradient": any_sequence})
    assert failed_checks(result) == {"evaluates f O(n) times"}  # 2n + 3 calls: three too many
    assert seen and all(a == b == c for a, b, c in seen)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda f, xs: f(xs + [1.0]),
            "f takes a list of {n} plain numbers (floats, not nodes); it was given",
        ),
        (lambda f, xs: f(*xs), "call f(point), not f(*point); it was given {n} items"),
        # f(point) was called: the message says what the point held, not how to call f
        (
            lambda f, xs: f([Value(x) for x in xs]),
            "f takes a list of {n} plain numbers (floats, not nodes); it was given {n} items: "
            "Value, Value",
        ),
    ],
)
def test_chapter01_f_says_what_it_takes(call, message):
    def wrong(f, xs, h=1e-5):
        return [call(f, xs)] * len(xs)

    result = grade("01.numerical_gradient", {"numerical_gradient": wrong})
    ex = exercise("01.numerical_gradient")
    n = len(draw_cases(ex, "test")[0][0]["xs"])
    assert message.format(n=n) in result.checks[0].reason


def test_the_judge_reads_the_graders_count_never_the_submissions():
    ex = exercise("05.vjp")
    cases = draw_cases(ex, "test")

    def by_columns(f, xs, v):  # n calls, then an honest answer from one more
        for _ in xs:
            f(*xs)
        return CHAPTER05["vjp"](f, xs, v)

    observed = observe(ex, {"vjp": by_columns}, cases)
    forged = {**observed, "calls": [[i, j, 1] for i in range(2) for j in range(4)]}
    for seen in forged["checks"][0]:
        seen["calls"] = 1
    served = Served(ex, cases)
    served.counts = {(0, j): len(cases[0][j]["xs"]) + 1 for j in range(len(cases[0]))}
    result = judge(ex, cases, served.counted(forged))
    assert "vᵀJ, exactly, from one call of f" in failed_checks(result) and result.score == 0


def test_served_refuses_what_it_does_not_serve():
    ex = exercise("01.numerical_gradient")
    served = Served(ex, draw_cases(ex, "test"))
    n = len(served.cases[0][0]["xs"])
    for check, case in ((9, 0), (-1, 0), (0, 99), ("0", 0), (True, 0)):
        with pytest.raises(ValueError, match="unknown"):
            served(check, case, [0.0] * n)
    with pytest.raises(ValueError, match="takes"):
        served(0, 0, [0.0] * (n + 1))
    served.counts = {(0, 0): Served.LIMIT}
    with pytest.raises(ValueError, match="more than"):
        served(0, 0, [0.0] * n)


def test_the_parent_answers_asks_for_the_exercise_it_observes_only(tmp_path):
    ex = exercise("01.numerical_gradient")
    cases = draw_cases(ex, "secret")
    read, write = os.pipe()
    answers = _Answers([ex], {ex.id: cases}, write)
    n = len(cases[0][0]["xs"])
    ask = {"id": ex.id, "check": 0, "case": 0, "request": [1.0] * n}
    answers.ask(ask, ex.id)
    answers.ask(ask, "01.step_size")  # asked while another exercise is observed
    answers.ask({**ask, "request": "x" * 10}, ex.id)
    os.close(write)
    with os.fdopen(read) as replies:
        first, second, third = (json.loads(line) for line in replies)
    assert isinstance(first["answer"], float)
    assert "outside its exercise" in second["refused"] and "takes" in third["refused"]
    observed = answers.observed(ex.id, {"checks": [], "calls": [[0, 0, 0]]})
    assert observed["calls"] == [[0, 0, 2]]  # both asks of its own exercise, not the forgery
