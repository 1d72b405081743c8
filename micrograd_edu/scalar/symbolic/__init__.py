"""Symbolic differentiation: expression trees, ``diff`` by the rule table, ``simplify``.

An expression is a tree of nodes: constants, symbols, arithmetic and one
function node for each unary rule of :data:`~micrograd_edu.rules.RULES`.
:func:`diff` walks the tree and, at every node, asks the rule table for the
node's partial derivatives, evaluated in the :data:`SYMBOLIC` namespace whose
primitives *build* nodes instead of computing numbers. Multiplying each partial
by the derivative of its argument and adding the terms is the chain rule.

>>> x = Symbol("x")
>>> d = diff(x * x.sin(), x)
>>> d
sin(x) + x*cos(x)
>>> d.evaluate(x=0.0)
0.0

Automatic differentiation does the same, but applies the chain rule to
*numbers*: symbolic rules at the level of elementary operations only. Applied
to whole expressions, the rules make trees that grow exponentially: the
*expression swell* that :func:`swell_table` measures on the logistic map.

>>> simplify(diff(logistic_map(2, x), x))
4 - 8*x
>>> factored(diff(logistic_map(3, x), x), x)
'16*(1 - 10*x + 24*x**2 - 16*x**3)'

The package's modules: ``expr`` (nodes, operators, printing), ``differentiate``
(``diff``), ``polynomial`` and ``simplification`` (``simplify``), ``swell``, ``table``
(the table of derivatives the rules write).
"""

from .differentiate import Step, diff
from .expr import FUNCTIONS, OPERATORS, SYMBOLIC, Apply, Constant, Expr, Symbol, size
from .polynomial import MAX_DEGREE
from .simplification import coefficients, factored, simplify
from .swell import SwellRow, logistic_map, swell_table
from .table import RuleRow, derivative_table, rule_rows

__all__ = [
    "FUNCTIONS",
    "MAX_DEGREE",
    "OPERATORS",
    "SYMBOLIC",
    "Apply",
    "Constant",
    "Expr",
    "Step",
    "SwellRow",
    "Symbol",
    "coefficients",
    "diff",
    "factored",
    "logistic_map",
    "simplify",
    "size",
    "swell_table",
    "RuleRow",
    "derivative_table",
    "rule_rows",
]
