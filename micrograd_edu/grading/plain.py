"""Plain data: the only thing a submission's answers are allowed to be.

A graded function runs in the student's process, so whatever it returns may be
a trap: an object whose ``__eq__`` is always true, a ``float`` subclass whose
``__float__`` lies, a list that changes when read. ``to_plain`` turns a return
value into JSON-able data *without calling any of its methods*: a number or a
container is read through its built-in base class's own code (``float.__float__``,
``list.__iter__``, numpy's ``ndarray.tolist``), never through a method the student's
class may have overridden, and anything else is named by its type. The grader
compares plain data only, so a cheating object earns nothing.

An honest answer is not marked down for its type: any real number is a number
(``np.float64``, ``Fraction``, a ``float`` subclass read as the float it stores), any
sequence of the standard library or numpy is a list (``tuple``, ``deque``, ``range``,
``array.array``, a ``NamedTuple``, ``np.matrix``, any ``ndarray`` subclass).
"""

from __future__ import annotations

import array
import math
from collections import deque
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["to_plain", "as_float", "as_floats", "close", "describe", "too_long", "ratio"]

# The parent reads at most this many items of a list or array: a submission must
# not make it parse (or judge) an unbounded answer. A longer one is reported by length.
_MAX_ITEMS = 10_000
# numpy's own scalar types (a subclass of one is the student's, and is not read)
_NUMPY_SCALARS = frozenset(
    t for t in np.sctypeDict.values() if issubclass(t, np.integer | np.floating | np.bool_)
)
_SEQUENCES = (list, tuple, deque)  # read through the base class's own __iter__


def _number(value: Any) -> Any:
    """``value`` as a plain bool, int or float, or ``None`` when it is not a number."""
    kind = type(value)  # type() reads the object's real class; __class__ can lie
    if kind in (bool, int, float):
        return value
    if kind in _NUMPY_SCALARS:
        return value.item()
    if kind in (Fraction, Decimal):
        return float(value)
    if issubclass(kind, float):  # the float it stores, not what its methods say
        return float.__float__(value)
    if issubclass(kind, int) and not issubclass(kind, bool):
        return int.__index__(value)
    return None


def to_plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data, or ``{"unsupported": type name}``.

    A list, tuple or array of more than 10,000 items becomes ``{"too_long": length}``.

    >>> to_plain([1.5, (2, None)])
    [1.5, [2, None]]
    >>> to_plain(np.arange(3.0)), to_plain(deque([np.float64(0.5)])), to_plain(Fraction(1, 4))
    ([0.0, 1.0, 2.0], [0.5], 0.25)
    >>> class Liar(float):
    ...     def __eq__(self, other): return True
    ...     def __float__(self): return 7.0
    >>> to_plain(Liar(1.0))  # the float it holds: neither method is called
    1.0
    >>> to_plain(object())
    {'unsupported': 'object'}
    >>> to_plain(list(range(10_001)))
    {'too_long': 10001}
    """
    kind = type(value)
    if value is None or kind is str:
        return value if value is None else value[:1000]
    number = _number(value)
    if number is not None:
        return number
    if issubclass(kind, np.ndarray):
        array_ = np.ndarray.view(value, np.ndarray)  # np.matrix, or a student's subclass
        if array_.dtype.kind not in "biuf":
            return {"unsupported": kind.__name__}
        return array_.tolist() if array_.size <= _MAX_ITEMS else {"too_long": array_.size}
    if kind is range or issubclass(kind, array.array):
        items = list(value) if kind is range else array.array.tolist(value)
    else:
        base = next((b for b in _SEQUENCES if issubclass(kind, b)), None)
        if base is None or depth >= 4:
            return {"unsupported": kind.__name__}
        length = base.__len__(value)
        if length > _MAX_ITEMS:
            return {"too_long": length}
        items = list(base.__iter__(value))
    if len(items) > _MAX_ITEMS:
        return {"too_long": len(items)}
    return [to_plain(item, depth + 1) for item in items]


def too_long(value: Any) -> int | None:
    """The length of a list :func:`to_plain` found too long to read, else ``None``.

    >>> too_long(to_plain([0] * 20_000)), too_long([1, 2])
    (20000, None)
    """
    if isinstance(value, dict) and type(value.get("too_long")) is int:
        return value["too_long"]
    return None


def describe(value: Any) -> str:
    """A short name for a plain value's type, for feedback (never its content).

    >>> describe({"unsupported": "Liar"}), describe([1.0, 2.0]), describe(None)
    ('an object of type Liar', 'a list of 2 items', 'None')
    >>> describe({"too_long": 20000})
    'a list of 20000 items (more than the 10000 the grader reads)'
    """
    length = too_long(value)
    if length is not None:
        return f"a list of {length} items (more than the {_MAX_ITEMS} the grader reads)"
    if isinstance(value, dict) and "unsupported" in value:
        return f"an object of type {value['unsupported']}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' * (len(value) != 1)}"
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def as_float(value: Any) -> float | None:
    """A plain value as a float if it is a real number (not a bool), else ``None``.

    >>> as_float(3), as_float(True), as_float("3"), as_float([1.0])
    (3.0, None, None, None)
    """
    if type(value) in (int, float):
        return float(value)
    return None


def as_floats(value: Any, length: int) -> list[float] | None:
    """A plain value as ``length`` finite-or-not floats, else ``None``.

    >>> as_floats([1, 2.5], 2), as_floats([1, 2.5], 3), as_floats([[1.0], [2.0]], 2)
    ([1.0, 2.5], None, None)
    """
    if not isinstance(value, list) or len(value) != length:
        return None
    floats = [as_float(v) for v in value]
    return None if any(f is None for f in floats) else floats


def close(got: float, want: float, rel: float, abs_: float = 0.0) -> bool:
    """``got`` within ``rel`` (relative) or ``abs_`` of ``want``; NaN is never close.

    >>> close(1.0 + 1e-12, 1.0, 1e-9), close(float("nan"), 1.0, 1.0)
    (True, False)
    """
    return math.isfinite(got) and abs(got - want) <= max(rel * abs(want), abs_)


def ratio(got: float, want: float) -> str:
    """``got / want`` to three digits, or to as many as it takes not to read as 1 when it
    is not 1 ("1.0004 times the right one", never "1 times").

    >>> ratio(2.0, 1.0), ratio(1.0004, 1.0), ratio(-0.99999, 1.0)
    ('2', '1.0004', '-0.99999')
    """
    r = got / want
    for digits in range(3, 16):
        text = f"{r:.{digits}g}"
        if abs(float(text)) != 1.0 or abs(r) == 1.0:
            return text
    return text
