"""Written answers: collected for marking by hand; the marks merged into the gradebook.

A question is a markdown cell of a solution notebook tagged in its metadata
(``{"micrograd_edu": {"written": "01.why_central", "points": 2}}``), with its model
answer between the usual markers; ``release`` leaves "YOUR ANSWER HERE" in its place
and keeps the tag and the cell's id, so each student's answer is found by either.

``micrograd-edu written SUBMISSIONS --chapter 01 --out marking/`` writes one page per
question (``marking/01.why_central.html``: the question, the model answer, then every
student's answer) and ``marking/marks_01.csv``, a line per student and question with
empty ``mark`` and ``comment`` columns. ``micrograd-edu marks marking/marks_01.csv --csv
gradebook.csv`` merges the marks filled in: each goes into its student's row, in a
column whose header carries the points (``01.why_central (written /2)``); the raw,
maximum and final scores follow, the comment goes in ``comment on 01.why_central``, and
no other cell changes. A mark left empty is skipped; one that is not a number from 0 to
the points is refused with its line.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .intake import Document, Reader, documents
from .record import Gradebook, key, now, safe_cell, totals, written_column, written_points
from .release import BEGIN, END, strip_solutions
from .roster import Roster

__all__ = ["Question", "questions", "collect", "merge_marks", "MARKS_COLUMNS"]

MARKS_COLUMNS = [
    "student",
    "name",
    "submission",
    "chapter",
    "question",
    "points",
    "mark",
    "comment",
]
_UNANSWERED = "YOUR ANSWER HERE"


@dataclass(frozen=True)
class Question:
    id: str
    points: float
    cell: str  # the cell's id, which the released notebook keeps
    text: str  # the question, as students see it (the cell without its model answer)
    model: str  # the model answer


def questions(solution: Document) -> list[Question]:
    """The written questions of a solution notebook, or an error naming a bad tag."""
    found = []
    for note in solution.notes:
        if not note["written"]:
            continue
        if not note["written"].startswith(f"{solution.file[:2]}.") or note["points"] is None:
            raise ValueError(
                f"{solution.name}: cell {note['id']}: a written answer's tag needs an id that "
                'starts with the chapter ("01.why_central") and points (a number)'
            )
        text = note["source"]
        model = text.partition(BEGIN)[2].partition(END)[0].strip("\n")
        found.append(
            Question(
                note["written"],
                float(note["points"]),
                note["id"],
                strip_solutions(text, [], f"{solution.name} cell {note['id']}").strip(),
                model,
            )
        )
    return found


def _answer(document: Document, question: Question) -> str | None:
    note = next((n for n in document.notes if n["written"] == question.id), None)
    note = note or next((n for n in document.notes if n["id"] == question.cell), None)
    if note is None:
        return None
    text = note["source"].strip()
    text = text[len(question.text) :].strip() if text.startswith(question.text) else text
    return "" if text == _UNANSWERED else text


def _page(question: Question, answers: list[tuple[str, str | None]]) -> str:
    def block(text: str) -> str:
        return f'<div style="white-space:pre-wrap;border:1px solid #ccc;padding:6px">{text}</div>'

    parts = [
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(question.id)}'
        '</title></head><body style="font-family:sans-serif;max-width:50em">',
        f"<h1>{html.escape(question.id)} ({question.points:g} points)</h1>",
        block(html.escape(question.text)),
        "<h2>Model answer</h2>",
        block(html.escape(question.model)),
        f"<h2>Answers ({sum(bool(a) for _, a in answers)} of {len(answers)})</h2>",
    ]
    for who, answer in answers:
        shown = html.escape(answer) if answer else "<i>(no answer)</i>"
        parts.append(f"<h3>{html.escape(who)}</h3>{block(shown)}")
    parts.append("</body></html>\n")
    return "".join(parts)


def collect(
    paths: Sequence[str | Path],
    number: str,
    solutions: str | Path = "solutions",
    roster: Roster | None = None,
) -> tuple[dict[str, str], str, list[str]]:
    """The pages (file name -> HTML, one per question), the marks sheet (CSV text) and
    notes (files that could not be read or matched) for chapter ``number``."""
    with Reader() as reader:
        found = documents(paths, reader)
        sources = sorted(Path(solutions).glob(f"{number}_*.ipynb"))
        asked = [q for d in documents(sources, reader) if not d.error for q in questions(d)]
    if not asked:
        raise ValueError(f"no written questions in {solutions}/{number}_*.ipynb (see the README)")
    notes = [d.error for d in found if d.error]
    newest: dict[str, tuple[float, str, str, Document]] = {}  # a student's newest file counts
    for document in (d for d in found if not d.error):
        student, name = "", document.name
        if roster is not None:
            matched, why = roster.match(document.name)
            if matched:
                student, name = matched[0].key, f"{matched[0].name} ({matched[0].key})"
            else:
                notes.append(f"{document.name}: not matched to a student in the roster: {why}")
        when = document.stamp.timestamp() if document.stamp else document.mtime
        who = student or document.name
        if who not in newest or newest[who][0] < when:
            newest[who] = (when, student, name, document)
    people = [(student, name, document) for _, student, name, document in newest.values()]
    pages = {}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(MARKS_COLUMNS)
    for question in asked:
        answers = [(name, _answer(document, question)) for _, name, document in people]
        pages[f"{question.id}.html"] = _page(question, answers)
        for student, name, document in people:
            row = [student, name, document.name, number, question.id, f"{question.points:g}"]
            writer.writerow([safe_cell(v) for v in [*row, "", ""]])
    return pages, out.getvalue(), notes


def merge_marks(marks: str | Path, gradebook: str | Path) -> tuple[int, list[str]]:
    """Merge the marks filled in on the sheet ``marks`` into ``gradebook``; return how
    many were merged, or (0, the problems, by line) when any line is wrong."""
    with open(marks, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in ("student", "submission", "chapter", "question", "points", "mark")
                   if c not in (reader.fieldnames or [])]  # fmt: skip
        if missing:
            return 0, [f"{marks}: no column {', '.join(missing)} (use the sheet `written` wrote)"]
        lines = list(enumerate(reader, start=2))
    problems, filled = [], []
    for n, line in lines:
        mark = (line.get("mark") or "").strip()
        if not mark:
            continue
        try:
            points, value = float(line["points"]), float(mark)
        except ValueError:
            problems.append(f"line {n}: mark {mark!r} (out of {line['points']}) is not a number")
            continue
        if not 0 <= value <= points:
            problems.append(f"line {n}: mark {value:g} is not from 0 to {points:g}")
            continue
        filled.append((n, line, points, value))
    if problems:
        return 0, problems

    def change(rows: list[dict]) -> list[dict]:
        for n, line, points, value in filled:
            row = _row_for(rows, line)
            if row is None:
                problems.append(
                    f"line {n}: no gradebook row for {line['submission']} (chapter "
                    f"{line['chapter']}): grade it first, or give it a roster ID"
                )
                continue
            column = written_column(line["question"], points)
            old_points = 0.0
            for other in [c for c in row if written_points(c)]:
                if written_points(other)[0] == line["question"] and row[other]:
                    old_points = written_points(other)[1]
                    row[other] = "" if other != column else row[other]
            row[column] = f"{value:g}"
            if (line.get("comment") or "").strip():
                row[f"comment on {line['question']}"] = safe_cell(line["comment"].strip())
            marked = [
                e
                for e in row.get("regraded", "").split("; ")
                if e and not e.startswith(line["question"])
            ]
            row["regraded"] = "; ".join([*marked, f"{line['question']}: marked at {now()}"])
            maximum = float(row.get("max_score") or 0) - old_points + points
            totals(row, maximum)
        return rows

    Gradebook(gradebook).update(change)
    return (0, problems) if problems else (len(filled), [])


def _row_for(rows: list[dict], line: dict[str, str]) -> dict | None:
    """The gradebook row a marks line is for: its student's for the chapter, or, with no
    student (no roster), the row of its file; a new row for a roster student with none."""
    student, chapter = line.get("student", "").strip(), line["chapter"].strip()
    if student:
        found = [r for r in rows if key(r) == (student, chapter, "")]
        if not found:
            row = {"student": student, "name": line.get("name", ""), "chapter": chapter,
                   "submission": line["submission"], "max_score": "0"}  # fmt: skip
            rows.append(row)
            return row
        return found[0]
    found = [
        r for r in rows if r.get("submission") == line["submission"] and r.get("chapter") == chapter
    ]
    return found[0] if len(found) == 1 else None
