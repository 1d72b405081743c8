"""Expression swell: the raw symbolic derivative of the logistic map grows
much faster than the derivative itself (its simplified form).

>>> [(row.derivative, row.simplified) for row in swell_table(4)]
[(1, 1), (9, 5), (41, 17), (129, 41)]
"""

from __future__ import annotations

from typing import NamedTuple

from .differentiate import diff
from .expr import Expr, Symbol, _lift, size
from .simplification import simplify


def logistic_map(n: int, x: Expr) -> Expr:
    """``l_n`` of the logistic map ``l_1 = x``, ``l_{k+1} = 4 l_k (1 - l_k)``.

    >>> logistic_map(2, Symbol("x"))
    4*x*(1 - x)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"logistic_map: n must be an integer >= 1, got {n!r}")
    term = _lift(x, "logistic_map")
    for _ in range(n - 1):
        term = 4 * term * (1 - term)
    return term


class SwellRow(NamedTuple):
    """Tree sizes for one ``n``: ``l_n``, its raw derivative, the simplified derivative."""

    n: int
    expression: int
    derivative: int
    simplified: int


def swell_table(n_max: int) -> list[SwellRow]:
    """Expression swell on the logistic map, for ``n = 1 .. n_max``.

    >>> [row.derivative for row in swell_table(4)]
    [1, 9, 41, 129]
    """
    x = Symbol("x")
    rows = []
    for n in range(1, n_max + 1):
        expression = logistic_map(n, x)
        derivative = diff(expression, x)
        rows.append(SwellRow(n, size(expression), size(derivative), size(simplify(derivative))))
    return rows
