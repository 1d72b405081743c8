"""The shape operations of a ``Tensor``, attached to the class: views and copies that
move entries (``reshape``, ``view``, ``expand``, ``permute``, ``flip``, ``split``, ...)
and indexing. Each is an :class:`~micrograd_edu.tensor.ops.Op` from
:mod:`~micrograd_edu.tensor.shape_ops`, so its gradient comes with it.

>>> from micrograd_edu import Tensor
>>> x = Tensor([[1.0, 2.0, 3.0]], requires_grad=True)
>>> x.expand(2, 3).flip(1).reshape(-1)
tensor([3., 2., 1., 3., 2., 1.], grad_fn=<ReshapeBackward>)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import shape_ops as S
from .axes import axes_of, axis_of, size_args
from .core import Tensor, apply, method
from .ops import ShapeError

_method = method


@_method
def reshape(self: Tensor, *shape: Any) -> Tensor:
    """The same entries in a new shape (one axis may be -1)."""
    return apply(S.RESHAPE, self, static=(size_args(shape, "reshape"),))


Tensor.view = reshape  # no strides here: a view is a reshape


@_method
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Axes ``start_dim`` to ``end_dim`` merged into one."""
    if self.ndim == 0:
        return self.reshape(1)
    start, end = axis_of(start_dim, self.shape, "flatten"), axis_of(end_dim, self.shape, "flatten")
    shape = self.shape[:start] + (-1,) + self.shape[end + 1 :]
    return self.reshape(shape) if start <= end else self


@_method
def squeeze(self: Tensor, dim: Any = None) -> Tensor:
    """Drop axes of length 1 (all of them, or those of ``dim`` that have length 1)."""
    axes = range(self.ndim) if dim is None else (axes_of(dim, self.shape, "squeeze") or ())
    drop = {a for a in axes if self.shape[a] == 1}
    return self.reshape(tuple(n for a, n in enumerate(self.shape) if a not in drop))


@_method
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    """A new axis of length 1 at position ``dim`` (of the result)."""
    at = axis_of(dim, self.ndim + 1, "unsqueeze")
    return self.reshape(self.shape[:at] + (1,) + self.shape[at:])


@_method
def expand(self: Tensor, *sizes: Any) -> Tensor:
    """Broadcast to ``sizes`` (-1 keeps an axis); the gradient sums the copies."""
    sizes = size_args(sizes, "expand")
    lead = len(sizes) - self.ndim
    if lead < 0:
        raise ShapeError(f"expand: cannot expand shape {self.shape} to fewer axes {sizes}")
    shape = tuple(self.shape[i - lead] if n == -1 and i >= lead else n for i, n in enumerate(sizes))
    return apply(S.BROADCAST_TO, self, static=(shape,))


Tensor.broadcast_to = expand


@_method
def repeat(self: Tensor, *repeats: Any) -> Tensor:
    """Tile the tensor ``repeats[k]`` times along axis k (``torch.Tensor.repeat``)."""
    repeats = size_args(repeats, "repeat")
    if len(repeats) < self.ndim:
        raise ShapeError(
            f"repeat: give a count for each of the {self.ndim} axes of shape {self.shape}, "
            f"got {repeats}"
        )
    return apply(S.REPEAT, self, static=(repeats,))


@_method
def transpose(self: Tensor, *axes: int) -> Tensor:
    """Swap two axes (``x.transpose(0, 1)``, as ``torch.transpose``), or with no
    argument reverse them all (like ``.T``)."""
    if not axes:
        return apply(S.TRANSPOSE, self, static=(None,))
    if len(axes) != 2:
        raise ShapeError(
            f"transpose: give two axes to swap (or none to reverse them all), got {axes} "
            f"for shape {self.shape}; use permute for a full reordering"
        )
    i, j = (axis_of(a, self.shape, "transpose") for a in axes)
    order = list(range(self.ndim))
    order[i], order[j] = order[j], order[i]
    return apply(S.TRANSPOSE, self, static=(tuple(order),))


Tensor.swapaxes = transpose
Tensor.T = property(lambda self: self.transpose(), doc="The transpose (axes reversed).")
Tensor.mT = property(lambda self: self.transpose(-2, -1), doc="The last two axes swapped.")


@_method
def permute(self: Tensor, *axes: Any) -> Tensor:
    """Reorder all the axes: ``x.permute(2, 0, 1)`` puts axis 2 first."""
    order = tuple(axis_of(a, self.shape, "permute") for a in size_args(axes, "permute"))
    if sorted(order) != list(range(self.ndim)):
        raise ShapeError(
            f"permute: {axes} is not an order of all {self.ndim} axes of shape {self.shape}"
        )
    return apply(S.TRANSPOSE, self, static=(order,))


@_method
def flip(self: Tensor, *dims: Any) -> Tensor:
    """Reverse the order of the entries along ``dims``."""
    axes = axes_of(size_args(dims, "flip"), self.shape, "flip")
    return apply(S.FLIP, self, static=(axes,))


@_method
def split(self: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces along ``dim``: of ``split_size`` each (the last may be shorter), or of the
    listed lengths."""
    axis = axis_of(dim, self.shape, "split")
    n = self.shape[axis]
    if isinstance(split_size_or_sections, int | np.integer):
        size = int(split_size_or_sections)
        if size < 1:
            raise ValueError(f"split: split_size must be positive, got {size}")
        lengths = [min(size, n - k) for k in range(0, n, size)]
    else:
        lengths = [int(k) for k in split_size_or_sections]
        if np.sum(lengths) != n:  # (this module defines its own sum)
            raise ShapeError(f"split: lengths {lengths} do not add up to axis {dim}'s {n}")
    pieces, start = [], 0
    for length in lengths:
        pieces.append(self[(slice(None),) * axis + (slice(start, start + length),)])
        start += length
    return tuple(pieces)


@_method
def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most ``chunks`` pieces of equal length along ``dim`` (the last may be shorter)."""
    n = self.shape[axis_of(dim, self.shape, "chunk")]
    return self.split(max(-(-n // int(chunks)), 1), dim)


@_method
def __getitem__(self: Tensor, index: Any) -> Tensor:
    return apply(S.GETITEM, self, static=(S.flat_index(index),))


@_method
def _scatter(self: Tensor, shape: tuple, index: Any) -> Tensor:
    return apply(S.SCATTER, self, static=(shape, index))
