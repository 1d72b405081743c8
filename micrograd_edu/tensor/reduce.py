"""Reductions: sum, mean, the extremes, product, cumulative sum, log-sum-exp and the
2-norm, each an :class:`~micrograd_edu.tensor.operation.Op` with its forward and VJP
side by side, and :class:`Reductions`, the mixin that gives them to ``Tensor`` (with
``var``, ``std``, ``argmax``, ``any``, ...), taking PyTorch's ``dim``/``keepdim`` as
well as numpy's ``axis``/``keepdims``.

``axis`` reaches the operations normalised (a tuple of non-negative axes, or ``None``
for all); a reduction's gradient first puts the removed axes back
(:func:`expand_reduced`) so that it broadcasts against the input.

>>> SUM.vjp(np.ones(2), None, (np.ones((2, 3)),), (True,), (1,), False)[0]
array([[1., 1., 1.],
       [1., 1., 1.]])
>>> from micrograd_edu import Tensor
>>> x = Tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
>>> x.max(dim=1)
max(values=tensor([1., 4.], grad_fn=<SelectBackward>), indices=tensor([0, 1]))
>>> x.var(dim=0).tolist()
[2.0, 18.0]
"""

from __future__ import annotations

from math import prod
from typing import Any, NamedTuple

import numpy as np

from .operation import Op, ShapeError, namespace_of, saves_all, saves_none
from .shape import axes_of, axis_of, reduction_args

__all__ = [
    "Reductions",
    "MinMax",
    "Max",
    "Min",
    "SUM",
    "MEAN",
    "AMAX",
    "AMIN",
    "SELECT",
    "PROD",
    "CUMSUM",
    "LOGSUMEXP",
    "NORM",
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


def _extreme(name: str, reduce):
    def forward(a, axis, keepdims):
        if a.size == 0:
            raise ShapeError(f"{name}: the input of shape {a.shape} is empty")
        return reduce(a, axis=axis, keepdims=keepdims)

    def vjp(g, out, xs, needs, axis, keepdims):
        a = xs[0]
        peak = expand_reduced(out, a.ndim, axis, keepdims)
        hit = a == peak
        # A NaN wins a max (the result is NaN): its gradient goes to the NaN entries.
        hit = (
            (hit | (_isnan(a) & _isnan(peak))).astype(g.dtype)
            if _any_nan(out)
            else (hit.astype(g.dtype))
        )
        # Ties share the gradient equally (the subgradient of PyTorch's amax).
        share = hit / hit.sum(axis=axis, keepdims=True)
        return (share * expand_reduced(g, a.ndim, axis, keepdims),)

    return Op(name, forward, vjp, saves_all, fresh=True)


def _isnan(x):
    return np.isnan(x) if isinstance(x, np.ndarray | np.generic) else x != x


def _any_nan(out) -> bool:
    data = out if isinstance(out, np.ndarray | np.generic) else out._data
    return bool(np.isnan(data).any()) if data.dtype.kind == "f" else False


AMAX = _extreme("amax", np.max)
AMIN = _extreme("amin", np.min)


def _select_forward(a, axis, keepdims, index):
    # ``index`` is argmax/argmin with keepdims=True, computed by the caller.
    picked = np.take_along_axis(a, index, axis)
    return picked if keepdims else picked.squeeze(axis)


def _select_vjp(g, out, xs, needs, axis, keepdims, index):
    # max(dim=...) and min(dim=...): the whole gradient goes to the chosen entry.
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


PROD = Op("prod", lambda a, axis: np.prod(a, axis=axis), _prod_vjp, saves_all, fresh=True)


def _cumsum_vjp(g, out, xs, needs, axis):
    space = namespace_of(g)  # the sum of the gradient from each entry to the end
    return (space.flip(space.cumsum(space.flip(g, axis), axis), axis),)


CUMSUM = Op("cumsum", lambda a, axis: np.cumsum(a, axis=axis), _cumsum_vjp, saves_none, fresh=True)


def _logsumexp_forward(a, axis, keepdims):
    peak = np.max(a, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)  # all -inf stays -inf, not nan
    total = np.log(np.sum(np.exp(a - peak), axis=axis, keepdims=True)) + peak
    return total if keepdims else np.squeeze(total, axis=axis)


def _logsumexp_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    space = namespace_of(g)  # the gradient is softmax(a) along the axes
    weights = space.exp(a - expand_reduced(out, a.ndim, axis, keepdims))
    return (weights * expand_reduced(g, a.ndim, axis, keepdims),)


LOGSUMEXP = Op("logsumexp", _logsumexp_forward, _logsumexp_vjp, saves_all, fresh=True)


def _norm_forward(a, axis, keepdims):
    return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims))


def _norm_vjp(g, out, xs, needs, axis, keepdims):
    a = xs[0]
    peak = expand_reduced(out, a.ndim, axis, keepdims)
    # a / |a|, and 0 where |a| = 0 (the subgradient PyTorch uses there).
    if type(g) is np.ndarray or isinstance(g, np.generic):
        with np.errstate(divide="ignore", invalid="ignore"):
            direction = np.where(peak == 0, 0.0, a / peak)
    else:
        direction = (a / peak.where(peak != 0, 1.0)).where(peak != 0, 0.0)
    return (direction * expand_reduced(g, a.ndim, axis, keepdims),)


NORM = Op("norm", _norm_forward, _norm_vjp, saves_all, fresh=True)


class MinMax(NamedTuple):
    """What ``max(dim=...)`` and ``min(dim=...)`` return, as in PyTorch."""

    values: Any
    indices: Any

    def __repr__(self) -> str:
        return f"{type(self).__name__.lower()}(values={self.values!r}, indices={self.indices!r})"


class Max(MinMax):
    __slots__ = ()


class Min(MinMax):
    __slots__ = ()


def _reduce(op: Op, t: Any, axis: Any, keepdims: bool, torch_names: dict) -> Any:
    axis, keepdims = reduction_args(op.name, axis, keepdims, torch_names)
    axes = axes_of(axis, t._data.shape, op.name)
    return t._apply(op, t, static=(axes, keepdims and t._data.ndim > 0))


def _extreme(t: Any, kind: type[MinMax], whole: Op, arg: Any, axis, keepdims, torch_names):
    """``max``/``min``: numpy's way (``axis``, ties share the gradient) or PyTorch's
    (``dim``: values and indices, the whole gradient to the chosen entry)."""
    if "dim" not in torch_names:
        return _reduce(whole, t, axis, keepdims, torch_names)
    name = kind.__name__.lower()
    axis, keepdims = reduction_args(name, axis, keepdims, torch_names)
    at = axis_of(axis, t._data.ndim, name)
    if t._data.ndim == 0:
        return kind(t.clone(), t._leaf(np.array(0)))
    index = arg(t._data, axis=at, keepdims=True)
    values = t._apply(SELECT, t, static=(at, bool(keepdims), index))
    return kind(values, t._leaf(index if keepdims else index.squeeze(at)))


def _arg(t: Any, name: str, find: Any, axis: Any, keepdims: bool, torch_names: dict) -> Any:
    axis, keepdims = reduction_args(name, axis, keepdims, torch_names)
    if axis is None:
        index = find(t._data.reshape(-1))
        return t._leaf(np.array(index).reshape((1,) * t._data.ndim if keepdims else ()))
    at = axis_of(axis, t._data.ndim, name)
    if t._data.ndim == 0:
        return t._leaf(np.array(0))
    return t._leaf(find(t._data, axis=at, keepdims=bool(keepdims)))


def _logical(t: Any, name: str, reduce: Any, dim: Any, keepdim: bool, numpy_names: dict) -> Any:
    numpy_names.pop("out", None)  # numpy's np.any(t) passes out=None
    axis, keepdim = reduction_args(name, numpy_names.pop("axis", dim), keepdim, numpy_names)
    return t._leaf(reduce(t._data, axis=axes_of(axis, t._data.ndim, name), keepdims=keepdim))


class Reductions:
    """The reductions of ``Tensor`` (a mixin of :class:`~micrograd_edu.tensor.tensor.Tensor`,
    which provides ``_apply`` and ``_leaf``)."""

    __slots__ = ()

    def sum(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """Sum over ``axis`` (an int, a tuple, or all). ``dim``/``keepdim`` work too."""
        return _reduce(SUM, self, axis, keepdims, torch_names)

    def mean(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """Mean over ``axis`` (an int, a tuple, or all); an empty mean is nan, as in PyTorch."""
        return _reduce(MEAN, self, axis, keepdims, torch_names)

    def amax(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """Largest entry over ``axis``; tied entries share the gradient equally."""
        return _reduce(AMAX, self, axis, keepdims, torch_names)

    def amin(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """Smallest entry over ``axis``; tied entries share the gradient equally."""
        return _reduce(AMIN, self, axis, keepdims, torch_names)

    def max(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """With ``axis`` (numpy's way) or none: the maximum as a tensor, ties sharing the
        gradient. With ``dim`` (PyTorch's way): ``(values, indices)``, the whole gradient
        going to the chosen entry."""
        return _extreme(self, Max, AMAX, np.argmax, axis, keepdims, torch_names)

    def min(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """As :meth:`max`, for the minimum."""
        return _extreme(self, Min, AMIN, np.argmin, axis, keepdims, torch_names)

    def argmax(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """Index of the maximum entry (over all, or along ``dim``; no gradient)."""
        return _arg(self, "argmax", np.argmax, axis, keepdims, torch_names)

    def argmin(self, axis: Any = None, keepdims: bool = False, **torch_names: Any):
        """Index of the minimum entry (over all, or along ``dim``; no gradient)."""
        return _arg(self, "argmin", np.argmin, axis, keepdims, torch_names)

    def prod(self, dim: Any = None, keepdim: bool = False, **numpy_names: Any):
        """The product of the entries (over all, or along one ``dim``)."""
        axis, keepdim = reduction_args("prod", numpy_names.pop("axis", dim), keepdim, numpy_names)
        if axis is None:
            return self._apply(PROD, self, static=(None,))
        ndim = self._data.ndim
        at = axis_of(axis, self._data.shape, "prod")
        out = self._apply(PROD, self, static=(at if ndim else None,))
        return out.unsqueeze(at) if keepdim and ndim else out

    def cumsum(self, dim: int, **numpy_names: Any):
        """Running sums along ``dim``."""
        dim = numpy_names.pop("axis", dim)
        if self._data.ndim == 0:
            return self.clone()
        return self._apply(CUMSUM, self, static=(axis_of(dim, self._data.shape, "cumsum"),))

    def logsumexp(self, dim: Any, keepdim: bool = False, **numpy_names: Any):
        """log(sum(exp(x))) along ``dim``, computed without overflow."""
        return _reduce(LOGSUMEXP, self, numpy_names.pop("axis", dim), keepdim, numpy_names)

    def norm(self, p: Any = 2, dim: Any = None, keepdim: bool = False):
        """The vector p-norm over ``dim`` (all by default): p = 2, 1 or ``inf``."""
        if p in (2, "fro"):
            return _reduce(NORM, self, dim, keepdim, {})
        if p == 1:
            return self.abs().sum(dim=dim, keepdim=keepdim)
        if p in (np.inf, float("inf"), "inf"):
            return self.abs().amax(dim=dim, keepdim=keepdim)
        raise ValueError(f"norm: p must be 2, 1 or inf, got {p!r}")

    def var(
        self,
        dim: Any = None,
        *,
        correction: int = 1,
        keepdim: bool = False,
        unbiased: bool | None = None,
    ):
        """Variance over ``dim`` with Bessel's ``correction`` (1: divide by n - 1)."""
        if unbiased is not None:
            correction = int(unbiased)
        shape = self._data.shape
        axes = axes_of(dim, shape, "var")
        n = self._data.size if axes is None else prod(shape[a] for a in axes)
        d = self - self.mean(dim=axes, keepdim=True) if axes else self - self.mean()
        return (d * d).sum(dim=axes, keepdim=keepdim) / max(n - correction, 0)

    def std(
        self,
        dim: Any = None,
        *,
        correction: int = 1,
        keepdim: bool = False,
        unbiased: bool | None = None,
    ):
        """Standard deviation over ``dim`` (the square root of :meth:`var`)."""
        return self.var(dim, correction=correction, keepdim=keepdim, unbiased=unbiased).sqrt()

    def any(self, dim: Any = None, keepdim: bool = False, **numpy_names: Any):
        """Whether some entry is non-zero (over all, or along ``dim``); no gradient."""
        return _logical(self, "any", np.any, dim, keepdim, numpy_names)

    def all(self, dim: Any = None, keepdim: bool = False, **numpy_names: Any):
        """Whether every entry is non-zero (over all, or along ``dim``); no gradient."""
        return _logical(self, "all", np.all, dim, keepdim, numpy_names)
