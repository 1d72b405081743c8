"""Shape operations: the ones that move entries without arithmetic (reshape, transpose,
broadcast, join, flip, repeat), each an :class:`~micrograd_edu.tensor.operation.Op`
with its forward and VJP side by side; :class:`Shapes`, the mixin that gives them to
``Tensor``; and the readings of shapes and axes every family shares.

Each gradient puts the entries back where they came from: a transpose by the
inverse permutation, a reshape by the inverse reshape, a broadcast by summing the
copies (:func:`unbroadcast`, which every broadcasting operation's VJP calls).

An axis may be a Python or numpy integer, negative counting from the end; a
reduction takes one axis, several, or ``None`` for all, under numpy's name
``axis`` or PyTorch's ``dim`` (and ``keepdims`` or ``keepdim``), never both.
A 0-d tensor has the one axis PyTorch gives it: ``dim=0`` or ``-1``.

>>> from micrograd_edu import Tensor
>>> x = Tensor([[1.0, 2.0, 3.0]], requires_grad=True)
>>> x.expand(2, 3).flip(1).reshape(-1)
tensor([3., 2., 1., 3., 2., 1.], grad_fn=<ReshapeBackward>)
>>> axis_of(-1, 3, "softmax"), axes_of((0, -1), 3, "sum")
(2, (0, 2))
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .operation import DimensionError, Op, ShapeError, namespace_of, saves_none

__all__ = [
    "Shapes",
    "unbroadcast",
    "axis_of",
    "axes_of",
    "reduction_args",
    "size_args",
    "TRANSPOSE",
    "RESHAPE",
    "BROADCAST_TO",
    "CONCATENATE",
    "STACK",
    "FLIP",
    "REPEAT",
]


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` back to ``shape``, undoing numpy broadcasting.

    When an input of shape ``shape`` was broadcast to a larger result, each of
    its entries was used several times, so its gradient is the *sum* of the
    result's gradient over the copies: over the leading axes that broadcasting
    added, and over the axes where ``shape`` has length 1.

    >>> g = np.ones((2, 3))
    >>> unbroadcast(g, (3,))          # a bias row added to two rows
    array([2., 2., 2.])
    >>> unbroadcast(g, (2, 1))        # a column added to three columns
    array([[3.],
           [3.]])
    >>> unbroadcast(g, ())            # a scalar
    array(6.)
    """
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if shape and extra > 0 and grad.shape[extra:] == shape:  # leading axes only: a bias row
        return grad.sum(axis=tuple(range(extra)))
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, grad.shape[extra:], strict=True)):
        raise ShapeError(
            f"unbroadcast: a gradient of shape {grad.shape} cannot be summed to shape "
            f"{shape}; it is not a shape that broadcasts to {grad.shape}"
        )
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1
    )
    return grad.sum(axis=axes, keepdims=True).reshape(shape)  # a Tensor's methods too


# ------------------------------------------------------------------ the operations


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


# --------------------------------------------------------------- axes and sizes


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


class Shapes:
    """The shape operations of ``Tensor`` (a mixin of
    :class:`~micrograd_edu.tensor.tensor.Tensor`, which provides ``_apply``)."""

    __slots__ = ()

    def reshape(self, *shape: Any):
        """The same entries in a new shape (one axis may be -1)."""
        return self._apply(RESHAPE, self, static=(size_args(shape, "reshape"),))

    view = reshape  # no strides here: a view is a reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        """Axes ``start_dim`` to ``end_dim`` merged into one."""
        shape = self._data.shape
        if not shape:
            return self.reshape(1)
        start, end = axis_of(start_dim, shape, "flatten"), axis_of(end_dim, shape, "flatten")
        return self.reshape(shape[:start] + (-1,) + shape[end + 1 :]) if start <= end else self

    def squeeze(self, dim: Any = None):
        """Drop axes of length 1 (all of them, or those of ``dim`` that have length 1)."""
        shape = self._data.shape
        axes = range(len(shape)) if dim is None else (axes_of(dim, shape, "squeeze") or ())
        drop = {a for a in axes if shape[a] == 1}
        return self.reshape(tuple(n for a, n in enumerate(shape) if a not in drop))

    def unsqueeze(self, dim: int):
        """A new axis of length 1 at position ``dim`` (of the result)."""
        shape = self._data.shape
        at = axis_of(dim, len(shape) + 1, "unsqueeze")
        return self.reshape(shape[:at] + (1,) + shape[at:])

    def expand(self, *sizes: Any):
        """Broadcast to ``sizes`` (-1 keeps an axis); the gradient sums the copies."""
        shape = self._data.shape
        sizes = size_args(sizes, "expand")
        lead = len(sizes) - len(shape)
        if lead < 0:
            raise ShapeError(f"expand: cannot expand shape {shape} to fewer axes {sizes}")
        new = tuple(shape[i - lead] if n == -1 and i >= lead else n for i, n in enumerate(sizes))
        return self._apply(BROADCAST_TO, self, static=(new,))

    broadcast_to = expand

    def repeat(self, *repeats: Any):
        """Tile the tensor ``repeats[k]`` times along axis k (``torch.Tensor.repeat``)."""
        repeats = size_args(repeats, "repeat")
        if len(repeats) < self._data.ndim:
            raise ShapeError(
                f"repeat: give a count for each of the {self._data.ndim} axes of shape "
                f"{self._data.shape}, got {repeats}"
            )
        return self._apply(REPEAT, self, static=(repeats,))

    def transpose(self, *axes: int):
        """Swap two axes (``x.transpose(0, 1)``, as ``torch.transpose``), or with no
        argument reverse them all (like ``.T``)."""
        shape = self._data.shape
        if not axes:
            return self._apply(TRANSPOSE, self, static=(None,))
        if len(axes) != 2:
            raise ShapeError(
                f"transpose: give two axes to swap (or none to reverse them all), got {axes} "
                f"for shape {shape}; use permute for a full reordering"
            )
        i, j = (axis_of(a, shape, "transpose") for a in axes)
        order = list(range(len(shape)))
        order[i], order[j] = order[j], order[i]
        return self._apply(TRANSPOSE, self, static=(tuple(order),))

    swapaxes = transpose

    @property
    def T(self):
        """The transpose (axes reversed)."""
        return self.transpose()

    @property
    def mT(self):
        """The last two axes swapped."""
        return self.transpose(-2, -1)

    def permute(self, *axes: Any):
        """Reorder all the axes: ``x.permute(2, 0, 1)`` puts axis 2 first."""
        shape = self._data.shape
        order = tuple(axis_of(a, shape, "permute") for a in size_args(axes, "permute"))
        if sorted(order) != list(range(len(shape))):
            raise ShapeError(
                f"permute: {axes} is not an order of all {len(shape)} axes of shape {shape}"
            )
        return self._apply(TRANSPOSE, self, static=(order,))

    def flip(self, *dims: Any):
        """Reverse the order of the entries along ``dims``."""
        axes = axes_of(size_args(dims, "flip"), self._data.shape, "flip")
        return self._apply(FLIP, self, static=(axes,))

    def split(self, split_size_or_sections: Any, dim: int = 0) -> tuple:
        """Pieces along ``dim``: of ``split_size`` each (the last may be shorter), or of the
        listed lengths."""
        axis = axis_of(dim, self._data.shape, "split")
        n = self._data.shape[axis]
        if isinstance(split_size_or_sections, int | np.integer):
            size = int(split_size_or_sections)
            if size < 1:
                raise ValueError(f"split: split_size must be positive, got {size}")
            lengths = [min(size, n - k) for k in range(0, n, size)]
        else:
            lengths = [int(k) for k in split_size_or_sections]
            if sum(lengths) != n:
                raise ShapeError(f"split: lengths {lengths} do not add up to axis {dim}'s {n}")
        pieces, start = [], 0
        for length in lengths:
            pieces.append(self[(slice(None),) * axis + (slice(start, start + length),)])
            start += length
        return tuple(pieces)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        """At most ``chunks`` pieces of equal length along ``dim`` (the last may be shorter)."""
        n = self._data.shape[axis_of(dim, self._data.shape, "chunk")]
        return self.split(max(-(-n // int(chunks)), 1), dim)
