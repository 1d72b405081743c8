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

from .dtypes import promoted
from .operation import DimensionError, Op, ShapeError, namespace_of, saves_none, storage

__all__ = [
    "Shapes",
    "unbroadcast",
    "axis_of",
    "axes_of",
    "ALIASES",
    "bind",
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
        if any(x.dtype != xs[0].dtype for x in xs):
            xs = promoted(tuple(xs))  # PyTorch's promotion, as for arithmetic
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
    lambda a, axes: np.flip(a, axes).copy(),  # a copy, as PyTorch's flip
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


#: numpy's names PyTorch takes as well (``x.sum(axis=1, keepdims=True)`` works in both).
ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def bind(op: str, args: tuple, kwargs: dict, names: tuple, defaults: dict) -> dict:
    """The arguments of a PyTorch method: positional in the order of ``names``, or by keyword
    (numpy's ``axis`` and ``keepdims`` for ``dim`` and ``keepdim``); unknown keywords raise,
    as in PyTorch. ``out=None`` and ``dtype=None`` (which ``np.sum(t)`` passes) are ignored.

    >>> bind("sum", (1,), {"keepdims": True}, ("dim", "keepdim"), {"dim": None, "keepdim": False})
    {'dim': 1, 'keepdim': True}
    """
    if len(args) > len(names):
        raise TypeError(f"{op}() takes at most {len(names)} arguments ({len(args)} given)")
    bound = dict(defaults)
    bound.update(zip(names, args))  # noqa: B905 (fewer args than names)
    for key, value in kwargs.items():
        name = ALIASES.get(key, key)
        if name not in defaults:
            if key in ("out", "dtype") and value is None:
                continue
            raise TypeError(f"{op}() got an unexpected keyword argument {key!r}")
        if name in names[: len(args)] or (name != key and name in kwargs):
            raise TypeError(f"{op}() got multiple values for argument {name!r}")
        bound[name] = value
    return bound


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


def viewable(shape: tuple, strides: tuple, itemsize: int, new: tuple) -> bool:
    """Whether an array of ``shape`` and ``strides`` (bytes) can be seen in shape ``new``
    without copying: PyTorch's rule for ``view`` (ATen's ``computeStride``), which refuses
    when a new axis would span two runs of memory (``x.t().view(-1)``).

    >>> viewable((2, 3), (24, 8), 8, (6,)), viewable((3, 2), (8, 24), 8, (6,))
    (True, False)
    """
    if not shape or 0 in shape:
        return True
    strides = [s // itemsize for s in strides]
    view_d = len(new) - 1
    chunk_base = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel = view_numel = 1
    return view_d == -1


def as_view(out: Any, of: Any, op: Op, static: tuple) -> Any:
    """Note that ``out`` shows ``of``'s entries (a view, sharing memory), made by ``op`` with
    ``static``: an in-place change of ``out`` is then a change of ``of``'s base too, recorded
    as PyTorch records it (:mod:`.inplace`). A result that was copied (a reshape that
    could not be a view) is not a view."""
    if storage(out._data) is storage(of._data):
        base = getattr(of, "_view", None)
        out._view = (of, ((op, static),)) if base is None else (base[0], (*base[1], (op, static)))
        if of._version < 0:  # a view of .data is not tracked either
            out._version = -1
    return out


def _resolved(shape: tuple, size: int) -> tuple:
    """``shape`` with its -1 worked out for ``size`` entries (ValueError if none fits)."""
    if shape.count(-1) > 1 or any(n < -1 for n in shape):
        raise ValueError(shape)
    known = int(np.prod([n for n in shape if n != -1]))
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError(shape)
        return tuple(size // known if n == -1 else n for n in shape)
    if known != size:
        raise ValueError(shape)
    return shape


def _sizes(shape: tuple, kwargs: dict, op: str, key: str) -> tuple:
    if kwargs:
        if set(kwargs) != {key} or shape:
            raise TypeError(f"{op}() got an unexpected keyword argument {sorted(kwargs)[0]!r}")
        shape = (kwargs[key],)
    return size_args(shape, op)


def _int_dim(dim: Any, op: str) -> Any:
    if isinstance(dim, bool) or not _is_int(dim):
        raise TypeError(f"{op}(): dim must be an int, got {type(dim).__name__} {dim!r}")
    return dim


class Shapes:
    """The shape operations of ``Tensor`` (a mixin of
    :class:`~micrograd_edu.tensor.tensor.Tensor`, which provides ``_apply``). The ones that
    PyTorch makes views (``view``, ``transpose``, ``expand``, ``x[0]``, ...) are views here
    too: they share memory with their input, and an in-place change through one is a change
    of the other (see :mod:`.inplace`)."""

    __slots__ = ()

    def _viewed(self, op: Op, static: tuple):
        return as_view(self._apply(op, self, static=static), self, op, static)

    def reshape(self, *shape: Any, **kwargs: Any):
        """The same entries in a new shape (one axis may be -1): a view when the memory
        allows, else a copy, as in PyTorch."""
        return self._viewed(RESHAPE, (_sizes(shape, kwargs, "reshape", "shape"),))

    def view(self, *shape: Any, **kwargs: Any):
        """The same entries in a new shape, sharing memory; PyTorch's rule: refused when the
        entries are not laid out for it (after a transpose: use :meth:`reshape`)."""
        new = _sizes(shape, kwargs, "view", "size")
        data = self._data
        try:
            target = _resolved(new, data.size)
        except ValueError:
            raise ShapeError(
                f"view: shape {new} is invalid for a tensor of {data.size} entries "
                f"(shape {data.shape})"
            ) from None
        if not viewable(data.shape, data.strides, data.itemsize, target):
            raise RuntimeError(
                f"view: shape {new} is not compatible with this tensor's layout in memory "
                f"(shape {data.shape}, strides {tuple(s // data.itemsize for s in data.strides)}"
                "): an axis of the view would span two runs of memory (as after a transpose); "
                "use .reshape(...), or .contiguous().view(...)"
            )
        return self._viewed(RESHAPE, (target,))

    def view_as(self, other: Any):
        """:meth:`view` in ``other``'s shape."""
        return self.view(tuple(other.shape))

    def reshape_as(self, other: Any):
        """:meth:`reshape` to ``other``'s shape."""
        return self.reshape(tuple(other.shape))

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        """Axes ``start_dim`` to ``end_dim`` merged into one (a 0-d tensor becomes 1-d)."""
        shape = self._data.shape
        start, end = axis_of(start_dim, shape, "flatten"), axis_of(end_dim, shape, "flatten")
        if not shape:
            return self.reshape(1)
        if start > end:
            raise ShapeError(
                f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for shape {shape}"
            )
        merged = int(np.prod(shape[start : end + 1]))
        return self.reshape(shape[:start] + (merged,) + shape[end + 1 :])

    def ravel(self):
        """The entries as a 1-d tensor (a view when the memory allows)."""
        return self.reshape(-1)

    def squeeze(self, dim: Any = None):
        """Drop axes of length 1 (all of them, or those of ``dim`` that have length 1)."""
        shape = self._data.shape
        axes = range(len(shape)) if dim is None else (axes_of(dim, shape, "squeeze") or ())
        drop = {a for a in axes if shape[a] == 1}
        return self.reshape(tuple(n for a, n in enumerate(shape) if a not in drop))

    def unsqueeze(self, dim: int):
        """A new axis of length 1 at position ``dim`` (of the result)."""
        shape = self._data.shape
        at = axis_of(_int_dim(dim, "unsqueeze"), len(shape) + 1, "unsqueeze")
        return self.reshape(shape[:at] + (1,) + shape[at:])

    def expand(self, *sizes: Any, **kwargs: Any):
        """Broadcast to ``sizes`` (-1 keeps an axis), a view; the gradient sums the copies."""
        shape = self._data.shape
        sizes = _sizes(sizes, kwargs, "expand", "size")
        lead = len(sizes) - len(shape)
        if lead < 0:
            raise ShapeError(f"expand: cannot expand shape {shape} to fewer axes {sizes}")
        if any(n == -1 for n in sizes[:lead]):
            raise ShapeError(f"expand: -1 cannot stand for a new leading axis, got {sizes}")
        new = tuple(shape[i - lead] if n == -1 and i >= lead else n for i, n in enumerate(sizes))
        return self._viewed(BROADCAST_TO, (new,))

    broadcast_to = expand

    def expand_as(self, other: Any):
        """:meth:`expand` to ``other``'s shape."""
        return self.expand(tuple(other.shape))

    def repeat(self, *repeats: Any):
        """Tile the tensor ``repeats[k]`` times along axis k (``torch.Tensor.repeat``)."""
        repeats = size_args(repeats, "repeat")
        if len(repeats) < self._data.ndim:
            raise ShapeError(
                f"repeat: give a count for each of the {self._data.ndim} axes of shape "
                f"{self._data.shape}, got {repeats}"
            )
        return self._apply(REPEAT, self, static=(repeats,))

    def transpose(self, *args: Any, **kwargs: Any):
        """Swap two axes: ``x.transpose(0, 1)`` (or ``dim0=``, ``dim1=``), a view."""
        spec = bind("transpose", args, kwargs, ("dim0", "dim1"), {"dim0": None, "dim1": None})
        shape = self._data.shape
        if spec["dim0"] is None or spec["dim1"] is None:
            raise TypeError(
                "transpose(): give the two dims to swap, e.g. x.transpose(0, 1); x.T reverses "
                "them all, x.permute(...) reorders them"
            )
        i, j = (axis_of(_int_dim(spec[k], "transpose"), shape, "transpose") for k in spec)
        order = list(range(len(shape)))
        if order:
            order[i], order[j] = order[j], order[i]
        return self._viewed(TRANSPOSE, (tuple(order),))

    swapaxes = swapdims = transpose

    def t(self):
        """The transpose of a matrix (a 0-d or 1-d tensor as it is), as ``torch.t``."""
        if self._data.ndim > 2:
            raise ShapeError(
                f"t(): expects a tensor of at most 2 dims, got shape {self._data.shape}; use "
                "transpose(dim0, dim1) or .mT"
            )
        return self._viewed(TRANSPOSE, (tuple(reversed(range(self._data.ndim))),))

    @property
    def T(self):
        """The transpose (axes reversed)."""
        return self._viewed(TRANSPOSE, (tuple(reversed(range(self._data.ndim))),))

    @property
    def mT(self):
        """The last two axes swapped."""
        if self._data.ndim < 2:
            raise ShapeError(f"mT: needs at least 2 dims, got shape {self._data.shape}")
        return self.transpose(-2, -1)

    def permute(self, *axes: Any, **kwargs: Any):
        """Reorder all the axes: ``x.permute(2, 0, 1)`` puts axis 2 first (a view)."""
        shape = self._data.shape
        axes = _sizes(axes, kwargs, "permute", "dims")
        order = tuple(axis_of(a, shape, "permute") for a in axes)
        if sorted(order) != list(range(len(shape))):
            raise ShapeError(
                f"permute: {axes} is not an order of all {len(shape)} axes of shape {shape}"
            )
        return self._viewed(TRANSPOSE, (order,))

    def flip(self, *dims: Any, **kwargs: Any):
        """Reverse the order of the entries along ``dims`` (a copy, as PyTorch's)."""
        dims = _sizes(dims, kwargs, "flip", "dims")
        axes = axes_of(dims, self._data.shape, "flip")
        if self._data.ndim == 0 or not axes:
            return self._apply(FLIP, self, static=((),))
        return self._apply(FLIP, self, static=(axes,))

    def split(self, split_size_or_sections: Any, dim: int = 0) -> tuple:
        """Pieces along ``dim`` (views): of ``split_size`` each (the last may be shorter), or
        of the listed lengths."""
        axis = axis_of(_int_dim(dim, "split"), self._data.shape, "split")
        n = self._data.shape[axis]
        if _is_int(split_size_or_sections):
            size = int(split_size_or_sections)
            if size < 1 and n:
                raise ValueError(f"split: split_size must be positive, got {size}")
            lengths = [min(size, n - k) for k in range(0, n, max(size, 1))] or [0]
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
        if int(chunks) < 1:
            raise ValueError(f"chunk: chunks must be positive, got {chunks}")
        n = self._data.shape[axis_of(_int_dim(dim, "chunk"), self._data.shape, "chunk")]
        if n == 0:  # as many empty pieces as asked for, as PyTorch's
            axis = axis_of(dim, self._data.shape, "chunk")
            return tuple(self[(slice(None),) * axis + (slice(0, 0),)] for _ in range(int(chunks)))
        return self.split(-(-n // int(chunks)), dim)

    def unbind(self, dim: int = 0) -> tuple:
        """The slices along ``dim``, each without that axis (views)."""
        axis = axis_of(_int_dim(dim, "unbind"), self._data.shape, "unbind")
        return tuple(self[(slice(None),) * axis + (i,)] for i in range(self._data.shape[axis]))

    def narrow(self, dim: int, start: int, length: int):
        """``length`` entries from ``start`` along ``dim`` (a view)."""
        axis = axis_of(_int_dim(dim, "narrow"), self._data.shape, "narrow")
        n = self._data.shape[axis]
        start = int(start) + (n if int(start) < 0 else 0)
        if not 0 <= start <= n or int(length) < 0 or start + int(length) > n:
            raise IndexError(
                f"narrow: start {start} and length {length} do not fit axis {axis} of length {n}"
            )
        return self[(slice(None),) * axis + (slice(start, start + int(length)),)]

    def select(self, dim: int, index: int):
        """The slice at ``index`` along ``dim``, without that axis (a view)."""
        axis = axis_of(_int_dim(dim, "select"), self._data.shape, "select")
        return self[(slice(None),) * axis + (_int_dim(index, "select"),)]
