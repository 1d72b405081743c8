"""What the grader runs next to the submission for chapter01_gradient: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py): the function the gradient is taken of is the
grader's, evaluated in its process at each call (see served.py)."""

from __future__ import annotations

from ..registry import Case
from .served import remote


def _run_gradient(functions: dict, case: Case) -> dict:
    xs = list(case["xs"])
    grad = functions["numerical_gradient"](remote(case, len(xs)), xs, case.get("h", 1e-5))
    return {"grad": grad, "xs_after": xs}


def _run_step(functions: dict, case: Case) -> dict:
    return {"h": functions["step_size"](case["x"])}
