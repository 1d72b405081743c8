"""What the grader runs next to the submission for chapter01: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import math
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


@runner_factory
def _run_quotient(name: str) -> Callable[[dict, Case], dict]:
    def run(functions: dict, case: Case) -> dict:
        return {"value": functions[name](_function(case), case["x"], case["h"])}

    return run


@runner_factory
def _run_halving(name: str) -> Callable[[dict, Case], dict]:
    """``name`` at h and at h / 2: how much the error shrinks is the method's order."""

    def run(fns: dict, case: Case) -> dict:
        f, x = SMOOTH[case["f"]], case["x"]
        return {"coarse": fns[name](f, x, case["h"]), "fine": fns[name](f, x, case["h"] / 2)}

    return run
