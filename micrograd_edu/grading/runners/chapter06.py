"""What the grader runs next to the submission for chapter06: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import numpy as np

from ..registry import Case
from .arrays import as_array


def _run_unbroadcast(functions: dict, case: Case) -> dict:
    grad = np.array(case["grad"], dtype=float)
    return {"value": as_array(functions["unbroadcast"](grad, tuple(case["shape"])))}


def _run_matmul(functions: dict, case: Case) -> dict:
    a, b, dc = (np.array(case[key], dtype=float) for key in ("A", "B", "dC"))
    answer = functions["matmul_backward"](a, b, dc)
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return {"pair": False}
    return {"pair": True, "dA": as_array(answer[0]), "dB": as_array(answer[1])}


def _run_quadratic(functions: dict, case: Case) -> dict:
    a, x = np.array(case["A"], dtype=float), np.array(case["x"], dtype=float)
    return {"value": as_array(functions["quadratic_form_grad"](a, x))}
