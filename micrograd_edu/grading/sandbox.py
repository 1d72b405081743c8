"""The sandbox each submission runs in: bubblewrap (``bwrap``) on Linux.

A submission is hostile code. Inside the sandbox it sees, read-only, the system's
libraries (``/usr``, its Python packages masked) and its view (:mod:`.view`): the
interpreter, the libraries of a student's plain install and this package without its
answers, at neutral paths. Nothing else of the machine: not the repository
(``solutions/``, ``tests/``, ``.git``), not the other submissions, not the instructor's
home, not the host's paths (bubblewrap reads its options from a file descriptor, so its
command line, which is process 1's inside, names none). It gets a private ``/tmp`` of
limited size (its ``HOME`` too), everything else read-only, no network (a new network
namespace), its own PID namespace (it cannot see or signal the grader, and every
process it starts dies with it), a new session (no terminal to push keystrokes into) and
uid/gid 65534. Its memory and process count are limited for the whole sandbox by a
cgroup (:mod:`.confine`); the child process inside also sets per-process limits on itself
(:mod:`.child`).

>>> argv, fd = command(["/python/bin/python3", "-c", "pass"], frozenset(), disk_mb=16)
>>> argv[:2], os.close(fd)
(['bwrap', '--args'], None)
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .view import ENV, PYTHON, empty_dir, view

__all__ = ["SandboxUnavailable", "available", "command", "FIX"]

FIX = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; `make install` "
    "does it when run as root), or pass --no-sandbox to grade without one (the gradebook "
    "then says so)"
)
NOBODY = "65534"
SHM_MB = 8  # /dev/shm: room for multiprocessing's semaphores, no more


class SandboxUnavailable(RuntimeError):
    """Grading cannot be sandboxed on this machine; the message says why and the fix."""


@functools.lru_cache(maxsize=1)
def _system_mounts() -> tuple[str, ...]:
    """Read-only binds of the system's libraries: /usr (and /lib, /bin as Debian's
    symlinks into it, or binds where they are real directories), with every Python
    package directory in it replaced by an empty one (Debian's dist-packages may hold
    scikit-learn: only the view's libraries may be imported)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("lib", "lib64", "lib32", "bin", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    if Path("/etc/alternatives").is_dir():  # Debian's /usr/bin links point through here
        args += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    patterns = ("/usr/lib*/python3*/*-packages", "/usr/local/lib*/python3*/*-packages")
    for found in sorted({p for pattern in patterns for p in glob.glob(pattern)}):
        args += ["--ro-bind", str(empty_dir()), found]
    return tuple(args)


def command(argv: list[str], withheld: frozenset[str], disk_mb: int) -> tuple[list[str], int]:
    """``argv`` (``PYTHON`` and its arguments) run in the sandbox whose view withholds
    ``withheld``, with ``disk_mb`` of ``/tmp``: bwrap's command line, and the file
    descriptor holding its options (pass it to the process; close it after)."""
    mounts = [arg for m in view(withheld) for arg in ("--ro-bind", str(m.source), m.target)]
    options = [
        "--unshare-all",  # user, pid, network, ipc, uts, cgroup namespaces
        "--die-with-parent",
        "--new-session",
        "--uid", NOBODY, "--gid", NOBODY,
        *_system_mounts(),
        *mounts,
        "--size", str(disk_mb << 20), "--tmpfs", "/tmp",
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(SHM_MB << 20), "--tmpfs", "/dev/shm",
        # bwrap's own root and /dev are tmpfs: read-only, or they would be disks too
        "--remount-ro", "/dev",
        "--remount-ro", "/",
        "--chdir", "/tmp",
        "--clearenv",
        "--setenv", "HOME", "/tmp",
        *[arg for name, value in ENV.items() for arg in ("--setenv", name, value)],
    ]  # fmt: skip
    fd = os.memfd_create("bwrap-options", 0)  # not inherited unless passed
    data = b"".join(option.encode() + b"\0" for option in options)
    while data:
        data = data[os.write(fd, data) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return ["bwrap", "--args", str(fd), *argv], fd


@functools.lru_cache(maxsize=1)
def available() -> str | None:
    """None when submissions can be sandboxed here, else why not (with the fix)."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (bubblewrap); this is {sys.platform}: {FIX}"
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {FIX}"
    probe = [PYTHON, "-c", "import micrograd_edu, numpy; print('ok')"]
    argv, fd = command(probe, frozenset(), disk_mb=16)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, pass_fds=(fd,))
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not start ({error}): {FIX}"
    finally:
        os.close(fd)
    if done.stdout.strip() != "ok":
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"bubblewrap cannot run here ({why}; user namespaces may be forbidden): {FIX}"
    return None


if __name__ == "__main__":  # `python -m micrograd_edu.grading.sandbox`: can we sandbox here?
    reason = available()
    print(reason or "grading is sandboxed here (bubblewrap)")
    sys.exit(1 if reason else 0)
