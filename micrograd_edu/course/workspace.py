"""The student's workspace: a folder holding the course's lectures (``notebooks/``) and
exercises (``exercises/``), brought up to date by each newer package without losing work.

The rule is nbgitpuller's ("never eat the student's homework"), for notebooks that cannot
be merged line by line:

* a notebook the course adds is added, and one the student deleted is restored;
* a notebook the student has not touched is replaced by the new version;
* a notebook the student changed is kept as it is, and the new version is put beside it
  (``01_numerical.v0.2.0.ipynb``), with a line saying so;
* a notebook the course dropped is removed if untouched, else kept;
* a file of the student's own that has the name of a new notebook is kept, the new one
  put beside it.

"Touched" is decided against a manifest (``.micrograd_edu.json``) of what the workspace
received: each file's fingerprint and the version it came from. The fingerprint covers
what a student writes, the cells' kinds, sources and attachments; running a notebook
(outputs, execution counts) is not touching it. Every notebook written carries the
version it came from in ``metadata["micrograd_edu"]["version"]``, so an instructor can
tell which one a student has.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp()) / "course"
>>> changes = update(folder)
>>> (folder / FIRST).is_file(), (folder / "exercises" / "01_numerical.ipynb").is_file()
(True, True)
>>> update(folder)  # a second start changes nothing
[]
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT",
    "FIRST",
    "MANIFEST",
    "Change",
    "course_source",
    "fingerprint",
    "find_workspace",
    "report",
    "update",
]

#: The folders of a workspace, named as the notebooks' links name them (``../exercises/``).
FOLDERS = ("notebooks", "exercises")
#: The notebook the course opens on.
FIRST = "notebooks/00_welcome.ipynb"
#: Where ``micrograd-edu course`` makes the workspace when not told (in the current folder).
DEFAULT = "micrograd-edu-course"
#: What the workspace received, beside the notebooks (hidden in Jupyter's file browser).
MANIFEST = ".micrograd_edu.json"

_PACKAGED = Path(__file__).with_name("content")  # a wheel's copy (setup.py puts it there)


def course_source() -> Path:
    """The folder that holds the course's ``notebooks/`` and ``exercises/``: the package's
    own copy when installed from a wheel, else the checkout this package runs from."""
    checkout = Path(__file__).resolve().parents[2]
    for root in (_PACKAGED, checkout):
        if all(any((root / folder).glob("*.ipynb")) for folder in FOLDERS):
            return root
    raise FileNotFoundError(
        f"course: this installation of micrograd_edu carries no notebooks (looked in "
        f"{_PACKAGED} and {checkout}): reinstall it with pip install --force-reinstall "
        '"micrograd-edu[course]"'
    )


def _text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def fingerprint(data: bytes) -> str:
    """What decides whether a student touched a notebook: its cells' kinds, sources and
    attachments. Outputs, execution counts and metadata do not count; a file that is not
    a notebook (or no longer parses as one) counts byte for byte.

    >>> cell = {"cell_type": "code", "source": ["x = 1"], "outputs": []}
    >>> ran = dict(cell, outputs=[{"output_type": "stream", "text": "1"}], execution_count=1)
    >>> notebook = lambda *cells: json.dumps({"cells": list(cells), "metadata": {}}).encode()
    >>> fingerprint(notebook(cell)) == fingerprint(notebook(ran))
    True
    >>> fingerprint(notebook(cell)) == fingerprint(notebook(dict(cell, source="x = 2")))
    False
    """
    try:
        cells = json.loads(data)["cells"]
        written = [[c["cell_type"], _text(c["source"]), c.get("attachments")] for c in cells]
    except (ValueError, KeyError, TypeError):
        return "bytes:" + hashlib.sha256(data).hexdigest()
    canonical = json.dumps(written, ensure_ascii=False, sort_keys=True).encode()
    return "cells:" + hashlib.sha256(canonical).hexdigest()


def _package_version() -> str:
    from ..version import __version__

    return __version__


def _stamped(data: bytes, version: str) -> tuple[bytes, str]:
    """The notebook with the version it came from in its metadata (a released notebook
    already carries it: that one is kept), and that version."""
    notebook = json.loads(data)
    ours = notebook.setdefault("metadata", {}).setdefault("micrograd_edu", {})
    if "version" in ours:
        return data, str(ours["version"])
    ours["version"] = version
    text = json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True)  # as nbformat
    return (text + "\n").encode(), version


@dataclass(frozen=True)
class Change:
    """One thing :func:`update` did to a workspace, in words a student reads."""

    action: str  # added, restored, updated, kept, removed
    path: str  # relative to the workspace, with /
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.action:<9} {self.path}" + (f": {self.detail}" if self.detail else "")


def _inside(path: str) -> bool:
    """Whether a manifest's ``path`` names a notebook in the workspace's own folders (the
    manifest is a file the student can edit: nothing outside them is ever touched)."""
    parts = path.split("/")
    return len(parts) == 2 and parts[0] in FOLDERS and parts[1] not in ("", ".", "..")


def _read_manifest(folder: Path) -> dict[str, dict[str, str]]:
    try:
        files = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
        return {
            path: dict(entry)
            for path, entry in files.items()
            if _inside(path) and isinstance(entry.get("fingerprint"), str)
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # none yet, or unreadable: every file there counts as the student's


def _write(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (an interrupted update leaves no half notebook)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def _beside(folder: Path, path: str, version: str, received: dict, new_print: str) -> str:
    """Where the new version of the student's changed ``path`` goes: ``stem.vVERSION.ipynb``,
    or that name with -2, -3, ... when a file the student changed already has it."""
    stem, dot, suffix = path.rpartition(".")
    for n in range(1, 1000):
        name = f"{stem}.v{version}{'' if n == 1 else f'-{n}'}{dot}{suffix}"
        there = folder / name
        if not there.exists():
            return name
        current = fingerprint(there.read_bytes())
        if current == new_print or current == received.get(name, {}).get("fingerprint"):
            return name  # this version already, or an earlier copy the student never touched
    raise RuntimeError(f"course: no free name beside {path}")


def update(folder: str | Path, source: str | Path | None = None) -> list[Change]:
    """Bring the workspace ``folder`` (made if missing) up to the course in ``source``
    (default :func:`course_source`) by the rule in this module's docstring; returns what
    changed. Nothing the student changed is ever overwritten or removed."""
    folder, version = Path(folder), _package_version()
    source = Path(source) if source is not None else course_source()
    incoming = sorted(
        f"{sub}/{path.name}" for sub in FOLDERS for path in (source / sub).glob("*.ipynb")
    )
    if not incoming:
        raise FileNotFoundError(f"course: {source} holds no notebooks in {' or '.join(FOLDERS)}")
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"course: {folder} is a file; give a folder for the course")
    received, kept, changes = _read_manifest(folder), {}, []
    for path in incoming:
        data, came_from = _stamped((source / path).read_bytes(), version)
        new = {"fingerprint": fingerprint(data), "version": came_from}
        target, entry = folder / path, received.get(path)
        if not target.exists():
            _write(target, data)
            kept[path] = new
            changes.append(Change("restored" if entry else "added", path))
            continue
        current = fingerprint(target.read_bytes())
        if current == new["fingerprint"]:  # already this version's cells
            kept[path] = entry if entry and entry["fingerprint"] == current else new
        elif entry and current == entry["fingerprint"]:  # untouched since it was received
            _write(target, data)
            kept[path] = new
            changes.append(Change("updated", path, f"to {came_from} (you had not changed it)"))
        else:  # the student's work: never overwritten
            if entry:
                kept[path] = entry  # still what was received, so it still reads as changed
            if entry and entry["fingerprint"] == new["fingerprint"]:
                continue  # the course has not changed it since
            name = _beside(folder, path, came_from, received, new["fingerprint"])
            beside = folder / name
            if not (beside.exists() and fingerprint(beside.read_bytes()) == new["fingerprint"]):
                _write(beside, data)
                why = "you changed it" if entry else "it is a file of yours"
                changes.append(Change("kept", path, f"{why}; the new version is beside it: {name}"))
            kept[name] = dict(new, beside=path)
    for path, entry in received.items():
        if path in kept or not (folder / path).exists():
            continue
        untouched = fingerprint((folder / path).read_bytes()) == entry["fingerprint"]
        if "beside" in entry:
            why = f"an earlier new version of {entry['beside']}"
        else:
            why = "no longer in the course"
        if untouched:
            (folder / path).unlink()
            changes.append(Change("removed", path, f"{why} (you had not changed it)"))
        else:
            changes.append(Change("kept", path, f"{why}; you changed it, so it is yours now"))
    manifest = {"course": "micrograd_edu", "version": version, "files": kept}
    _write(folder / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return changes


def find_workspace(start: str | Path = ".") -> Path | None:
    """The workspace ``start`` lies in (it or a parent holds a manifest), or None."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / MANIFEST).is_file():
            return folder
    return None


def report(folder: Path, changes: list[Change]) -> str:
    """What a student reads after :func:`update`: where the course is and what changed
    (the notebooks of a new course are counted, a few new ones named)."""
    head = f"micrograd_edu {_package_version()}: your course is in {Path(folder).resolve()}"
    added = [c for c in changes if c.action == "added"]
    lines = [str(c) for c in changes if c.action != "added" or len(added) <= _NAMED]
    if len(added) > _NAMED:
        counts = {sub: sum(c.path.startswith(sub + "/") for c in added) for sub in FOLDERS}
        where = ", ".join(f"{n} in {sub}/" for sub, n in counts.items() if n)
        lines.insert(0, f"added     {where}")
    return "\n".join([head, *("  " + line for line in lines)] if lines else [head, "  up to date"])


_NAMED = 6  # more new notebooks than this (a new course) are counted, not listed
