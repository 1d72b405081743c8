"""Indexing: ``x[index]`` as an :class:`~micrograd_edu.tensor.operation.Op` with its
forward and VJP side by side, and :class:`Indexing`, the mixin that gives it to
``Tensor`` (``x[index] = value`` is an in-place change: :mod:`.inplace`).

The gradient of ``a[index]`` puts ``g`` back where the entries came from, into zeros
of ``a``'s shape (a *scatter*). An index may pick an entry twice (``x[[0, 0]]``),
so a fancy index adds each occurrence.

>>> from micrograd_edu import Tensor
>>> x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> x[[0, 0, 2]].sum().backward()
>>> x.grad
tensor([2., 0., 1.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .operation import Op, saves_none

__all__ = ["Indexing", "GETITEM", "SCATTER", "flat_index"]


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


def flat_index(index: Any) -> Any:
    """An index for numpy from one that may hold tensors (made into their arrays)."""
    if isinstance(index, tuple):
        return tuple(getattr(i, "_data", i) for i in index)
    return getattr(index, "_data", index)


class Indexing:
    """``x[index]`` for ``Tensor`` (a mixin of :class:`~micrograd_edu.tensor.tensor.Tensor`,
    which provides ``_apply``)."""

    __slots__ = ()

    def __getitem__(self, index: Any):
        return self._apply(GETITEM, self, static=(flat_index(index),))

    def _scatter(self, shape: tuple, index: Any):
        # getitem's VJP on a recorded gradient (create_graph): the scatter, recorded too.
        return self._apply(SCATTER, self, static=(shape, index))
