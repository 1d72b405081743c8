"""The tensor operations that are not elementwise: products, shapes, reductions,
indexing, softmax and losses, each an :class:`~micrograd_edu.ops.Op` over numpy
arrays (see :mod:`micrograd_edu.ops` for the ``forward``/``vjp`` convention).

>>> a, b = np.ones((2, 3)), np.ones((3, 4))
>>> MATMUL.forward(a, b).shape
(2, 4)
>>> [g.shape for g in MATMUL.vjp(np.ones((2, 4)), None, (a, b), (True, True))]
[(2, 3), (3, 4)]
"""

from __future__ import annotations

import numpy as np

from .ops import Op, ShapeError, unbroadcast

__all__ = [
    "MATMUL",
    "DOT",
    "TRACE",
    "TRANSPOSE",
    "RESHAPE",
    "SUM",
    "MEAN",
    "MAX",
    "GETITEM",
    "CONCATENATE",
    "STACK",
    "SOFTMAX",
    "LOG_SOFTMAX",
    "CROSS_ENTROPY",
    "MSE_LOSS",
]


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
        ga = unbroadcast(g @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)
    if needs[1]:
        gb = unbroadcast(np.swapaxes(a2, -1, -2) @ g, b2.shape).reshape(b.shape)
    return ga, gb


MATMUL = Op("matmul", _matmul_forward, _matmul_vjp)


def _dot_forward(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeError(f"dot: expects two 1-D tensors, got shapes {a.shape} and {b.shape}")
    return _matmul_forward(a, b)


DOT = Op("dot", _dot_forward, _matmul_vjp)


def _trace_forward(a):
    if a.ndim != 2:
        raise ShapeError(f"trace: expects a 2-D tensor (a matrix), got shape {a.shape}")
    # The same sum as a.trace() (same dtype rules), but ~150 ns faster: that
    # method takes the diagonal and then calls its sum through numpy's generic
    # reduction machinery. A tenth of the engine's overhead in bench_trace.py.
    return np.add.reduce(a.diagonal())


def _trace_vjp(g, out, xs, needs):
    rows, columns = xs[0].shape
    # d tr(A) / dA = I: g on the diagonal, 0 elsewhere. The diagonal of a
    # flattened matrix is every (columns + 1)-th entry.
    grad = np.zeros(rows * columns, dtype=xs[0].dtype)
    grad[: min(rows, columns) * (columns + 1) : columns + 1] = g
    return (grad.reshape(rows, columns),)


TRACE = Op("trace", _trace_forward, _trace_vjp)


# ------------------------------------------------------------------- shapes


def _transpose_vjp(g, out, xs, needs, axes):
    return (np.transpose(g, None if axes is None else np.argsort(axes)),)


TRANSPOSE = Op("transpose", np.transpose, _transpose_vjp)


def _reshape_forward(a, shape):
    try:
        return a.reshape(shape)
    except ValueError:
        raise ShapeError(
            f"reshape: cannot reshape shape {a.shape} ({a.size} entries) into {shape}"
        ) from None


RESHAPE = Op(
    "reshape", _reshape_forward, lambda g, out, xs, needs, shape: (g.reshape(xs[0].shape),)
)


def _is_basic(index) -> bool:
    """True for an index made of ints, slices, None and ... (numpy's "basic"
    indexing, which picks every entry at most once)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, int | slice) or i is None or i is Ellipsis for i in parts)


def _getitem_vjp(g, out, xs, needs, index):
    (a,) = xs
    grad = np.zeros(a.shape, dtype=g.dtype)
    if _is_basic(index):
        grad[index] = g
    else:
        # A fancy index may pick an entry twice (x[[0, 0]]): np.add.at adds once
        # per occurrence, where an assignment would keep only the last.
        np.add.at(grad, index, g)
    return (grad,)


GETITEM = Op("getitem", lambda a, index: a[index], _getitem_vjp)


def _concatenate_forward(*xs_axis):
    *xs, axis = xs_axis
    try:
        return np.concatenate(xs, axis=axis)
    except ValueError:
        shapes = ", ".join(str(x.shape) for x in xs)
        raise ShapeError(
            f"concatenate: shapes {shapes} must agree on every axis but axis {axis}"
        ) from None


def _concatenate_vjp(g, out, xs, needs, axis):
    ends = np.cumsum([x.shape[axis] for x in xs])[:-1]
    return tuple(np.split(g, ends, axis=axis))


CONCATENATE = Op("concatenate", _concatenate_forward, _concatenate_vjp)


def _stack_forward(*xs_axis):
    *xs, axis = xs_axis
    try:
        return np.stack(xs, axis=axis)
    except ValueError:
        shapes = ", ".join(str(x.shape) for x in xs)
        raise ShapeError(f"stack: shapes {shapes} must all be equal") from None


def _stack_vjp(g, out, xs, needs, axis):
    return tuple(np.moveaxis(g, axis, 0))


STACK = Op("stack", _stack_forward, _stack_vjp)


# --------------------------------------------------------------- reductions


def _expand(g, axis, keepdims):
    """Put back the axes a reduction removed, so ``g`` broadcasts to its input."""
    if axis is None or keepdims:
        return g
    return np.expand_dims(g, axis)


def _spread(g, shape, dtype):
    """``g`` copied to every entry of ``shape`` (a new array, unlike np.broadcast_to)."""
    out = np.zeros(shape, dtype=dtype)
    out += g
    return out


def _sum_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    return (_spread(_expand(g, axis, keepdims), a.shape, a.dtype),)


SUM = Op("sum", lambda a, axis, keepdims: a.sum(axis=axis, keepdims=keepdims), _sum_vjp)


def _mean_forward(a, axis, keepdims):
    total = a.sum(axis=axis, keepdims=keepdims)
    return total / (a.size // max(total.size, 1) if a.size else 1)


def _mean_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    count = a.size // max(out.size, 1) if a.size else 1
    return (_spread(_expand(g, axis, keepdims) / count, a.shape, out.dtype),)


MEAN = Op("mean", _mean_forward, _mean_vjp)


def _max_forward(a, axis, keepdims):
    if a.size == 0:
        raise ShapeError(f"max: the input of shape {a.shape} is empty")
    return np.max(a, axis=axis, keepdims=keepdims)


def _max_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    hit = (a == _expand(out, axis, keepdims)).astype(g.dtype)
    # Ties share the gradient equally (the subgradient PyTorch's amax uses).
    share = hit / np.sum(hit, axis=axis, keepdims=True)
    return (share * _expand(g, axis, keepdims),)


MAX = Op("max", _max_forward, _max_vjp)


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
    return (out * (g - np.sum(g * out, axis=axis, keepdims=True)),)


SOFTMAX = Op("softmax", _softmax, _softmax_vjp)


def _log_softmax_vjp(g, out, xs, needs, axis):
    return (g - np.exp(out) * np.sum(g, axis=axis, keepdims=True),)


LOG_SOFTMAX = Op("log_softmax", _log_softmax, _log_softmax_vjp)


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
    # The classic result: d loss / d logits = (softmax - one_hot) / N.
    grad = _softmax(logits, -1)
    np.put_along_axis(
        grad,
        targets[..., None],
        np.take_along_axis(grad, targets[..., None], axis=-1) - 1.0,
        axis=-1,
    )
    rows = max(targets.size, 1)
    return (grad * (g / rows), None)


CROSS_ENTROPY = Op("cross_entropy", _cross_entropy_forward, _cross_entropy_vjp)


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
    grad = d * (2.0 * g / max(d.size, 1))
    return (grad if needs[0] else None, -grad if needs[1] else None)


MSE_LOSS = Op("mse_loss", _mse_forward, _mse_vjp)
