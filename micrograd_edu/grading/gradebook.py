"""``micrograd-edu grade``: a batch of submissions into the gradebook.

What was handed in is read first, each file inside a guard (:mod:`.intake`), and
planned: whose it is (:mod:`.roster`, from the path and the LMS's metadata), which
chapter it is (``--chapter``, checked against the functions it defines), which of a
student's files counts (the one for the batch's chapter, then the newest), and how
late it was (:mod:`.late`). Then every planned file is graded, two at a time, and each
row is merged into the gradebook (:mod:`.record`) as it finishes, so an interrupted
batch keeps every finished row and every row it did not grade.

A first Ctrl-C starts no new submission and lets the ones being graded finish (their
rows are written); a second stops them too. A file that cannot be read, or is
nobody's in the roster, or is another chapter's, gets a row saying so.
"""

from __future__ import annotations

import os
import secrets
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from . import batch, isolation
from .batch import Limits, Row, grade_submission, require_posix
from .intake import Document, Reader, documents, printable
from .judging import judges
from .late import Policy, as_time
from .lms import Exports, handed_in, late_marked
from .record import Gradebook, key, merge, now, safe_cell, totals, version, write, written_points
from .registry import EXERCISES, Exercise, broken, chapter
from .roster import Roster, Student
from .steps import require_references

__all__ = ["grade_all", "Plan", "Interrupted", "progress_bar", "chapter_counts"]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a batch: ``rows`` were graded and written; ``left`` were not."""

    def __init__(self, rows: list[Row], left: list[str]) -> None:
        super().__init__(f"interrupted: {len(rows)} rows written, {len(left)} not graded")
        self.rows, self.left = rows, left


@dataclass
class Plan:
    """One file to grade (or to record as not graded, with ``error``)."""

    document: Document
    chapter: str | None
    exercises: list[Exercise]
    students: list[Student] = field(default_factory=list)  # a group submission has several
    key: str = ""  # the gradebook's student column: a roster ID, or the file's path
    notes: list[str] = field(default_factory=list)
    error: str = ""
    submitted: datetime | None = None
    late: tuple[int, float] | None = None
    when: float = 0.0  # this file's own time (LMS metadata, zip entry, file): the newest counts


def chapter_counts(defined: set[str]) -> dict[str, int]:
    """For each chapter, how many of its exercises' functions ``defined`` holds."""
    counts: dict[str, int] = {}
    for ex in EXERCISES.values():
        counts[ex.chapter] = counts.get(ex.chapter, 0) + len(defined & set(ex.names))
    return counts


def _leaders(document: Document) -> list[str]:
    """The chapters whose exercises' functions ``document`` defines most of."""
    counts = chapter_counts(document.defined)
    best = max(counts.values(), default=0)
    return sorted(c for c, n in counts.items() if n == best and best > 0)


def _chapter(document: Document, wanted: str | None) -> tuple[str | None, str, str]:
    """(chapter, note, error) for ``document``: ``wanted`` unless its functions are
    another chapter's; without ``wanted``, the chapter whose functions it defines (never
    the one its editable metadata names: that only earns a note)."""
    leaders = _leaders(document)
    if wanted and leaders and wanted not in leaders:
        names = sorted(document.defined & {n for e in chapter(leaders[0]) for n in e.names})
        why = (
            f"{document.name} is chapter {leaders[0]}'s notebook (it defines {', '.join(names)}), "
            f"not chapter {wanted}'s: not graded as chapter {wanted}. Hand in chapter {wanted}'s "
            f"notebook, or grade this one with --chapter {leaders[0]}"
        )
        return wanted, "", why
    if wanted:
        return wanted, "", ""
    if len(leaders) == 1:
        claimed, found = document.claimed, leaders[0]
        if claimed and claimed != found:
            note = f"graded as chapter {found}, whose exercises' functions it defines; its "
            return found, note + f"metadata says chapter {claimed}", ""
        return found, "", ""
    why = "cannot tell which chapter this notebook is for: pass --chapter"
    if leaders:
        why += f" (it defines the functions of chapters {', '.join(leaders)} alike)"
    return None, "", why


def _path_key(document: Document, base: Path) -> str:
    """A file's gradebook key without a roster: its path, from the gradebook's folder."""
    where = Path(os.path.abspath(document.path))
    try:
        text = where.relative_to(base).as_posix()
    except ValueError:
        text = where.as_posix()
    return printable("/".join([text, *document.chain]))


def plan(
    found: Sequence[Document],
    wanted: str | None,
    only: Sequence[str],
    roster: Roster | None,
    policy: Policy | None,
    base: Path,
    reader: Reader,
    one: bool = False,
) -> list[Plan]:
    """What to grade: each file's student, chapter and lateness; of a student's files for
    one chapter, the one that fits the chapter, then the newest (the others are named in
    its row). ``one``: every file is one student's (a Gradescope submission)."""
    exports = Exports(reader)
    plans = []
    zone = policy.zone if policy else datetime.now().astimezone().tzinfo
    for document in found:
        number, note, error = _chapter(document, wanted) if not document.error else (wanted, "", "")
        exercises = [e for e in chapter(number) if not only or e.id in only] if number else []
        p = Plan(document, number, exercises, notes=[note] if note else [], error=document.error)
        p.error = p.error or error
        meta = exports.of(document)
        if one:
            p.key = "submission"
        elif roster is None:
            p.key = _path_key(document, base)
        else:
            p.students, why = roster.match(document.name, (meta or {}).get("submitters", ()))
            p.key = p.students[0].key if p.students else ""
            if not p.students:
                p.notes.insert(0, f"not matched to a student in the roster: {why}")
        p.when = _own_time(document, meta)
        roster_time = p.students[0].submitted if p.students else ""
        try:
            p.submitted, source = handed_in(document, roster_time, meta, zone)
        except ValueError as problem:
            p.notes.append(f"its submission time cannot be read: {problem}")
            source = ""
        if policy and number:
            _lateness(p, policy, source)
        elif late_marked(document.name):
            p.notes.append("marked LATE by the LMS (no due date given: grade with --late)")
        plans.append(p)
    for problem in exports.problems:  # an export's metadata that cannot be read: say so
        for p in plans:
            p.notes.append(problem)
    return _newest(plans)


def _own_time(document: Document, meta: dict[str, Any] | None) -> float:
    """When this file (not its student: the roster's time is theirs) was handed in."""
    try:
        return as_time((meta or {})["created_at"]).timestamp()
    except (KeyError, TypeError, ValueError):
        return document.stamp.timestamp() if document.stamp else document.mtime


def _lateness(p: Plan, policy: Policy, source: str) -> None:
    due = policy.due_for(p.chapter or "", p.key)
    if due is None:
        if late_marked(p.document.name):
            p.notes.append(f"marked LATE, but --late gives no due date for chapter {p.chapter}")
        return
    if p.submitted is None:
        p.late = (0, 0.0)
        return
    p.late = policy.late(due, p.submitted)
    when = p.submitted.isoformat(timespec="minutes")
    if p.late[0]:
        p.notes.append(
            f"late: handed in {when} ({source}), due {due.isoformat(timespec='minutes')}: "
            f"{p.late[0]} day(s), {p.late[1]:g}% off"
        )
    elif late_marked(p.document.name):
        p.notes.append(
            f"marked LATE, but its time ({when}, {source}) is not past the due date: no "
            "penalty; give its time in the roster's 'submitted' column if that is wrong"
        )


def _attempts(p: Plan) -> bool:
    """Whether the file defines any function of its chapter's exercises (a scratch
    notebook handed in beside the real one does not)."""
    return any(set(e.names) & p.document.defined for e in p.exercises)


def _passed_over(p: Plan) -> str:
    """Why a student's other file was not the one graded."""
    if p.document.error:
        return "unreadable"
    leaders = _leaders(p.document)
    if p.error and leaders:
        return f"chapter {leaders[0]}'s notebook"
    return "older" if _attempts(p) else "none of the chapter's functions"


def _newest(plans: list[Plan]) -> list[Plan]:
    """Of each student's files for a chapter, the one to grade: one that can be read, is
    the chapter's and defines some of its functions, then the newest. Its row names the
    others."""
    groups: dict[tuple[str, str | None], list[Plan]] = {}
    for p in plans:
        if p.key:
            groups.setdefault((p.key, p.chapter), []).append(p)
    dropped = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        best = max(group, key=lambda p: (not p.error, _attempts(p), p.when, p.document.name))
        others = [p for p in group if p is not best]
        dropped.update(map(id, others))

        listed = ", ".join(f"{p.document.name} ({_passed_over(p)})" for p in others)
        best.notes.append(f"also handed in, not graded: {listed}")
    return [p for p in plans if id(p) not in dropped]


def _result_row(p: Plan, row: Row | None, isolated: str) -> Row:
    if row is None:  # not graded: its exercises score 0 with the reason
        results = [broken(ex, p.error) for ex in p.exercises]
        row = Row(p.document.name, results, [p.error, *p.notes], 0.0, isolated)
    else:
        row.notes[:0] = p.notes
    row.submission, row.chapter = p.document.name, p.chapter or ""
    row.student = ", ".join(s.key for s in p.students)
    return row


def _records(p: Plan, row: Row, run: dict[str, str], per_check: bool) -> list[dict[str, str]]:
    """The gradebook rows for a graded plan: one per student it belongs to."""
    from .gradescope import check_scores

    cells: dict[str, str] = {}
    for r in row.results:
        cells[r.id] = f"{r.score:g}"
        if per_check:
            cells.update({f"{r.id}: {name}": f"{s:g}" for name, s, _ in check_scores(r)})
    late = p.late
    records = []
    for student in p.students or [None]:
        record = {
            "student": p.key if student is None else student.key,
            "name": student.name if student else "",
            "submission": p.document.name,
            "chapter": p.chapter or "",
            "submitted": p.submitted.isoformat(timespec="seconds") if p.submitted else "",
            "late_days": str(late[0]) if late else "",
            "penalty": f"{late[1]:g}" if late else "",
            **cells,
            "reason": row.reason,
            **run,
        }
        records.append({k: safe_cell(v) for k, v in record.items()})
    return records


def _max(record: dict[str, str]) -> float:
    """Points possible in a row: its exercises' (as registered) and its written answers'."""
    total, chapter_prefix = 0.0, f"{record.get('chapter')}."
    for column, value in record.items():
        if not value or not column.startswith(chapter_prefix) or ": " in column:
            continue
        written = written_points(column)
        if written:
            total += written[1]
        elif column in EXERCISES:
            total += EXERCISES[column].points
    return total


def _merge(
    rows: list[dict], record: dict[str, str], only: Sequence[str], note: Callable[[str], None]
) -> list[dict]:
    """``rows`` with ``record`` merged in: the whole row, or (``only``) those exercises'
    cells, their part of the reason, and when they were regraded. Graded again without
    --late, a row keeps the lateness it had."""
    old = next((r for r in rows if key(r) == key(record)), None)
    if old is not None and not only:
        if not record["late_days"] and old.get("late_days"):
            record = {
                **record,
                **{c: old.get(c, "") for c in ("submitted", "late_days", "penalty")},
            }
        rows = merge(rows, record)
    elif old is not None and old.get("submission") != record["submission"]:
        note(
            f"not regraded: the gradebook's row for this student is {old.get('submission')}'s; "
            "regrade one exercise from the files the rows were graded from"
        )
        return rows
    elif old is not None:  # one exercise for everyone: its cells, its reason, and when
        columns = [c for c in record if c.split(": ", 1)[0] in only]
        kept = [
            p for p in old.get("reason", "").split("; ") if p and p.split(": ", 1)[0] not in only
        ]
        new = [p for p in record["reason"].split("; ") if p and p not in kept]
        stamp = f"at {record['graded_at']}, version {record['version']}, seed {record['seed']}"
        regraded = [
            e for e in old.get("regraded", "").split("; ") if e and e.split(": ", 1)[0] not in only
        ]
        regraded += [f"{e}: {stamp}" for e in only]
        record = {**record, "reason": "; ".join(kept + new), "regraded": "; ".join(regraded)}
        rows = merge(rows, record, [*columns, "reason", "regraded"])
    else:
        rows = merge(rows, record)
    for row in rows:
        if key(row) == key(record):
            totals(row, _max(row))
    return rows


def grade_all(
    paths: Sequence[str | Path],
    *,
    chapter_number: str | None = None,
    csv_path: str | Path | None = None,
    gradescope_path: str | Path | None = None,
    workers: int = 2,
    limits: Limits | None = None,
    seed: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    per_check: bool = False,
    roster: Roster | None = None,
    late: Policy | None = None,
    only: Sequence[str] = (),
    one_submission: bool = False,
    visibility: Sequence[tuple[str, str]] = (),
) -> list[Row]:
    """Grade every notebook in ``paths`` (files, folders, zips) and merge each row into
    the gradebook ``csv_path`` as it finishes; return this run's rows, in the order found.
    ``only``: regrade these exercises alone (their cells change, nothing else).
    ``one_submission``: everything in ``paths`` is one student's (Gradescope): the
    chapter's notebook is searched for, and the row says what was graded.
    ``visibility``: Gradescope's (pattern, level) rules for the tests."""
    require_posix()
    limits = limits or Limits()
    limits = replace(limits, isolation=isolation.choose(limits.isolation))
    require_references()
    run_id = secrets.token_hex(4)
    seed = seed if seed is not None else secrets.token_hex(16)  # never seen by a notebook
    backed: set[Path] = set()  # the files this run has kept a backup of
    book = Gradebook(csv_path, backed) if csv_path else None
    if book is not None:
        book.rows()  # refuse now, not after grading, a --csv that is not a gradebook
    base = Path(os.path.abspath(csv_path)).parent if csv_path else Path.cwd()
    with Reader() as reader:
        found = documents(paths, reader)
        if one_submission and not found:
            from .gradescope import nothing_handed_in

            found = [nothing_handed_in(paths)]
        plans = plan(found, chapter_number, only, roster, late, base, reader, one_submission)
    run = {
        "graded_at": now(),
        "version": version(),
        "seed": seed,
        "run": run_id,
        "sandboxed": limits.isolation,
        "regraded": "",
    }
    rows: dict[int, Row] = {}
    lock = threading.Lock()

    def finish(i: int, row: Row | None) -> None:
        p = plans[i]
        with lock:
            rows[i] = _result_row(p, row, limits.isolation)
            if book is not None:  # a file of no chapter too: its row says why
                records = _records(p, rows[i], run, per_check)
                book.update(lambda old: _fold(old, records, only, rows[i].notes.append))
            if gradescope_path:
                from .gradescope import results_file

                done = [rows[k] for k in sorted(rows)]
                write(gradescope_path, results_file(done, run_id, visibility), backed)

    to_grade = [i for i, p in enumerate(plans) if not p.error and p.exercises]
    for i in range(len(plans)):
        if i not in to_grade:
            finish(i, None)
    left = _run_all(plans, to_grade, finish, seed, limits, workers, progress) if to_grade else []
    if left:
        raise Interrupted([rows[i] for i in sorted(rows)], left)
    return [rows[i] for i in sorted(rows)]


def _fold(
    rows: list[dict], records: list[dict], only: Sequence[str], note: Callable[[str], None]
) -> list[dict]:
    for record in records:
        rows = _merge(rows, record, only, note)
    return rows


def _run_all(
    plans: list[Plan],
    to_grade: list[int],
    finish: Callable[[int, Row | None], None],
    seed: str,
    limits: Limits,
    workers: int,
    progress: Callable[[int, int], None] | None,
) -> list[str]:
    """Grade ``to_grade`` on ``workers`` threads, finishing each row as it comes. On
    Ctrl-C start no more and let the running ones finish; on a second, stop those too.
    Return the files left ungraded by an interrupt (then re-raised as :class:`Interrupted`)."""
    batch.resume()
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    from .instructor import loaded_files

    with judges(seconds=limits.timeout, modules=tuple(loaded_files())) as judging:
        futures: dict[Future, int] = {}
        for i in to_grade:
            document = plans[i].document
            args = (document.path, plans[i].exercises, seed, limits, judging)
            futures[pool.submit(grade_submission, *args, cells=document.cells)] = i
        written: set[int] = set()

        def collect(waiting: set[Future]) -> None:
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for future in done:
                    i = futures[future]
                    finish(i, _outcome(future, plans[i], limits.isolation))
                    written.add(i)
                    if progress:
                        progress(len(written), len(to_grade))

        try:
            collect(set(futures))
        except KeyboardInterrupt:
            # every row not written yet and already started (or done) finishes; no other starts
            running = {f for f, i in futures.items() if i not in written and not f.cancel()}
            print(
                f"\ngrade: stopping; the {len(running)} submission(s) being graded will finish "
                "and be written (Ctrl-C again to stop them too)",
                file=sys.stderr,
            )
            try:
                collect(running)
            except KeyboardInterrupt:
                batch.stop_all()  # their rows are not written: each student keeps the last
            return [plans[i].document.name for i in to_grade if i not in written]
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return []


def _outcome(future: Future, p: Plan, isolated: str) -> Row:
    try:
        return future.result()
    except Exception as error:  # a fault in the grader itself must not lose the batch
        why = f"the grader failed on this file: {error!r}"
        return Row(p.document.name, [broken(ex, why) for ex in p.exercises], [why], 0.0, isolated)


def progress_bar(done: int, total: int) -> None:
    """A one-line progress bar on stderr."""
    width = 30
    filled = width * done // max(total, 1)
    end = "\n" if done == total or not sys.stderr.isatty() else ""
    print(
        f"\rgrading [{'#' * filled}{'.' * (width - filled)}] {done}/{total}",
        end=end,
        file=sys.stderr,
        flush=True,
    )
