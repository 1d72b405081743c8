"""What students handed in, read the way a grader must read hostile files.

The grader never follows a symbolic link, reads only regular files (not a FIFO, which
would block it, nor ``/dev/zero``, which never ends) and never more than
:data:`MAX_BYTES` of one. Every parse (a notebook's JSON, its cells turned into Python
by IPython's transformer, the names they define, a zip's directory) runs in a reader
process of its own with a memory and a time limit, so that a file built to break a
parser (100,000 unary minuses, JSON nested 100,000 deep, a list for metadata, a zip
bomb) costs its own row only: the reader reports why, or dies and starts again.

A folder stands for every notebook under it, its sub-folders and zips included, as an
LMS download lays them out; hidden entries (``.ipynb_checkpoints``, ``__MACOSX``,
``._x.ipynb``) are skipped.

>>> read_bytes("/dev/zero")
Traceback (most recent call last):
...
micrograd_edu.grading.intake.Unreadable: not a regular file (a character device): not read
"""

from __future__ import annotations

import ast
import errno
import importlib
import io
import json
import os
import select
import stat
import subprocess
import sys
import threading
import time
import unicodedata
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["MAX_BYTES", "Document", "Reader", "Unreadable", "read_bytes", "documents"]

MAX_BYTES = 32 << 20  # one notebook (outputs, images and all) or one zip of a class's files
MAX_ENTRIES = 20_000  # files looked at under one folder or zip
_DEPTH = 32  # folders inside folders: an unpacked zip can nest them without end
_READER_MB = 1536  # the reader's address space: parsing a 32 MB notebook fits well within
_READER_SECONDS = 30.0  # one file's parse; the first request also imports IPython
_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symbolic link",
}


class Unreadable(ValueError):
    """A submitted file the grader will not (or cannot) read; the message says why."""


def read_bytes(path: str | Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``: never through a link, never from a FIFO or
    a device, never more than ``limit``."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise Unreadable("a symbolic link: not followed") from None
        raise Unreadable(f"cannot be opened ({error.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        mode, size = os.fstat(fd).st_mode, os.fstat(fd).st_size
        if not stat.S_ISREG(mode):
            raise Unreadable(f"not a regular file ({_KINDS.get(stat.S_IFMT(mode), '?')}): not read")
        if size > limit:
            raise Unreadable(f"{size:,} bytes, over the grader's limit of {limit:,}: not read")
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise Unreadable(f"over the grader's limit of {limit:,} bytes: not read")
    return data


# --- in the reader process ---------------------------------------------------------


def _zip(data: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise Unreadable(f"not a readable zip ({error})") from None


def _member_kind(info: zipfile.ZipInfo) -> str:
    kind = stat.S_IFMT(info.external_attr >> 16)
    if info.is_dir() or kind == stat.S_IFDIR:
        return "dir"
    return "file" if kind in (0, stat.S_IFREG) else _KINDS.get(kind, "a special file")


def _file(path: str, chain: Sequence[str]) -> bytes:
    """The bytes of ``path``, or of the member ``chain`` (zip, then zip in it, ...) inside it."""
    data = read_bytes(path)
    for member in chain:
        archive = _zip(data)
        try:
            info = archive.getinfo(member)
        except KeyError:
            raise Unreadable(f"no member {member!r} in the zip") from None
        if _member_kind(info) != "file":
            raise Unreadable(f"{_member_kind(info)} in the zip: not read")
        if info.file_size > MAX_BYTES:
            raise Unreadable(f"{info.file_size:,} bytes unpacked, over the grader's limit")
        try:
            with archive.open(info) as handle:
                data = handle.read(MAX_BYTES + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as error:
            raise Unreadable(f"cannot be unpacked ({error})") from None
        if len(data) > MAX_BYTES:
            raise Unreadable("unpacks past the grader's limit: not read")
    return data


def zip_members(path: str, chain: Sequence[str]) -> list[dict[str, Any]]:
    """The members of the zip at ``path`` (``chain``: a zip inside it): name, kind, time."""
    archive = _zip(_file(path, chain))
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise Unreadable(f"holds {len(infos):,} files, over the grader's {MAX_ENTRIES:,}")
    return [{"name": i.filename, "kind": _member_kind(i), "time": list(i.date_time)} for i in infos]


def defined_names(cells: Sequence[str]) -> set[str]:
    """The names the cells define at their top level (functions, classes, variables).

    >>> sorted(defined_names(["def f(x):\\n    return x\\nA = 1", "class B: pass", "1 +"]))
    ['A', 'B', 'f']
    """
    names: set[str] = set()
    for code in cells:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def parse(path: str, chain: Sequence[str], name: str) -> dict[str, Any]:
    """A submitted notebook as the grader needs it: its code cells as Python, the names
    they define, the chapter its metadata names, and its other cells (for written
    answers) with their ids and tags."""
    from .notebook import code_cells, parse_notebook, source

    try:
        text = _file(path, chain).decode("utf-8")
    except UnicodeDecodeError as error:
        raise Unreadable(f"not a valid notebook ({error})") from None
    nb = parse_notebook(text, name)
    cells = code_cells(nb)
    meta = nb["metadata"].get("micrograd_edu")
    claimed = meta.get("chapter") if isinstance(meta, dict) else None
    notes = []
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            tag = cell.get("metadata")
            tag = tag.get("micrograd_edu") if isinstance(tag, dict) else None
            tag = tag if isinstance(tag, dict) else {}
            written, points = tag.get("written"), tag.get("points")
            notes.append(
                {
                    "id": str(cell.get("id", "")),
                    "source": source(cell),
                    "written": written if isinstance(written, str) else "",
                    "points": points if type(points) in (int, float) else None,
                }
            )
    return {
        "cells": cells,
        "defined": sorted(defined_names(cells)),
        "claimed": claimed if isinstance(claimed, str) else None,
        "notes": notes,
    }


def yaml_file(path: str, chain: Sequence[str] = ()) -> Any:
    """A YAML file (Gradescope's ``submission_metadata.yml``), or a zip's member
    (``chain``), as plain JSON data."""
    try:
        import yaml
    except ImportError:
        raise Unreadable("reading it needs PyYAML (pip install pyyaml)") from None
    try:
        data = yaml.safe_load(_file(path, chain).decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise Unreadable(f"not readable YAML ({error})") from None
    return json.loads(json.dumps(data, default=lambda value: value.isoformat()))


def _serve() -> None:
    """The reader's loop: one request a line on stdin, one answer a line on stdout."""
    import resource

    limit = _READER_MB << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from .notebook import NotebookError

    for line in sys.stdin:
        request = json.loads(line)
        module, _, name = request["call"].partition(":")
        try:
            if not module.startswith("micrograd_edu.grading."):
                raise ValueError(f"not the grader's function: {request['call']}")
            value = getattr(importlib.import_module(module), name)(*request["args"])
            answer = json.dumps({"value": value}, default=sorted)  # sets as sorted lists
        except (Unreadable, NotebookError) as error:
            answer = json.dumps({"error": str(error)})
        except Exception as error:  # whatever a file did to a parser is that file's error
            answer = json.dumps({"error": f"cannot be read ({type(error).__name__}: {error})"})
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


# --- in the grader's process -------------------------------------------------------


class Reader:
    """The grader's side of the reader process: ``reader("module:function", *args)`` runs
    a parsing function of the grader there and returns its value, or raises
    :class:`Unreadable` with the reason (the file's own, or that the reader ran past its
    time or memory, in which case it is stopped and the next call starts a new one).
    One call at a time; threads may share it.

    >>> with Reader() as reader:
    ...     sorted(reader("micrograd_edu.grading.intake:defined_names", ["def f(): pass"]))
    ['f']
    """

    def __init__(self, seconds: float = _READER_SECONDS) -> None:
        self.seconds = seconds
        self.process: subprocess.Popen | None = None
        self.lock = threading.Lock()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, function: str, *args: Any) -> Any:
        with self.lock:
            first = self.process is None or self.process.poll() is not None
            if first:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "micrograd_edu.grading.intake"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # a Ctrl-C is the grader's to handle, not its
                    env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                )
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(
                    (json.dumps({"call": function, "args": args}) + "\n").encode()
                )
                self.process.stdin.flush()
                answer = json.loads(self._line(self.seconds * (2 if first else 1)))
            except (OSError, ValueError, TimeoutError) as error:
                self.close()
                raise Unreadable(f"cannot be read: the reader stopped ({error})") from None
        if "error" in answer:
            raise Unreadable(answer["error"])
        return answer["value"]

    def _line(self, seconds: float) -> bytes:
        assert self.process is not None and self.process.stdout is not None
        fd, deadline, chunks = self.process.stdout.fileno(), time.monotonic() + seconds, []
        while not chunks or not chunks[-1].endswith(b"\n"):
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError(f"parsing took over {seconds:g} s")
            if select.select([fd], [], [], wait)[0]:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise ValueError(f"it ended (over its {_READER_MB} MB, or it crashed)")
                chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if self.process is not None:
            with self.process:  # leaving it closes the pipes and waits for the process
                self.process.kill()
            self.process = None


@dataclass
class Document:
    """One notebook among the submissions: where it was found and what it holds, or
    why it could not be read (``error``)."""

    name: str  # where it was found, under the folder given: "ann/01.ipynb", "all.zip/ann.ipynb"
    path: Path  # the file on disk (the zip, for a member of one)
    chain: tuple[str, ...] = ()  # the members leading to it inside ``path``
    mtime: float = 0.0  # the file's own modification time (of the zip, for a member)
    stamp: datetime | None = None  # the time a zip's entry carries (local time)
    root: Path | None = None  # the folder it was found under (for an LMS's metadata there)
    error: str = ""
    cells: list[str] = field(default_factory=list)
    defined: set[str] = field(default_factory=set)
    claimed: str | None = None
    notes: list[dict[str, str]] = field(default_factory=list)

    @property
    def file(self) -> str:
        """The file's own name (the last part of :attr:`name`)."""
        return self.name.rsplit("/", 1)[-1]

    def read(self, reader: Reader) -> Document:
        """This document with its content parsed by ``reader``, or its error set."""
        if self.error:
            return self
        call = "micrograd_edu.grading.intake:parse"
        try:
            parsed = reader(call, str(self.path), list(self.chain), self.name)
        except Unreadable as error:
            why = str(error)
            self.error = why if why.startswith(self.name) else f"{self.name}: {why}"
            return self
        self.cells, self.claimed = parsed["cells"], parsed["claimed"]
        self.defined, self.notes = set(parsed["defined"]), parsed["notes"]
        return self


def printable(text: str) -> str:
    """``text`` fit to show and to write to a CSV: bytes that are not UTF-8 and control
    characters (a terminal's escape sequences, a newline) each become "?".

    >>> printable("ann\\x1b[31m\\udcff.ipynb")
    'ann?[31m?.ipynb'
    """
    return "".join("?" if unicodedata.category(c)[0] in "CZ" and c != " " else c for c in text)


def _hidden(name: str) -> bool:
    return name.startswith(".") or name == "__MACOSX"


def _wanted(name: str) -> bool:
    return name.lower().endswith((".ipynb", ".zip"))


def _in_zip(
    reader: Reader, path: Path, chain: tuple[str, ...], prefix: str, mtime: float, root: Path
) -> Iterator[Document]:
    try:
        members = reader("micrograd_edu.grading.intake:zip_members", str(path), list(chain))
    except Unreadable as error:
        yield Document(prefix, path, chain, mtime, root=root, error=f"{prefix}: {error}")
        return
    for member in members:
        parts = member["name"].split("/")
        if member["kind"] == "dir" or any(_hidden(p) for p in parts) or not _wanted(parts[-1]):
            continue
        name, inner = f"{prefix}/{printable(member['name'])}", (*chain, member["name"])
        if member["kind"] != "file":
            why = f"{name}: {member['kind']} in the zip: not read"
            yield Document(name, path, inner, mtime, root=root, error=why)
        elif name.lower().endswith(".zip"):
            if len(chain) < 2:  # a class's zip holding a student's zip; no deeper
                yield from _in_zip(reader, path, inner, name, mtime, root)
        else:
            stamp = datetime(*member["time"]) if member["time"][0] > 1980 else None
            yield Document(name, path, inner, mtime, stamp, root)


def _walk(
    reader: Reader, folder: Path, prefix: str, root: Path, depth: int = 0
) -> Iterator[Document]:
    if depth > _DEPTH:
        why = f"{prefix}: folders nested more than {_DEPTH} deep: not searched"
        yield Document(prefix, folder, root=root, error=why)
        return
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as error:
        yield Document(prefix or folder.name, folder, root=root, error=f"{folder}: {error}")
        return
    for entry in entries:
        if _hidden(entry.name):
            continue
        name, path = f"{prefix}{printable(entry.name)}", Path(entry.path)
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            target = printable(os.readlink(path))
            why = f"{name}: a symbolic link (to {target}): not followed, not graded"
            yield Document(name, path, mtime=info.st_mtime, root=root, error=why)
        elif stat.S_ISDIR(info.st_mode):
            yield from _walk(reader, path, f"{name}/", root, depth + 1)
        elif _wanted(entry.name):
            yield from _found(reader, path, name, info, root)


def _found(
    reader: Reader, path: Path, name: str, info: os.stat_result, root: Path
) -> Iterator[Document]:
    if not stat.S_ISREG(info.st_mode):
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "a special file")
        yield Document(
            name, path, mtime=info.st_mtime, root=root, error=f"{name}: {kind}: not read"
        )
    elif name.lower().endswith(".zip"):
        yield from _in_zip(reader, path, (), name, info.st_mtime, root)
    else:
        yield Document(name, path, mtime=info.st_mtime, root=root)


def documents(paths: Sequence[str | Path], reader: Reader) -> list[Document]:
    """Every notebook named by ``paths`` (files, folders, zips), read and parsed by
    ``reader``; each one that cannot be, with its error. A folder given here may be a
    link (the instructor's own); no link under it, or given as a file, is followed."""
    found: list[Document] = []
    for given in map(Path, paths):
        shown = printable(given.name)
        try:
            info = given.lstat()
        except OSError as error:
            found.append(Document(shown, given, error=f"{shown}: {error.strerror}"))
            continue
        if stat.S_ISLNK(info.st_mode) and given.is_dir():
            info = given.stat()
        if stat.S_ISDIR(info.st_mode):
            listed = _walk(reader, given, "", given)
        elif stat.S_ISLNK(info.st_mode):
            why = f"{shown}: a symbolic link: not followed, not graded"
            listed = iter([Document(shown, given, mtime=info.st_mtime, error=why)])
        else:
            listed = _found(reader, given, shown, info, given.parent)
        for document in listed:
            found.append(document.read(reader))
            if len(found) > MAX_ENTRIES:
                raise Unreadable(f"more than {MAX_ENTRIES:,} notebooks: grade them in parts")
    return found


if __name__ == "__main__":  # the reader process: run as the module, so its classes are one
    from micrograd_edu.grading import intake

    intake._serve()
