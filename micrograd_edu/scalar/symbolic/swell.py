"""Expression swell on the logistic map, measured two ways.

Written out as trees (a shared subexpression counted every time it is used), ``l_n``
and its raw derivative both grow exponentially, the derivative about 9x faster at n = 10;
the growth comes from writing the shared ``l_{n-1}`` out twice at every step. Kept as
graphs (each distinct node once), both grow linearly: ``diff`` works node by node, so
the derivative of a graph with sharing stays small, as AD's does.

>>> [(row.expression, row.derivative, row.simplified) for row in swell_table(4)]
[(1, 1, 1), (7, 9, 5), (19, 41, 17), (43, 129, 41)]
>>> [(row.expression_graph, row.derivative_graph) for row in swell_table(4)]
[(1, 1), (6, 7), (11, 16), (16, 25)]
"""

from __future__ import annotations

from typing import NamedTuple

from ..graph import topological_order
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
    """Sizes for one ``n``: as trees, ``l_n``, its raw derivative and the simplified
    derivative; as graphs with sharing (distinct nodes), ``l_n`` and its raw derivative."""

    n: int
    expression: int
    derivative: int
    simplified: int
    expression_graph: int
    derivative_graph: int


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
        rows.append(
            SwellRow(
                n,
                size(expression),
                size(derivative),
                size(simplify(derivative)),
                len(topological_order(expression)),
                len(topological_order(derivative)),
            )
        )
    return rows
