"""What the grader runs next to the submission for chapter09: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import numpy as np

from ..registry import Case


def _run_batches(functions: dict, case: Case) -> dict:
    rng = np.random.default_rng(case["seed"])
    epochs = [functions["minibatch_indices"](case["n"], case["batch_size"], rng) for _ in range(2)]
    # a second generator in the first one's starting state: its epoch must be the same
    again = functions["minibatch_indices"](
        case["n"], case["batch_size"], np.random.default_rng(case["seed"])
    )
    return {
        f"epoch{k}": [np.asarray(batch).reshape(-1).tolist() for batch in batches]
        for k, batches in enumerate([*epochs, again])
    }


def _features(case: Case) -> np.ndarray:
    """The case's X: uniform in [-1, 1], each column on its own scale (not secret)."""
    rng = np.random.default_rng(case["seed"])
    return rng.uniform(-1, 1, size=(case["n"], len(case["scales"]))) * np.array(case["scales"])


def _run_linear(functions: dict, case: Case) -> dict:
    x, y = _features(case), np.array(case["y"])
    y = y[:, None] if case["column"] else y
    given = [x.copy(), y.copy()]
    beta_hat = functions["fit_linear"](*given)
    changed = [
        n for n, a, g in zip(("X", "y"), (x, y), given, strict=True) if not np.array_equal(a, g)
    ]
    return {"beta": np.asarray(beta_hat, dtype=float), "changed": changed}
