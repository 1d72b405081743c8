"""The class list, and which submitted file is whose.

A roster is a CSV with a student's name in ``Student`` and an ``ID`` (a Canvas gradebook
export is one as it is; its "Points Possible" line is skipped). Any of ``SIS User ID``,
``SIS Login ID``, ``Login``, ``Email`` and ``Section`` may follow; ``submission`` may name a
student's file outright, and ``submitted`` may give the time they handed it in.

A file is matched by an ID, login or e-mail found anywhere in the path it was found at,
as a whole word (``01_numerical_104233 (1) LATE.ipynb``, ``leeann_LATE_104233_7781_hw.ipynb``,
``Ann Lee_104233_assignsubmission_file_/hw.ipynb``), else by the student's name written
as LMS downloads write it (``leeann``, ``Ann Lee``). Where several students fit, the one
whose longer ID fits, or whose name fits too, is meant; otherwise the file is nobody's
and says why.

>>> import io
>>> roster = Roster.read(io.StringIO("Student,ID,SIS Login ID\\n\\"Lee, Ann\\",104233,alee\\n"))
>>> [s.key for s in roster.match("01_numerical_104233 (1) LATE.ipynb")[0]]
['104233']
>>> [s.key for s in roster.match("Ann Lee_55_assignsubmission_file_/hw.ipynb")[0]]
['104233']
>>> roster.match("someone_else.ipynb")[1]
'no roster ID, login or name in its name'
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

__all__ = ["Roster", "Student", "CANVAS_COLUMNS"]

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
_IDENTITIES = ("ID", "SIS User ID", "SIS Login ID", "Login", "Email")


def _letters(text: str) -> str:
    """``text`` as lower-case ASCII letters only ("Lée-Ann" → "leeann")."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z]", "", plain.lower())


def name_forms(name: str) -> set[str]:
    """The ways an LMS writes a student's name in a file name: first-last and last-first.

    >>> sorted(name_forms("Lee, Ann Marie"))
    ['annmarielee', 'leeannmarie']
    """
    if "," in name:
        last, _, first = name.partition(",")
    else:
        first, _, last = name.strip().rpartition(" ")
    forms = {_letters(first + last), _letters(last + first)}
    return {f for f in forms if len(f) >= 4}  # "Al Li" alone would match too much


@dataclass(frozen=True)
class Student:
    key: str  # the roster's ID: the gradebook keeps one row per (key, chapter)
    name: str
    columns: dict[str, str] = field(hash=False)  # the roster's Canvas columns, as they were
    identities: frozenset[str] = frozenset()  # IDs, logins, e-mails (lower case)
    names: frozenset[str] = frozenset()
    file: str = ""  # the roster's "submission" column
    submitted: str = ""  # the roster's "submitted" column


def _word(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])")


class Roster:
    def __init__(self, students: Sequence[Student]) -> None:
        self.students = list(students)
        self.by_key = {s.key: s for s in self.students}
        self._words = [(_word(i), len(i), s) for s in self.students for i in s.identities]

    @classmethod
    def read(cls, source: str | Path | IO[str]) -> Roster:
        """The roster in a CSV file, or a clear error naming what is missing or repeated."""
        if isinstance(source, str | Path):
            with open(source, newline="", encoding="utf-8-sig") as handle:
                return cls.read(handle)
        reader = csv.DictReader(source)
        columns = {c.strip().lower(): c for c in reader.fieldnames or []}
        missing = [c for c in ("Student", "ID") if c.lower() not in columns]
        if missing:
            raise ValueError(
                f"roster: no column {' or '.join(missing)}; it needs 'Student' (the name) and "
                "'ID' (as a Canvas gradebook export has them), and may have 'SIS User ID', "
                "'SIS Login ID', 'Login', 'Email', 'Section', 'submission' and 'submitted'"
            )
        students, seen = [], {}
        for line, raw in enumerate(reader, start=2):
            row = {c: (raw.get(columns.get(c.lower(), c)) or "").strip() for c in _ALL}
            if not row["ID"] or row["Student"].strip().lower() == "points possible":
                continue
            if row["ID"] in seen:
                raise ValueError(
                    f"roster: line {line} repeats ID {row['ID']} (line {seen[row['ID']]})"
                )
            seen[row["ID"]] = line
            identities = {row[c].lower() for c in _IDENTITIES if row[c]}
            identities |= {row["Email"].lower().partition("@")[0]} if "@" in row["Email"] else set()
            students.append(
                Student(
                    row["ID"],
                    row["Student"],
                    {c: row[c] for c in CANVAS_COLUMNS},
                    frozenset(identities),
                    frozenset(name_forms(row["Student"])),
                    Path(row["submission"]).name if row["submission"] else "",
                    row["submitted"],
                )
            )
        return cls(students)

    def find(self, identity: str) -> Student | None:
        """The student with this ID, login, e-mail or name (exactly one), or None."""
        wanted = identity.strip().lower()
        found = {s.key: s for s in self.students if wanted in s.identities}
        found = found or {s.key: s for s in self.students if _letters(identity) in s.names}
        return next(iter(found.values())) if len(found) == 1 else None

    def match(self, name: str, hints: Iterable[dict[str, str]] = ()) -> tuple[list[Student], str]:
        """The students the file found at ``name`` belongs to (several for a group
        submission), and, when none, why. ``hints`` are the submitters an LMS's metadata
        names for it (Gradescope's sid, email and name): they decide when given."""
        hints = list(hints)
        if hints:
            found, lost = [], []
            for hint in hints:
                ids = [hint[k] for k in ("sid", "email", "name") if hint.get(k)]
                student = next(filter(None, map(self.find, ids)), None)
                if student:
                    found.append(student)
                else:
                    lost.append(" / ".join(ids) or "?")
            why = f"its submitter {', '.join(lost)} is not in the roster" if lost else ""
            return ([] if lost else found), why
        file = name.rsplit("/", 1)[-1]
        named = [s for s in self.students if s.file and s.file == file]
        if len(named) == 1:
            return named, ""
        text = name.lower()
        hits: dict[str, int] = {}  # student -> the length of the longest identity found
        for pattern, length, student in self._words:
            if pattern.search(text):
                hits[student.key] = max(hits.get(student.key, 0), length)
        words = {_letters(part) for part in re.split(r"[_/\\]+", name)} - {""}
        by_name = {s.key for s in self.students if s.names & words}
        if hits:
            both = [k for k in hits if k in by_name]
            longest = max(hits.values())
            best = both if len(both) == 1 else [k for k, n in hits.items() if n == longest]
            if len(best) == 1:
                return [self.by_key[best[0]]], ""
            return [], f"its name holds the IDs of {self._who(best)}: rename it or use 'submission'"
        if len(by_name) == 1:
            return [self.by_key[by_name.pop()]], ""
        if by_name:
            return [], f"its name fits {self._who(by_name)} alike: add their IDs to the file names"
        return [], "no roster ID, login or name in its name"

    def _who(self, keys: Iterable[str]) -> str:
        return ", ".join(f"{self.by_key[k].name} ({k})" for k in sorted(keys))


_ALL = (*CANVAS_COLUMNS, "Login", "Email", "submission", "submitted")
