"""Chapter 01's exercises 1-3: forward, central and extrapolated differences.

Every oracle here is a closed form, never a finite difference computed the
way the solution computes it: the exact difference quotients of polynomials,
the derivatives of ``exp``/``sinh``/... and the error ratios a forward,
central or extrapolated difference must show when ``h`` is halved.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from .plain import as_float, close, describe
from .references import central_quotient
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter01 import _function, _run_halving, _run_quotient

# The package's own answers to this chapter; the batch grader withholds them.
WITHHELD = (
    "micrograd_edu.numerical.forward_difference",
    "micrograd_edu.numerical.backward_difference",
    "micrograd_edu.numerical.central_difference",
    "micrograd_edu.numerical.gradient",
    "micrograd_edu.numerical.jacobian",
    "micrograd_edu.grading.references.central_quotient",
)

DERIVATIVES: dict[str, Callable[[float], float]] = {
    "sin": math.cos,
    "exp": math.exp,
    "sinh": math.cosh,
    "cosh": math.sinh,
    "tanh": lambda x: 1.0 - math.tanh(x) ** 2,
    "atan": lambda x: 1.0 / (1.0 + x * x),
    "log": lambda x: 1.0 / x,
    "pow2.5": lambda x: 2.5 * x**1.5,
    "sqrt": lambda x: 0.5 / math.sqrt(x),
    "exp∘sin": lambda x: math.cos(x) * math.exp(math.sin(x)),
}


def number_in(seen: dict[str, Any], key: str) -> tuple[float | None, str | None]:
    """The number observed under ``key``, or the reason it is not one."""
    value = as_float(seen.get(key))
    if value is None:
        return None, f"returned {describe(seen.get(key))} where a number was expected"
    return value, None


# --- the quotient exercises: forward, central, extrapolated -----------------


def _exact_cases(degree: int, h_range: tuple[float, float]) -> Callable[[random.Random], list]:
    def cases(rng: random.Random) -> list[Case]:
        return [
            {
                "coefficients": [rng.uniform(-2, 2) for _ in range(degree + 1)],
                "x": rng.uniform(-2, 2),
                "h": rng.uniform(*h_range),
            }
            for _ in range(4)
        ]

    return cases


def _judge_exact(exact: Callable[[list[float], float, float], float]) -> Callable:
    def judge(case: Case, seen: dict) -> str | None:
        got, problem = number_in(seen, "value")
        if problem:
            return problem
        want = exact(case["coefficients"], case["x"], case["h"])
        if close(got, want, 1e-8, 1e-8):
            return None
        degree = len(case["coefficients"]) - 1
        return (
            f"wrong value for a degree-{degree} polynomial at x={case['x']:.3g}, h={case['h']:.3g}"
        )

    return judge


def _quotient_is(model: Callable[[Callable[[float], float], float, float], float]) -> Callable:
    """A mistake whose quotient on the case's polynomial p is ``model(p, x, h)``."""

    def matches(case: Case, seen: dict) -> bool:
        got = as_float(seen.get("value"))
        want = model(_function(case), case["x"], case["h"])
        return got is not None and close(got, want, 1e-8, 1e-8)

    return matches


_OPPOSITE_SIGN = Mistake(
    _quotient_is(lambda p, x, h: (p(x - h) - p(x + h)) / (2 * h)),
    "it has the opposite sign: the difference runs from the point on the left to the one "
    "on the right, or the other way?",
)
FORWARD_MISTAKES = (
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + h) - p(x - h)) / (2 * h)),
        "that is the quotient over both sides of x; this one steps forward from x only",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: (p(x) - p(x - h)) / h),
        "that quotient steps backward from x; this one steps forward",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + h) - p(x)) / (2 * h)),
        "it is half the quotient: how far apart are the two points you evaluate?",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: p(x + h) - p(x) / h),
        "only the second value is divided: without parentheses, / binds before -",
    ),
)
CENTRAL_MISTAKES = (
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + h) - p(x - h)) / h),
        "it is twice the quotient: how far apart are the two points you evaluate?",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + h) - p(x - h)) / 2 * h),
        "it is h² times the quotient: without parentheses, a / 2 * h divides by 2 and then "
        "multiplies by h",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + h) - p(x)) / h),
        "that is a one-sided quotient; this one uses a point on each side of x",
    ),
    _OPPOSITE_SIGN,
)


def _forward_cubic(c: list[float], x: float, h: float) -> float:
    # ((x+h)^k - x^k) / h expanded for k = 1, 2, 3
    return c[1] + c[2] * (2 * x + h) + c[3] * (3 * x * x + 3 * x * h + h * h)


def _central_cubic(c: list[float], x: float, h: float) -> float:
    return c[1] + 2 * c[2] * x + c[3] * (3 * x * x + h * h)


def _quartic_derivative(c: list[float], x: float, h: float) -> float:
    return c[1] + 2 * c[2] * x + 3 * c[3] * x**2 + 4 * c[4] * x**3


def _error_ratio(case: Case, seen: dict) -> float | None:
    """How many times smaller the error got when h was halved (None: not numbers)."""
    coarse, fine = as_float(seen.get("coarse")), as_float(seen.get("fine"))
    if coarse is None or fine is None:
        return None
    exact = DERIVATIVES[case["f"]](case["x"])
    before, after = abs(coarse - exact), abs(fine - exact)
    return before / after if after else math.inf


def _ratio_near(ratio: float) -> Callable[[Case, dict], bool]:
    def matches(case: Case, seen: dict) -> bool:
        found = _error_ratio(case, seen)
        return found is not None and math.isfinite(found) and 0.75 < found / ratio < 1.3

    return matches


# What the error's response to halving h says about the quotient that was computed.
_RATIO_MISTAKES = {
    1: "the error stays the same when h halves: part of it does not come from the step "
    "(a constant added, or a step other than the h you were given?)",
    2: "the error halves with h, as a one-sided quotient's does",
    4: "the error falls 4x when h halves, as a quotient over both sides of x does",
    16: "the error falls 16x when h halves, as an extrapolated quotient's does",
}


def _order_check(name: str, functions: tuple[str, ...], h: float, ratio: float) -> Check:
    """Halving h must divide the error by ``ratio`` (2, 4, 16): the order of the method."""

    def cases(rng: random.Random) -> list[Case]:
        return [{"f": f, "x": rng.uniform(-2, 2), "h": h} for f in functions]

    def judge(case: Case, seen: dict) -> str | None:
        coarse, problem = number_in(seen, "coarse")
        fine, problem2 = number_in(seen, "fine")
        if problem or problem2:
            return problem or problem2
        found = _error_ratio(case, seen)
        if found is not None and math.isfinite(found) and 0.75 < found / ratio < 1.3:
            return None
        return (
            f"halving h (from {case['h']:g}) should divide the error by about {ratio:g} "
            f"for {case['f']} at x={case['x']:.3g}; yours changed it by a factor {found:.3g}"
        )

    mistakes = tuple(
        Mistake(_ratio_near(r), hint) for r, hint in _RATIO_MISTAKES.items() if r != ratio
    )
    return Check(
        f"error shrinks {ratio:g}x when h halves",
        "",
        cases,
        _run_halving(name),
        judge,
        mistakes=mistakes,
    )


FORWARD = register(
    Exercise(
        "01.forward_difference",
        "Forward difference",
        1,
        "forward_difference(f, x, h) returns (f(x + h) - f(x)) / h.",
        ("forward_difference",),
        (
            Check(
                "the quotient itself, on a cubic (against its closed form)",
                "",
                _exact_cases(3, (0.05, 0.5)),
                _run_quotient("forward_difference"),
                _judge_exact(_forward_cubic),
                mistakes=FORWARD_MISTAKES,
            ),
            _order_check(
                "forward_difference",
                ("exp", "cosh"),
                1e-3,
                2,
            ),
        ),
        withheld=WITHHELD,
    )
)


CENTRAL = register(
    Exercise(
        "01.central_difference",
        "Central difference",
        2,
        "central_difference(f, x, h) returns (f(x + h) - f(x - h)) / (2h).",
        ("central_difference",),
        (
            Check(
                "the quotient itself, on a cubic (against its closed form)",
                "",
                _exact_cases(3, (0.05, 0.5)),
                _run_quotient("central_difference"),
                _judge_exact(_central_cubic),
                mistakes=CENTRAL_MISTAKES,
            ),
            _order_check(
                "central_difference",
                ("exp", "sinh"),
                1e-2,
                4,
            ),
        ),
        withheld=WITHHELD,
    )
)

RICHARDSON = register(
    Exercise(
        "01.extrapolated_difference",
        "Richardson extrapolation",
        2,
        "extrapolated_difference(f, x, h) returns (4 D(h/2) - D(h)) / 3, "
        "D being central_difference(f, x, ·).",
        ("extrapolated_difference",),
        (
            Check(
                "exact derivative of a quartic",
                "weigh the two central differences 4 and -1, then divide by 3, "
                "so their h² errors cancel",
                _exact_cases(4, (0.1, 1.0)),
                _run_quotient("extrapolated_difference"),
                _judge_exact(_quartic_derivative),
            ),
            _order_check(
                "extrapolated_difference",
                ("exp", "sinh"),
                0.2,
                16,
            ),
        ),
        requires={"central_difference": central_quotient},
        withheld=WITHHELD,
    )
)
