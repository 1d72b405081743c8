"""Plain data: the only thing a submission's answers are allowed to be.

A graded function runs in the student's process, so whatever it returns may be
a trap: an object whose ``__eq__`` is always true, a ``float`` subclass whose
``__float__`` lies, a list that changes when read. ``to_plain`` turns a return
value into JSON-able data *without calling any of its methods*: it accepts only
exact built-in types and exact numpy types (whose conversions are numpy's own
code), and names anything else. The grader compares plain data only, so a
cheating object earns nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["to_plain", "as_float", "as_floats", "close", "describe", "too_long"]

# The parent reads at most this many items of a list or array: a submission must
# not make it parse (or judge) an unbounded answer. A longer one is reported by length.
_MAX_ITEMS = 10_000
_NUMPY_SCALARS = (np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8)


def to_plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data, or ``{"unsupported": type name}``.

    A list, tuple or array of more than 10,000 items becomes ``{"too_long": length}``.

    >>> to_plain([1.5, (2, None)])
    [1.5, [2, None]]
    >>> to_plain(np.arange(3.0))
    [0.0, 1.0, 2.0]
    >>> class Liar(float):
    ...     def __eq__(self, other): return True
    >>> to_plain(Liar(1.0))
    {'unsupported': 'Liar'}
    >>> to_plain(list(range(10_001)))
    {'too_long': 10001}
    """
    kind = type(value)  # type() reads the object's real class; __class__ can lie
    if value is None or kind in (bool, int, float, str):
        return value if kind is not str else value[:1000]
    if kind in _NUMPY_SCALARS:
        return value.item()
    if kind is np.ndarray and value.dtype.kind in "biuf":
        return value.tolist() if value.size <= _MAX_ITEMS else {"too_long": value.size}
    if kind in (list, tuple) and depth < 4:
        if len(value) > _MAX_ITEMS:
            return {"too_long": len(value)}
        return [to_plain(item, depth + 1) for item in value]
    return {"unsupported": kind.__name__}


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
        return f"a list of {len(value)} items"
    return "None" if value is None else f"a {type(value).__name__}"


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
