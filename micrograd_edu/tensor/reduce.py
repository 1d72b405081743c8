"""Reductions: sum, mean, the extremes, product, cumulative sum, log-sum-exp and the
2-norm, each an :class:`~micrograd_edu.tensor.operation.Op` with its forward and VJP
side by side, and :class:`Reductions`, the mixin that gives them to ``Tensor`` (with
``var``, ``std``, ``argmax``, ``any``, ...).

They take their arguments as PyTorch's do: ``x.sum(1)``, ``x.sum(dim=(0, 1), keepdim=True)``,
``x.max(1)`` (the values *and* their indices), with numpy's ``axis`` and ``keepdims`` as
aliases, as PyTorch accepts them. No dims, ``dim=()`` or ``dim=[]`` reduce over every dim.

``axis`` reaches the operations normalised (a tuple of non-negative axes, or ``None``
for all); a reduction's gradient first puts the removed axes back
(:func:`expand_reduced`) so that it broadcasts against the input.

>>> SUM.vjp(np.ones(2), None, (np.ones((2, 3)),), (True,), (1,), False)[0]
array([[1., 1., 1.],
       [1., 1., 1.]])
>>> from micrograd_edu import Tensor
>>> x = Tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
>>> x.max(1)
max(values=tensor([1., 4.], grad_fn=<SelectBackward>), indices=tensor([0, 1]))
>>> x.var(dim=0).tolist(), x.sum(dim=()).item()
([2.0, 18.0], 6.0)
"""

from __future__ import annotations

import warnings
from math import prod
from typing import Any, NamedTuple

import numpy as np

from .dtypes import DEFAULT_FLOAT
from .operation import DimensionError, Op, always, namespace_of, saves_all, saves_none
from .shape import axes_of, axis_of, bind

__all__ = [
    "Reductions",
    "MinMax",
    "Max",
    "Min",
    "SUM",
    "MEAN",
    "AMAX",
    "AMIN",
    "MAX",
    "MIN",
    "SELECT",
    "PROD",
    "CUMSUM",
    "LOGSUMEXP",
    "NORM",
    "ROOT",
    "VAR",
    "expand_reduced",
]


def expand_reduced(g, ndim: int, axis, keepdims: bool):
    """``g`` with the axes a reduction removed put back as length 1 (arrays and tensors)."""
    if keepdims or axis is None and g.ndim == ndim:
        return g
    if axis is None:
        return g.reshape((1,) * ndim)
    shape = list(g.shape)
    for a in sorted(axis):
        shape.insert(a, 1)
    return g.reshape(tuple(shape))


def _spread(g, shape, dtype):
    """``g`` copied to every entry of ``shape``: a new array for an array (a gradient the
    engine owns), a recorded broadcast for a tensor."""
    if type(g) is np.ndarray or isinstance(g, np.generic):
        out = np.zeros(shape, dtype=dtype)
        out += g
        return out
    return g.expand(*shape)


def _count(a, out) -> int:
    n, m = prod(a.shape), prod(out.shape)  # arrays and tensors (whose .size is a method)
    return n // max(m, 1) if n else 1


def _sum_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    return (_spread(expand_reduced(g, a.ndim, axis, keepdims), a.shape, a.dtype),)


SUM = Op(
    "sum",
    lambda a, axis, keepdims: a.sum(axis=axis, keepdims=keepdims),
    _sum_vjp,
    saves_none,
    fresh=True,
)


def _mean_forward(a, axis, keepdims):
    total = a.sum(axis=axis, keepdims=keepdims)
    if a.size == 0:
        return total * np.nan  # an empty mean is not a number (PyTorch: nan)
    return total / (a.size // max(total.size, 1))


def _mean_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    g = expand_reduced(g, a.ndim, axis, keepdims) / _count(a, out)
    return (_spread(g, a.shape, out.dtype),)


MEAN = Op("mean", _mean_forward, _mean_vjp, saves_none, fresh=True)


def _nonempty(name: str, shape: tuple, axis) -> None:
    """PyTorch's refusal to take an extreme over nothing."""
    if axis is None:
        if 0 in shape:
            raise RuntimeError(
                f"{name}(): the input of shape {shape} is empty, so it has no {name}; give a "
                "dim whose length is not 0"
            )
        return
    for a in axis:
        if shape[a] == 0:
            raise DimensionError(
                f"{name}(): the reduction dim {a} has length 0 in shape {shape}, so it has no "
                f"{name}"
            )


def _extreme(name: str, reduce, whole: bool):
    """``amax``/``amin`` (``whole=False``) or ``max()``/``min()`` of every entry (``whole``).
    Tied entries share the gradient equally, as in PyTorch, whose two formulas differ where a
    nan is involved, and so do these: ``max()`` gives the gradient to the nan entries when
    the result is nan, and exactly 0 to the others; ``amax`` multiplies by its mask of
    ``input == result``, so a nan result or a nan gradient reaches every entry."""

    def forward(a, axis, keepdims):
        _nonempty(name, a.shape, axis)
        return reduce(a, axis=axis, keepdims=keepdims)

    def vjp(g, out, xs, needs, axis, keepdims):
        a = xs[0]
        peak = expand_reduced(out, a.ndim, axis, keepdims)
        hit = a == peak
        if whole and _any_nan(out):
            hit = _isnan(a)
        hit = hit.astype(g.dtype)
        count = hit.sum(axis=axis, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = expand_reduced(g, a.ndim, axis, keepdims) / count
        if not whole:
            return (share * hit,)
        chosen = _data(hit) != 0
        if isinstance(g, np.ndarray | np.generic):
            return (np.where(chosen, share, 0.0).astype(g.dtype, copy=False),)
        return (share.expand(*a.shape).where(chosen, 0.0),)

    return Op(name, forward, vjp, saves_all, fresh=True, saves_out=always)


def _data(x):
    return x if isinstance(x, np.ndarray | np.generic) else x._data


def _isnan(x):
    return np.isnan(x) if isinstance(x, np.ndarray | np.generic) else x != x


def _any_nan(out) -> bool:
    data = out if isinstance(out, np.ndarray | np.generic) else out._data
    return bool(np.isnan(data).any()) if data.dtype.kind == "f" else False


AMAX = _extreme("amax", np.max, whole=False)
AMIN = _extreme("amin", np.min, whole=False)
MAX = _extreme("max", np.max, whole=True)
MIN = _extreme("min", np.min, whole=True)


def _select_forward(a, axis, keepdims, index):
    # ``index`` is argmax/argmin with keepdims=True, computed by the caller.
    picked = np.take_along_axis(a, index, axis)
    return picked if keepdims else picked.squeeze(axis)


def _select_vjp(g, out, xs, needs, axis, keepdims, index):
    # max(dim) and min(dim): the whole gradient goes to the chosen entry.
    a = xs[0]
    g = g if keepdims else g.reshape(index.shape)
    if isinstance(g, np.ndarray | np.generic):
        grad = np.zeros(a.shape, dtype=g.dtype)
        np.put_along_axis(grad, index, g, axis)
        return (grad,)
    mask = np.zeros(a.shape, dtype=bool)
    np.put_along_axis(mask, index, True, axis)
    return (g.expand(*a.shape).where(mask, 0.0),)


SELECT = Op("select", _select_forward, _select_vjp, saves_none, fresh=True)


def _prod_vjp(g, out, xs, needs, axis):
    # d prod / d a_i = the product of all the others: exclusive products from the left
    # and from the right, which stays exact when some a_j is 0 (no division).
    a = xs[0]
    if not isinstance(g, np.ndarray | np.generic):  # create_graph: a recorded product
        return (_recorded_others(a, axis) * expand_reduced(g, a.ndim, _axes(axis), False),)
    arr = a
    if arr.size == 0:  # nothing to differentiate: a gradient of the input's (empty) shape
        return (np.zeros(arr.shape, dtype=g.dtype),)
    moved = arr.reshape(-1) if axis is None else np.moveaxis(arr, axis, -1)
    ones = np.ones(moved.shape[:-1] + (1,), dtype=arr.dtype)
    left = np.cumprod(np.concatenate([ones, moved[..., :-1]], -1), -1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(moved, -1)[..., :-1]], -1), -1), -1)
    others = left * right
    others = others.reshape(arr.shape) if axis is None else np.moveaxis(others, -1, axis)
    return (others * expand_reduced(g, arr.ndim, _axes(axis), False),)


def _axes(axis):
    return None if axis is None else (axis,)


def _recorded_others(a, axis):
    """The product of all the other entries, for each entry of the tensor ``a``, as
    recorded operations (no division, so a 0 stays exact): for entry i, the product
    with entry i set to 1, put in place i. Quadratic in the axis length, which only a
    second derivative pays."""
    if a.ndim == 0 or a._data.size == 0:  # nothing else to multiply: constant (PyTorch too)
        return a._leaf(np.ones(a.shape, a.dtype))
    flat = a.reshape(-1) if axis is None else a
    at = 0 if axis is None else axis
    n = flat.shape[at]
    shape = [1] * flat.ndim
    shape[at] = n
    total = None
    for i in range(n):
        here = (np.arange(n) == i).reshape(shape)
        others = flat.where(~here, 1.0).prod(dim=at, keepdim=True) * here.astype(flat.dtype)
        total = others if total is None else total + others
    return total.reshape(a.shape)


PROD = Op(
    "prod",
    lambda a, axis: np.prod(a, axis=axis),
    _prod_vjp,
    saves_all,
    fresh=True,
    saves_out=always,
)


def _cumsum_vjp(g, out, xs, needs, axis):
    space = namespace_of(g)  # the sum of the gradient from each entry to the end
    return (space.flip(space.cumsum(space.flip(g, axis), axis), axis),)


CUMSUM = Op("cumsum", lambda a, axis: np.cumsum(a, axis=axis), _cumsum_vjp, saves_none, fresh=True)


def _logsumexp_forward(a, axis, keepdims):
    if a.size == 0:  # log of an empty sum: -inf (PyTorch's)
        with np.errstate(divide="ignore"):
            return np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims))
    peak = np.max(a, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)  # all -inf stays -inf, not nan
    with np.errstate(divide="ignore"):
        total = np.log(np.sum(np.exp(a - peak), axis=axis, keepdims=True)) + peak
    return total if keepdims else np.squeeze(total, axis=axis)


def _logsumexp_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    space = namespace_of(g)  # the gradient is softmax(a) along the axes
    weights = space.exp(a - expand_reduced(out, a.ndim, axis, keepdims))
    return (weights * expand_reduced(g, a.ndim, axis, keepdims),)


LOGSUMEXP = Op(
    "logsumexp", _logsumexp_forward, _logsumexp_vjp, saves_all, fresh=True, saves_out=always
)


def _norm_forward(a, axis, keepdims):
    return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims))


def _norm_vjp(g, out, xs, needs, axis, keepdims):
    # PyTorch's formula, a * (g / |a|) with 0 where |a| = 0: the subgradient there, and a
    # second derivative at 0 that is nan (0 times the infinite slope of g / |a|), as its.
    a = xs[0]
    peak = expand_reduced(out, a.ndim, axis, keepdims)
    g = expand_reduced(g, a.ndim, axis, keepdims)
    if type(g) is np.ndarray or isinstance(g, np.generic):
        with np.errstate(divide="ignore", invalid="ignore"):
            return (a * np.where(peak == 0, 0.0, g / peak),)
    return (a * (g / peak).where(peak != 0, 0.0),)


NORM = Op("norm", _norm_forward, _norm_vjp, saves_all, fresh=True, saves_out=always)


def _var_forward(a, axis, correction, keepdims):
    n = a.size if axis is None else prod(a.shape[k] for k in axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = a - np.mean(a, axis=axis, keepdims=True)
        return np.sum(d * d, axis=axis, keepdims=keepdims) / max(n - correction, 0)


def _var_vjp(g, out, xs, needs, axis, correction, keepdims):
    # PyTorch's formula, 2 (x - mean) g / (n - correction), with the count of the dims that
    # were reduced (PyTorch counts 1 for dim=[], a defect: its gradient is then off by a factor
    # n - 1). With no degrees of freedom left, g times nan where x is its mean, inf elsewhere,
    # constants (a second derivative through them is 0, as PyTorch's).
    a = xs[0]
    n = prod(a.shape) if axis is None else prod(a.shape[k] for k in axis)
    g = expand_reduced(g, a.ndim, axis, keepdims)
    if isinstance(g, np.ndarray | np.generic):
        with np.errstate(divide="ignore", invalid="ignore"):
            d = a - np.mean(a, axis=axis, keepdims=True)
            if n - correction <= 0:
                return (g * np.where(d == 0, np.nan, np.inf),)
            return ((2.0 / (n - correction)) * g * d,)
    mean = a.mean() if axis is None else a.mean(dim=axis, keepdim=True)
    if n - correction <= 0:
        return (g * np.where((a - mean)._data == 0, np.nan, np.inf),)
    return ((2.0 / (n - correction)) * g * (a - mean),)


#: The variance, with Bessel's correction.
VAR = Op("var", _var_forward, _var_vjp, saves_all, fresh=True)


def _root_vjp(g, out, xs, needs):
    # d sqrt(v) = g / (2 sqrt(v)), and 0 where sqrt(v) = 0: PyTorch's std (a constant input's
    # spread stays 0 whichever way it moves together).
    if isinstance(g, np.ndarray | np.generic):
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.where(out == 0, 0.0, g / (2 * out)),)
    return ((g / (2 * out)).where(out != 0, 0.0),)


#: std's square root of the variance.
ROOT = Op("std", np.sqrt, _root_vjp, saves_none, fresh=True, saves_out=always)


class MinMax(NamedTuple):
    """What ``max(dim)`` and ``min(dim)`` return, as in PyTorch."""

    values: Any
    indices: Any

    def __repr__(self) -> str:
        return f"{type(self).__name__.lower()}(values={self.values!r}, indices={self.indices!r})"


class Max(MinMax):
    __slots__ = ()


class Min(MinMax):
    __slots__ = ()


_DIM = ("dim", "keepdim")
_MISSING = object()
_NO_DIM = {"dim": None, "keepdim": False}


def _dims(t: Any, dim: Any, name: str) -> tuple[int, ...] | None:
    """The axes a reduction takes: ``None`` for every axis (no dim, or an empty list of
    dims, as in PyTorch), else a sorted tuple."""
    if dim is not None and not isinstance(dim, int | np.integer) and len(dim) == 0:
        return None
    return axes_of(dim, t._data.shape, name)


def _float_only(t: Any, name: str, fix: str) -> None:
    if t._data.dtype.kind != "f":
        raise RuntimeError(
            f"{name}(): takes a floating-point tensor, got dtype {t._data.dtype} (as in "
            f"PyTorch); {fix}"
        )


def _reduce(op: Op, t: Any, args: tuple, kwargs: dict, extra: dict | None = None) -> Any:
    spec = bind(op.name, args, kwargs, _DIM, {**_NO_DIM, **(extra or {})})
    if spec.get("dtype") is not None:
        t = t.to(spec["dtype"])
    axes = _dims(t, spec["dim"], op.name)
    return t._apply(op, t, static=(axes, bool(spec["keepdim"]) and t._data.ndim > 0))


def _max_min(t: Any, kind: type[MinMax], whole: Op, find: Any, pair: Any, args, kwargs):
    """``max``/``min`` as PyTorch's: of every entry (ties share the gradient), ``(values,
    indices)`` along a dim (the gradient to the chosen entry), or elementwise with a tensor."""
    name = kind.__name__.lower()
    if args and hasattr(args[0], "_data") or "other" in kwargs:
        other = args[0] if args else kwargs.pop("other")
        if len(args) > 1 or kwargs:
            raise TypeError(f"{name}(other): takes no other argument with a tensor")
        return pair(t, other)
    spec = bind(name, args, kwargs, _DIM, _NO_DIM)
    if spec["dim"] is None:
        if "keepdim" in kwargs or len(args) > 1:
            raise TypeError(f"{name}(): keepdim needs a dim")
        _nonempty(name, t._data.shape, None)
        return t._apply(whole, t, static=(None, False))
    dim = spec["dim"]
    if not isinstance(dim, int | np.integer) and not hasattr(dim, "__index__"):
        raise TypeError(
            f"{name}(dim): dim must be an int, got {type(dim).__name__} {dim!r}; for the "
            f"{name} over several dims use amax/amin (which give no indices)"
        )
    keepdim = bool(spec["keepdim"])
    at = axis_of(dim, t._data.shape, name)
    if t._data.ndim == 0:
        return kind(t.clone(), t._leaf(np.array(0)))
    _nonempty(name, t._data.shape, (at,))
    index = find(t._data, axis=at, keepdims=True)
    values = t._apply(SELECT, t, static=(at, keepdim, index))
    return kind(values, t._leaf(index if keepdim else index.squeeze(at)))


def _arg(t: Any, name: str, find: Any, args: tuple, kwargs: dict) -> Any:
    spec = bind(name, args, kwargs, _DIM, _NO_DIM)
    dim, keepdim = spec["dim"], bool(spec["keepdim"])
    if dim is None:
        _nonempty(name, t._data.shape, None)
        index = find(t._data.reshape(-1))
        return t._leaf(np.array(index).reshape((1,) * t._data.ndim if keepdim else ()))
    if not isinstance(dim, int | np.integer) and not hasattr(dim, "__index__"):
        raise TypeError(f"{name}(): dim must be an int, got {type(dim).__name__} {dim!r}")
    at = axis_of(dim, t._data.ndim, name)
    if t._data.ndim == 0:
        return t._leaf(np.array(0))
    _nonempty(name, t._data.shape, (at,))
    return t._leaf(find(t._data, axis=at, keepdims=keepdim))


def _logical(t: Any, name: str, reduce: Any, args: tuple, kwargs: dict) -> Any:
    spec = bind(name, args, kwargs, _DIM, _NO_DIM)
    axes = axes_of(spec["dim"], t._data.ndim, name)  # dim=(): nothing reduced, as in PyTorch
    return t._leaf(reduce(t._data, axis=axes, keepdims=bool(spec["keepdim"])))


def _correction(name: str, args: tuple, kwargs: dict) -> tuple[Any, int, bool]:
    """var/std's arguments in PyTorch's forms: ``(dim, unbiased, keepdim)`` positional,
    ``unbiased=`` or ``correction=`` by keyword, or ``x.var(False)`` (unbiased)."""
    if args and isinstance(args[0], bool):
        args = (None, *args)
    names = ("dim", "unbiased", "keepdim")
    defaults = {"dim": None, "unbiased": None, "keepdim": False, "correction": None}
    spec = bind(name, args, kwargs, names, defaults)
    if spec["unbiased"] is not None and spec["correction"] is not None:
        raise TypeError(f"{name}(): give unbiased= or correction=, not both")
    correction = spec["correction"]
    if correction is None:
        correction = 1 if spec["unbiased"] in (None, True) else 0
    return spec["dim"], correction, bool(spec["keepdim"])


class Reductions:
    """The reductions of ``Tensor`` (a mixin of :class:`~micrograd_edu.tensor.tensor.Tensor`,
    which provides ``_apply`` and ``_leaf``)."""

    __slots__ = ()

    def sum(self, *args: Any, **kwargs: Any):
        """Sum over ``dim`` (an int, several, or all); integers and bools sum to int64."""
        return _reduce(SUM, self, args, kwargs, {"dtype": None})

    def mean(self, *args: Any, **kwargs: Any):
        """Mean over ``dim`` (an int, several, or all); an empty mean is nan, as in PyTorch.
        A floating-point tensor only (or give ``dtype=``)."""
        if kwargs.get("dtype") is None:
            _float_only(self, "mean", "write x.float().mean() or x.mean(dtype=torch.float64)")
        return _reduce(MEAN, self, args, kwargs, {"dtype": None})

    def amax(self, *args: Any, **kwargs: Any):
        """Largest entry over ``dim``; tied entries share the gradient equally."""
        return _reduce(AMAX, self, args, kwargs)

    def amin(self, *args: Any, **kwargs: Any):
        """Smallest entry over ``dim``; tied entries share the gradient equally."""
        return _reduce(AMIN, self, args, kwargs)

    def max(self, *args: Any, **kwargs: Any):
        """As PyTorch's: ``x.max()`` the largest entry (tied entries share the gradient);
        ``x.max(dim)``, ``x.max(dim, keepdim)`` the pair ``(values, indices)`` (the gradient
        to the chosen entry); ``x.max(other)`` the elementwise maximum with a tensor."""
        return _max_min(self, Max, MAX, np.argmax, type(self).maximum, args, kwargs)

    def min(self, *args: Any, **kwargs: Any):
        """As :meth:`max`, for the minimum."""
        return _max_min(self, Min, MIN, np.argmin, type(self).minimum, args, kwargs)

    def argmax(self, *args: Any, **kwargs: Any):
        """Index of the maximum entry (over all, or along ``dim``; no gradient)."""
        return _arg(self, "argmax", np.argmax, args, kwargs)

    def argmin(self, *args: Any, **kwargs: Any):
        """Index of the minimum entry (over all, or along ``dim``; no gradient)."""
        return _arg(self, "argmin", np.argmin, args, kwargs)

    def prod(self, *args: Any, **kwargs: Any):
        """The product of the entries (over all, or along one ``dim``)."""
        spec = bind("prod", args, kwargs, _DIM, {**_NO_DIM, "dtype": None})
        t = self if spec["dtype"] is None else self.to(spec["dtype"])
        dim, keepdim = spec["dim"], bool(spec["keepdim"])
        if dim is None:
            return t._apply(PROD, t, static=(None,))
        if not isinstance(dim, int | np.integer) and not hasattr(dim, "__index__"):
            raise TypeError(f"prod(): dim must be an int, got {type(dim).__name__} {dim!r}")
        ndim = t._data.ndim
        at = axis_of(dim, t._data.shape, "prod")
        out = t._apply(PROD, t, static=(at if ndim else None,))
        return out.unsqueeze(at) if keepdim and ndim else out

    def cumsum(self, *args: Any, **kwargs: Any):
        """Running sums along ``dim``."""
        spec = bind("cumsum", args, kwargs, ("dim",), {"dim": None, "dtype": None})
        t = self if spec["dtype"] is None else self.to(spec["dtype"])
        if spec["dim"] is None:
            raise TypeError("cumsum(): missing the argument dim")
        if t._data.ndim == 0:
            axis_of(spec["dim"], 0, "cumsum")
            return t.clone()
        return t._apply(CUMSUM, t, static=(axis_of(spec["dim"], t._data.shape, "cumsum"),))

    def logsumexp(self, *args: Any, **kwargs: Any):
        """log(sum(exp(x))) along ``dim`` (required), computed without overflow."""
        spec = bind("logsumexp", args, kwargs, _DIM, {"dim": _MISSING, "keepdim": False})
        dim = spec["dim"]
        if dim is _MISSING:
            raise TypeError("logsumexp(): missing the argument dim (PyTorch requires it)")
        empty = dim is None or not isinstance(dim, int | np.integer) and len(dim) == 0
        if empty and self._data.ndim:
            raise RuntimeError(
                f"logsumexp(): give the dims to reduce, got {dim!r} (PyTorch refuses it too); "
                "x.logsumexp(dim=tuple(range(x.dim()))) reduces them all"
            )
        t = self if self._data.dtype.kind == "f" else self.to(DEFAULT_FLOAT)
        return _reduce(
            LOGSUMEXP, t, (), {"dim": None if empty else dim, "keepdim": spec["keepdim"]}
        )

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None):
        """The vector p-norm over ``dim`` (all by default): p = 2 (``"fro"``), 1, ``inf``,
        ``-inf``, 0 (the count of non-zero entries) or any other number."""
        _float_only(self, "norm", "write x.float().norm()")
        t = self if dtype is None else self.to(dtype)
        if p is None or p in (2, "fro"):
            return _reduce(NORM, t, (), {"dim": dim, "keepdim": keepdim})
        if isinstance(p, str):
            raise ValueError(f"norm: p must be a number or 'fro', got {p!r}")
        axes = _dims(t, dim, "norm")
        if p == 1:
            return t.abs().sum(dim=axes, keepdim=keepdim)
        if p == np.inf:
            return t.abs().amax(dim=axes, keepdim=keepdim)
        if p == -np.inf:
            return t.abs().amin(dim=axes, keepdim=keepdim)
        if p == 0:
            return (t != 0).to(t._data.dtype).sum(dim=axes, keepdim=keepdim)
        return (t.abs() ** p).sum(dim=axes, keepdim=keepdim) ** (1.0 / p)

    def var(self, *args: Any, **kwargs: Any):
        """Variance over ``dim`` with Bessel's ``correction`` (1, unbiased: divide by n - 1;
        ``unbiased=False`` or ``correction=0``: by n). Too few entries give nan or inf, with
        PyTorch's warning."""
        return _variance(self, "var", args, kwargs)

    def std(self, *args: Any, **kwargs: Any):
        """Standard deviation over ``dim`` (the square root of :meth:`var`; where it is 0 its
        gradient is 0, PyTorch's subgradient)."""
        variance = _variance(self, "std", args, kwargs)
        return variance._apply(ROOT, variance)

    def any(self, *args: Any, **kwargs: Any):
        """Whether some entry is non-zero (over all, or along ``dim``); no gradient."""
        return _logical(self, "any", np.any, args, kwargs)

    def all(self, *args: Any, **kwargs: Any):
        """Whether every entry is non-zero (over all, or along ``dim``); no gradient."""
        return _logical(self, "all", np.all, args, kwargs)


def _variance(t: Any, name: str, args: tuple, kwargs: dict) -> Any:
    _float_only(t, name, "write x.float()." + name + "()")
    dim, correction, keepdim = _correction(name, args, kwargs)
    shape = t._data.shape
    axes = _dims(t, dim, name)
    n = t._data.size if axes is None else prod(shape[a] for a in axes)
    if n - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return t._apply(VAR, t, static=(axes, correction, keepdim and t._data.ndim > 0))
