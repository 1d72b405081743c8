"""Without bubblewrap: the submission's process as an unprivileged user.

Docker's default seccomp profile (Gradescope's autograder containers run under it) blocks
the namespaces bubblewrap needs, and Gradescope runs the autograder as root. There the
grader runs a submission's process as a user that can write nothing the grader later
loads, and read nothing the grader keeps from it:

* a uid of its own per grading worker (no name needed), set with ``setpriv`` from
  util-linux: no groups, no capabilities, no new privileges (setuid programs do not
  raise it); ``RLIMIT_NPROC`` counts for it, since the uid runs nothing else;
* the same view as in bubblewrap (:mod:`.view`), built as a folder of hard links (copies
  across file systems) that root owns and it can only read: the interpreter, the
  libraries of a student's plain install, the package without its answers, withheld
  definitions raising in the files;
* the grader's own files (its package with the judges and references, its environment
  with scikit-learn) must be closed to other users, or :func:`available` refuses:
  ``run_autograder`` closes them (``chmod go-rwx`` on their folders);
* a home folder of its own, and every process of its uid killed after each run;
* judged by a fresh interpreter started with ``-I -S`` (no ``.pth`` file, no
  ``sitecustomize``, no environment variable, no current folder) from root's files
  (:mod:`.judging`).

What it cannot give, and bubblewrap does: the network stays open, the process list and
the machine's world-readable files stay visible, and ``/tmp`` is the machine's.

>>> environment(Path("/views/v1"), "/home/h")["PYTHONPATH"]
'/views/v1/pkg:/views/v1/site'
"""

from __future__ import annotations

import atexit
import functools
import itertools
import os
import queue
import shutil
import stat
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from .confine import kill, processes_of
from .view import ENV, PACKAGE, PYTHON, Mount, view

__all__ = ["available", "build", "environment", "setpriv", "Users", "FIRST_UID"]

FIRST_UID = 61000  # the workers' uids: FIRST_UID, FIRST_UID + 1, ...


def _open_to_others(path: Path) -> bool:
    """Whether a user other than the owner (and not in its group) can reach ``path``."""
    path = path.resolve()
    for folder in [*reversed(path.parents), path][:-1]:
        if not folder.stat().st_mode & stat.S_IXOTH:
            return False
    return bool(path.stat().st_mode & (stat.S_IROTH if path.is_file() else stat.S_IXOTH))


@functools.lru_cache(maxsize=1)
def available() -> str | None:
    """None when submissions can run as an unprivileged user here, else why not."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "running a submission as another user needs root (Gradescope runs as root)"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed: apt-get install util-linux"
    # The grader's judges, and every folder it imports from but the standard library's:
    # the submission's libraries come through its view, and nothing else may be reachable.
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    private = [PACKAGE / "grading" / "chapter01.py", Path(sysconfig.get_paths()["purelib"])]
    private += [Path(p) for p in sys.path if p and Path(p).is_dir()]
    standard = [p for p in private if p.resolve().is_relative_to(stdlib)]
    standard = [p for p in standard if not p.resolve().is_relative_to(stdlib / "site-packages")]
    readable = [str(path) for path in private if path not in standard and _open_to_others(path)]
    if readable:
        return (
            f"other users can read the grader's own files ({', '.join(readable)}): close "
            "their folders first (chmod go-rwx), as the Gradescope bundle's run_autograder does"
        )
    return None


def _place(source: Path, target: Path, skip: set[Path]) -> None:
    """``source`` (file or tree) at ``target`` as hard links, or copies across file
    systems; paths in ``skip`` (where a later mount stands) left out."""
    if source.is_dir():
        target.mkdir(mode=0o755, parents=True, exist_ok=True)
        for entry in os.scandir(source):
            inside = target / entry.name
            if inside in skip:
                continue
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), inside)
            else:
                _place(Path(entry.path), inside, skip)
        return
    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    try:
        if source.stat().st_mode & stat.S_IWOTH:  # through a link it could write the original
            raise PermissionError(source)
        os.link(source, target)
    except OSError:  # another file system, or a file others may write
        shutil.copy2(source, target)
        target.chmod(0o444)


@functools.lru_cache(maxsize=16)
def build(withheld: frozenset[str]) -> Path:
    """The view withholding ``withheld`` as a folder only root may change."""
    root = Path(tempfile.mkdtemp(prefix="micrograd-view-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    mounts: tuple[Mount, ...] = view(withheld)
    targets = [root / m.target.lstrip("/") for m in mounts]
    for k, (mount, target) in enumerate(zip(mounts, targets, strict=True)):
        later = {t for t in targets[k + 1 :] if t.is_relative_to(target)}
        _place(mount.source, target, later)
    root.chmod(0o755)
    return root


def environment(root: Path, home: str) -> dict[str, str]:
    """The child's environment with the view's paths under ``root``."""
    inside = {
        name: ":".join(str(root / p.lstrip("/")) if p.startswith("/") else p for p in v.split(":"))
        for name, v in ENV.items()
        if name in ("PYTHONPATH", "LD_LIBRARY_PATH")
    }
    return {**ENV, **inside, "HOME": home}


def setpriv(uid: int, root: Path, argv: list[str]) -> list[str]:
    """``argv`` (starting with the view's interpreter) run as ``uid`` from ``root``."""
    python = str(root / PYTHON.lstrip("/"))
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--no-new-privs",
        "--",
        python,
        *argv[1:],
    ]


class Users:
    """The workers' uids, one per process running at a time (so the process count and
    the kill after a run are that process's own)."""

    def __init__(self) -> None:
        self.free: queue.Queue[int] = queue.Queue()
        self.made = itertools.count(FIRST_UID)

    def take(self) -> int:
        try:
            return self.free.get_nowait()
        except queue.Empty:
            return next(self.made)  # atomic in CPython: no two workers get one uid

    def give_back(self, uid: int) -> None:
        """Kill everything ``uid`` still runs, then let another run use it."""
        for _ in range(100):
            pids = processes_of(uid)
            if not pids:
                break
            kill(pids)
            time.sleep(0.01)
        self.free.put(uid)
