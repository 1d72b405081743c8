"""Indexing: ``x[index]`` as an :class:`~micrograd_edu.tensor.operation.Op` with its
forward and VJP side by side, and :class:`Indexing`, the mixin that gives it to
``Tensor`` (``x[index] = value`` is an in-place change: :mod:`.inplace`).

**PyTorch's rule, not numpy's.** An index may mix integers, slices, ``None``, ``...``,
lists and index tensors. PyTorch applies the integers first, as selections that remove
their axis, and only then the lists and tensors (the *advanced* indices); numpy counts an
integer among the advanced indices. The two differ when an integer and a list are separated
by a slice: ``x[0, :, [0, 1]]`` of a (2, 3, 4) tensor is (3, 2) in PyTorch, (2, 3) in numpy.
:func:`torch_index` writes an index as the numpy index (or the two, applied in turn) that
gives PyTorch's result, on get and on set. As in PyTorch, a list that holds lists, tensors or
slices stands for a tuple (``x[[[0, 1], [1, 2]]]`` is ``x[[0, 1], [1, 2]]``), and a slice
must step forwards.

The gradient of ``a[index]`` puts ``g`` back where the entries came from, into zeros
of ``a``'s shape (a *scatter*). An index may pick an entry twice (``x[[0, 0]]``),
so an advanced index adds each occurrence.

>>> from micrograd_edu import Tensor
>>> x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> x[[0, 0, 2]].sum().backward()
>>> x.grad
tensor([2., 0., 1.])
>>> Tensor(np.arange(24.0).reshape(2, 3, 4))[0, :, [0, 1]].shape
(3, 2)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .operation import DimensionError, Op, ShapeError, row_major, saves_none
from .shape import as_view, axis_of

__all__ = ["Indexing", "GETITEM", "SCATTER", "GATHER", "torch_index", "take", "put"]


def _part(p: Any) -> Any:
    """One entry of an index as numpy takes it: tensors as their arrays (a 0-d integer
    tensor as an int, as PyTorch reads it), lists as arrays."""
    p = getattr(p, "_data", p)
    if isinstance(p, slice):
        if p.step is not None and operator.index(p.step) <= 0:
            raise ValueError(
                f"index: a slice's step must be positive (PyTorch), got {p.step}; flip the "
                "result instead (x.flip(0) for x[::-1])"
            )
        return p
    if p is None or p is Ellipsis or isinstance(p, bool | np.bool_):
        return p
    if isinstance(p, np.ndarray):
        if p.ndim == 0 and p.dtype.kind in "iu":
            return int(p)
        return p.copy()  # the index of a gradient: not changed by a later change of p
    if isinstance(p, list | tuple):
        return np.asarray([getattr(v, "_data", v) for v in p])
    return operator.index(p)


def _as_tuple(index: Any) -> tuple:
    if isinstance(index, tuple):
        return index
    # PyTorch (as numpy once did) reads a short list of sequences, tensors or slices as a tuple.
    if isinstance(index, list) and len(index) < 32:
        for v in index:
            if hasattr(v, "_data") or isinstance(v, list | tuple | slice | np.ndarray):
                return tuple(index)
            if v is None or v is Ellipsis:
                return tuple(index)
    return (index,)


def _advanced(p: Any) -> bool:
    return isinstance(p, np.ndarray)


def torch_index(index: Any) -> tuple[tuple, tuple | None]:
    """``index`` as ``(first, second)``: ``a[first]``, then ``[second]`` when it is not None,
    is PyTorch's ``a[index]`` (see the module docstring).

    >>> first, second = torch_index((0, slice(None), [0, 1]))
    >>> first == (0, slice(None), slice(None)), second[0] == slice(None), second[1]
    (True, True, array([0, 1]))
    """
    parts = tuple(_part(p) for p in _as_tuple(index))
    ints = any(type(p) is int for p in parts)
    if not ints or not any(_advanced(p) for p in parts):
        return parts, None
    first, second = [], []
    for p in parts:
        if _advanced(p):  # a bool mask stands for as many axes as it has
            first += [slice(None)] * (p.ndim if p.dtype == np.bool_ else 1)
            second.append(p)
        elif type(p) is int:
            first.append(p)
        else:
            first.append(p)
            second.append(p if p is Ellipsis else slice(None))
    return tuple(first), tuple(second)


def is_view(index: tuple) -> bool:
    """Whether ``a[first]`` of a :func:`torch_index` is a view (no advanced index)."""
    first, second = index
    return second is None and not any(_advanced(p) for p in first)


def take(a: np.ndarray, index: tuple) -> np.ndarray:
    """``a[index]`` for an index made by :func:`torch_index` (a copy in row-major order
    for an advanced index, as PyTorch's)."""
    first, second = index
    if second is None and not any(_advanced(p) for p in first):
        # A view, 0-d too (numpy gives a scalar for a[0] of a vector; a[0, ...] is a view).
        return a[first if Ellipsis in first else (*first, Ellipsis)]
    out = a[first]
    if second is not None:
        out = out[second]
    return row_major(out)


def put(a: np.ndarray, index: tuple, value: Any) -> None:
    """``a[index] = value`` for an index made by :func:`torch_index`."""
    first, second = index
    if second is None:
        a[first] = value
    else:
        a[first][second] = value  # a[first] is a view: the write reaches a


def _scatter(g, shape, index):
    """Zeros of ``shape`` with ``g`` added at ``index`` (the adjoint of ``a[index]``)."""
    grad = np.zeros(shape, dtype=g.dtype)
    first, second = index
    if is_view(index):
        grad[first] = g
    elif second is None:
        # An advanced index may pick an entry twice (x[[0, 0]]): np.add.at adds once per
        # occurrence, where an assignment would keep only the last.
        np.add.at(grad, first, g)
    else:
        np.add.at(grad[first], second, g)
    return grad


def _getitem_vjp(g, out, xs, needs, index):
    if isinstance(g, np.ndarray | np.generic):
        return (_scatter(g, xs[0].shape, index),)
    return (g._scatter(xs[0].shape, index),)


GETITEM = Op("getitem", take, _getitem_vjp, saves_none, fresh=True)

# The adjoint of indexing, recorded when a gradient must be differentiated again.
SCATTER = Op(
    "scatter",
    _scatter,
    lambda g, out, xs, needs, shape, index: (
        take(g, index) if isinstance(g, np.ndarray | np.generic) else g._take(index),
    ),
    saves_none,
)


def _gathered(a, axis, index):
    """Where ``gather`` reads: the index along ``axis``, and the position itself on the
    other axes (PyTorch's gather: an index may be shorter than the input there)."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[axis] = index
    return tuple(grid)


def _gather_forward(a, axis, index):
    return a[_gathered(a, axis, index)]


def _gather_vjp(g, out, xs, needs, axis, index):
    if isinstance(g, np.ndarray | np.generic):
        grad = np.zeros(xs[0].shape, dtype=g.dtype)
        np.add.at(grad, _gathered(grad, axis, index), g)  # an entry read twice adds twice
        return (grad,)
    return (g._scatter(xs[0].shape, (_gathered(g, axis, index), None)),)


GATHER = Op("gather", _gather_forward, _gather_vjp, saves_none, fresh=True)


def _gather_index(shape: tuple, dim: Any, index: Any) -> tuple[int, np.ndarray]:
    index = np.asarray(getattr(index, "_data", index))
    axis = axis_of(dim, shape, "gather")
    if index.dtype.kind not in "iu":
        raise TypeError(f"gather: the index must hold integers, got dtype {index.dtype}")
    if index.ndim != max(len(shape), 1) and index.size:
        raise ShapeError(
            f"gather: the index must have as many dims as the input ({len(shape)}), got "
            f"shape {index.shape}"
        )
    if len(shape) == 0:
        return 0, index.reshape(())
    for d, (n, m) in enumerate(zip(index.shape, shape, strict=True)):
        if d != axis and n > m:
            raise ShapeError(
                f"gather: the index's shape {index.shape} exceeds the input's {shape} on dim {d}"
            )
    if index.size and (index.min() < -shape[axis] or index.max() >= shape[axis]):
        raise DimensionError(
            f"gather: index {index.max() if index.max() >= shape[axis] else index.min()} is "
            f"out of range for dim {axis} of length {shape[axis]}"
        )
    return axis, index % max(shape[axis], 1)


class Indexing:
    """``x[index]`` for ``Tensor`` (a mixin of :class:`~micrograd_edu.tensor.tensor.Tensor`,
    which provides ``_apply``)."""

    __slots__ = ()

    def __getitem__(self, index: Any):
        return self._take(torch_index(index))

    def _take(self, index: tuple):
        out = self._apply(GETITEM, self, static=(index,))
        return as_view(out, self, GETITEM, (index,)) if is_view(index) else out

    def gather(self, dim: int, index: Any):
        """The entries at ``index`` along ``dim`` (``out[i][j] = x[index[i][j]][j]`` for
        dim 0), as ``torch.gather``; the gradient adds back to the entries read."""
        axis, index = _gather_index(self._data.shape, dim, index)
        if self._data.ndim == 0:
            return self._apply(GETITEM, self, static=(((),), None)) if index.size else self
        return self._apply(GATHER, self, static=(axis, index))

    def index_select(self, dim: int, index: Any):
        """The slices at the positions ``index`` (1-d) along ``dim``."""
        axis = axis_of(dim, self._data.shape, "index_select")
        return self[(slice(None),) * axis + (getattr(index, "_data", index),)]

    def _scatter(self, shape: tuple, index: Any):
        # getitem's VJP on a recorded gradient (create_graph): the scatter, recorded too.
        return self._apply(SCATTER, self, static=(shape, index))
