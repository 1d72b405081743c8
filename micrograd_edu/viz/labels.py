"""How numbers, names and operations are written in diagrams and tables.

One place decides that 0.6931 shows as ``0.693`` (the lecture's three
decimals), that ``v`` with index -1 reads ``v₋₁`` and that ``mul`` reads ``×``,
so a diagram, an animation caption and a trace table always agree.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: How each operation is written between (or before) its arguments.
INFIX = {"add": "+", "sub": "−", "mul": "×", "div": "/", "pow": "^", "matmul": "@"}
PREFIX = {"neg": "−", "log": "ln"}

_SUB = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")


def subscript(i: int) -> str:
    """``i`` in subscript digits.

    >>> "v" + subscript(-1), "x" + subscript(12)
    ('v₋₁', 'x₁₂')
    """
    return str(i).translate(_SUB)


def value_of(node: Any) -> Any:
    """What a diagram shows of a node: its ``.data`` as a number (a ``Value``'s) or a numpy
    array (a ``Tensor``'s ``.data`` is a tensor, as in PyTorch).

    >>> from types import SimpleNamespace
    >>> value_of(SimpleNamespace(data=2.5))
    2.5
    """
    data = node.data
    if hasattr(data, "__array__") and not isinstance(data, np.ndarray | np.number):
        return np.asarray(data)
    return data


def number(x: Any) -> str:
    """A value as the course prints it: three decimals, no trailing zeros.

    Integers stay integers, tiny or huge numbers use an exponent, arrays show
    their shape (a diagram of a 1000-element tensor must not print it).

    >>> number(2.0), number(0.6931471805599453), number(-0.9589242746631385)
    ('2', '0.693', '-0.959')
    >>> number(1.5e-7), number(float("nan")), number(np.zeros((3, 2)))
    ('1.5e-07', 'nan', 'shape (3, 2)')
    """
    if hasattr(x, "__array__") and not isinstance(x, np.ndarray | np.number):
        x = np.asarray(x)  # a tensor (a Tensor's .grad is one)
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return number(x.item())
        if x.ndim == 1 and x.size <= 4:
            return "[" + ", ".join(number(v) for v in x) + "]"
        return f"shape {tuple(x.shape)}"
    if x is None:
        return "—"
    if isinstance(x, complex) or not isinstance(x, (int, float, np.number)):
        return str(x)
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    if 1e-3 <= abs(x) < 1e6:
        return f"{x:.3f}".rstrip("0").rstrip(".")
    return f"{x:.3g}"


def is_nan(x: Any) -> bool:
    """True when ``x`` is NaN or (for an array) holds a NaN.

    >>> is_nan(float("nan")), is_nan(np.array([1.0, np.nan])), is_nan("a")
    (True, True, False)
    """
    try:
        return bool(np.isnan(np.asarray(x, dtype=float)).any())
    except (TypeError, ValueError):
        return False


def formula(op: str, args: list[str]) -> str:
    """The right-hand side of ``v = op(args)`` in the lecture's notation.

    >>> formula("mul", ["v₋₁", "v₀"]), formula("sin", ["v₀"]), formula("log", ["v₋₁"])
    ('v₋₁ × v₀', 'sin v₀', 'ln v₋₁')
    """
    if op in INFIX and len(args) == 2:
        return f"{args[0]} {INFIX[op]} {args[1]}"
    name = PREFIX.get(op, op)
    if len(args) == 1 and name in ("−", "ln", "sin", "cos", "tan", "exp"):
        return f"{name}{'' if name == '−' else ' '}{args[0]}"
    return f"{name}({', '.join(args)})"
