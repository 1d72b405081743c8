"""What the grader runs next to the submission for chapter07: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import numpy as np

from ..registry import Case, runner_factory

_NAMES = ("X", "W", "b", "dY")


def _arrays(case: Case) -> list[np.ndarray]:
    return [np.array(case[name], dtype=float) for name in _NAMES]


def _run_jacobian(functions: dict, case: Case) -> dict:
    x, w, _, _ = _arrays(case)
    return {"value": functions["linear_jacobian"](x, w)}


@runner_factory
def _run_backward(name: str):
    def run(functions: dict, case: Case) -> dict:
        x, w, b, dy = _arrays(case)
        if name == "torch_linear_backward":
            w = np.ascontiguousarray(w.T)  # PyTorch's layout: (out_features, in_features)
        answer = functions[name](x, w, b, dy)
        if not isinstance(answer, (tuple, list)) or len(answer) != 3:
            return {"triple": False}
        return {"triple": True, "dX": answer[0], "dW": answer[1], "db": answer[2]}

    return run
