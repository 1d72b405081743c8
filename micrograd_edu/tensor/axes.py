"""One reading of axes for every operation: numpy's names and PyTorch's.

An axis may be a Python or numpy integer, negative counting from the end; a
reduction takes one axis, several, or ``None`` for all, under numpy's name
``axis`` or PyTorch's ``dim`` (and ``keepdims`` or ``keepdim``), never both.
A 0-d tensor has the one axis PyTorch gives it: ``dim=0`` or ``-1``.

>>> axis_of(-1, 3, "softmax"), axes_of((0, -1), 3, "sum")
(2, (0, 2))
>>> axis_of(5, 3, "transpose")
Traceback (most recent call last):
...
micrograd_edu.tensor.ops.DimensionError: transpose: dim 5 is out of range for a tensor with 3 dims \
(expected a dim in -3..2)
"""

from __future__ import annotations

import operator
from typing import Any

from .ops import DimensionError

__all__ = ["axis_of", "axes_of", "reduction_args", "size_args"]


def axis_of(axis: Any, ndim: int | tuple[int, ...], op: str) -> int:
    """``axis`` as a non-negative int below ``ndim`` (a 0-d tensor accepts 0 and -1);
    give the shape instead of ``ndim`` for an error that names it."""
    shape = ndim if isinstance(ndim, tuple) else None
    ndim = len(ndim) if isinstance(ndim, tuple) else ndim
    try:
        a = operator.index(axis)
    except TypeError:
        kind = type(axis).__name__
        raise TypeError(f"{op}: a dim must be an integer, got {kind} {axis!r}") from None
    span = max(ndim, 1)
    if not -span <= a < span:
        what = f"of shape {shape}" if shape is not None else f"with {ndim} dims"
        raise DimensionError(
            f"{op}: dim {a} is out of range for a tensor {what} "
            f"(expected a dim in {-span}..{span - 1})"
        )
    return a % span


def axes_of(axis: Any, ndim: int | tuple[int, ...], op: str) -> tuple[int, ...] | None:
    """``None`` (every axis) or a sorted tuple of distinct non-negative axes."""
    if axis is None:
        return None
    many = not _is_int(axis)
    axes = tuple(axis_of(a, ndim, op) for a in (axis if many else (axis,)))
    if len(set(axes)) != len(axes):
        raise DimensionError(f"{op}: dim {axis} names an axis twice")
    if ndim == 0 or ndim == ():
        return None  # a 0-d tensor's only "axis": reducing it changes nothing
    return tuple(sorted(axes))


def reduction_args(op: str, axis: Any, keepdims: bool, torch_names: dict) -> tuple[Any, bool]:
    """``(axis, keepdims)`` from numpy's names and PyTorch's ``dim``/``keepdim``."""
    if "dim" in torch_names:
        if axis is not None:
            raise TypeError(f"{op}: give the axis as axis= or as dim=, not both")
        axis = torch_names.pop("dim")
    if "keepdim" in torch_names:
        if keepdims:
            raise TypeError(f"{op}: give keepdims= or keepdim=, not both")
        keepdims = torch_names.pop("keepdim")
    if "out" in torch_names and torch_names["out"] is None:
        del torch_names["out"]  # np.sum(tensor, axis=...) passes out=None
    if torch_names:
        raise TypeError(f"{op}: unexpected arguments {sorted(torch_names)}")
    return axis, bool(keepdims)


def size_args(sizes: tuple, op: str) -> tuple[int, ...]:
    """A shape given as ``f(2, 3)`` or ``f((2, 3))`` (ints of any integer type)."""
    if len(sizes) == 1 and not _is_int(sizes[0]):
        sizes = tuple(sizes[0])
    try:
        return tuple(operator.index(n) for n in sizes)
    except TypeError:
        raise TypeError(f"{op}: sizes must be integers, got {sizes!r}") from None


def _is_int(x: Any) -> bool:
    try:
        operator.index(x)
    except TypeError:
        return False
    return True
