"""What the grader runs next to the submission for chapter01_gradient: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..counting import Counted
from ..registry import Case


def _one_vector(f: Callable[[Any], float]) -> Callable[..., float]:
    """``f`` of one vector, callable as ``f(xs)`` (as the exercise says) or ``f(*xs)`` (as
    micrograd_edu.numerical.gradient calls it)."""

    def call(*args: Any) -> float:
        try:
            xs = args[0] if len(args) == 1 and len(args[0]) >= 0 else args
        except TypeError:  # one number: f(x) of one variable
            xs = args
        return f(xs)

    return call


def _quadratic(case: Case) -> Callable[[Any], float]:
    a, b, n = case["A"], case["b"], len(case["b"])

    def f(x: Any) -> float:
        return sum(0.5 * a[i][j] * x[i] * x[j] for i in range(n) for j in range(n)) + sum(
            b[i] * x[i] for i in range(n)
        )

    return f


def _ring(x: Any) -> float:
    n = len(x)
    return sum(math.sin(x[i]) * x[(i + 1) % n] for i in range(n))


def _run_gradient(functions: dict, case: Case) -> dict:
    f = Counted(_one_vector(_ring if case["ring"] else _quadratic(case)))
    xs = list(case["xs"])
    grad = functions["numerical_gradient"](f, xs, 1e-5)
    return {"grad": grad, "xs_after": xs, "calls": f.calls}


def _run_step(functions: dict, case: Case) -> dict:
    return {"h": functions["step_size"](case["x"])}
