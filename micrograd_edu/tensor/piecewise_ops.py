"""The tensor operations that choose between entries: ``where``, ``clamp``,
``maximum`` and ``minimum``. Each gradient goes to the entry that was chosen;
the choice itself (a mask) is a constant, as in PyTorch.

>>> a, b = np.array([1.0, 5.0]), np.array([3.0, 2.0])
>>> MAXIMUM.vjp(np.ones(2), MAXIMUM.forward(a, b), (a, b), (True, True))
(array([0., 1.]), array([1., 0.]))
"""

from __future__ import annotations

import numpy as np

from .ops import Op, saves_none, unbroadcast

__all__ = ["WHERE", "CLAMP", "MAXIMUM", "MINIMUM"]


def _chosen(g, mask, shape):
    """``g`` where ``mask`` holds, 0 elsewhere, summed back to ``shape``."""
    if isinstance(g, np.ndarray | np.generic):
        return unbroadcast(np.where(mask, g, 0.0).astype(g.dtype, copy=False), shape)
    return unbroadcast(g.where(np.broadcast_to(mask, g.shape), 0.0), shape)


def _where_vjp(g, out, xs, needs, condition):
    a, b = xs
    return (
        _chosen(g, condition, a.shape) if needs[0] else None,
        _chosen(g, ~condition, b.shape) if needs[1] else None,
    )


WHERE = Op(
    "where", lambda a, b, condition: np.where(condition, a, b), _where_vjp, saves_none, fresh=True
)


def _clamp_vjp(g, out, xs, needs, low, high):
    data = _array(xs[0])
    inside = np.ones(data.shape, dtype=bool)
    if low is not None:
        inside &= data >= low
    if high is not None:
        inside &= data <= high
    return (_chosen(g, inside, data.shape),)


CLAMP = Op(
    "clamp",
    lambda a, low, high: np.clip(a, low, high),
    _clamp_vjp,
    lambda needs: (True,),
    fresh=True,
)


def _pick(name: str, pick, wins):
    def vjp(g, out, xs, needs):
        a, b = (_array(x) for x in xs)
        # Ties share the gradient equally, as PyTorch's maximum/minimum do.
        weight = np.where(a == b, 0.5, wins(a, b)).astype(g.dtype)
        ga = unbroadcast(g * weight, xs[0].shape) if needs[0] else None
        gb = unbroadcast(g * (1.0 - weight), xs[1].shape) if needs[1] else None
        return ga, gb

    return Op(name, pick, vjp, lambda needs: (True, True), fresh=True)


def _array(x):
    return x if isinstance(x, np.ndarray) else x._data


MAXIMUM = _pick("maximum", np.maximum, np.greater)
MINIMUM = _pick("minimum", np.minimum, np.less)
