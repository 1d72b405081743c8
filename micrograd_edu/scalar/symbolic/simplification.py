"""``simplify``: fold constants, apply identities, expand polynomials in one variable.

Each node is simplified after its arguments: as a polynomial when its
arguments are polynomials in the same variable (see
:mod:`~micrograd_edu.scalar.symbolic.polynomial`), otherwise by identities such as
``x + 0``, ``x*1`` and ``-(-x)``.
"""

from __future__ import annotations

import math
from typing import Any

from ..graph import topological_order
from .expr import (
    FUNCTIONS,
    Apply,
    Constant,
    Expr,
    Symbol,
    _is,
    _lift,
    _negate,
    _negative,
    _normal,
    _render,
)
from .polynomial import _from_poly, _Poly, _polynomial


def _rewrite(op: str, a: Expr, b: Expr | None = None) -> Expr:
    """Identities on already simplified arguments (x + 0, x*1, x - x, -(-x), x**1, ...)."""
    if op == "neg":
        return _negate(a)
    if op in FUNCTIONS:
        return Apply(op, (a,))
    if op == "add":
        if _is(a, 0) or _is(b, 0):
            return b if _is(a, 0) else a
        if _negative(b):
            return _rewrite("sub", a, _negate(b))
        return b - _negate(a) if a.op == "neg" else a + b
    if op == "sub":
        if _is(b, 0) or _is(a, 0):
            return a if _is(b, 0) else _negate(b)
        if a == b:
            return Constant(0)
        return a + _negate(b) if _negative(b) else a - b
    if op == "mul":
        if _is(a, 0) or _is(b, 0):
            return Constant(0)
        if isinstance(a, Constant) and isinstance(b, Constant):  # from (u/2)/3 below
            return Constant(a.value * b.value)
        if isinstance(b, Constant):  # constants first: 3*sin(x)
            a, b = b, a
        if isinstance(a, Constant) and b.op == "mul" and isinstance(b.args[0], Constant):
            return _rewrite("mul", Constant(a.value * b.args[0].value), b.args[1])  # 2*(3*y)
        if _is(a, 1) or _is(a, -1):
            return b if _is(a, 1) else _negate(b)
        if a.op == "neg" or b.op == "neg":  # pull the sign out: -(x*y)
            return _signed(op, a, b)
        return a**2 if a == b else a * b  # sin(x)*sin(x) is sin(x)**2
    if op == "div":
        if _is(b, 1) or _is(a, 0):
            return a
        if a == b:
            return Constant(1)
        if a.op == "neg" or b.op == "neg":  # -(a/b)
            return _signed(op, a, b)
        if a.op == "div":  # (u/v)/w is u/(v*w): one fraction bar, not two
            return _rewrite("div", a.args[0], _rewrite("mul", a.args[1], b))
        return a / b
    # pow
    if _is(b, 0) or _is(a, 1):
        return Constant(1)
    return a if _is(b, 1) else a**b


def _signed(op: str, a: Expr, b: Expr) -> Expr:
    """``a op b`` (a product or a quotient) with the signs of negated arguments pulled out."""
    strip = lambda e: e.args[0] if e.op == "neg" else e
    result = _rewrite(op, strip(a), strip(b))
    return result if (a.op == "neg") == (b.op == "neg") else _negate(result)


def _simplified(expr: Any) -> tuple[Expr, _Poly | None]:
    root = _lift(expr, "simplify")
    polys: dict[int, _Poly | None] = {}
    exprs: dict[int, Expr] = {}

    def expression(node: Expr) -> Expr:
        # A polynomial's canonical form is built only where it is needed (the root, or an
        # argument of a non-polynomial node): building it at every node of a long sum
        # would rebuild each prefix of the sum, quadratic in the number of terms.
        if id(node) not in exprs:
            exprs[id(node)] = _from_poly(*polys[id(node)])
        return exprs[id(node)]

    for node in topological_order(root):
        poly = _polynomial(node, [polys[id(a)] for a in node.args])
        if poly is None:
            result = _rewrite(node.op, *(expression(a) for a in node.args))
            # An identity may leave a leaf (0*exp(x) is 0), which is a polynomial again.
            leaf = isinstance(result, (Constant, Symbol))
            poly = _polynomial(result, []) if leaf else None
            exprs[id(node)] = result
        polys[id(node)] = poly
    return expression(root), polys[id(root)]


def simplify(expr: Expr) -> Expr:
    """Fold constants, apply identities and expand polynomials in one variable.

    >>> x = Symbol("x")
    >>> simplify((x + 1) * (x - 1) + 0 * x.sin())
    -1 + x**2
    >>> simplify(x.exp() * 1 + 0 * x.sin() - (-(-x.log())) ** 1)
    exp(x) - log(x)
    >>> simplify(-(x.sin() / x.cos()) / x.cos())
    -sin(x)/cos(x)**2
    """
    return _simplified(expr)[0]


def coefficients(expr: Expr, var: Symbol) -> list[int | float]:
    """The coefficients of a polynomial in ``var``, constant term first.

    >>> x = Symbol("x")
    >>> coefficients((1 - 2 * x) ** 2, x)
    [1, -4, 4]
    """
    if not isinstance(var, Symbol):
        raise TypeError(f"coefficients: var must be a Symbol, got {type(var).__name__} {var!r}")
    _, poly = _simplified(expr)
    if poly is None:
        raise ValueError(f"coefficients: {expr} is not a polynomial in one variable")
    if poly[0] not in (None, var.name):
        raise ValueError(f"coefficients: {expr} is a polynomial in {poly[0]}, not in {var.name}")
    return [_normal(c) for c in poly[1]]


def factored(expr: Expr, var: Symbol, latex: bool = False) -> str:
    """A polynomial with integer coefficients, with their common factor taken out.

    >>> x = Symbol("x")
    >>> factored(16 - 160 * x, x), factored(3 + x, x), factored(6 * x**2 - 4, x, latex=True)
    ('16*(1 - 10*x)', '3 + x', '-2\\\\left(2 - 3 x^{2}\\\\right)')
    """
    cs = coefficients(expr, var)
    content = math.gcd(*cs) if all(isinstance(c, int) for c in cs) else 1
    if content and next(c for c in cs if c) < 0:
        content = -content  # so that the first term inside the parentheses is positive
    if content in (0, 1):
        return _render(_from_poly(var.name, cs), latex)
    inner = _render(_from_poly(var.name, [c // content for c in cs]), latex)
    return rf"{content}\left({inner}\right)" if latex else f"{content}*({inner})"
