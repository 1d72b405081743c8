"""What an LMS's download says about a file besides its content: who handed it in and when.

* Canvas marks a file handed in after its due date with ``LATE`` in its name
  (``leeann_LATE_104233_7781_hw.ipynb``); the file's time (a zip entry's, or the file's
  own once unpacked) is then when it was handed in. A file without the mark is on time
  as far as Canvas knows: a file's time alone says nothing (copying a file changes it).
* Gradescope's "Download Submissions" holds ``submission_metadata.yml``: for each
  submission folder, its submitters (name, sid, email) and ``:created_at:``.
* Anything else (Moodle, a folder of files): the roster's ``submitted`` column.

>>> late_marked("01_numerical_104233 (1) LATE.ipynb"), late_marked("template.ipynb")
(True, False)
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from .intake import Document, Reader, Unreadable
from .late import as_time

__all__ = ["late_marked", "Exports", "handed_in"]

_LATE = re.compile(r"(?<![a-z])late(?![a-z])")


def late_marked(name: str) -> bool:
    """Whether the LMS marked the file found at ``name`` as late."""
    return bool(_LATE.search(name.lower()))


class Exports:
    """Gradescope's ``submission_metadata.yml`` beside the submission folders of an
    export, found for each file wherever the export sits: the folder given, a folder in
    it, or the export's zip. Each file is read once (in the reader)."""

    NAME = "submission_metadata.yml"

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.found: dict[tuple[str, tuple[str, ...]], dict[str, dict[str, Any]]] = {}
        self.problems: list[str] = []

    def _read(self, path: Path, chain: tuple[str, ...]) -> dict[str, dict[str, Any]]:
        where = (str(path), chain)
        if where not in self.found:
            self.found[where] = {}
            if chain or path.is_file():
                try:
                    data = self.reader("micrograd_edu.grading.intake:yaml_file", *where)
                except Unreadable as error:
                    if "no member" not in str(error):
                        self.problems.append(f"{self.NAME}: {error}")
                else:
                    self.found[where] = _submissions(data)
        return self.found[where]

    def of(self, document: Document) -> dict[str, Any] | None:
        """The submitters and time of ``document``'s submission folder, if an export's
        metadata names it."""
        if document.chain:  # inside a zip: look beside each folder of the member's path
            *outer, member = document.chain
            parts = member.split("/")
            for k in range(len(parts) - 1):
                inner = (*outer, "/".join([*parts[:k], self.NAME]))
                found = self._read(document.path, inner).get(parts[k])
                if found:
                    return found
            return None
        if document.root is None:
            return None
        parts = document.name.split("/")
        for k in range(len(parts) - 1):
            found = self._read(document.root.joinpath(*parts[:k], self.NAME), ()).get(parts[k])
            if found:
                return found
        return None


def _submissions(data: Any) -> dict[str, dict[str, Any]]:
    """Gradescope's metadata ({":submission_1": {":submitters": [...], ":created_at": t}})
    by submission folder."""
    found = {}
    for folder, entry in data.items() if isinstance(data, dict) else []:
        if not isinstance(entry, dict):
            continue
        people = entry.get(":submitters") or []
        found[str(folder).lstrip(":")] = {
            "submitters": [
                {k.lstrip(":"): str(v) for k, v in p.items() if v is not None}
                for p in people
                if isinstance(p, dict)
            ],
            "created_at": entry.get(":created_at"),
        }
    return found


def handed_in(
    document: Document, roster_time: str, metadata: dict[str, Any] | None, zone: tzinfo
) -> tuple[datetime | None, str]:
    """When ``document`` was handed in, and where that comes from: the roster's column,
    Gradescope's metadata, or (for a file the LMS marked late) the file's own time.
    (None, "") when nothing says: the file then counts as on time."""
    if roster_time:
        return as_time(roster_time, zone), "the roster"
    if metadata and metadata.get("created_at"):
        return as_time(metadata["created_at"], zone), "Gradescope's submission_metadata.yml"
    if not late_marked(document.name):
        return None, ""
    if document.stamp is not None:
        return document.stamp.replace(tzinfo=zone), "the time of its zip entry, marked LATE"
    moment = datetime.fromtimestamp(document.mtime, UTC).astimezone(zone)
    return moment, "the file's modification time, marked LATE (copying a file changes it)"
