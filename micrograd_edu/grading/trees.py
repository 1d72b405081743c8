"""Chapter 02's plain expression trees: read, evaluated and differentiated by the grader.

A tree is a flat list of nodes, each naming its arguments by position (``["const", 2]``,
``["var", "x"]``, ``["mul", 0, 1]``), the last node the root (runners/chapter02.py writes
the student's trees so). The grader evaluates them with its own arithmetic, never the
package's ``evaluate``, in two precisions:

* floats (``math``), as the student's own tests would;
* 40-digit decimals, where a derivative built by the rules is exact to about 1e-38 and a
  finite-difference quotient written as an expression is not: its truncation error
  (h² f''' / 6 for a central one) stays, however many digits the arithmetic carries.
  A quotient accurate in floats needs h above about 1e-8, so at least 1e-16 of error.

:func:`tangent` is forward mode on a tree: the exact derivative the judges compare with,
and, with ``mistake``, what a typical wrong ``my_diff`` computes.

>>> x_times_sin_x = [["var", "x"], ["sin", 0], ["mul", 0, 1]]
>>> evaluate(x_times_sin_x, {"x": 1.0}) == math.sin(1.0)
True
>>> round(float(tangent(x_times_sin_x, {"x": 1.0}, "x", exact=True)), 12)
1.381773290676
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ..rules import MATH
from .plain import as_float, describe

__all__ = ["Nodes", "OPERATIONS", "valid", "evaluate", "tangent", "tree_size", "is_tree"]

Nodes = list[list[Any]]
_DIGITS = 40
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")


def _reduced(x: Decimal) -> Decimal:
    """x moved by a multiple of 2π into [-π, π]."""
    turns = (x / (2 * _PI)).to_integral_value()
    return x - turns * 2 * _PI


def _series(x: Decimal, first: Decimal, power: int) -> Decimal:
    """sin (power 1, first x) or cos (power 0, first 1) by Taylor's series."""
    total, term, k = first, first, power
    while True:
        term = -term * x * x / ((k + 1) * (k + 2))
        k += 2
        if abs(term) < Decimal(10) ** (-_DIGITS - 5):
            return total + term
        total += term


def _sin(x: Decimal) -> Decimal:
    r = _reduced(x)
    return _series(r, r, 1)


def _cos(x: Decimal) -> Decimal:
    return _series(_reduced(x), Decimal(1), 0)


def _tanh(x: Decimal) -> Decimal:
    e = (2 * x).exp()
    return (e - 1) / (e + 1)


class _Arithmetic:
    """The functions of one precision: ``number`` makes one from a float."""

    def __init__(self, number: Callable[[Any], Any], **functions: Callable[[Any], Any]) -> None:
        self.number = number
        self.__dict__.update(functions)


_FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh")
FLOAT = _Arithmetic(float, **{name: getattr(MATH, name) for name in _FUNCTIONS})
DECIMAL = _Arithmetic(
    Decimal,
    sin=_sin,
    cos=_cos,
    tan=lambda x: _sin(x) / _cos(x),
    exp=lambda x: x.exp(),
    log=lambda x: x.ln(),
    sqrt=lambda x: x.sqrt(),
    tanh=_tanh,
)

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}
_UNARY = ("neg", "sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "abs")
OPERATIONS = (*_BINARY, *_UNARY)


def _unary(op: str, a: Any, n: _Arithmetic) -> Any:
    if op == "neg":
        return -a
    if op == "abs":
        return abs(a)
    return getattr(n, op)(a)


def is_tree(nodes: Any) -> bool:
    """Whether ``nodes`` has the form of a tree (a non-empty list of nodes, each a list
    with its operation's name first): the type an expression has, as plain data."""
    return (
        isinstance(nodes, list)
        and bool(nodes)
        and all(isinstance(n, list) and n and isinstance(n[0], str) for n in nodes)
    )


def valid(nodes: Any) -> str | None:
    """Why ``nodes`` (plain data from a submission) is not a tree, or None.

    >>> valid(3.0)
    'returned a number, not an expression: a Constant holds a number in a tree'
    """
    if as_float(nodes) is not None:
        return "returned a number, not an expression: a Constant holds a number in a tree"
    if not is_tree(nodes):
        return f"returned {describe(nodes)} where an expression was expected"
    for k, node in enumerate(nodes):
        head, rest = node[0], node[1:]
        if head in ("const", "var"):
            ok = len(rest) == 1 and (
                type(rest[0]) in (int, float) if head == "const" else type(rest[0]) is str
            )
        elif head in OPERATIONS:
            arity = 2 if head in _BINARY else 1
            ok = len(rest) == arity and all(type(i) is int and 0 <= i < k for i in rest)
        else:
            return f"the result uses the operation {head!r}, which this exercise does not need"
        if not ok:
            return "returned a malformed expression"
    return None


def evaluate(nodes: Nodes, values: dict[str, float], exact: bool = False) -> Any:
    """The value of a tree at ``values``, in floats or (``exact``) 40-digit decimals;
    NaN where it is undefined."""
    n = DECIMAL if exact else FLOAT
    out: list[Any] = []
    with decimal.localcontext() as context:
        context.prec = _DIGITS
        try:
            for head, *rest in nodes:
                if head == "const":
                    out.append(n.number(rest[0]))
                elif head == "var":
                    out.append(n.number(values[rest[0]]))
                elif head in _BINARY:
                    out.append(_BINARY[head](out[rest[0]], out[rest[1]]))
                else:
                    out.append(_unary(head, out[rest[0]], n))
            return n.number(out[-1])
        except (ArithmeticError, ValueError, TypeError, KeyError, decimal.InvalidOperation):
            return n.number(math.nan)


def tree_size(nodes: Nodes) -> int:
    """Nodes in the tree written out: a shared argument counts every time it is used."""
    sizes: list[int] = []
    for head, *rest in nodes:
        sizes.append(1 if head in ("const", "var") else 1 + sum(sizes[i] for i in rest))
    return sizes[-1]


def tangent(
    nodes: Nodes, point: dict[str, float], var: str, mistake: str = "", exact: bool = False
) -> Any:
    """d(nodes)/d(var) at ``point``, by carrying each node's value and derivative (forward
    mode on the plain tree); with ``mistake``, what a typical wrong ``my_diff`` computes
    ("no chain rule", or "no chain rule in sin" for one function only, "cos sign",
    "product of derivatives", "exponent kept", "every symbol"). NaN where the derivative
    is undefined."""
    n = DECIMAL if exact else FLOAT
    vals: list[Any] = []
    dots: list[Any] = []
    one, zero = n.number(1), n.number(0)
    with decimal.localcontext() as context:
        context.prec = _DIGITS
        try:
            for head, *rest in nodes:
                if head == "const":
                    v, d = n.number(rest[0]), zero
                elif head == "var":
                    v = n.number(point[rest[0]])
                    d = one if rest[0] == var or mistake == "every symbol" else zero
                elif head in _BINARY:
                    a, b, da, db = vals[rest[0]], vals[rest[1]], dots[rest[0]], dots[rest[1]]
                    v = _BINARY[head](a, b)
                    if head in ("add", "sub"):
                        d = da + db if head == "add" else da - db
                    elif head == "mul":
                        d = da * db if mistake == "product of derivatives" else a * db + b * da
                    elif head == "div":
                        d = (da * b - a * db) / (b * b)
                    elif mistake == "exponent kept":  # pow, with a constant exponent b
                        d = b * a**b * da
                    elif db == 0:
                        d = b * a ** (b - 1) * (one if mistake == "no chain rule" else da)
                    else:  # u ** v with both varying: u ** v (v' log u + v u' / u)
                        d = v * (db * n.log(a) + b * da / a)
                else:
                    a, da = vals[rest[0]], dots[rest[0]]
                    v = _unary(head, a, n)
                    outer = {
                        "neg": -one,
                        "sin": n.cos(a),
                        "cos": n.sin(a) if mistake == "cos sign" else -n.sin(a),
                        "tan": one / (n.cos(a) * n.cos(a)),
                        "exp": v,
                        "log": one / a,
                        "sqrt": one / (2 * v),
                        "tanh": one - v * v,
                        "abs": n.number(math.copysign(1.0, float(a))),
                    }[head]
                    # "no chain rule": in every function; "no chain rule in log": in log only
                    unchained = mistake in ("no chain rule", f"no chain rule in {head}")
                    d = outer * (one if unchained and head != "neg" else da)
                vals.append(v)
                dots.append(d)
        except (ArithmeticError, ValueError, KeyError, decimal.InvalidOperation):
            return n.number(math.nan)
    return dots[-1]
