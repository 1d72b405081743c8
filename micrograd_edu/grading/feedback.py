"""``check("01.second_difference")``: feedback on one exercise, inside the notebook.

The student's function is found by name in the notebook's namespace, the
public checks run on a fixed public seed, and the answer comes back as a
compact report: ✔/✘ per check, the points, and the hint for each failure.
It never shows a test's source or an expected value. This check is advisory;
the batch grader, with other seeds and in another process, decides the grade.
"""

from __future__ import annotations

import contextlib
import html
import sys
from collections.abc import MutableMapping
from typing import Any

from .registry import (
    EXERCISES,
    CheckResult,
    ExerciseResult,
    broken,
    draw_cases,
    exercise,
    judge,
    observe,
)
from .time_limit import EXERCISE_SECONDS, TimeLimitExceeded, limited
from .withhold import withholding

__all__ = ["check", "Feedback", "PUBLIC_SEED"]

PUBLIC_SEED = "public"
_SILENT = False  # the batch grader sets this: there, check() in a notebook does nothing


class Feedback:
    """The report :func:`check` returns; shows as HTML in Jupyter, as text elsewhere."""

    def __init__(self, result: ExerciseResult) -> None:
        self.result = result

    @property
    def passed(self) -> bool:
        return self.result.passed

    def _lines(self) -> list[tuple[str, str, str]]:
        return _lines(self.result)

    def _title(self) -> str:
        r = self.result
        return f"{r.id} ({r.title}): {r.score:g}/{r.max_score:g} points"

    def __repr__(self) -> str:
        return "\n".join([self._title(), *describe(self.result)])

    def _repr_html_(self) -> str:
        color = "#1a7f37" if self.passed else "#555"
        rows = "".join(
            f"<li>{mark} {_html(name)}"
            + (f"<br><small>{_html(detail)}</small>" if detail else "")
            + "</li>"
            for mark, name, detail in self._lines()
        )
        return (
            f'<div class="micrograd-check"><b style="color:{color}">'
            f"{_html(self._title())}</b>"
            f'<ul style="list-style:none;padding-left:1em;margin:0.2em 0">{rows}</ul></div>'
        )


def _html(text: str) -> str:
    """``text`` escaped, with its `code` spans shown as code (not as backticks).

    >>> _html("use `list(xs)` & go")
    'use <code>list(xs)</code> &amp; go'
    """
    parts = html.escape(text).split("`")
    if len(parts) % 2 == 0:  # an odd backtick: show the text as it is
        return html.escape(text)
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _lines(r: ExerciseResult) -> list[tuple[str, str, str]]:
    """(mark, what, detail) per line of a report; details hold reasons and hints only."""
    if r.status in ("not attempted", "missing", "broken"):
        mark = "…" if r.status == "not attempted" else "✘"
        return [(mark, r.reason, _advice(r.status))]
    return [_line(c) for c in r.checks]


def _line(c: CheckResult) -> tuple[str, str, str]:
    """A check's line: its mark, name and points, and as detail why it failed (with the
    hint of the mistake seen), or what the work reached where it holds (``note``).

    >>> _line(CheckResult("trains", True, score=1.0, max_score=1.0, note="held-out MSE 0.02"))
    ('✔', 'trains (1/1)', 'held-out MSE 0.02')
    """
    points = f" ({c.score:.3g}/{c.max_score:.3g})" if c.max_score else ""
    if c.passed:
        # graded all or nothing, a property that holds earns nothing while another fails
        waiting = "it earns its points once every property holds"
        detail = [c.note, waiting if c.max_score and not c.score else ""]
        return ("✔", c.name + points, "; ".join(d for d in detail if d))
    if not c.ran:
        return ("–", c.name + " (not run)", c.reason)
    if not c.failed:  # it holds, but what it builds on does not
        return ("–", c.name + points, "; ".join(d for d in (c.reason, c.note) if d))
    return ("✘", c.name + points, f"{c.reason}. Hint: {c.hint}" if c.hint else c.reason)


def describe(r: ExerciseResult) -> list[str]:
    """The report on ``r`` as lines of text (the notebook's and Gradescope's)."""
    return [
        f"{mark} {what}" + (f"\n    {detail}" if detail else "") for mark, what, detail in _lines(r)
    ]


def _advice(status: str) -> str:
    if status == "not attempted":
        return "replace `raise NotImplementedError()` with your code, run that cell, then this one"
    if status == "missing":
        return "run the cell that defines it first (and check the function's name)"
    return "the grader stopped this exercise; fix what the reason names"


def one_blas_thread() -> Any:
    """BLAS on one thread for the body, where threadpoolctl can say so (else unchanged)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def check(
    exercise_id: str,
    namespace: MutableMapping[str, Any] | None = None,
    time_limit: float | None = EXERCISE_SECONDS,
) -> Feedback | None:
    """Run the public checks of ``exercise_id`` on the functions defined in the notebook.

    ``namespace`` defaults to the caller's globals (the notebook's namespace).
    The checks stop after ``time_limit`` seconds of CPU time, or twice that (at least
    10 s) of waiting, as the batch grader's do (by default its limit per exercise;
    ``None``: no limit), and the report then says so: an endless loop in the student's
    code ends the check, not the session, and a busy machine (a class hub) stretches the
    wall clock, not the work counted. BLAS runs on one thread meanwhile where
    threadpoolctl is installed (it comes with scikit-learn), as in the grader's child,
    so that a many-core laptop's threads do not add up to the limit. The limit needs
    POSIX signals in the main thread, where Jupyter runs cells; on Windows, or from
    another thread, the checks run without one.

    >>> def second_difference(f, x, h):
    ...     return (f(x + h) - 2 * f(x) + f(x - h)) / h**2
    >>> check("01.second_difference").passed
    True
    """
    if _SILENT:
        return None
    if exercise_id not in EXERCISES:  # an instructor's own exercise: its checks sit here
        from .instructor import load_checks

        load_checks(".")
    ex = exercise(exercise_id)
    if namespace is None:
        namespace = sys._getframe(1).f_globals
    cases = draw_cases(ex, PUBLIC_SEED)
    try:
        # the same library code withheld as in the batch grader: one verdict in both
        with limited(time_limit), one_blas_thread(), withholding(ex.withheld, namespace):
            observed = observe(ex, namespace, cases)
    except TimeLimitExceeded as stop:
        return Feedback(broken(ex, f"{stop}: an endless loop, or more work than the limit allows"))
    return Feedback(judge(ex, cases, observed))
