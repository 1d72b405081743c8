"""``nn.functional``: the layers and losses as plain functions (PyTorch's names).

>>> from micrograd_edu.nn import functional as F
>>> F.relu(Tensor([-1.0, 2.0])), F.leaky_relu(Tensor([-1.0, 2.0]), 0.1)
(tensor([0., 2.]), tensor([-0.1000,  2.0000]))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import init
from ..tensor import Tensor, apply, cross_entropy, mse_loss
from ..tensor.operation import Op

__all__ = [
    "relu",
    "leaky_relu",
    "tanh",
    "sigmoid",
    "softmax",
    "log_softmax",
    "linear",
    "dropout",
    "mse_loss",
    "cross_entropy",
    "LINEAR",
]


def _linear_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    if x.shape[-1:] != w.shape[1:]:  # checked here, where the arrays are at hand
        raise ValueError(
            f"Linear(in_features={w.shape[1]}): the input's last dimension must equal "
            f"in_features, got shape {x.shape}"
        )
    y = x @ w.T
    return y if b is None else y + b


def _linear_vjp(g: Any, out: Any, xs: tuple, needs: tuple) -> tuple:
    # The closed forms of the linear-layer lesson, with rows as samples:
    # dL/dX = G·W, dL/dW = Gᵀ·X, dL/db = the sum of G's rows.
    x, w = xs[0], xs[1]
    if g.ndim != 2:  # any leading axes are more rows
        g2, x2 = g.reshape(-1, w.shape[0]), x.reshape(-1, w.shape[1])
    else:
        g2, x2 = g, x
    gx = g @ w if needs[0] else None
    gw = g2.T @ x2 if needs[1] else None
    if len(xs) == 2:
        return gx, gw
    return gx, gw, (g2.sum(axis=0) if needs[2] else None)


def _linear_saves(needs: tuple) -> tuple:
    return (needs[1], needs[0]) + (False,) * (len(needs) - 2)


# One graph node per layer instead of three (transpose, matmul, add): a deep
# network's step costs mostly per-node overhead, and the node's backward is
# exactly the formula the course derives.
LINEAR = Op("linear", _linear_forward, _linear_vjp, _linear_saves, fresh=True)


def relu(x: Tensor) -> Tensor:
    """max(x, 0), elementwise."""
    return x.relu()


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x where x > 0, ``negative_slope`` · x elsewhere."""
    return x.where(x > 0, x * negative_slope)


def tanh(x: Tensor) -> Tensor:
    """tanh(x), elementwise."""
    return x.tanh()


def sigmoid(x: Tensor) -> Tensor:
    """1 / (1 + e^(−x)), elementwise."""
    return x.sigmoid()


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``."""
    return x.softmax(dim)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """log(softmax(x)) along ``dim``."""
    return x.log_softmax(dim)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x Wᵀ + b with ``weight`` of shape (out, in), one graph node."""
    return apply(LINEAR, x, weight) if bias is None else apply(LINEAR, x, weight, bias)


def dropout(x: Tensor, p: float = 0.5, training: bool = True, *, generator: Any = None) -> Tensor:
    """Zero each entry with probability ``p`` and scale the rest by 1/(1 - p) while
    ``training``; the identity otherwise."""
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    keep = (init.as_generator(generator).random(x.shape) >= p).astype(x.dtype)
    return x * (keep / (1.0 - p))
