"""Wrong answers as students write them, one per mistake a check models (or none, for a
mistake no hint may name): tests/test_grading_mistakes.py grades each over many seeds and
checks that it gets its own mistake's hint and no other. A chapter's module here holds
``CORRECT`` (right answers for the names an example does not replace) and ``EXAMPLES``."""

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Example:
    """``functions`` (the names they replace) make the mistake named ``mistake`` in
    ``exercise``; ``mistake=None``: a wrong answer that no hint may claim to explain
    (a plain type or a factor: the feedback says what it saw). ``also``: the mistakes
    another check of the exercise sees in the same answer (the same cause, seen from
    there: a two-point quotient is also first order). ``label`` tells two examples of
    one mistake apart. ``seeds``: how many seeds to grade it on."""

    exercise: str
    mistake: str | None
    functions: dict[str, Any] = field(repr=False)
    also: tuple[str, ...] = ()
    label: str = ""
    seeds: int = 6

    @property
    def id(self) -> str:
        return f"{self.exercise}:{self.mistake or 'no hint'}" + (
            f":{self.label}" if self.label else ""
        )
