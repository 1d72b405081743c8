"""What the grader runs next to the submission for chapter09: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..registry import Case
from .networks import read_network


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


@contextmanager
def _training_counted() -> Iterator[dict[str, int]]:
    """Count, while the student's training runs, the backward passes and the times the
    gradients were cleared (zero_grad, or .grad set to None or zeros): the method, seen."""
    from ...optim import Optimizer
    from ...tensor import Tensor

    counts = {"backward": 0, "cleared": 0}
    backward, grad = Tensor.backward, Tensor.grad

    def counted_backward(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        counts["backward"] += 1
        return backward(self, *args, **kwargs)

    def set_grad(self: Tensor, value: Any) -> None:
        if value is None or not np.any(np.asarray(getattr(value, "data", value))):
            counts["cleared"] += 1
        grad.fset(self, value)

    zero_grad = Optimizer.zero_grad

    def counted_zero_grad(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        counts["cleared"] += 1
        return zero_grad(self, *args, **kwargs)

    Tensor.backward, Tensor.grad = counted_backward, property(grad.fget, set_grad)
    Optimizer.zero_grad = counted_zero_grad
    try:
        yield counts
    finally:
        Tensor.backward, Tensor.grad, Optimizer.zero_grad = backward, grad, zero_grad


_TRAINED: dict[tuple, dict] = {}  # the last training observed, for the check that repeats it


def _train(functions: dict, case: Case) -> dict:
    x, y = (np.array(case[key], dtype=float) for key in ("x", "y"))
    with _training_counted() as counts:
        network = functions["train_model"](x, y, case["seed"])
    return {**read_network(network), **counts}


def _key(functions: dict, case: Case) -> tuple:
    return (functions["train_model"], case["seed"], str(case["x"][:3]), str(case["y"][:3]))


def _run_train(functions: dict, case: Case) -> dict:
    _TRAINED.clear()
    _TRAINED[_key(functions, case)] = seen = _train(functions, case)
    return dict(seen)


def _run_retrain(functions: dict, case: Case) -> dict:
    """The case's training (the one an earlier check observed, when it did), and the same
    call again: both networks, the second under keys that begin with ``again.``."""
    first = _TRAINED.get(_key(functions, case)) or _train(functions, case)
    again = _train(functions, case)
    return {**first, **{f"again.{key}": value for key, value in again.items()}}
