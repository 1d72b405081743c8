"""The tensor operations that move entries without arithmetic: reshape, transpose,
broadcast, index, join, flip, repeat and cast, each an :class:`~micrograd_edu.tensor.ops.Op`
(see :mod:`micrograd_edu.tensor.ops` for the ``forward``/``vjp`` convention).

Each gradient puts the entries back where they came from: a transpose by the
inverse permutation, a broadcast by summing the copies
(:func:`~micrograd_edu.tensor.ops.unbroadcast`), an index by scattering into zeros.

>>> a = np.arange(6.0).reshape(2, 3)
>>> TRANSPOSE.vjp(np.ones((3, 2)), None, (a,), (True,), (1, 0))[0].shape
(2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops import Op, ShapeError, namespace_of, saves_none, unbroadcast

__all__ = [
    "TRANSPOSE",
    "RESHAPE",
    "BROADCAST_TO",
    "GETITEM",
    "SCATTER",
    "CONCATENATE",
    "STACK",
    "FLIP",
    "REPEAT",
    "CAST",
]


def _transpose_vjp(g, out, xs, needs, axes):
    # ``axes`` are non-negative (Tensor.permute and .transpose make them so).
    if axes is None:
        inverse = tuple(reversed(range(g.ndim)))
    else:
        inverse = tuple(int(i) for i in np.argsort(axes))
    if isinstance(g, np.ndarray | np.generic):
        return (np.transpose(g, inverse),)
    return (g.permute(*inverse),)


TRANSPOSE = Op("transpose", np.transpose, _transpose_vjp, saves_none)


def _reshape_forward(a, shape):
    try:
        return a.reshape(shape)
    except ValueError:
        raise ShapeError(
            f"reshape: cannot reshape shape {a.shape} ({a.size} entries) into {shape}"
        ) from None


RESHAPE = Op(
    "reshape",
    _reshape_forward,
    lambda g, out, xs, needs, shape: (g.reshape(xs[0].shape),),
    saves_none,
)


def _broadcast_forward(a, shape):
    try:
        return np.broadcast_to(a, shape)
    except ValueError:
        raise ShapeError(
            f"expand: shape {a.shape} cannot be broadcast to {shape}: aligned from the right, "
            "each axis must be equal or 1 in the input (-1 keeps an axis)"
        ) from None


BROADCAST_TO = Op(
    "expand",
    _broadcast_forward,
    lambda g, out, xs, needs, shape: (unbroadcast(g, xs[0].shape),),
    saves_none,
)


def _is_basic(index) -> bool:
    """True for an index made of ints, slices, None and ... (numpy's "basic"
    indexing, which picks every entry at most once)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, int | slice) or i is None or i is Ellipsis for i in parts)


def _scatter(g, shape, index):
    """Zeros of ``shape`` with ``g`` added at ``index`` (the adjoint of ``a[index]``)."""
    grad = np.zeros(shape, dtype=g.dtype)
    if _is_basic(index):
        grad[index] = g
    else:
        # A fancy index may pick an entry twice (x[[0, 0]]): np.add.at adds once
        # per occurrence, where an assignment would keep only the last.
        np.add.at(grad, index, g)
    return grad


def _getitem_vjp(g, out, xs, needs, index):
    if isinstance(g, np.ndarray | np.generic):
        return (_scatter(g, xs[0].shape, index),)
    return (g._scatter(xs[0].shape, index),)


GETITEM = Op("getitem", lambda a, index: a[index], _getitem_vjp, saves_none, fresh=True)

# The adjoint of indexing, recorded when a gradient must be differentiated again.
SCATTER = Op(
    "scatter",
    _scatter,
    lambda g, out, xs, needs, shape, index: (g[index],),
    saves_none,
)


def _joined(join, name: str, rule: str):
    """The forward of ``cat``/``stack``: ``join`` the arrays along the last argument's axis,
    naming every shape when they do not fit."""

    def forward(*xs_axis):
        *xs, axis = xs_axis
        try:
            return join(xs, axis=axis)
        except ValueError:
            shapes = ", ".join(str(x.shape) for x in xs)
            raise ShapeError(f"{name}: shapes {shapes} must {rule.format(axis=axis)}") from None

    return forward


def _concatenate_vjp(g, out, xs, needs, axis):
    start, grads = 0, []
    for x, need in zip(xs, needs, strict=True):
        end = start + x.shape[axis]
        grads.append(g[(slice(None),) * axis + (slice(start, end),)] if need else None)
        start = end
    return tuple(grads)


CONCATENATE = Op(
    "cat",
    _joined(np.concatenate, "cat", "agree on every axis but axis {axis}"),
    _concatenate_vjp,
    saves_none,
)


def _stack_vjp(g, out, xs, needs, axis):
    return tuple(g[(slice(None),) * axis + (i,)] if need else None for i, need in enumerate(needs))


STACK = Op("stack", _joined(np.stack, "stack", "all be equal"), _stack_vjp, saves_none)

FLIP = Op(
    "flip",
    lambda a, axes: np.flip(a, axes),
    lambda g, out, xs, needs, axes: (namespace_of(g).flip(g, axes),),
    saves_none,
)


def _repeat_vjp(g, out, xs, needs, repeats):
    # np.tile laid the input out in blocks: split every axis k into (repeats[k], size)
    # and sum over the block axes.
    shape = (1,) * (len(repeats) - xs[0].ndim) + tuple(xs[0].shape)
    blocks = [n for r, s in zip(repeats, shape, strict=True) for n in (r, s)]
    summed = g.reshape(tuple(blocks)).sum(axis=tuple(range(0, 2 * len(shape), 2)))
    return (summed.reshape(xs[0].shape),)


REPEAT = Op("repeat", lambda a, repeats: np.tile(a, repeats), _repeat_vjp, saves_none, fresh=True)


def _cast_vjp(g, out, xs, needs, dtype):
    return (g.astype(xs[0].dtype),)


CAST = Op("to", lambda a, dtype: a.astype(dtype), _cast_vjp, saves_none, fresh=True)


def flat_index(index: Any) -> Any:
    """An index for numpy from one that may hold tensors (made into their arrays)."""
    if isinstance(index, tuple):
        return tuple(getattr(i, "_data", i) for i in index)
    return getattr(index, "_data", index)
