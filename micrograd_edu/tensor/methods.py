"""The operations of a ``Tensor``, attached to the class: arithmetic from the rule
table, choosing entries (``clamp``, ``where``, ``maximum``), linear algebra, softmax,
conversions and comparisons; shapes are in :mod:`.shape_methods`, reductions in
:mod:`.reduce_methods`.

Each one is a call of :func:`~micrograd_edu.tensor.core.apply` with an
:class:`~micrograd_edu.tensor.ops.Op`, so its gradient comes with it, with PyTorch's names
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
from typing import Any

import numpy as np

from ..functions import method_names
from ..rules import RULES, Rule
from . import array_ops as A
from . import piecewise_ops as P
from . import shape_ops as S
from .arrays import as_dtype
from .axes import axis_of
from .core import Tensor, _data, _leaf, apply, method
from .ops import ELEMENTWISE, Op, elementwise

__all__: list[str] = []


_method = method


# ------------------------------------------------------ arithmetic, from the rules


def _unary(rule: Rule) -> Callable[[Tensor], Tensor]:
    op = ELEMENTWISE[rule.name]
    return lambda self: apply(op, self)


def _binary(rule: Rule, reflected: bool) -> Callable[[Tensor, Any], Tensor]:
    op = ELEMENTWISE[rule.name]
    if reflected:  # 2 - x calls x.__rsub__(2): self is the right operand
        return lambda self, other: apply(op, other, self)
    return lambda self, other: apply(op, self, other)


# (Written out as methods in the restructure that follows: tensor/elementwise.py.)
for _rule in RULES.values():
    _names = method_names(_rule)
    if _rule.arity == 1:
        for _name in _names:
            setattr(Tensor, _name, _unary(_rule))
    else:
        for _name, _reflected in zip(_names, (False, True), strict=True):
            setattr(Tensor, _name, _binary(_rule, _reflected))
Tensor._rule = staticmethod(
    lambda rule, *args: apply(ELEMENTWISE.get(rule.name) or elementwise(rule), *args)
)
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
