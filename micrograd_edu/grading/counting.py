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
    """``f``, counting its calls in ``calls``.

    >>> f = Counted(lambda a, b: a + b)
    >>> f(1, 2), f(3, 4), f.calls
    (3, 7, 2)
    """

    def __init__(self, f: Callable[..., Any]) -> None:
        self.f, self.calls = f, 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.f(*args)
