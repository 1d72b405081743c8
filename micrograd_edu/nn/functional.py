"""``nn.functional``: the layers and losses as plain functions (PyTorch's names).

>>> from micrograd_edu.nn import functional as F
>>> F.relu(Tensor([-1.0, 2.0])), F.leaky_relu(Tensor([-1.0, 2.0]), 0.1)
(tensor([0., 2.]), tensor([-0.1000,  2.0000]))
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import init
from ..tensor import Tensor, apply
from ..tensor.elementwise import TIED
from ..tensor.modes import no_grad
from ..tensor.operation import Op
from .loss_functions import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    floats_only,
    l1_loss,
    log_sigmoid,
    mse_loss,
    nll_loss,
)

__all__ = [
    "relu",
    "leaky_relu",
    "tanh",
    "sigmoid",
    "log_sigmoid",
    "softmax",
    "log_softmax",
    "one_hot",
    "linear",
    "dropout",
    "batch_norm",
    "mse_loss",
    "l1_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "LINEAR",
    "LEAKY_RELU",
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


def _result(input: Tensor, out: Tensor, inplace: bool) -> Tensor:  # noqa: A002
    """``out``, or with ``inplace`` ``input`` overwritten by it (PyTorch's in-place form: the
    engine then checks the change as for any in-place operation)."""
    if not inplace:
        return out
    input.copy_(out)
    return input


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """max(x, 0), elementwise."""
    return _result(input, input.relu(), inplace)


def _leaky_relu_forward(x: np.ndarray, slope: float) -> np.ndarray:
    return np.where(x > 0, x, x * slope)


def _leaky_relu_vjp(g: Any, out: Any, xs: tuple, needs: tuple, slope: float) -> tuple:
    x = xs[0]
    if isinstance(g, np.ndarray | np.generic):
        return (np.where(x > 0, g, g * slope),)
    # Tied to x with slope 0, as PyTorch's formula reads x: the gradient requires grad.
    chosen = (g * slope).where(~(x._data > 0), g)
    return (apply(TIED, chosen, x),)


LEAKY_RELU = Op("leaky_relu", _leaky_relu_forward, _leaky_relu_vjp, fresh=True)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    """x where x > 0, ``negative_slope`` · x elsewhere."""
    floats_only("leaky_relu", input)
    return _result(input, apply(LEAKY_RELU, input, static=(float(negative_slope),)), inplace)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """tanh(x), elementwise."""
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """1 / (1 + e^(−x)), elementwise."""
    return input.sigmoid()


def softmax_dim(ndim: int, name: str = "softmax") -> int:
    """The axis PyTorch picks when a softmax is given no ``dim`` (0 for 0-, 1- and 3-d
    inputs, else 1), with PyTorch's warning that the choice is implicit."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:  # noqa: A002
    """exp(x) / sum(exp(x)) along ``dim`` (PyTorch's implicit axis when it is None)."""
    x = input if dtype is None else input.to(dtype)
    return x.softmax(softmax_dim(x.ndim) if dim is None else dim)


def log_softmax(
    input: Tensor,
    dim: int | None = None,
    _stacklevel: int = 3,
    dtype: Any = None,  # noqa: A002
) -> Tensor:
    """log(softmax(x)) along ``dim`` (PyTorch's implicit axis when it is None)."""
    x = input if dtype is None else input.to(dtype)
    return x.log_softmax(softmax_dim(x.ndim, "log_softmax") if dim is None else dim)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Integer class labels as rows of 0s and a 1 (int64), one more axis of ``num_classes``
    (by default the largest label + 1)."""
    labels = tensor.detach().numpy()
    if labels.dtype.kind not in "iu":
        raise TypeError(f"one_hot: expected integer class labels, got dtype {labels.dtype}")
    if num_classes == -1:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(f"one_hot: class values must be in [0, {num_classes}), got {labels}")
    return Tensor(np.eye(num_classes, dtype=np.int64)[labels], dtype=np.int64)


def batch_norm(
    input: Tensor,  # noqa: A002
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (axis 1) by the batch's statistics (``training``, which also
    moves the running ones towards them) or by the running ones; then scale and shift."""
    axes = (0, *range(2, input.ndim))
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if training:
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError(
                f"batch_norm: expected more than 1 value per channel when training, got input "
                f"of shape {tuple(input.shape)}"
            )
        mean = input.mean(dim=axes, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dim=axes, keepdim=True)
        if running_mean is not None:
            with no_grad():
                batch_mean, batch_var = mean.detach().reshape(-1), var.detach().reshape(-1)
                running_mean.copy_(momentum * batch_mean + (1 - momentum) * running_mean)
                unbiased = batch_var * (n / (n - 1))
                running_var.copy_(momentum * unbiased + (1 - momentum) * running_var)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: without running statistics, training must be True")
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
        centered = input - mean
    out = centered / (var + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x Wᵀ + b with ``weight`` of shape (out, in), one graph node."""
    return apply(LINEAR, x, weight) if bias is None else apply(LINEAR, x, weight, bias)


def dropout(
    input: Tensor,  # noqa: A002
    p: float = 0.5,
    training: bool = True,
    inplace: bool = False,
    *,
    generator: Any = None,
) -> Tensor:
    """Zero each entry with probability ``p`` and scale the rest by 1/(1 - p) while
    ``training``; the identity otherwise. (Which entries are zeroed differs from PyTorch:
    the random numbers are numpy's.)"""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be a probability in [0, 1], got {p!r}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _result(input, input * 0.0, inplace)
    keep = (init.as_generator(generator).random(input.shape) >= p).astype(input.dtype)
    return _result(input, input * (keep / (1.0 - p)), inplace)
