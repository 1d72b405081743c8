"""What the grader runs next to the submission for chapter10: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import numpy as np

from ..registry import Case


def _arrays(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.array(case["logits"], dtype=float),
        np.array(case["labels"], dtype=int),
        np.array(case["weight"], dtype=float),
    )


def _run_backward(functions: dict, case: Case) -> dict:
    from ...tensor.modes import no_grad

    logits, labels, weight = _arrays(case)
    given = logits.copy()
    if case["as_lists"]:
        labels, weight = labels.tolist(), weight.tolist()
    with no_grad():  # derived, not taken from the engine: autograd records nothing here
        grad = functions["weighted_cross_entropy_backward"](given, labels, weight)
    return {"grad": grad, "changed": bool(not np.array_equal(given, logits))}


def _run_classifier(functions: dict, case: Case) -> dict:
    x, x_test = (np.array(case[key], dtype=float) for key in ("X", "X_test"))
    predict = functions["train_classifier"](x, np.array(case["labels"]), case["seed"])
    return {"predicted": np.asarray(predict(x_test)).reshape(-1)}
