"""Softmax and the losses built on it: ``softmax``, ``log_softmax``, ``cross_entropy``
and ``mse_loss``, each an :class:`~micrograd_edu.tensor.operation.Op` with its forward
and VJP side by side, and :class:`Softmax`, the mixin that gives the first two to
``Tensor`` (the losses are functions: :mod:`micrograd_edu.tensor.functional`).

Each is one graph node with the closed-form gradient the course derives, computed
without overflow: cross-entropy's is ``(softmax - one_hot) / N``. One node for
``mse_loss`` instead of three (sub, mul, mean) makes a small network's loss cost a
third of the graph overhead, with the same numbers.

>>> logits, targets = np.array([[0.0, 0.0]]), np.array([1])
>>> float(CROSS_ENTROPY.forward(logits, targets))
0.6931471805599453
>>> CROSS_ENTROPY.vjp(np.array(1.0), None, (logits, targets), (True, False))[0]
array([[ 0.5, -0.5]])
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from .operation import Op, ShapeError, always, namespace_of, row_major, saves_none
from .shape import axis_of, bind

__all__ = ["Softmax", "SOFTMAX", "LOG_SOFTMAX", "CROSS_ENTROPY", "MSE_LOSS"]


def _log_softmax(a, axis):
    # Subtracting the maximum first keeps exp from overflowing; the result is
    # unchanged because softmax(a) = softmax(a - c) for any constant c.
    if a.size == 0:
        return a.copy()
    with np.errstate(invalid="ignore", divide="ignore"):  # infinities give nan, silently
        shifted = a - np.max(a, axis=axis, keepdims=True)
        out = shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    return row_major(out)  # as PyTorch's (a view may follow)


def _softmax(a, axis):
    if a.size == 0:
        return a.copy()
    with np.errstate(invalid="ignore", divide="ignore"):  # infinities give nan, silently
        e = np.exp(a - np.max(a, axis=axis, keepdims=True))
        return row_major(e / np.sum(e, axis=axis, keepdims=True))


def _softmax_vjp(g, out, xs, needs, axis):
    return (out * (g - (g * out).sum(axis=axis, keepdims=True)),)


SOFTMAX = Op("softmax", _softmax, _softmax_vjp, saves_none, fresh=True, saves_out=always)


def _log_softmax_vjp(g, out, xs, needs, axis):
    return (g - namespace_of(g).exp(out) * g.sum(axis=axis, keepdims=True),)


LOG_SOFTMAX = Op(
    "log_softmax", _log_softmax, _log_softmax_vjp, saves_none, fresh=True, saves_out=always
)


def _check_targets(logits, targets):
    if logits.ndim not in (1, 2):
        raise ShapeError(
            f"cross_entropy: logits must have shape (N, C) or (C,), got {logits.shape}"
        )
    if targets.dtype.kind not in "iu":
        raise TypeError(
            f"cross_entropy: targets must be integer class indices, got dtype {targets.dtype}; "
            "for one-hot or probability targets use -(p * x.log_softmax(-1)).sum(...)"
        )
    if targets.shape != logits.shape[:-1]:
        raise ShapeError(
            f"cross_entropy: logits of shape {logits.shape} need targets of shape "
            f"{logits.shape[:-1]} (one class index per row), got {targets.shape}"
        )
    classes = logits.shape[-1]
    if targets.size and (targets.min() < 0 or targets.max() >= classes):
        bad = targets[(targets < 0) | (targets >= classes)].flat[0]
        raise IndexError(
            f"cross_entropy: target {bad} is not a class index in 0..{classes - 1} "
            f"(logits have {classes} classes)"
        )


def _cross_entropy_forward(logits, targets):
    _check_targets(logits, targets)
    logp = _log_softmax(logits, -1)
    picked = np.take_along_axis(logp, targets[..., None], axis=-1)
    return -np.mean(picked)


def _cross_entropy_vjp(g, out, xs, needs):
    logits, targets = xs
    rows = max(prod(targets.shape), 1)
    if not isinstance(g, np.ndarray | np.generic):  # recorded (create_graph): the same, in tensors
        one_hot = np.eye(logits.shape[-1], dtype=logits.dtype)[targets._data]
        return ((logits.softmax(-1) - one_hot) * (g / rows), None)
    # The classic result: d loss / d logits = (softmax - one_hot) / N.
    grad = _softmax(logits, -1)
    np.put_along_axis(
        grad,
        targets[..., None],
        np.take_along_axis(grad, targets[..., None], axis=-1) - 1.0,
        axis=-1,
    )
    return (grad * (g / rows), None)


CROSS_ENTROPY = Op(
    "cross_entropy",
    _cross_entropy_forward,
    _cross_entropy_vjp,
    lambda needs: (True, True),
    fresh=True,
)


def _mse_forward(prediction, target):
    d = prediction - target
    square = d * d  # the same, and cheaper than d ** 2
    if square.size == 0:
        return np.full((), np.nan, dtype=square.dtype)  # an empty mean (PyTorch: nan)
    return square.sum() / square.size


def _mse_vjp(g, out, xs, needs):
    prediction, target = xs
    # d mean((p - t)²) / dp = 2 (p - t) / N, and the opposite for t.
    d = prediction - target
    grad = d * (2.0 * g / max(prod(d.shape), 1))
    return (grad if needs[0] else None, -grad if needs[1] else None)


MSE_LOSS = Op("mse_loss", _mse_forward, _mse_vjp, fresh=True)


class Softmax:
    """``softmax`` and ``log_softmax`` for ``Tensor`` (a mixin of
    :class:`~micrograd_edu.tensor.tensor.Tensor`, which provides ``_apply``)."""

    __slots__ = ()

    def softmax(self, *args: Any, **kwargs: Any):
        """exp(x) / sum(exp(x)) along ``dim``, computed without overflow."""
        return _softmax_of(self, SOFTMAX, args, kwargs)

    def log_softmax(self, *args: Any, **kwargs: Any):
        """log(softmax(x)) along ``dim``, computed stably (no log of 0)."""
        return _softmax_of(self, LOG_SOFTMAX, args, kwargs)


def _softmax_of(t: Any, op: Op, args: tuple, kwargs: dict) -> Any:
    spec = bind(op.name, args, kwargs, ("dim",), {"dim": None, "dtype": None})
    if spec["dim"] is None:
        raise TypeError(
            f"{op.name}() missing the argument dim (PyTorch requires it): x.{op.name}(-1) "
            "for the last axis"
        )
    if spec["dtype"] is not None:
        t = t.to(spec["dtype"])
    elif t._data.dtype.kind != "f":
        raise RuntimeError(
            f"{op.name}: takes a floating-point tensor, got dtype {t._data.dtype} (as in "
            f"PyTorch); write x.float().{op.name}(dim) or pass dtype="
        )
    axis = axis_of(spec["dim"], t._data.shape, op.name)
    return t._apply(op, t, static=(axis,))
