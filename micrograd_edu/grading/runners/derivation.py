"""What the grader runs next to the submission for the backward passes a student derives
(chapter 07's three, chapter 10's weighted cross-entropy): it builds the inputs from a
case and calls the student's function, with autograd recording nothing. No answer,
oracle or expected value lives here (see runners/__init__.py).

A case is small (its arrays as plain data, the answer read back whole) or large (a
``seed`` from which both sides draw the same arrays of realistic size; the answer is
read back along a few random directions, its shape aside, and the call must end within
``LARGE_SECONDS``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...tensor.modes import no_grad
from ..registry import Case, runner_factory
from ..time_limit import TimeLimitExceeded, time_limit
from .arrays import as_array

LARGE_SECONDS = 3.0  # far above what a derived backward takes, far below a per-entry method
PROJECTIONS = 3  # random directions a large answer is read along

# Each exercise: the function's name, its inputs' names, its outputs' names.
SOFTMAX = ("softmax_cross_entropy_backward", ("logits", "labels"), ("grad",))
WEIGHTED = ("weighted_cross_entropy_backward", ("logits", "labels", "weight"), ("grad",))
LAYER = ("relu_layer_backward", ("X", "W", "b", "dA"), ("dX", "dW", "db"))
NETWORK = (
    "two_layer_backward",
    ("X", "labels", "W1", "b1", "W2", "b2"),
    ("dW1", "db1", "dW2", "db2"),
)
# The large cases' sizes: rows, then inputs, hidden units, classes as each needs.
LARGE = {
    SOFTMAX[0]: (2000, 100),
    WEIGHTED[0]: (2000, 100),
    LAYER[0]: (512, 256, 128),
    NETWORK[0]: (512, 256, 128, 10),
}
EXERCISES = (SOFTMAX, WEIGHTED, LAYER, NETWORK)


def large_inputs(name: str, seed: int) -> dict[str, np.ndarray]:
    """A large case's inputs, drawn from its seed (not a secret: they reach the student's
    function anyway)."""
    rng = np.random.default_rng(seed)
    if name in (SOFTMAX[0], WEIGHTED[0]):
        rows, classes = LARGE[name]
        logits, labels = rng.normal(0, 3, (rows, classes)), rng.integers(0, classes, rows)
        weight = {"weight": rng.uniform(0.2, 3.0, classes)} if name == WEIGHTED[0] else {}
        return {"logits": logits, "labels": labels, **weight}
    if name == LAYER[0]:
        rows, inputs, units = LARGE[name]
        return {
            "X": rng.normal(size=(rows, inputs)),
            "W": rng.normal(size=(inputs, units)) / np.sqrt(inputs),
            "b": rng.normal(size=units) * 0.1,
            "dA": rng.normal(size=(rows, units)),
        }
    rows, inputs, hidden, classes = LARGE[name]
    return {
        "X": rng.normal(size=(rows, inputs)),
        "labels": rng.integers(0, classes, rows),
        "W1": rng.normal(size=(inputs, hidden)) / np.sqrt(inputs),
        "b1": rng.normal(size=hidden) * 0.1,
        "W2": rng.normal(size=(hidden, classes)) / np.sqrt(hidden),
        "b2": rng.normal(size=classes) * 0.1,
    }


def directions(seed: int, size: int) -> np.ndarray:
    """The random directions (rows) a large answer of ``size`` numbers is read along."""
    return np.random.default_rng([seed, size]).normal(size=(PROJECTIONS, size))


def inputs(name: str, names: tuple[str, ...], case: Case) -> dict[str, Any]:
    """The case's inputs as the student's function gets them: float arrays, integer
    labels (labels and class weights as lists where the case says so)."""
    if "seed" in case:
        return large_inputs(name, case["seed"])
    given: dict[str, Any] = {}
    for key in names:
        given[key] = np.array(case[key], dtype=int if key == "labels" else float)
        if key in ("labels", "weight") and case.get("as_list"):
            given[key] = given[key].tolist()
    return given


def _read(case: Case, outputs: tuple[str, ...], answer: Any) -> dict:
    """The answer, whole (small cases), or each part's shape and its readings along random
    directions as ``part.shape`` and ``part.read`` (large ones)."""
    if len(outputs) > 1 and (not isinstance(answer, (tuple, list)) or len(answer) != len(outputs)):
        length = len(answer) if isinstance(answer, (tuple, list)) else None
        return {"parts": False, "length": length, "kind": type(answer).__name__}
    parts = dict(zip(outputs, answer if len(outputs) > 1 else [answer], strict=True))
    parts = {k: as_array(v) for k, v in parts.items()}
    if "seed" not in case:
        return parts
    seen: dict[str, Any] = {}  # flat: an observation's values are plain data, not dicts
    for key, value in parts.items():
        if isinstance(value, np.ndarray):
            seen[f"{key}.shape"] = list(value.shape)
            seen[f"{key}.read"] = (
                directions(case["seed"], value.size) @ value.reshape(-1)
            ).tolist()
    return seen


@runner_factory
def run_backward(name: str) -> Any:
    """The runner of the exercise whose function is ``name``."""
    (names, outputs) = next((i, o) for n, i, o in EXERCISES if n == name)

    def run(functions: dict, case: Case) -> dict:
        given = inputs(name, names, case)
        kept = {k: np.array(v, copy=True) for k, v in given.items()}
        try:  # derived, not taken from the engine: autograd records nothing here
            with time_limit(LARGE_SECONDS if "seed" in case else None, cpu=True), no_grad():
                answer = functions[name](*given.values())
        except TimeLimitExceeded:
            return {"too_slow": LARGE_SECONDS}
        changed = [k for k in names if not np.array_equal(np.asarray(given[k]), kept[k])]
        return {**_read(case, outputs, answer), "changed": changed}

    return run
