"""The grader's own forward pass of a network a submission trained (chapters 09 and 10).

``runners/networks.py`` reads the network the student's function returned into plain
layers; :func:`forward` runs them here, with numpy, on inputs the submission never saw.
The prediction that is graded is this one: it cannot come from anything but the
network's numbers.

>>> layers = [["Linear", [[2.0]], [1.0]], ["ReLU"]]
>>> forward({"layers": layers}, np.array([[-1.0], [3.0]]))
array([[0.],
       [7.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .plain import describe

__all__ = ["forward", "network_problem", "same_network", "only_linear", "untrained"]


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


_ACTIVATIONS = {
    "ReLU": lambda x: np.maximum(x, 0.0),
    "Tanh": np.tanh,
    "Sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "Identity": lambda x: x,
    "LeakyReLU": lambda x, slope: np.where(x > 0, x, slope * x),
    "Softmax": lambda x, dim: _softmax(x, int(dim)),
    "LogSoftmax": lambda x, dim: np.log(_softmax(x, int(dim))),
}


def network_problem(seen: Any, inputs: int) -> str | None:
    """Why ``seen`` is not a network the grader can run on rows of ``inputs`` numbers, or
    ``None``."""
    if not isinstance(seen, dict) or "not_a_network" in seen:
        found = seen.get("not_a_network") if isinstance(seen, dict) else describe(seen)
        return (
            f"it returned {found!s}, which the grader does not read: it runs the numbers of "
            "an nn.Sequential of nn.Linear, activation, Dropout and BatchNorm1d layers itself "
            "(a module's own forward could compute anything): return your trained layers in "
            "one, or (network, centre, scale) when you standardised the inputs"
        )
    layers = seen.get("layers")
    if not isinstance(layers, list) or not layers:
        return "it returned a network without layers"
    width = inputs
    for layer in layers:
        if not isinstance(layer, list) or not layer:
            return "it returned a network the grader could not read"
        if layer[0] == "Linear":
            weight = np.array(layer[1], dtype=float)
            if weight.ndim != 2 or weight.shape[1] != width:
                return (
                    f"a Linear layer takes {weight.shape[-1] if weight.ndim else '?'} inputs "
                    f"where {width} arrive"
                )
            width = weight.shape[0]
        elif layer[0] == "Scale":
            if np.size(layer[1]) != width:
                return f"a BatchNorm1d layer takes {np.size(layer[1])} inputs where {width} arrive"
        elif layer[0] not in _ACTIVATIONS:
            return f"it returned a layer the grader does not know ({layer[0]})"
    if "centre" in seen and not all(_fits_a_row(s, inputs) for s in _shapes(seen)):
        return (
            f"the centre and scale must each be one number, or one number per input ({inputs}): "
            f"they must fit a row of {inputs} inputs, as (x - centre) / scale does; they have "
            f"shapes {', '.join(str(tuple(s)) for s in _shapes(seen))}"
        )
    if "centre" in seen:
        scale = np.array(seen["scale"], dtype=float).reshape(-1)
        zero = np.flatnonzero(~(np.abs(scale) > 0) | ~np.isfinite(scale))
        if zero.size:
            some = ", ".join(map(str, zero[:5])) + (", ..." if zero.size > 5 else "")
            return (
                f"the scale is 0 (or not a number) for {zero.size} of the {inputs} inputs "
                f"({some}): (x - centre) / scale is then inf or nan for every new row. An "
                "input whose spread in the training data is 0 (a pixel that is always blank) "
                "has such a scale"
            )
    return None


def _shapes(seen: dict) -> list:
    """The centre's and scale's shapes (a network read before they were kept: as read)."""
    return seen.get("shapes") or [[np.size(seen["centre"])], [np.size(seen["scale"])]]


def _fits_a_row(shape: Any, inputs: int) -> bool:
    """Whether an array of ``shape`` broadcasts against a row of ``inputs`` numbers, as one
    number or one per input: (), (1,), (inputs,), (1, inputs).

    >>> [_fits_a_row(s, 64) for s in [[], [1], [64], [1, 64], [64, 1], [2, 32]]]
    [True, True, True, True, False, False]
    """
    shape = [int(n) for n in shape]
    return all(n == 1 for n in shape[:-1]) and (not shape or shape[-1] in (1, inputs))


def forward(seen: dict, x: np.ndarray) -> np.ndarray:
    """The network's output for the rows of ``x`` (check :func:`network_problem` first)."""
    h = np.asarray(x, dtype=float)
    if "centre" in seen:
        h = (h - np.array(seen["centre"])) / np.array(seen["scale"])
    with np.errstate(all="ignore"):  # a diverged network's inf and nan are judged, not raised
        for kind, *params in seen["layers"]:
            if kind == "Linear":
                h = h @ np.array(params[0], dtype=float).T
                if params[1] is not None:
                    h = h + np.array(params[1], dtype=float)
            elif kind == "Scale":  # a BatchNorm1d as in eval()
                h = h * np.array(params[0], dtype=float) + np.array(params[1], dtype=float)
            else:
                h = _ACTIVATIONS[kind](h, *params)
    return h


def same_network(a: Any, b: Any) -> bool:
    """Whether two reported networks hold the same layers and numbers (to rounding)."""
    if not (isinstance(a, dict) and isinstance(b, dict)) or "layers" not in a or "layers" not in b:
        return False
    if len(a["layers"]) != len(b["layers"]) or ("centre" in a) != ("centre" in b):
        return False
    for one, other in zip(a["layers"], b["layers"], strict=True):
        if one[0] != other[0] or len(one) != len(other):
            return False
        for p, q in zip(one[1:], other[1:], strict=True):
            if (p is None) != (q is None) or (
                p is not None and (np.shape(p) != np.shape(q) or not np.allclose(p, q, 1e-9, 1e-12))
            ):
                return False
    if "centre" in a:
        return bool(np.allclose(a["centre"], b["centre"]) and np.allclose(a["scale"], b["scale"]))
    return True


def only_linear(seen: Any) -> bool:
    """Whether a readable network has no activation between its layers (a stack of linear
    layers is one linear function)."""
    layers = seen.get("layers") if isinstance(seen, dict) else None
    if not isinstance(layers, list) or not layers:
        return False
    kinds = {layer[0] for layer in layers if isinstance(layer, list) and layer}
    return kinds <= {"Linear", "Identity", "Scale"}


# How far, relative to their size, the gradient steps must have moved the network's numbers
# from where the first backward pass saw them: honest trainings move them by 0.3 to 0.8; a
# network set by hand and given token steps (lr=1e-12) by nothing
MOVED = 0.02


def untrained(seen: Any, reached: str) -> str | None:
    """Why a network that ``reached`` its target still earns nothing: no backward pass ran
    while the student's function made it, or the gradient steps hardly moved it (its numbers
    came from elsewhere: a closed-form fit, weights set by hand), or ``None``. The exercise
    is the training loop.

    >>> untrained({"backward": 0}, "held-out MSE 0.02")[:40]
    'held-out MSE 0.02, but no backward pass '
    >>> untrained({"backward": 3, "moved": 1e-12}, "held-out MSE 0.02")[19:57]
    'but the gradient steps barely moved it'
    >>> untrained({"backward": 120, "moved": 0.5}, "held-out MSE 0.02") is None
    True
    """
    if not isinstance(seen, dict):
        return None
    if seen.get("backward", 0) == 0:
        return (
            f"{reached}, but no backward pass ran while your function made the network: "
            "its numbers must come from the gradient steps of the loop you write"
        )
    if seen.get("moved", 1.0) < MOVED:
        return (
            f"{reached}, but the gradient steps barely moved it: its numbers differ by "
            f"{seen['moved']:.2g} of their size from where the first backward pass saw them. "
            "They must come from the gradient steps of the loop you write, starting from "
            "the layers' own initial weights"
        )
    return None
