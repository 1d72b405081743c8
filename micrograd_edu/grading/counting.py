"""``Counted``: a function wrapped so that the grader sees how often a submission calls it.

Chapters 01, 03 and 05 grade a cost as well as an answer (a numerical gradient
needs 2n evaluations, a forward Jacobian n passes, a vector-Jacobian product
one call): the student's function receives the grader's ``f`` wrapped in a
:class:`Counted`, and the check reads ``calls`` after it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Counted"]


class Counted:
    """``f``, counting its calls in the read-only ``calls``.

    The count lives in a closure, not in an attribute, so a submission that is
    handed a ``Counted`` cannot simply set ``f.calls = 0`` after calling it too
    often (code in the same process can reach anything with enough effort; the
    batch grader's isolation is what protects the gradebook).

    >>> f = Counted(lambda a, b: a + b)
    >>> f(1, 2), f(3, 4), f.calls
    (3, 7, 2)
    >>> f.calls = 0  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    AttributeError: property 'calls' of 'Counted' object has no setter
    """

    __slots__ = ("_call", "_count")

    def __init__(self, f: Callable[..., Any]) -> None:
        count = [0]

        def call(*args: Any) -> Any:
            count[0] += 1
            return f(*args)

        self._call, self._count = call, count.__getitem__

    def __call__(self, *args: Any) -> Any:
        return self._call(*args)

    @property
    def calls(self) -> int:
        return self._count(0)
