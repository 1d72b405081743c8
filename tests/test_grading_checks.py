"""Chapter 01's checks: correct answers pass on any seed, each mistake fails its check."""

import math

import numpy as np
import pytest
from grading_helpers import failed_checks, grade

from micrograd_edu import check
from micrograd_edu.grading import EXERCISES, chapter, exercise, register
from micrograd_edu.grading.plain import as_floats, describe, to_plain
from micrograd_edu.grading.registry import Exercise, draw_cases, judge, observe

EPS = 2.0**-52


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


CORRECT = {
    "forward_difference": lambda f, x, h: (f(x + h) - f(x)) / h,
    "central_difference": central_difference,
    "extrapolated_difference": lambda f, x, h: (
        (4 * central_difference(f, x, h / 2) - central_difference(f, x, h)) / 3
    ),
    "numerical_gradient": lambda f, xs, h=1e-5: [
        central_difference(lambda t, i=i: f(xs[:i] + [t] + xs[i + 1 :]), xs[i], h)
        for i in range(len(xs))
    ],
    "step_size": lambda x: EPS ** (1 / 3) * max(1.0, abs(x)),
}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(15)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("01"):
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])
        assert result.score == ex.points


QUOTIENT = "the quotient itself, on a cubic (against its closed form)"
# the hint each quotient mistake must get (and no other): its mistake model matched
HINTS = {
    "half": "it is half the quotient",
    "both sides": "quotient over both sides of x",
    "twice": "it is twice the quotient",
    "precedence": "h² times the quotient",
    "one-sided": "one-sided quotient",
    None: None,
}


@pytest.mark.parametrize(
    "exercise_id, name, wrong, failing, hint",
    [
        # dividing by 2h, computing the central difference instead
        (
            "01.forward_difference",
            "forward_difference",
            lambda f, x, h: (f(x + h) - f(x)) / (2 * h),
            {QUOTIENT, "error shrinks 2x when h halves"},
            "half",
        ),
        (
            "01.forward_difference",
            "forward_difference",
            central_difference,
            {QUOTIENT, "error shrinks 2x when h halves"},
            "both sides",
        ),
        # dividing by h; the operator-precedence slip / 2 * h; a one-sided step
        (
            "01.central_difference",
            "central_difference",
            lambda f, x, h: (f(x + h) - f(x - h)) / h,
            {QUOTIENT, "error shrinks 4x when h halves"},
            "twice",
        ),
        (
            "01.central_difference",
            "central_difference",
            lambda f, x, h: (f(x + h) - f(x - h)) / 2 * h,
            {QUOTIENT, "error shrinks 4x when h halves"},
            "precedence",
        ),
        (
            "01.central_difference",
            "central_difference",
            lambda f, x, h: (f(x + h) - f(x)) / h,
            {QUOTIENT, "error shrinks 4x when h halves"},
            "one-sided",
        ),
        # wrong weights
        (
            "01.extrapolated_difference",
            "extrapolated_difference",
            lambda f, x, h: 2 * central_difference(f, x, h / 2) - central_difference(f, x, h),
            {"exact derivative of a quartic", "error shrinks 16x when h halves"},
            None,
        ),
    ],
)
def test_each_quotient_mistake_fails_the_check_aimed_at_it(exercise_id, name, wrong, failing, hint):
    result = grade(exercise_id, {**CORRECT, name: wrong})
    assert not result.passed and result.score == 0
    assert failed_checks(result) == failing
    assert all(c.hint for c in result.checks if not c.passed)
    if hint is not None:
        first = result.checks[0]
        others = [phrase for key, phrase in HINTS.items() if key not in (hint, None)]
        assert HINTS[hint] in first.hint and not any(p in first.hint for p in others)


def test_gradient_mistakes_fail_their_own_checks():
    def forgot_to_restore(f, xs, h=1e-5):
        grad = []
        for i in range(len(xs)):
            xs[i] += h
            up = f(xs)
            xs[i] -= 2 * h
            grad.append((up - f(xs)) / (2 * h))
        return grad

    def one_sided(f, xs, h=1e-5):
        base = f(xs)
        return [(f(xs[:i] + [xs[i] + h] + xs[i + 1 :]) - base) / h for i in range(len(xs))]

    def quadratic_cost(f, xs, h=1e-5):
        # recomputes every partial for every coordinate and keeps one: O(n^2) evaluations
        return [CORRECT["numerical_gradient"](f, xs, h)[i] for i in range(len(xs))]

    assert "leaves xs unchanged" in failed_checks(
        grade("01.numerical_gradient", {"numerical_gradient": forgot_to_restore})
    )
    assert "gradient of a non-polynomial function" in failed_checks(
        grade("01.numerical_gradient", {"numerical_gradient": one_sided})
    )
    assert failed_checks(
        grade("01.numerical_gradient", {"numerical_gradient": quadratic_cost})
    ) == {"evaluates f O(n) times"}


@pytest.mark.parametrize(
    "step, failing",
    [
        (lambda x: 1e-5 * (1 + abs(x)), set()),  # correct but different
        (lambda x: 1e-6 * max(1.0, abs(x)), set()),
        (
            lambda x: 1e-10,
            {"not so small that rounding error dominates", "scales with |x|", "works at x = 0"},
        ),
        (
            lambda x: 1e-3 * max(1.0, abs(x)),
            {"not so large that truncation error dominates", "scales with |x|", "works at x = 0"},
        ),
        (lambda x: EPS ** (1 / 3), {"scales with |x|"}),
        (lambda x: EPS ** (1 / 3) * abs(x), {"works at x = 0"}),
    ],
)
def test_step_size_is_graded_by_the_error_it_achieves(step, failing):
    for seed in ("a", "b", "c"):
        assert failed_checks(grade("01.step_size", {"step_size": step}, seed)) == failing


def test_a_too_small_step_fails_with_the_rounding_error_hint():
    result = grade("01.step_size", {"step_size": lambda x: 1e-10})
    rounding = next(c for c in result.checks if c.name.startswith("not so small"))
    assert "rounding error" in rounding.hint and "too small" in rounding.reason


def test_the_grader_supplies_the_earlier_step_an_exercise_needs():
    namespace = {**CORRECT, "central_difference": lambda f, x, h: 0.0}
    ex = exercise("01.extrapolated_difference")
    cases = draw_cases(ex, "x")
    assert judge(ex, cases, observe(ex, namespace, cases)).passed
    assert namespace["central_difference"](math.sin, 1.0, 0.1) == 0.0  # restored afterwards


def test_requires_works_for_any_chapter(monkeypatch):
    # the mechanism a chapter 04 `backward` needing `topological_order` uses
    from micrograd_edu.grading.registry import Check

    def run(functions, case):
        return {"value": functions["double_sum"](case["xs"])}

    ex = Exercise(
        "99.double_sum",
        "Double sum",
        1,
        "double_sum(xs) = 2 * total(xs)",
        ("double_sum",),
        (
            Check(
                "doubles",
                "call total",
                lambda rng: [{"xs": [1.0, 2.0]}],
                run,
                lambda case, seen: None if seen["value"] == 6.0 else "wrong",
            ),
        ),
        requires={"total": sum},
    )
    monkeypatch.setitem(EXERCISES, ex.id, ex)
    namespace = {"total": lambda xs: -1.0}
    exec("def double_sum(xs):\n    return 2 * total(xs)", namespace)
    assert check("99.double_sum", namespace).passed


def test_register_refuses_duplicates_and_bad_ids():
    with pytest.raises(ValueError, match="already registered"):
        register(exercise("01.step_size"))
    with pytest.raises(ValueError, match="must look like"):
        register(Exercise("step", "x", 1, "", ("f",), ()))
    with pytest.raises(KeyError, match="registered ones are"):
        exercise("01.nope")
    with pytest.raises(KeyError, match="chapters with exercises"):
        chapter("77")


def test_plain_data_never_calls_a_returned_objects_methods():
    class Anything:
        def __eq__(self, other):
            return True

        def __float__(self):
            raise AssertionError("the grader must not call __float__")

    class Sneaky(float):
        def __float__(self):
            raise AssertionError("nor a float subclass's __float__")

    class SneakyList(list):
        pass

    assert to_plain(Anything()) == {"unsupported": "Anything"}
    assert to_plain(Sneaky(1.0)) == {"unsupported": "Sneaky"}
    assert to_plain(SneakyList([1.0])) == {"unsupported": "SneakyList"}
    assert to_plain(np.array([1, 2], dtype=object)) == {"unsupported": "ndarray"}
    assert to_plain((np.float32(0.5), np.int64(3))) == [0.5, 3]
    assert as_floats(to_plain(np.array([1.0, 2.0])), 2) == [1.0, 2.0]


def test_plain_data_reports_a_too_long_answer_by_its_length():
    assert to_plain(list(range(10_001))) == {"too_long": 10_001}
    assert to_plain(np.zeros((200, 60))) == {"too_long": 12_000}
    assert to_plain([0.0] * 10_000) == [0.0] * 10_000
    assert "12000 items" in describe(to_plain(np.zeros(12_000)))


def test_in_notebook_check_reports_without_revealing_answers():
    def forward_difference(f, x, h):
        return (f(x + h) - f(x)) / h + 1e-3

    report = check("01.forward_difference", {"forward_difference": forward_difference})
    html, text = report._repr_html_(), repr(report)
    assert not report.passed and "0/1 points" in text
    # off by 1e-3: no model of a quotient mistake matches, so that check says what it saw
    # and gives no hint; the error that no longer shrinks with h gets the hint for that
    assert f"✘ {QUOTIENT}" in text and "wrong value for a degree-3 polynomial" in text
    assert text.count("Hint:") == 1 and "Hint: the error stays the same" in text
    assert "<li>" in html and "def " not in html
    # the expected value of any case never appears
    ex = exercise("01.forward_difference")
    for case in draw_cases(ex, "public")[0]:
        c = case["coefficients"]
        want = (
            c[1]
            + c[2] * (2 * case["x"] + case["h"])
            + c[3] * (3 * case["x"] ** 2 + 3 * case["x"] * case["h"] + case["h"] ** 2)
        )
        assert f"{want:.3g}" not in text


def test_not_implemented_reads_as_not_attempted_and_missing_as_missing():
    def forward_difference(f, x, h):
        raise NotImplementedError()

    report = check("01.forward_difference", {"forward_difference": forward_difference})
    assert "not attempted yet" in repr(report) and "Traceback" not in repr(report)
    assert "no function named forward_difference" in repr(check("01.forward_difference", {}))


def test_check_finds_the_function_in_the_callers_globals():
    namespace = {"check": check}
    exec(
        "def central_difference(f, x, h):\n    return (f(x + h) - f(x - h)) / (2 * h)\n"
        "report = check('01.central_difference')",
        namespace,
    )
    assert namespace["report"].passed


@pytest.mark.parametrize(
    "name, variant",
    [
        # dividing by the step as the machine represents it
        ("forward_difference", lambda f, x, h: (f(x + h) - f(x)) / ((x + h) - x)),
        ("central_difference", lambda f, x, h: np.array((f(x + h) - f(x - h)) / (2 * h))),
        (
            "extrapolated_difference",
            lambda f, x, h: (8 * (f(x + h / 2) - f(x - h / 2)) - (f(x + h) - f(x - h))) / (6 * h),
        ),
        # f(*xs) instead of f(xs); a tuple back
        (
            "numerical_gradient",
            lambda f, xs, h: tuple(
                (f(*xs[:i], xs[i] + h, *xs[i + 1 :]) - f(*xs[:i], xs[i] - h, *xs[i + 1 :]))
                / (2 * h)
                for i in range(len(xs))
            ),
        ),
        ("step_size", lambda x: np.float64((3 * EPS) ** (1 / 3) * max(abs(x), 1.0))),
    ],
)
def test_correct_but_different_answers_pass(name, variant):
    ex = next(e for e in chapter("01") if e.names == (name,))
    for seed in ("p", "q", "r"):
        result = grade(ex.id, {**CORRECT, name: variant}, seed)
        assert result.passed, [(c.name, c.reason) for c in result.checks]
