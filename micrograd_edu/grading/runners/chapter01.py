"""What the grader runs next to the submission for chapter01: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from ..registry import Case, runner_factory

# Smooth functions (what the student's code evaluates) and, for the judges only, their
# derivatives in closed form.
SMOOTH: dict[str, Callable[[float], float]] = {
    "sin": math.sin,
    "exp": math.exp,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "atan": math.atan,
    "log": math.log,
    "pow2.5": lambda x: x**2.5,
    "sqrt": math.sqrt,
    "exp∘sin": lambda x: math.exp(math.sin(x)),
}


def _polynomial(coefficients: list[float]) -> Callable[[float], float]:
    """The polynomial sum(c[k] * x**k), Horner's way."""

    def p(x: float) -> float:
        total = 0.0
        for c in reversed(coefficients):
            total = total * x + c
        return total

    return p


def _function(case: Case) -> Callable[[float], float]:
    """The case's function: a smooth one by name, or a polynomial (nan left of x when
    the case says f is defined only from x on, as √t is from 0)."""
    if "f" in case:
        return SMOOTH[case["f"]]
    p, x = _polynomial(case["coefficients"]), case["x"]
    if case.get("right_only"):
        return lambda t: p(t) if t >= x else math.nan
    return p


def _recorded(f: Callable[[float], float], x: float, h: float, offsets: set) -> Callable:
    """``f``, noting where it is evaluated, in steps of h from x (for the hints: a
    quotient that evaluates f at x + 3h says so)."""

    def g(t: float) -> float:
        if not isinstance(t, numbers.Real):  # a dual number, a Value: f's derivative, not f
            raise TypeError(
                f"f takes a number, not {type(t).__name__}: a difference quotient evaluates "
                "f at numbers"
            )
        try:
            offsets.add(round((float(t) - x) / h, 3))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            pass
        return f(t)

    return g


@runner_factory
def _run_quotient(name: str) -> Callable[[dict, Case], dict]:
    def run(functions: dict, case: Case) -> dict:
        offsets: set[float] = set()
        f = _recorded(_function(case), case["x"], case["h"], offsets)
        return {"value": functions[name](f, case["x"], case["h"]), "offsets": sorted(offsets)}

    return run


@runner_factory
def _run_halving(name: str) -> Callable[[dict, Case], dict]:
    """``name`` at h and at h / 2: how much the error shrinks is the method's order."""

    def run(fns: dict, case: Case) -> dict:
        f, x, h, offsets = SMOOTH[case["f"]], case["x"], case["h"], set()
        coarse = fns[name](_recorded(f, x, h, offsets), x, h)
        fine = fns[name](_recorded(f, x, h / 2, offsets), x, h / 2)
        return {"coarse": coarse, "fine": fine, "offsets": sorted(offsets)}

    return run
