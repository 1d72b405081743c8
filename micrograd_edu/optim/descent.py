"""Where an optimiser takes one point on a 2-D loss surface, step by step: chapter 08's
optimiser lesson and its learning-rate slider (:mod:`micrograd_edu.viz.widgets`) draw
these paths over the contours of the loss.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor

__all__ = ["descent_path"]


def descent_path(
    f: Callable[[Tensor], Tensor],
    start: Iterable[float],
    optimiser: Callable[[list[Tensor]], Any],
    steps: int,
) -> np.ndarray:
    """The points an optimiser visits on the loss ``f``: ``steps`` rounds of
    ``zero_grad``, ``backward``, ``step`` from ``start``. ``optimiser`` makes the
    optimiser from the parameter list (``lambda ps: optim.SGD(ps, lr=0.1)``); ``f``
    maps a point, a tensor of shape (2,), to a scalar tensor. Returns an array of
    shape (k, 2), ``start`` first; a path that leaves every finite number (a step size
    too large) ends at its last finite point.

    >>> from micrograd_edu import optim
    >>> bowl = lambda p: (p * p).sum() / 2                # its gradient is p itself
    >>> descent_path(bowl, [4.0, -2.0], lambda ps: optim.SGD(ps, lr=0.5), 2)
    array([[ 4. , -2. ],
           [ 2. , -1. ],
           [ 1. , -0.5]])
    """
    if not (isinstance(steps, int) and steps >= 0):
        raise ValueError(f"descent_path: steps must be a whole number >= 0, got {steps!r}")
    point = Tensor(np.array(list(start), dtype=float), requires_grad=True)
    if point.shape != (2,):
        raise ValueError(f"descent_path: start must be a point (x, y), got shape {point.shape}")
    opt = optimiser([point])
    path = [point.numpy(force=True).copy()]
    for _ in range(steps):
        with np.errstate(over="ignore", invalid="ignore"):  # a divergence ends the path
            opt.zero_grad()
            f(point).backward()
            opt.step()
        here = point.numpy(force=True)
        if not np.all(np.isfinite(here)) or np.max(np.abs(here)) > 1e150:
            break
        path.append(here.copy())
    return np.array(path)
