"""Polynomials in one variable: the canonical form that ``simplify`` expands to.

A polynomial is ``(variable name, or None for a constant; coefficients in
ascending powers)``, with exact arithmetic (int, Fraction) where the input is
exact.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

from ...rules import MATH, RULES, DomainError
from .expr import FUNCTIONS, Constant, Expr, Symbol, _normal

#: Powers past this degree are not expanded: (x + 1)**10**6 would take too long.
MAX_DEGREE = 1000

_Poly = tuple[str | None, list]


def _trim(cs: list) -> list:
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
    return cs


def _padded(p: list, n: int) -> list:
    return p + [0] * (n - len(p))


def _poly_mul(p: list, q: list) -> list:
    out = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return _trim(out)


def _poly_pow(p: list, k: int) -> list:
    """``p**k`` for an integer ``k >= 0``."""
    nonzero = [i for i, c in enumerate(p) if c != 0]
    if len(nonzero) == 1:
        # A monomial c*x**m, such as each x**k of the expanded form: multiplying it out
        # would take k products of growing lists. The coefficient is still multiplied
        # left to right, so that a float comes out exactly as by repeated products.
        m = nonzero[0]
        return [0] * (m * k) + [math.prod(itertools.repeat(p[m], k))]
    out = [1]
    for _ in range(k):
        out = _poly_mul(out, p)
    return out


def _exact(a: Any, b: Any) -> Any:
    """a / b, exact for integers and fractions."""
    if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)):
        return Fraction(a) / b
    return a / b


def _domain_check(node: Expr, values: list) -> None:
    rule = RULES[node.op]
    if rule.domain is not None and rule.domain(MATH, *values):
        shown = ", ".join(str(_normal(v)) for v in values)
        raise DomainError(f"simplify: {rule.name}({shown}): {rule.domain_message}")


def _polynomial(node: Expr, polys: list[_Poly | None]) -> _Poly | None:
    """``node`` as a polynomial if its arguments are polynomials in the same variable."""
    if isinstance(node, Constant):
        return None, [node.value]
    if isinstance(node, Symbol):
        return node.name, [0, 1]
    if any(p is None for p in polys):
        return None
    names = {p[0] for p in polys} - {None}
    if len(names) > 1:
        return None
    name = names.pop() if names else None
    cs = [p[1] for p in polys]
    constant = all(len(c) == 1 for c in cs)
    if constant:
        _domain_check(node, [c[0] for c in cs])
    op = node.op
    if op in ("add", "sub"):
        n = max(len(c) for c in cs)
        sign = 1 if op == "add" else -1
        return name, _trim(
            [a + sign * b for a, b in zip(*(_padded(c, n) for c in cs), strict=True)]
        )
    if op == "neg":
        return name, [-a for a in cs[0]]
    if op == "mul":
        return name, _poly_mul(*cs)
    if op == "div" and len(cs[1]) == 1:
        if cs[1][0] == 0:  # x/0: the polynomial is not constant, so the check above missed it
            _domain_check(node, [1, 0])
        return name, [_exact(a, cs[1][0]) for a in cs[0]]
    if op == "pow" and len(cs[1]) == 1:
        base, k = cs[0], cs[1][0]
        if len(base) == 1:  # a number to a number: exact for exact inputs, else a float
            b0 = base[0]
            if isinstance(k, int) and abs(k) <= MAX_DEGREE:
                exact = isinstance(b0, (int, Fraction)) and k < 0
                return name, [Fraction(b0) ** k if exact else b0**k]
            return name, [float(b0) ** float(k)]
        if isinstance(k, int) and 0 <= k and (len(base) - 1) * k <= MAX_DEGREE:
            return name, _poly_pow(base, k)
        return None
    if op in FUNCTIONS and constant:
        value = RULES[op].value(MATH, float(cs[0][0]))
        # Fold only exact results (cos 0 = 1, relu(-2) = 0): sin(1) stays readable as sin(1).
        return (name, [int(value)]) if float(value).is_integer() else None
    return None


def _from_poly(var: str | None, cs: list) -> Expr:
    """The canonical form: terms in ascending powers, ``1 - 10*x + 24*x**2``."""
    if var is None or all(c == 0 for c in cs[1:]):
        return Constant(cs[0])
    x, result = Symbol(var), None
    for k, c in enumerate(cs):
        c = _normal(c)
        if c == 0:
            continue
        power = Constant(1) if k == 0 else x if k == 1 else x ** Constant(k)
        magnitude = Constant(abs(c)) if k == 0 else power if abs(c) == 1 else abs(c) * power
        if result is None:
            result = -magnitude if c < 0 else magnitude
        else:
            result = result - magnitude if c < 0 else result + magnitude
    return result
