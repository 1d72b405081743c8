"""The tensor operations that reduce over axes: sum, mean, extremes, product,
cumulative sum, log-sum-exp and the 2-norm, each an :class:`~micrograd_edu.tensor.ops.Op`.

``axis`` reaches them normalised (a tuple of non-negative axes, or ``None`` for
all); a reduction's gradient first puts the removed axes back
(:func:`expand_reduced`) so that it broadcasts against the input.

>>> SUM.vjp(np.ones(2), None, (np.ones((2, 3)),), (True,), (1,), False)[0]
array([[1., 1., 1.],
       [1., 1., 1.]])
"""

from __future__ import annotations

from functools import reduce
from math import prod
from operator import mul

import numpy as np

from .ops import Op, ShapeError, namespace_of, saves_all, saves_none

__all__ = [
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
    recorded operations (no division, so a 0 stays exact): each slice along the axis
    times every other slice. Quadratic in the axis length, which only a second
    derivative pays."""
    from . import cat, ones_like  # the tensor package imports this module

    flat = a.reshape(-1) if axis is None else a
    at = 0 if axis is None else axis
    parts = flat.split(1, dim=at)
    if len(parts) == 1:
        return ones_like(a)
    others = [reduce(mul, parts[:i] + parts[i + 1 :]) for i in range(len(parts))]
    return cat(others, dim=at).reshape(a.shape)


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
