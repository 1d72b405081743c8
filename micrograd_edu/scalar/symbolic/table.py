"""The table of derivatives, written by the rule table itself.

Each entry of :data:`~micrograd_edu.rules.RULES` gives its partial derivatives over a
namespace of primitives; evaluated in the symbolic namespace they *write* the
derivative as an expression. :func:`rule_rows` collects them, one row per function
(its derivative in ``x``) and per arithmetic operation (its partials in ``a`` and
``b``), after the basic rules for a constant, x, cx and xⁿ; :func:`derivative_table`
prints them as Markdown.

>>> row = next(r for r in rule_rows() if r.name == "sin")
>>> row.expression, row.partials
(sin(x), (cos(x),))
"""

from __future__ import annotations

from typing import NamedTuple

from ...rules import RULES
from .differentiate import diff
from .expr import FUNCTIONS, SYMBOLIC, Constant, Expr, Symbol, size
from .simplification import simplify

__all__ = ["RuleRow", "rule_rows", "derivative_table"]

BINARY = ("add", "sub", "mul", "div", "pow")
# Functions with a corner or a jump at 0, where they have no derivative: the rules give one
# there all the same (0, PyTorch's choice), and the table says it is a choice.
KINKED = ("relu", "abs", "step", "sign")


class RuleRow(NamedTuple):
    """One rule: its name, the expression it applies to, the variables, and the
    partial derivative with respect to each variable."""

    name: str
    expression: Expr
    variables: tuple[Symbol, ...]
    partials: tuple[Expr, ...]


def _written(value: object) -> Expr:
    # A rule may give a plain number (the 1 of d(a + b)/da); of its own formula and the
    # simplified form, the shorter (the simplified one on a tie: step's rule writes its
    # zero as 0*x, so that it has x's shape on arrays).
    expr = value if isinstance(value, Expr) else Constant(value)
    return min(simplify(expr), expr, key=size)


def rule_rows() -> list[RuleRow]:
    """The basic rules (a constant c, x, cx, xⁿ: what ``diff`` makes of them), the
    functions of the rule table in ``x``, then the binary operations in ``a`` and ``b``."""
    x, a, b, c, n = (Symbol(name) for name in "xabcn")
    rows = [
        RuleRow(name, node, (x,), (diff(node, x),))
        for name, node in (("constant", c), ("x", x), ("cx", c * x), ("power", x**n))
    ]
    for name in FUNCTIONS:
        node = getattr(x, name)()
        partial = RULES[name].partials[0](SYMBOLIC, node, x)
        rows.append(RuleRow(name, node, (x,), (_written(partial),)))
    for name, node in zip(BINARY, (a + b, a - b, a * b, a / b, a**b), strict=True):
        partials = tuple(_written(p(SYMBOLIC, node, a, b)) for p in RULES[name].partials)
        rows.append(RuleRow(name, node, (a, b), partials))
    return rows


def derivative_table(leave_out: tuple[str, ...] = ()) -> str:
    """:func:`rule_rows` as two Markdown tables: functions, then operations, without the
    rows named in ``leave_out`` (rules a reader is to derive). A function in
    :data:`KINKED` has no derivative at 0, and its row says so.

    >>> "frac{a}{b}" in derivative_table(leave_out=("div",))
    False
    >>> relu = next(line for line in derivative_table().splitlines() if "relu" in line)
    >>> relu.endswith("none at $0$ (the rules give 0 there) |")
    True
    """
    lines = ["| $f(x)$ | $f'(x)$ (written by the rules) |", "|---|---|"]
    binary = [
        "",
        "| operation | $\\partial/\\partial a$ | $\\partial/\\partial b$ |",
        "|---|---|---|",
    ]
    for row in rule_rows():
        if row.name in leave_out:
            continue
        cells = [f"${e.latex()}$" for e in (row.expression, *row.partials)]
        if row.name in KINKED:
            cells[1] += " for $x \\ne 0$; none at $0$ (the rules give 0 there)"
        line = "| " + " | ".join(cells) + " |"
        (lines if len(row.variables) == 1 else binary).append(line)
    return "\n".join(lines + binary)
