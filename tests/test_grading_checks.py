"""Chapter 01's checks: correct answers pass on any seed, each mistake fails its check."""

import math

import numpy as np
import pytest
from grading_helpers import failed_checks, grade

from micrograd_edu import check
from micrograd_edu.grading import EXERCISES, chapter, exercise, register
from micrograd_edu.grading.plain import describe, to_plain
from micrograd_edu.grading.registry import Exercise, draw_cases, judge, observe

EPS = 2.0**-52


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


def one_sided(f, x, h):
    return (-3 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / (2 * h)


def second(f, x, h):
    return (f(x + h) - 2 * f(x) + f(x - h)) / h**2


CORRECT = {
    "one_sided_difference": one_sided,
    "second_difference": second,
    "central_difference": central_difference,  # given in the notebook
    "extrapolated_difference": lambda f, x, h: (
        (4 * central_difference(f, x, h / 2) - central_difference(f, x, h)) / 3
    ),
    "numerical_gradient": lambda f, xs, h=1e-5: [
        central_difference(lambda t, i=i: f(xs[:i] + [t] + xs[i + 1 :]), xs[i], h)
        for i in range(len(xs))
    ],
    "step_size": lambda x: EPS ** (1 / 4) * max(1.0, abs(x)),
}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(15)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("01"):
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])
        assert result.score == ex.points


ONE_SIDED = "exact on the polynomials its order promises, off by what Taylor predicts beyond"
RIGHT_ONLY = "uses no point left of x"
SECOND = "exact on low-degree polynomials, off by what Taylor predicts beyond them"
QUARTIC = "exact on low-degree polynomials"
# A phrase of each targeted hint: a mistake gets its own and no other.
HINTS = {
    "two points": "two-point quotient",
    "central": "that is the central quotient",
    "left of x": "at the edge of a domain",
    "divisor": "but not what it is divided by",
    "sign": "opposite sign",
    "weights on a line": "try your weights on f = 1",
    "first derivative": "that estimates f'(x), the first derivative",
    "off centre": "centred on x + h",
    "wide": "that uses x ± 2h",
    "single central": "a single central difference",
    "first-order weights": "cancel an error proportional to h",
    "swapped": "which of the two steps has the smaller error",
    "weights add up": "what must its weights add up to",
    "order 1": "first-order quotient's does",
    "order 2": "second-order quotient's does",
    "stays": "the error stays the same",
    "grows 4x": "the error grows 4x",
    "doubles": "the error doubles",
}


def wide(f, x, h):
    return (central_difference(f, x + h, h) - central_difference(f, x - h, h)) / (2 * h)


def richardson(w1, w2, divide):
    return lambda f, x, h: (
        (w1 * central_difference(f, x, h) + w2 * central_difference(f, x, h / 2)) / divide
    )


# (exercise, wrong answer, {failing check: the hint it must get, or None for no hint})
MISTAKES = {
    "forward difference": (
        "one_sided_difference",
        lambda f, x, h: (f(x + h) - f(x)) / h,
        {
            ONE_SIDED: "two points",
            "error shrinks 4x when h halves": "order 1",
        },
    ),
    "forward difference over 2h": (
        "one_sided_difference",
        lambda f, x, h: (f(x + 2 * h) - f(x)) / (2 * h),
        {
            ONE_SIDED: "two points",
            "error shrinks 4x when h halves": "order 1",
        },
    ),
    "central difference": (
        "one_sided_difference",
        central_difference,
        {ONE_SIDED: "central", RIGHT_ONLY: "left of x"},
    ),
    "second order, but to the left": (
        "one_sided_difference",
        lambda f, x, h: (3 * f(x) - 4 * f(x - h) + f(x - 2 * h)) / (2 * h),
        {RIGHT_ONLY: "left of x"},
    ),
    "divided by h, not 2h": (
        "one_sided_difference",
        lambda f, x, h: 2 * one_sided(f, x, h),
        {
            ONE_SIDED: "weights on a line",
            "error shrinks 4x when h halves": "stays",
        },
    ),
    "/ 2 * h": (
        "one_sided_difference",
        lambda f, x, h: (-3 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / 2 * h,
        {
            ONE_SIDED: "weights on a line",
            "error shrinks 4x when h halves": "stays",
        },
    ),
    "signs swapped": (
        "one_sided_difference",
        lambda f, x, h: -one_sided(f, x, h),
        {ONE_SIDED: "sign", "error shrinks 4x when h halves": "stays"},
    ),
    "wrong weights": (
        "one_sided_difference",
        lambda f, x, h: (-2 * f(x) + 3 * f(x + h) - f(x + 2 * h)) / (2 * h),
        {
            ONE_SIDED: "weights on a line",
            "error shrinks 4x when h halves": "stays",
        },
    ),
    "weights that miss a constant": (
        "one_sided_difference",
        lambda f, x, h: (-2 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / (2 * h),
        {
            ONE_SIDED: "weights on a line",
            "error shrinks 4x when h halves": "doubles",
        },
    ),
    "f'' without the division": (
        "second_difference",
        lambda f, x, h: f(x + h) - 2 * f(x) + f(x - h),
        {SECOND: "divisor", "error shrinks 4x when h halves": "stays"},
    ),
    "f'' over (2h)²": (
        "second_difference",
        lambda f, x, h: second(f, x, h) / 4,
        {SECOND: "divisor", "error shrinks 4x when h halves": "stays"},
    ),
    "f'' with the middle weight 1": (
        "second_difference",
        lambda f, x, h: (f(x + h) - f(x) + f(x - h)) / h**2,
        {SECOND: "weights on a line", "error shrinks 4x when h halves": "grows 4x"},
    ),
    "f'' centred on x + h": (
        "second_difference",
        lambda f, x, h: (f(x + 2 * h) - 2 * f(x + h) + f(x)) / h**2,
        {SECOND: "off centre", "error shrinks 4x when h halves": "order 1"},
    ),
    "f'' from x ± 2h": ("second_difference", wide, {SECOND: "wide"}),
    "f' for f''": (
        "second_difference",
        central_difference,
        {SECOND: "first derivative", "error shrinks 4x when h halves": "stays"},
    ),
    "f'' of the opposite sign": (
        "second_difference",
        lambda f, x, h: -second(f, x, h),
        {SECOND: "sign", "error shrinks 4x when h halves": "stays"},
    ),
    "one central difference": (
        "extrapolated_difference",
        central_difference,
        {QUARTIC: "single central", "error shrinks 16x when h halves": "order 2"},
    ),
    "first-order weights": (
        "extrapolated_difference",
        richardson(-1, 2, 1),
        {QUARTIC: "first-order weights", "error shrinks 16x when h halves": "order 2"},
    ),
    "weights on the wrong steps": (
        "extrapolated_difference",
        richardson(4, -1, 3),
        {QUARTIC: "swapped", "error shrinks 16x when h halves": "order 2"},
    ),
    "divided by 4": (
        "extrapolated_difference",
        richardson(-1, 4, 4),
        {QUARTIC: "weights add up", "error shrinks 16x when h halves": "stays"},
    ),
    "not divided": (
        "extrapolated_difference",
        richardson(-1, 4, 1),
        {QUARTIC: "weights add up", "error shrinks 16x when h halves": "stays"},
    ),
    "opposite sign": (
        "extrapolated_difference",
        richardson(1, -4, 3),
        {QUARTIC: "sign", "error shrinks 16x when h halves": "stays"},
    ),
}


@pytest.mark.parametrize("mistake", MISTAKES)
@pytest.mark.parametrize("seed", ["m1", "m2", "m3"])
def test_each_quotient_mistake_gets_its_own_hint_and_no_other(mistake, seed):
    name, wrong, failing = MISTAKES[mistake]
    result = grade(f"01.{name}", {**CORRECT, name: wrong}, seed)
    assert {c.name for c in result.checks if not c.passed} == set(failing)
    for c in result.checks:
        if c.passed:
            continue
        want = failing[c.name]
        others = [phrase for key, phrase in HINTS.items() if key != want]
        assert not any(phrase in c.hint for phrase in others), (c.name, c.hint)
        assert (HINTS[want] in c.hint) if want else c.hint == "", (c.name, c.hint)


def test_a_quotient_that_evaluates_left_of_x_is_told_where():
    result = grade("01.one_sided_difference", {"one_sided_difference": central_difference})
    (left,) = [c for c in result.checks if c.name == RIGHT_ONLY]
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
    assert result.checks[0].reason.startswith("wrong value for a polynomial of degree")
    assert result.checks[0].reason.endswith("relative error 0.001 (1e-08 allowed)")


def gradient_not_restored(f, xs, h=1e-5, back=False):
    grad = []
    for i in range(len(xs)):
        xs[i] += h
        up = f(xs)
        xs[i] -= 2 * h
        grad.append((up - f(xs)) / (2 * h))
        if back:
            xs[i] += h  # back by adding h: the float may differ in its last digits
    return grad


def gradient_one_sided(f, xs, h=1e-5):
    base = f(xs)
    return [(f(xs[:i] + [xs[i] + h] + xs[i + 1 :]) - base) / h for i in range(len(xs))]


def gradient_over_h(f, xs, h=1e-5):
    return [2 * g for g in CORRECT["numerical_gradient"](f, xs, h)]


def gradient_sign(f, xs, h=1e-5):
    return [-g for g in CORRECT["numerical_gradient"](f, xs, h)]


def gradient_n_squared(f, xs, h=1e-5):
    # recomputes every partial for every coordinate and keeps one: O(n^2) evaluations
    return [CORRECT["numerical_gradient"](f, xs, h)[i] for i in range(len(xs))]


GRADIENT_HINTS = {
    "restore": "where do the coordinates you already handled stand",
    "moved": "each coordinate ends h below where it started",
    "one-sided": "a one-sided quotient leaves an error",
    "twice": "twice the right one",
    "sign": "has the wrong sign",
}
QUADRATIC, RING = (
    "gradient of a quadratic with cross terms",
    "gradient of a non-polynomial function",
)


@pytest.mark.parametrize("seed", ["test", "other", "third", "fourth"])
@pytest.mark.parametrize(
    "wrong, failing, hints",
    [  # the mistake, the checks it fails (on any seed), the hints they give
        # (on the ring its shift shows only where a cosine is not near 0: not on every seed)
        (gradient_not_restored, {QUADRATIC, "leaves xs unchanged"}, {"restore", "moved"}),
        (gradient_one_sided, {QUADRATIC, RING}, {"one-sided"}),
        (gradient_over_h, {QUADRATIC, RING}, {"twice"}),
        (gradient_sign, {QUADRATIC, RING}, {"sign"}),
        (gradient_n_squared, {"evaluates f O(n) times"}, set()),
    ],
    ids=["not restored", "one-sided", "over h", "sign", "n squared calls"],
)
def test_each_gradient_mistake_fails_its_checks_with_its_own_hint(wrong, failing, hints, seed):
    result = grade("01.numerical_gradient", {"numerical_gradient": wrong}, seed)
    failed = failed_checks(result)
    assert failing <= failed <= failing | {RING}, [(c.name, c.reason) for c in result.checks]
    shown = {c.hint for c in result.checks if not c.passed and c.hint}
    named = {key for key, phrase in GRADIENT_HINTS.items() for h in shown if phrase in h}
    assert named == hints, shown
    assert all(c.reason for c in result.checks if not c.passed)


@pytest.mark.parametrize(
    "step, failing",
    [
        (lambda x: 1e-4 * (1 + abs(x)), set()),  # correct but different
        (lambda x: 1.5e-4 * max(1.0, abs(x)), set()),
        (
            lambda x: 1e-10,
            {"not so small that rounding error dominates", "scales with |x|", "works at x = 0"},
        ),
        # the central quotient's step: too small for a quotient that divides by h²
        (
            lambda x: EPS ** (1 / 3) * max(1.0, abs(x)),
            {"not so small that rounding error dominates", "scales with |x|", "works at x = 0"},
        ),
        (
            lambda x: 1e-2 * max(1.0, abs(x)),
            {"not so large that truncation error dominates", "scales with |x|", "works at x = 0"},
        ),
        (lambda x: EPS ** (1 / 4), {"scales with |x|"}),
        (lambda x: EPS ** (1 / 4) * abs(x), {"works at x = 0"}),
    ],
)
def test_step_size_is_graded_by_the_error_it_achieves(step, failing):
    for seed in ("a", "b", "c"):
        assert failed_checks(grade("01.step_size", {"step_size": step}, seed)) == failing


def gradient_moved_and_back(f, xs, h=1e-5):
    return gradient_not_restored(f, xs, h, back=True)


def test_a_point_moved_and_moved_back_must_come_back_exactly():
    hinted = []
    for seed in ("a", "b", "c", "d", "e", "f"):
        result = grade(
            "01.numerical_gradient", {"numerical_gradient": gradient_moved_and_back}, seed
        )
        unchanged = next(c for c in result.checks if c.name == "leaves xs unchanged")
        if not unchanged.passed:
            hinted.append("last digits" in unchanged.hint)
    assert hinted and all(hinted)  # it shows on some seeds, and always with this hint


@pytest.mark.parametrize(
    "step, hints",
    [  # only a step that does not grow hears that it must; only one that is 0 at 0, the floor
        (lambda x: EPS ** (1 / 3) * max(1.0, abs(x)), set()),
        (lambda x: 1e-2 * max(1.0, abs(x)), set()),
        (lambda x: EPS ** (1 / 4), {"must grow with |x|"}),
        (lambda x: EPS ** (1 / 4) * abs(x), {"needs a floor"}),
    ],
)
def test_the_step_size_hints_name_only_the_mistake_made(step, hints):
    result = grade("01.step_size", {"step_size": step})
    late = [c.hint for c in result.checks[2:] if not c.passed and c.hint]
    assert {p for p in ("must grow with |x|", "needs a floor") for h in late if p in h} == hints


def test_a_too_small_step_fails_with_the_rounding_error_hint():
    result = grade("01.step_size", {"step_size": lambda x: 1e-10})
    rounding = next(c for c in result.checks if c.name.startswith("not so small"))
    assert "h too small" in rounding.hint and "too small" in rounding.reason


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
    # off by 1e-3: wrong on a constant, the case that fails first, which gets the hint
    # about lines and constants; the error that no longer shrinks with h gets its own
    assert f"✘ {ONE_SIDED}" in text and "whose derivative is 0" in text
    assert "Hint: a constant's derivative is 0" in text and "Hint: the error stays the same" in text
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
        # f(*xs) instead of f(xs); a tuple back
        (
            "numerical_gradient",
            lambda f, xs, h: tuple(
                (f(*xs[:i], xs[i] + h, *xs[i + 1 :]) - f(*xs[:i], xs[i] - h, *xs[i + 1 :]))
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
