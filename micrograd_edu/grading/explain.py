"""Plain explanations of a failed check: tried before any hint.

A hint names a cause ("you divided by h where 2h belongs"). It may be shown only when
that cause is the explanation of what the student's code returned, and no plainer
explanation fits. The plain ones need no model of a mistake, only the right answer:

* **the type or the shape**: a list where a number belongs, three numbers where four
  do, ``None``;
* **a constant factor**: on every failing case the answer is the same number ``c``
  times the right one (``c = -1``: the sign; ``c = 0``: nothing was computed).

A check that can say what the right observation is (``Check.right``) gets these for
free: :func:`explain` looks at every failing case, and the registry then shows no
hint for a type or shape, and for a factor only the hint of a mistake that *is* that
factor (``Mistake(factor=2.0)``). Where a check has several right answers (any valid
topological order, any step in a range), ``right`` puts :data:`REAL` where any real
number is right, or a :class:`Kind` of its own (``Kind("an expression", is_tree)``):
the type is still explained, the factor is not.

>>> explain([({"h": REAL}, {"h": [0.1, 0.2]})]).text
'returned a list of 2 items where a number was expected'
>>> found = explain([({"grad": [1.0, -2.0]}, {"grad": [2.0, -4.0]}),
...                  ({"grad": [0.5, 0.0]}, {"grad": [1.0, 0.0]})])
>>> found.kind, found.factor, found.text
('factor', 2.0, 'on every failing case it is 2 times the right value')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .plain import as_float, describe

__all__ = ["REAL", "Kind", "Explanation", "explain", "mismatch"]


@dataclass(frozen=True)
class Kind:
    """In ``right(case)``: any value that passes ``test`` has the right type here
    (``description`` says what that is: "a number", "an expression")."""

    description: str
    test: Callable[[Any], bool]

    def __repr__(self) -> str:
        return f"Kind({self.description!r})"


REAL = Kind("a number", lambda value: as_float(value) is not None)
_SAME = 1e-6  # two ratios within this (relative) are one factor


@dataclass(frozen=True)
class Explanation:
    kind: str  # "type" (or shape) or "factor"
    text: str  # what was seen, said to the student
    factor: float | None = None


def _expected(right: Any) -> str:
    if isinstance(right, Kind):
        return right.description
    if type(right) in (int, float):
        return "a number"
    if isinstance(right, list):
        return f"a list of {len(right)} items"
    return describe(right)


def mismatch(seen: Any, right: Any) -> str | None:
    """Why ``seen`` (plain data) does not have the type and shape of ``right``, or None.

    >>> mismatch([1.0, 2.0], [0.0, 0.0, 0.0])
    'returned a list of 2 items where a list of 3 items was expected'
    >>> mismatch(3, REAL) is None, mismatch(True, REAL)
    (True, 'returned a bool where a number was expected')
    """
    if isinstance(right, Kind):
        ok = right.test(seen)
    elif type(right) in (int, float):
        ok = as_float(seen) is not None
    elif isinstance(right, list):
        if isinstance(seen, list) and len(seen) == len(right):
            return next(
                (m for m in map(mismatch, seen, right) if m is not None), None
            )  # the first item that differs says it
        ok = False
    else:
        ok = type(seen) is type(right)
    return None if ok else f"returned {describe(seen)} where {_expected(right)} was expected"


def _numbers(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [x for item in value for x in _numbers(item)]
    return [value]


def _factor(right: dict[str, Any], seen: dict[str, Any]) -> float | None:
    """The one number c with seen = c * right on every compared number (within a
    millionth of the largest right number: rounding in a right method is not a factor),
    or None."""
    pairs = []
    for key, value in right.items():
        wanted = _numbers(value)
        if not any(isinstance(r, Kind) for r in wanted):  # a Kind has no value to scale
            pairs += [
                (r, as_float(s)) for r, s in zip(wanted, _numbers(seen.get(key)), strict=True)
            ]
    scale = max((abs(r) for r, _ in pairs), default=0.0)
    if scale == 0 or not all(math.isfinite(s) for _, s in pairs):
        return None
    c = sum(r * s for r, s in pairs) / sum(r * r for r, _ in pairs)
    if any(abs(s - c * r) > _SAME * scale * max(1.0, abs(c)) for r, s in pairs):
        return None
    return c if abs(c - 1) > _SAME else None


def _said(c: float) -> str:
    if c == 0:
        return "on every failing case it is 0 where the right value is not"
    if abs(c + 1) <= _SAME:
        return "on every failing case it has the sign opposite to the right value's"
    digits = max(3, 2 - math.floor(math.log10(abs(c - 1))))  # enough to tell it from 1
    return f"on every failing case it is {c:.{digits}g} times the right value"


def explain(failures: list[tuple[dict[str, Any], Any]]) -> Explanation | None:
    """The plain explanation of ``failures`` (each the right observation and what the
    student's code gave), or None. A raise is not explained here (the registry reports
    it with the student's line)."""
    factors, numbers = [], 0
    for right, seen in failures:
        if not isinstance(seen, dict) or "error" in seen or seen.get("not_attempted"):
            continue
        for key, value in right.items():
            found = mismatch(seen.get(key), value)
            if found is not None:
                return Explanation("type", found)
        factors.append(_factor(right, seen))
        numbers += sum(
            1
            for value in right.values()
            for r in _numbers(value)
            if not isinstance(r, Kind) and r != 0
        )
    # one wrong number is "some factor" times the right one: a factor needs two to show
    if not factors or any(c is None for c in factors) or numbers < 2:
        return None
    c = factors[0]
    if all(abs(q - c) <= _SAME * max(abs(c), 1e-300) for q in factors):
        return Explanation("factor", _said(c), round(c, 9))
    return None
