"""The gradebook as a record: one CSV row per student and chapter, never rewritten whole.

A grading run merges its rows in: a student it graded gets their row for that chapter
replaced (or, when only some exercises were regraded, only those cells), and every
other row stays as it was, byte for byte. Written-answer marks merge the same way. A
row says how it was made: when, with which package version, chapter and secret seed
(``regraded`` lists the exercises graded again since, each with its own). The raw
score, the days late, the percent taken off and the final score sit side by side.

Before the first change to an existing file, a copy is kept next to it
(``gradebook.csv.20260301T101500Z.bak``); every write goes to a temporary file renamed
over the gradebook, under a lock, so two runs on one gradebook do not lose each
other's rows. No cell can start a spreadsheet formula (``=``, ``+``, ``-``, ``@``, tab,
CR): such text is written behind a ``'``.

>>> safe_cell("=HYPERLINK(1)"), safe_cell("-1.5"), safe_cell("ann.ipynb")
("'=HYPERLINK(1)", '-1.5', 'ann.ipynb')
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import shutil
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["Gradebook", "safe_cell", "written_column", "is_mark", "version", "FIRST", "LAST"]

FIRST = ["student", "name", "submission", "chapter", "score", "raw_score", "max_score"]
FIRST += ["submitted", "late_days", "penalty"]
LAST = ["reason", "graded_at", "version", "seed", "run", "sandboxed", "regraded"]
_WRITTEN = re.compile(r"^(?P<id>\d\d\.\S+) \(written /(?P<points>[\d.]+)\)$")
Row = dict[str, str]


def safe_cell(value: object) -> str:
    """``value`` as a CSV cell no spreadsheet runs as a formula."""
    text = str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


def written_column(question: str, points: float) -> str:
    """The column of a written answer's marks; its header carries the points possible.

    >>> written_column("01.why_central", 2)
    '01.why_central (written /2)'
    """
    return f"{question} (written /{points:g})"


def written_points(column: str) -> tuple[str, float] | None:
    found = _WRITTEN.match(column)
    return (found["id"], float(found["points"])) if found else None


def is_mark(column: str, chapter: str) -> bool:
    """Whether ``column`` holds marks of ``chapter`` that add up to the raw score: an
    exercise's or a written answer's, not one check's."""
    return column.startswith(f"{chapter}.") and ": " not in column


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def totals(row: Row, max_score: float) -> Row:
    """``row`` with its raw score summed from its marks and its final score after the
    late penalty it carries."""
    chapter = row.get("chapter", "")
    raw = sum(number(v) for c, v in row.items() if v and is_mark(c, chapter))
    final = raw * (1 - number(row.get("penalty", "")) / 100)
    row.update(raw_score=f"{raw:g}", max_score=f"{max_score:g}", score=f"{round(final, 6):g}")
    return row


def key(row: Row) -> tuple[str, str, str]:
    """Whose row it is: (student, chapter); a file matched to nobody is its own."""
    student = row.get("student", "")
    return (student, row.get("chapter", ""), "" if student else row.get("submission", ""))


class Gradebook:
    """The gradebook CSV at ``path`` (it need not exist yet)."""

    def __init__(self, path: str | Path, backed: set[Path] | None = None) -> None:
        self.path = Path(path)
        self.backed = set() if backed is None else backed  # shared by a run's files

    def rows(self) -> list[Row]:
        """Its rows as stored (an empty list for no file); an error for a CSV that is not
        a gradebook, so that nothing else is merged into and overwritten."""
        try:
            text = self.path.read_text(encoding="utf-8-sig")  # a spreadsheet may add a BOM
        except FileNotFoundError:
            return []
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
        if header and not {"submission", "score"} <= set(header):
            raise ValueError(
                f"{self.path} is not a gradebook (no 'submission' and 'score' columns): give "
                "grade another --csv file, or move this one away"
            )
        rows = [{c: v or "" for c, v in row.items() if c is not None} for row in reader]
        for row in rows:  # a gradebook from before rows were kept per student
            row.setdefault("student", row.get("submission", ""))
        return rows

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        lock = self.path.with_name(f".{self.path.name}.lock")
        with open(lock, "a") as handle:
            try:
                import fcntl
            except ImportError:  # Windows: one grading run at a time
                yield
                return
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def update(self, change: Callable[[list[Row]], list[Row]]) -> list[Row]:
        """Apply ``change`` to the rows on disk and write the result (with a backup of
        the file as it was before this gradebook's first change); return the rows."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked():
            rows = change(self.rows())
            write(self.path, to_csv(rows), self.backed)
        return rows


def _by_hand(row: Row) -> Row:
    """What a person put in ``row``: written answers' marks and comments, and when."""
    kept = {
        c: v for c, v in row.items() if v and (written_points(c) or c.startswith("comment on "))
    }
    marked = [e for e in row.get("regraded", "").split("; ") if ": marked at " in e]
    return {**kept, "regraded": "; ".join(marked)} if marked else kept


def merge(rows: list[Row], new: Row, columns: Sequence[str] | None = None) -> list[Row]:
    """``rows`` with ``new`` in its student's place: all of it (but what a person put
    there by hand), or (``columns``) only those cells. A file matched to nobody before
    and to a student now loses its old row."""
    out, placed = [], False
    for row in rows:
        same_file = (row.get("submission"), row.get("chapter")) == (
            new.get("submission"),
            new.get("chapter"),
        )
        if same_file and not row.get("student") and new.get("student"):
            continue  # the file was nobody's; now it is this student's
        if key(row) != key(new):
            out.append(row)
        elif not placed:
            placed = True
            changed = _by_hand(row) if columns is None else {c: new[c] for c in columns if c in new}
            out.append({**new, **changed} if columns is None else {**row, **changed})
    return out if placed else [*out, new]


def _order(columns: Sequence[str], exercise_order: Sequence[str]) -> list[str]:
    """The gradebook's columns: who and totals, each chapter's marks (an exercise's
    checks after it, its written answers last), anything else, then how it was made."""
    rank = {e: i for i, e in enumerate(exercise_order)}
    middle = [c for c in columns if c not in FIRST and c not in LAST]

    def place(column: str) -> tuple:
        written = written_points(column)
        exercise = written[0] if written else column.split(": ", 1)[0]
        chapter = exercise[:2] if re.match(r"\d\d\.", exercise) else "~"
        return (chapter, bool(written), rank.get(exercise, len(rank)), exercise, ": " in column)

    return [*FIRST, *sorted(middle, key=place), *LAST]


def to_csv(rows: Sequence[Row]) -> str:
    """The rows as CSV text, every cell safe for a spreadsheet."""
    from .registry import EXERCISES

    columns: dict[str, None] = {}
    rows = sorted(rows, key=lambda r: (r.get("chapter", ""), not r.get("student"), *key(r)))
    for row in rows:
        columns.update(dict.fromkeys(row))
    out = io.StringIO()
    writer = csv.writer(out)
    header = _order(list(columns), list(EXERCISES))
    writer.writerow(header)
    for row in rows:
        writer.writerow([safe_cell(row.get(c, "")) for c in header])
    return out.getvalue()


def version() -> str:
    """The package's version, as rows and released notebooks record it."""
    from ..version import __version__

    return __version__


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write(path: str | Path, text: str, backed: set[Path] | None = None) -> None:
    """Write ``text`` to ``path`` by renaming a temporary file over it. An existing file
    that differs is first copied to a ``.bak`` next to it, once per run (``backed``: the
    files already copied in this run)."""
    path = Path(path)
    try:
        old: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError):
        old = ""  # unreadable as text: still kept
    if old == text:
        return
    backed = set() if backed is None else backed
    if old is not None and path.resolve() not in backed:
        backed.add(path.resolve())
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        copy, n = path.with_name(f"{path.name}.{stamp}.bak"), 1
        while copy.exists():
            copy, n = path.with_name(f"{path.name}.{stamp}-{n}.bak"), n + 1
        shutil.copy2(path, copy)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
