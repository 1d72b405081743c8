"""Grades where the instructor needs them: a CSV Canvas imports, derived from the whole
gradebook, and one HTML page of feedback per submission.

The Canvas file has the roster's Canvas columns (``Student``, ``ID``, ``SIS User ID``,
``SIS Login ID``, ``Section``), a "Points Possible" line and one column per assignment
(a chapter), as Canvas's gradebook import reads it. Each student's score is their
gradebook row's final score (after any late penalty), whichever run graded it; a
student with no row scores 0 and is named.

>>> import io
>>> from .roster import Roster
>>> roster = Roster.read(io.StringIO("Student,ID\\nAnn Lee,101\\nBo Chen,102\\n"))
>>> rows = [{"student": "101", "chapter": "01", "score": "9", "max_score": "11"}]
>>> text, absent, unknown = canvas_csv(rows, roster, {"01": "Chapter 01"})
>>> print("\\n".join(text.splitlines()))
Student,ID,SIS User ID,SIS Login ID,Section,Chapter 01
Points Possible,,,,,11
Ann Lee,101,,,,9
Bo Chen,102,,,,0
>>> absent
['Bo Chen (102): no row for chapter 01']
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from typing import Any

from .feedback import Feedback
from .record import safe_cell
from .registry import EXERCISES
from .roster import CANVAS_COLUMNS, Roster

__all__ = ["canvas_csv", "feedback_html"]


def canvas_csv(
    rows: Sequence[dict[str, str]], roster: Roster, assignments: dict[str, str]
) -> tuple[str, list[str], list[str]]:
    """The Canvas import file for the gradebook ``rows``, one column per chapter in
    ``assignments`` (chapter -> column name); the students with no row for a chapter (0
    in the file), and the rows that belong to nobody in the roster."""
    scores = {(r.get("student", ""), r.get("chapter", "")): r for r in rows}
    possible = {}
    for number in assignments:
        maxima = [
            float(r["max_score"])
            for r in rows
            if r.get("chapter") == number and _number(r.get("max_score"))
        ]
        registered = sum(e.points for e in EXERCISES.values() if e.chapter == number)
        possible[number] = max(maxima, default=registered)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*CANVAS_COLUMNS, *map(safe_cell, assignments.values())])
    blank = [""] * (len(CANVAS_COLUMNS) - 1)
    writer.writerow(["Points Possible", *blank, *(f"{possible[c]:g}" for c in assignments)])
    absent = []
    for student in roster.students:
        cells = []
        for number in assignments:
            row = scores.get((student.key, number))
            if row is None:
                absent.append(f"{student.name} ({student.key}): no row for chapter {number}")
            cells.append(row["score"] if row and row.get("score") else "0")
        writer.writerow([safe_cell(student.columns[c]) for c in CANVAS_COLUMNS] + cells)
    unknown = sorted(
        r.get("submission", "") + (f" (student {r['student']})" if r.get("student") else "")
        for r in rows
        if r.get("chapter") in assignments and r.get("student", "") not in roster.by_key
    )
    return out.getvalue(), absent, unknown


def _number(text: str | None) -> bool:
    try:
        float(text or "")
    except ValueError:
        return False
    return True


def feedback_html(row: Any) -> str:
    """One submission's feedback as a page: the points, then each exercise as
    ``check()`` shows it in the notebook (the same lines and hints)."""
    title = f"{row.submission}: {row.score:g}/{row.max_score:g} points"
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in row.notes)
    body = "".join(Feedback(result)._repr_html_() for result in row.results)
    sandbox = "" if row.sandboxed else "<p><i>graded without a sandbox</i></p>"
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}'
        f'</title></head><body style="font-family:sans-serif"><h1>{html.escape(title)}</h1>'
        f"{sandbox}{f'<ul>{notes}</ul>' if notes else ''}{body}</body></html>\n"
    )
