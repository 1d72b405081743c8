"""Grades where the instructor needs them: a CSV Canvas imports, and one HTML page of
feedback per submission.

The roster is a CSV with a ``submission`` column (the notebook's file name, as it
was submitted) and Canvas's own student columns: ``Student`` and ``ID`` at least
(a Canvas gradebook export has them), and ``SIS User ID``, ``SIS Login ID``,
``Section`` where known. The Canvas file has those columns, a "Points Possible" row
and one column for the assignment, as Canvas's gradebook import reads it.

>>> import io
>>> roster = read_roster(io.StringIO("submission,Student,ID\\nann.ipynb,Ann Lee,101\\n"))
>>> roster["ann.ipynb"]["Student"]
'Ann Lee'
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from .feedback import Feedback

__all__ = ["read_roster", "canvas_csv", "feedback_html", "STUDENT_COLUMNS"]

STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def read_roster(source: str | Path | IO[str]) -> dict[str, dict[str, str]]:
    """The roster's students keyed by submission file name; a clear error for a roster
    without the columns it needs or with one file named twice."""
    handle = (
        open(source, newline="", encoding="utf-8") if isinstance(source, str | Path) else source
    )
    with handle:
        reader = csv.DictReader(handle)
        missing = [c for c in ("submission", "Student", "ID") if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(
                f"roster: no column {', '.join(missing)}; it needs 'submission' (the notebook's "
                "file name), 'Student' and 'ID' (as in a Canvas gradebook export)"
            )
        roster: dict[str, dict[str, str]] = {}
        for line, row in enumerate(reader, start=2):
            name = Path(row["submission"].strip()).name
            if name in roster:
                raise ValueError(f"roster: line {line} names {name!r} a second time")
            roster[name] = {c: (row.get(c) or "").strip() for c in STUDENT_COLUMNS}
    return roster


def canvas_csv(
    rows: Sequence[Any], roster: dict[str, dict[str, str]], assignment: str
) -> tuple[str, list[str], list[str]]:
    """The Canvas import file for ``rows``, the submissions the roster does not name,
    and the students with no submission (they score 0, so the column is complete)."""
    scores = {row.submission: row for row in rows}
    possible = max((row.max_score for row in rows), default=0)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*STUDENT_COLUMNS, assignment])
    writer.writerow(["Points Possible", "", "", "", "", f"{possible:g}"])
    absent = []
    for name, student in roster.items():
        row = scores.get(name)
        if row is None:
            absent.append(student["Student"] or name)
        writer.writerow([student[c] for c in STUDENT_COLUMNS] + [f"{row.score:g}" if row else "0"])
    unknown = sorted(set(scores) - set(roster))
    return out.getvalue(), unknown, absent


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
