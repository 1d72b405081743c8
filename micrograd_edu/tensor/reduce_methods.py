"""The reductions of a ``Tensor``, attached to the class: ``sum``, ``mean``, ``max``/``min``
(with ``dim``, ``(values, indices)`` as in PyTorch), ``prod``, ``cumsum``, ``logsumexp``,
``norm``, ``var``, ``std``, ``any``, ``all``, with PyTorch's ``dim``/``keepdim`` as well as
numpy's ``axis``/``keepdims``.

>>> from micrograd_edu import Tensor
>>> x = Tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
>>> x.max(dim=1)
max(values=tensor([1., 4.], grad_fn=<SelectBackward>), indices=tensor([0, 1]))
>>> x.var(dim=0).tolist()
[2.0, 18.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from . import reduce_ops as R
from .axes import axes_of, axis_of, reduction_args
from .core import Tensor, _leaf, apply, method
from .ops import Op

__all__ = ["MinMax", "Max", "Min"]

_method = method


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
