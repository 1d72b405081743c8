"""The operations of a ``Tensor``, attached to the class: arithmetic from the rule
table, shapes, indexing, reductions, linear algebra, softmax and comparisons.

Each one is a call of :func:`~micrograd_edu.tensor.core.apply` with an
:class:`~micrograd_edu.ops.Op`, so its gradient comes with it, with PyTorch's names
(``dim``/``keepdim`` as well as numpy's ``axis``/``keepdims``).

>>> from micrograd_edu import Tensor
>>> x = Tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
>>> x.clamp(min=0).sum(dim=1)
tensor([1., 7.], grad_fn=<SumBackward>)
>>> x.max(dim=1)
max(values=tensor([1., 4.], grad_fn=<SelectBackward>), indices=tensor([0, 1]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import array_ops as A
from .. import piecewise_ops as P
from .. import reduce_ops as R
from .. import shape_ops as S
from ..functions import attach_rules
from ..ops import ELEMENTWISE, Op, ShapeError
from ..rules import Rule
from .axes import axes_of, axis_of, reduction_args, size_args
from .core import Tensor, _data, _leaf, apply, as_dtype

__all__ = ["MinMax", "Max", "Min"]


def _method(f: Callable[..., Any]) -> Callable[..., Any]:
    setattr(Tensor, f.__name__, f)
    return f


# ------------------------------------------------------ arithmetic, from the rules


def _unary(rule: Rule) -> Callable[[Tensor], Tensor]:
    op = ELEMENTWISE[rule.name]
    return lambda self: apply(op, self)


def _binary(rule: Rule, reflected: bool) -> Callable[[Tensor, Any], Tensor]:
    op = ELEMENTWISE[rule.name]
    if reflected:  # 2 - x calls x.__rsub__(2): self is the right operand
        return lambda self, other: apply(op, other, self)
    return lambda self, other: apply(op, self, other)


attach_rules(Tensor, _unary, _binary)
# PyTorch's method names for the operators: x.add(y), x.mul(2), x.pow(3) ...
for _name, _operator in [
    ("add", "__add__"),
    ("sub", "__sub__"),
    ("mul", "__mul__"),
    ("div", "__truediv__"),
    ("pow", "__pow__"),
    ("matmul", "__matmul__"),
]:
    setattr(Tensor, _name, lambda self, other, _o=_operator: getattr(Tensor, _o)(self, other))


@_method
def square(self: Tensor) -> Tensor:
    """x * x, elementwise."""
    return self * self


# ------------------------------------------------------------ shapes and views


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


# ------------------------------------------------------------------ reductions


def _reduce(op: Op, t: Tensor, axis: Any, keepdims: bool, torch_names: dict) -> Tensor:
    axis, keepdims = reduction_args(op.name, axis, keepdims, torch_names)
    axes = axes_of(axis, t.shape, op.name)
    return apply(op, t, static=(axes, keepdims and t.ndim > 0))


def _reduction(op: Op, doc: str) -> Any:
    def method(
        self: Tensor, axis: Any = None, keepdims: bool = False, **torch_names: Any
    ) -> Tensor:
        return _reduce(op, self, axis, keepdims, torch_names)

    method.__name__, method.__doc__ = op.name, doc
    return _method(method)


sum = _reduction(
    R.SUM, "Sum over ``axis`` (an int, a tuple, or all). ``dim``/``keepdim`` work too."
)
mean = _reduction(
    R.MEAN, "Mean over ``axis`` (an int, a tuple, or all); an empty mean is nan, as in PyTorch."
)
amax = _reduction(R.AMAX, "Largest entry over ``axis``; tied entries share the gradient equally.")
amin = _reduction(R.AMIN, "Smallest entry over ``axis``; tied entries share the gradient equally.")


class MinMax(NamedTuple):
    """What ``max(dim=...)`` and ``min(dim=...)`` return, as in PyTorch."""

    values: Tensor
    indices: Tensor

    def __repr__(self) -> str:
        return f"{type(self).__name__.lower()}(values={self.values!r}, indices={self.indices!r})"


class Max(MinMax):
    __slots__ = ()


class Min(MinMax):
    __slots__ = ()


def _extreme(kind: type[MinMax], whole: Op, arg: Callable[..., Any]) -> Callable[..., Any]:
    name = kind.__name__.lower()

    def extreme(self: Tensor, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        if "dim" not in torch_names:
            return _reduce(whole, self, axis, keepdims, torch_names)
        axis, keepdims = reduction_args(name, axis, keepdims, torch_names)
        at = axis_of(axis, self.ndim, name)
        if self.ndim == 0:
            return kind(self.clone(), _leaf(np.array(0)))
        index = arg(self._data, axis=at, keepdims=True)
        values = apply(R.SELECT, self, static=(at, bool(keepdims), index))
        return kind(values, _leaf(index if keepdims else index.squeeze(at)))

    extreme.__name__ = name
    extreme.__doc__ = (
        f"With ``axis`` (numpy's way) or none: the {name}imum as a tensor, ties sharing the "
        "gradient. With ``dim`` (PyTorch's way): ``(values, indices)``, the whole gradient "
        "going to the chosen entry."
    )
    return extreme


Tensor.max = _extreme(Max, R.AMAX, np.argmax)
Tensor.min = _extreme(Min, R.AMIN, np.argmin)


def _arg(name: str, find: Callable[..., Any]) -> Callable[..., Any]:
    def arg(self: Tensor, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        axis, keepdims = reduction_args(name, axis, keepdims, torch_names)
        if axis is None:
            index = find(self._data.reshape(-1))
            return _leaf(np.array(index).reshape((1,) * self.ndim if keepdims else ()))
        at = axis_of(axis, self.ndim, name)
        if self.ndim == 0:
            return _leaf(np.array(0))
        return _leaf(find(self._data, axis=at, keepdims=bool(keepdims)))

    arg.__name__ = name
    arg.__doc__ = f"Index of the {name[3:]}imum entry (over all, or along ``dim``; no gradient)."
    return arg


Tensor.argmax = _arg("argmax", np.argmax)
Tensor.argmin = _arg("argmin", np.argmin)


@_method
def prod(self: Tensor, dim: Any = None, keepdim: bool = False, **numpy_names: Any) -> Tensor:
    """The product of the entries (over all, or along one ``dim``)."""
    axis, keepdim = reduction_args("prod", numpy_names.pop("axis", dim), keepdim, numpy_names)
    if axis is None:
        return apply(R.PROD, self, static=(None,))
    at = axis_of(axis, self.shape, "prod")
    out = apply(R.PROD, self, static=(at if self.ndim else None,))
    return out.unsqueeze(at) if keepdim and self.ndim else out


@_method
def cumsum(self: Tensor, dim: int, **numpy_names: Any) -> Tensor:
    """Running sums along ``dim``."""
    dim = numpy_names.pop("axis", dim)
    if self.ndim == 0:
        return self.clone()
    return apply(R.CUMSUM, self, static=(axis_of(dim, self.shape, "cumsum"),))


@_method
def logsumexp(self: Tensor, dim: Any, keepdim: bool = False, **numpy_names: Any) -> Tensor:
    """log(sum(exp(x))) along ``dim``, computed without overflow."""
    return _reduce(R.LOGSUMEXP, self, numpy_names.pop("axis", dim), keepdim, numpy_names)


@_method
def norm(self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The vector p-norm over ``dim`` (all by default): p = 2, 1 or ``inf``."""
    if p in (2, "fro"):
        return _reduce(R.NORM, self, dim, keepdim, {})
    if p == 1:
        return self.abs().sum(dim=dim, keepdim=keepdim)
    if p in (np.inf, float("inf"), "inf"):
        return self.abs().amax(dim=dim, keepdim=keepdim)
    raise ValueError(f"norm: p must be 2, 1 or inf, got {p!r}")


@_method
def var(
    self: Tensor,
    dim: Any = None,
    *,
    correction: int = 1,
    keepdim: bool = False,
    unbiased: bool | None = None,
) -> Tensor:
    """Variance over ``dim`` with Bessel's ``correction`` (1: divide by n - 1)."""
    if unbiased is not None:
        correction = int(unbiased)
    axes = axes_of(dim, self.shape, "var")
    n = self.numel() if axes is None else int(np.prod([self.shape[a] for a in axes]))
    d = self - self.mean(dim=axes, keepdim=True) if axes else self - self.mean()
    return (d * d).sum(dim=axes, keepdim=keepdim) / max(n - correction, 0)


@_method
def std(
    self: Tensor,
    dim: Any = None,
    *,
    correction: int = 1,
    keepdim: bool = False,
    unbiased: bool | None = None,
) -> Tensor:
    """Standard deviation over ``dim`` (the square root of :meth:`var`)."""
    return self.var(dim, correction=correction, keepdim=keepdim, unbiased=unbiased).sqrt()


def _logical(name: str, reduce: Callable[..., Any]) -> Callable[..., Tensor]:
    def logical(self: Tensor, dim: Any = None, keepdim: bool = False, **numpy_names: Any):
        numpy_names.pop("out", None)  # numpy's np.any(t) passes out=None
        axis, keepdim = reduction_args(name, numpy_names.pop("axis", dim), keepdim, numpy_names)
        return _leaf(reduce(self._data, axis=axes_of(axis, self.ndim, name), keepdims=keepdim))

    logical.__name__ = name
    logical.__doc__ = (
        f"Whether {'some' if name == 'any' else 'every'} entry is non-zero (over all, or "
        "along ``dim``); no gradient."
    )
    return logical


Tensor.any = _logical("any", np.any)
Tensor.all = _logical("all", np.all)


# ---------------------------------------------------------- choosing entries


@_method
def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Entries limited to [min, max]; the gradient passes where the entry was inside."""
    if min is None and max is None:
        raise ValueError("clamp: give min, max or both")
    return apply(P.CLAMP, self, static=(_data(min), _data(max)))


Tensor.clip = clamp


@_method
def where(self: Tensor, condition: Any, other: Any) -> Tensor:
    """This tensor where ``condition`` holds, ``other`` elsewhere (``torch.where``)."""
    return apply(P.WHERE, self, other, static=(np.asarray(_data(condition), dtype=bool),))


@_method
def maximum(self: Tensor, other: Any) -> Tensor:
    """The larger of two entries, elementwise (ties share the gradient)."""
    return apply(P.MAXIMUM, self, other)


@_method
def minimum(self: Tensor, other: Any) -> Tensor:
    """The smaller of two entries, elementwise (ties share the gradient)."""
    return apply(P.MINIMUM, self, other)


# ------------------------------------------------------------ linear algebra


@_method
def __matmul__(self: Tensor, other: Any) -> Tensor:
    return apply(A.MATMUL, self, other)


@_method
def __rmatmul__(self: Tensor, other: Any) -> Tensor:
    return apply(A.MATMUL, other, self)


Tensor.matmul = __matmul__


@_method
def dot(self: Tensor, other: Any) -> Tensor:
    """Inner product of two 1-D tensors."""
    return apply(A.DOT, self, other)


@_method
def trace(self: Tensor) -> Tensor:
    """Sum of the diagonal of a matrix."""
    return apply(A.TRACE, self)


@_method
def softmax(self: Tensor, dim: int = -1, **numpy_names: Any) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``, computed without overflow."""
    axis = axis_of(numpy_names.pop("axis", dim), self.shape, "softmax")
    return apply(A.SOFTMAX, self, static=(axis,))


@_method
def log_softmax(self: Tensor, dim: int = -1, **numpy_names: Any) -> Tensor:
    """log(softmax(x)) along ``dim``, computed stably (no log of 0)."""
    axis = axis_of(numpy_names.pop("axis", dim), self.shape, "log_softmax")
    return apply(A.LOG_SOFTMAX, self, static=(axis,))


# ---------------------------------------------------------------- conversions


@_method
def to(self: Tensor, *args: Any, dtype: Any = None, **_ignored: Any) -> Tensor:
    """The tensor with entries of ``dtype`` (differentiable for floats). A device
    ("cpu") is accepted and changes nothing."""
    for a in args:
        if not (isinstance(a, str) and a.startswith("cpu")):
            dtype = a
    if dtype is None or as_dtype(dtype) == self.dtype:
        return self
    return apply(S.CAST, self, static=(as_dtype(dtype),))


Tensor.astype = to
Tensor.float = lambda self: self.to(np.float32)
Tensor.double = lambda self: self.to(np.float64)
Tensor.long = lambda self: self.to(np.int64)
Tensor.int = lambda self: self.to(np.int32)
Tensor.bool = lambda self: self.to(np.bool_)
Tensor.cpu = lambda self: self
Tensor.type_as = lambda self, other: self.to(other.dtype)


@_method
def clone(self: Tensor) -> Tensor:
    """A copy of the values that stays in the graph (its gradient passes through);
    also turns an inference tensor into an ordinary one."""
    return apply(_CLONE, self)


@_method
def round(self: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001
    """Entries rounded to ``decimals`` places (piecewise constant: no gradient flows)."""
    return _leaf(np.round(self._data, decimals))


@_method
def copy(self: Tensor) -> Tensor:
    """A detached copy of the values (numpy's name; PyTorch's is ``.detach().clone()``)."""
    return _leaf(self._data.copy())


_CLONE = Op("clone", np.copy, lambda g, out, xs, needs: (g,), lambda needs: (False,))


# ------------------------------------------------ comparisons (no gradient)


def _compare(name: str) -> Callable[[Tensor, Any], Tensor]:
    ufunc = getattr(np, name)
    return lambda self, other: _leaf(ufunc(self._data, _data(other)))


for _name, _ufunc in [
    ("eq", "equal"),
    ("ne", "not_equal"),
    ("lt", "less"),
    ("le", "less_equal"),
    ("gt", "greater"),
    ("ge", "greater_equal"),
]:
    _comparison = _compare(_ufunc)
    setattr(Tensor, _name, _comparison)
    setattr(Tensor, f"__{_name}__", _comparison)
