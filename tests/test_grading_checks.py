"""Chapter 01's checks: correct answers pass on any seed, each mistake fails its check."""

import math

import numpy as np
import pytest
from grading_helpers import failed_checks, grade
from mistakes.chapter01 import CORRECT, EPS, central_difference, one_sided, second

from micrograd_edu import check
from micrograd_edu.grading import EXERCISES, chapter, exercise, register
from micrograd_edu.grading.plain import describe, to_plain
from micrograd_edu.grading.registry import Exercise, draw_cases, judge, observe


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(15)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("01"):
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])
        assert result.score == ex.points


def test_a_quotient_that_evaluates_left_of_x_is_told_where():
    result = grade("01.one_sided_difference", {"one_sided_difference": central_difference})
    (left,) = [c for c in result.checks if c.name == "uses no point left of x"]
    assert "returned nan" in left.reason and "evaluated f somewhere left of x" in left.reason


def test_a_value_off_by_a_factor_is_told_the_factor_not_the_answer():
    twice = grade(
        "01.one_sided_difference", {"one_sided_difference": lambda f, x, h: 2 * one_sided(f, x, h)}
    )
    assert twice.checks[0].reason.endswith("it is 2 times the right one")
    no_division = grade(
        "01.second_difference", {"second_difference": lambda f, x, h: second(f, x, h) * h * h}
    )
    assert no_division.checks[0].reason.endswith("it is h² times the right one")


def test_a_wrong_value_is_described_by_its_relative_error_not_by_the_answer():
    result = grade(
        "01.one_sided_difference",
        {"one_sided_difference": lambda f, x, h: one_sided(f, x, h) * (1 + 1e-3)},
    )
    reason = result.checks[0].reason
    assert reason.startswith("wrong value for a polynomial of degree")
    assert "relative error 0.001 (1e-08 allowed)" in reason
    assert reason.endswith("(on every failing case it is 1.001 times the right value)")


@pytest.mark.parametrize(
    "step, failing",
    [
        (lambda x: 1e-4 * (1 + abs(x)), set()),  # correct but different
        (lambda x: 1.5e-4 * max(1.0, abs(x)), set()),
        (
            lambda x: 1e-10,
            {"near the smallest error any step gives", "scales with |x|", "works at x = 0"},
        ),
        # the central quotient's step: too small for a quotient that divides by h²
        (
            lambda x: EPS ** (1 / 3) * max(1.0, abs(x)),
            {"near the smallest error any step gives", "scales with |x|", "works at x = 0"},
        ),
        (
            lambda x: 1e-2 * max(1.0, abs(x)),
            {"near the smallest error any step gives", "scales with |x|", "works at x = 0"},
        ),
        (lambda x: EPS ** (1 / 4), {"scales with |x|"}),
        (lambda x: EPS ** (1 / 4) * abs(x), {"works at x = 0"}),
    ],
)
def test_step_size_is_graded_by_the_error_it_achieves(step, failing):
    for seed in ("a", "b", "c"):
        assert failed_checks(grade("01.step_size", {"step_size": step}, seed)) == failing


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


def test_plain_data_reports_a_too_long_answer_by_its_length():
    assert to_plain(list(range(10_001))) == {"too_long": 10_001}
    assert to_plain(np.zeros((200, 60))) == {"too_long": 12_000}
    assert to_plain([0.0] * 10_000) == [0.0] * 10_000
    assert "12000 items" in describe(to_plain(np.zeros(12_000)))


def test_in_notebook_check_reports_without_revealing_answers():
    def one_sided_difference(f, x, h):
        return one_sided(f, x, h) + 1e-3

    report = check("01.one_sided_difference", {"one_sided_difference": one_sided_difference})
    html, text = report._repr_html_(), repr(report)
    assert not report.passed and "0/2 points" in text
    # off by 1e-3: wrong on a constant, the case that fails first, which the reason names
    # (no mistake modelled there fits every case, so no hint); the error that no longer
    # shrinks with h gets the hint about a constant term
    lines = text.splitlines()
    assert "whose derivative is 0" in lines[2] and "Hint:" not in lines[2]
    assert lines[3].startswith("– uses no point left of x")  # it holds, but waits
    assert "Hint: the error stays the same" in lines[-1]
    assert "<li>" in html and "def " not in html
    # the right value of any case never appears
    ex = exercise("01.one_sided_difference")
    for case in draw_cases(ex, "public")[0]:
        c, x, h = case["coefficients"], case["x"], case["h"]
        want = c[1] + 2 * c[2] * x + c[3] * (3 * x * x - 2 * h * h)
        assert want == 0 or f"{want:.3g}" not in text


def test_not_implemented_reads_as_not_attempted_and_missing_as_missing():
    def second_difference(f, x, h):
        raise NotImplementedError()

    report = check("01.second_difference", {"second_difference": second_difference})
    assert "not attempted yet" in repr(report) and "Traceback" not in repr(report)
    assert "no function named second_difference" in repr(check("01.second_difference", {}))


def test_check_finds_the_function_in_the_callers_globals():
    namespace = {"check": check}
    exec(
        "def second_difference(f, x, h):\n    return (f(x + h) - 2 * f(x) + f(x - h)) / h**2\n"
        "report = check('01.second_difference')",
        namespace,
    )
    assert namespace["report"].passed


@pytest.mark.parametrize(
    "name, variant",
    [
        # dividing by the step as the machine represents it
        (
            "one_sided_difference",
            lambda f, x, h: (4 * f(x + h) - 3 * f(x) - f(x + 2 * h)) / (2 * ((x + h) - x)),
        ),
        # Richardson's trick on two forward quotients; a numpy scalar; f'' as a quotient
        # of one-sided quotients
        (
            "one_sided_difference",
            lambda f, x, h: 2 * (f(x + h) - f(x)) / h - (f(x + 2 * h) - f(x)) / (2 * h),
        ),
        ("second_difference", lambda f, x, h: np.array((f(x + h) - 2 * f(x) + f(x - h)) / h / h)),
        ("second_difference", lambda f, x, h: ((f(x + h) - f(x)) / h - (f(x) - f(x - h)) / h) / h),
        (
            "extrapolated_difference",
            lambda f, x, h: (8 * (f(x + h / 2) - f(x - h / 2)) - (f(x + h) - f(x - h))) / (6 * h),
        ),
        # the point as a tuple; a tuple back
        (
            "numerical_gradient",
            lambda f, xs, h: tuple(
                (f((*xs[:i], xs[i] + h, *xs[i + 1 :])) - f((*xs[:i], xs[i] - h, *xs[i + 1 :])))
                / (2 * h)
                for i in range(len(xs))
            ),
        ),
        ("step_size", lambda x: np.float64((3 * EPS) ** (1 / 4) * max(abs(x), 1.0))),
    ],
)
def test_correct_but_different_answers_pass(name, variant):
    ex = next(e for e in chapter("01") if e.names == (name,))
    for seed in ("p", "q", "r"):
        result = grade(ex.id, {**CORRECT, name: variant}, seed)
        assert result.passed, [(c.name, c.reason) for c in result.checks]


def test_the_closed_forms_the_judges_use_agree_with_finite_differences():
    # the oracles are typed in by hand: check each against the function it differentiates
    from micrograd_edu.grading.chapter01 import DERIVATIVES, SECOND_DERIVATIVES
    from micrograd_edu.grading.runners.chapter01 import SMOOTH

    for x in (0.6, 1.1, 1.9):
        for name, d1 in DERIVATIVES.items():
            assert central_difference(SMOOTH[name], x, 1e-6) == pytest.approx(d1(x), rel=1e-7)
        for name, d2 in SECOND_DERIVATIVES.items():
            assert second(SMOOTH[name], x, 1e-4) == pytest.approx(d2(x), rel=1e-5, abs=1e-6)
