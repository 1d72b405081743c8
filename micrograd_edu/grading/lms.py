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
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from .intake import Document, Reader, Unreadable
from .late import as_time

__all__ = ["late_marked", "gradescope_metadata", "handed_in"]

_LATE = re.compile(r"(?<![a-z])late(?![a-z])")


def late_marked(name: str) -> bool:
    """Whether the LMS marked the file found at ``name`` as late."""
    return bool(_LATE.search(name.lower()))


def gradescope_metadata(root: Path, reader: Reader) -> tuple[dict[str, dict[str, Any]], str]:
    """The submitters and times of a Gradescope export at ``root``, by submission folder
    (empty where there is no ``submission_metadata.yml``), and a note when it cannot be read."""
    path = root / "submission_metadata.yml"
    if not path.is_file():
        return {}, ""
    try:
        data = reader("micrograd_edu.grading.intake:yaml_file", str(path))
    except Unreadable as error:
        return {}, f"{path.name}: {error}"
    found = {}
    for folder, entry in (data or {}).items() if isinstance(data, dict) else []:
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
    return found, ""


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
    moment = datetime.fromtimestamp(document.mtime, timezone.utc).astimezone(zone)
    return moment, "the file's modification time, marked LATE (copying a file changes it)"
