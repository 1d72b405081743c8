"""The tensor operations of linear algebra, softmax and the losses, each an
:class:`~micrograd_edu.tensor.ops.Op` over numpy arrays (see :mod:`micrograd_edu.tensor.ops` for
the ``forward``/``vjp`` convention). Shapes, indexing and joins are in
:mod:`micrograd_edu.tensor.shape_ops`, reductions in :mod:`micrograd_edu.tensor.reduce_ops`.

>>> a, b = np.ones((2, 3)), np.ones((3, 4))
>>> MATMUL.forward(a, b).shape
(2, 4)
>>> [g.shape for g in MATMUL.vjp(np.ones((2, 4)), None, (a, b), (True, True))]
[(2, 3), (3, 4)]
"""

from __future__ import annotations

from math import prod

import numpy as np

from .ops import Op, ShapeError, namespace_of, saves_none, unbroadcast

__all__ = ["MATMUL", "DOT", "TRACE", "SOFTMAX", "LOG_SOFTMAX", "CROSS_ENTROPY", "MSE_LOSS"]


# ----------------------------------------------------------------- products


def _matmul_forward(a, b):
    try:
        return a @ b
    except ValueError:
        if a.ndim == 0 or b.ndim == 0:
            raise ShapeError(
                f"matmul: shapes {a.shape} and {b.shape}: @ needs at least one axis on "
                "each side; multiply by a scalar with *"
            ) from None
        inner = "first" if b.ndim == 1 else "second-to-last"
        raise ShapeError(
            f"matmul: cannot multiply shapes {a.shape} and {b.shape}: the last axis of the "
            f"left ({a.shape[-1]}) must equal the {inner} axis of the right "
            f"({b.shape[0 if b.ndim == 1 else -2]}) (and leading batch axes must broadcast); "
            "transpose or reshape one of them"
        ) from None


def _matmul_vjp(g, out, xs, needs):
    a, b = xs
    if a.ndim == 2 and b.ndim == 2:  # the common case, kept short
        return (g @ b.T if needs[0] else None, a.T @ g if needs[1] else None)
    # Vectors: numpy treats a 1-D left operand as a row and a 1-D right one as
    # a column, then drops that axis from the result; put it back in g.
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if b.ndim == 1:
        g = g[..., None]  # the column axis, last
    if a.ndim == 1:
        g = g[..., None, :]  # the row axis, second to last
    ga = gb = None
    if needs[0]:
        ga = unbroadcast(g @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape)
    if needs[1]:
        gb = unbroadcast(a2.swapaxes(-1, -2) @ g, b2.shape).reshape(b.shape)
    return ga, gb


def _matmul_saves(needs: tuple) -> tuple:
    return needs[1], needs[0]  # each gradient reads the other input


MATMUL = Op("matmul", _matmul_forward, _matmul_vjp, _matmul_saves, fresh=True)


def _dot_forward(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeError(f"dot: expects two 1-D tensors, got shapes {a.shape} and {b.shape}")
    return _matmul_forward(a, b)


DOT = Op("dot", _dot_forward, _matmul_vjp, _matmul_saves, fresh=True)


def _trace_forward(a):
    if a.ndim != 2:
        raise ShapeError(f"trace: expects a 2-D tensor (a matrix), got shape {a.shape}")
    # The same sum as a.trace() (same dtype rules), but ~150 ns faster: that
    # method takes the diagonal and then calls its sum through numpy's generic
    # reduction machinery. A tenth of the engine's overhead in bench_trace.py.
    return np.add.reduce(a.diagonal())


def _trace_vjp(g, out, xs, needs):
    rows, columns = xs[0].shape
    # d tr(A) / dA = I: g on the diagonal, 0 elsewhere.
    if not isinstance(g, np.ndarray | np.generic):
        return (g * np.eye(rows, columns, dtype=g.dtype),)
    # The diagonal of a flattened matrix is every (columns + 1)-th entry.
    grad = np.zeros(rows * columns, dtype=xs[0].dtype)
    grad[: min(rows, columns) * (columns + 1) : columns + 1] = g
    return (grad.reshape(rows, columns),)


TRACE = Op("trace", _trace_forward, _trace_vjp, saves_none, fresh=True)


# ------------------------------------------------------- softmax and losses


def _log_softmax(a, axis):
    # Subtracting the maximum first keeps exp from overflowing; the result is
    # unchanged because softmax(a) = softmax(a - c) for any constant c.
    shifted = a - np.max(a, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softmax(a, axis):
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _softmax_vjp(g, out, xs, needs, axis):
    return (out * (g - (g * out).sum(axis=axis, keepdims=True)),)


SOFTMAX = Op("softmax", _softmax, _softmax_vjp, fresh=True)


def _log_softmax_vjp(g, out, xs, needs, axis):
    return (g - namespace_of(g).exp(out) * g.sum(axis=axis, keepdims=True),)


LOG_SOFTMAX = Op("log_softmax", _log_softmax, _log_softmax_vjp, fresh=True)


def _check_targets(logits, targets):
    if logits.ndim not in (1, 2):
        raise ShapeError(
            f"cross_entropy: logits must have shape (N, C) or (C,), got {logits.shape}"
        )
    if targets.dtype.kind not in "iu":
        raise TypeError(
            f"cross_entropy: targets must be integer class indices, got dtype {targets.dtype}; "
            "for one-hot or probability targets use -(p * x.log_softmax()).sum(...)"
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
    return square.sum() / max(square.size, 1)


def _mse_vjp(g, out, xs, needs):
    prediction, target = xs
    # d mean((p - t)²) / dp = 2 (p - t) / N, and the opposite for t. One node
    # instead of three (sub, mul, mean): the loss of a small network's step
    # then costs a third of the graph overhead, with the same numbers.
    d = prediction - target
    grad = d * (2.0 * g / max(prod(d.shape), 1))
    return (grad if needs[0] else None, -grad if needs[1] else None)


MSE_LOSS = Op("mse_loss", _mse_forward, _mse_vjp, fresh=True)
