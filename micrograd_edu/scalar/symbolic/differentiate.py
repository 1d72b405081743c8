"""``diff``: the derivative of an expression, node by node, by the rule table.

At every node the rule's partial derivatives are evaluated in the
:data:`~micrograd_edu.scalar.symbolic.SYMBOLIC` namespace, whose primitives build
nodes; multiplying each by the derivative of its argument and adding the terms
is the chain rule.
"""

from __future__ import annotations

from typing import NamedTuple

from ...rules import RULES
from ..graph import topological_order
from .expr import SYMBOLIC, Constant, Expr, Symbol, _is, _lift, _negate


class Step(NamedTuple):
    """One node differentiated by :func:`diff`: which rule, its partials, the result."""

    variable: str
    expression: Expr
    rule: str
    partials: tuple[Expr, ...]
    derivative: Expr

    def __str__(self) -> str:
        shown = ", ".join(str(p) for p in self.partials)
        return (
            f"d/d{self.variable} [{self.expression}] = {self.derivative}"
            f"    ({self.rule} rule, partials: {shown})"
        )


def _times(a: Expr, b: Expr) -> Expr:
    """``a*b``, written as a human would when a factor is 1 or -1 or negated."""
    if _is(a, 1) or _is(b, 1):
        return b if _is(a, 1) else a
    if _is(a, -1) or _is(b, -1):
        return _negate(b if _is(a, -1) else a)
    if b.op == "neg":  # a*(-c) is written -(a*c), so that the sum subtracts it
        return -(a * b.args[0])
    return a * b


def diff(expr: Expr, var: Symbol, steps: list[Step] | None = None) -> Expr:
    """The derivative of ``expr`` with respect to ``var``, built by the rule table.

    Nothing is simplified beyond skipping arguments that do not depend on ``var``
    and multiplications by exactly 1 or -1, so the result shows the expression swell;
    pass it to :func:`simplify`. Give a list as ``steps`` to record each rule used.

    >>> x, y = Symbol("x"), Symbol("y")
    >>> diff(x.log() + x * y - y.sin(), y)
    x - cos(y)
    >>> steps = []
    >>> _ = diff((x * x).sin(), x, steps)
    >>> print(steps[-1])
    d/dx [sin(x*x)] = cos(x*x)*(x + x)    (sin rule, partials: cos(x*x))
    """
    if not isinstance(var, Symbol):
        raise TypeError(
            f"diff: can only differentiate with respect to a Symbol, got {type(var).__name__} "
            f"{var!r}; create one with Symbol('x')"
        )
    root = _lift(expr, "diff")
    derivative: dict[int, Expr] = {}
    for node in topological_order(root):
        if isinstance(node, (Constant, Symbol)):
            derivative[id(node)] = Constant(1 if node == var else 0)
            continue
        rule = RULES[node.op]
        partials, terms = [], []
        for partial, arg in zip(rule.partials, node.args, strict=True):
            d_arg = derivative[id(arg)]
            if _is(d_arg, 0):  # the argument does not depend on var
                continue
            # The rule's partial, evaluated in SYMBOLIC, is an expression; chain rule: times d_arg.
            local = _lift(partial(SYMBOLIC, node, *node.args), rule.name)
            partials.append(local)
            terms.append(_times(local, d_arg))
        total = terms[0] if terms else Constant(0)
        for term in terms[1:]:  # a negated term is subtracted: 4*(1 - x) - 4*x
            total = total - term.args[0] if term.op == "neg" else total + term
        derivative[id(node)] = total
        if steps is not None and terms:
            steps.append(Step(var.name, node, rule.name, tuple(partials), total))
    return derivative[id(root)]
