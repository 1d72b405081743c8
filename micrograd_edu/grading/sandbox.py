"""The sandbox each submission runs in: bubblewrap (``bwrap``) on Linux.

A submission is hostile code. Inside the sandbox it sees, read-only, the interpreter
and its standard library, site-packages, and this package's code (at ``/pkg``), and
nothing else of the machine: not the repository (``solutions/``, ``tests/``,
``.git``), not the other submissions, not the instructor's home. It gets a private
``/tmp`` (its ``HOME`` too), no network (a new network namespace), its own PID
namespace (it cannot see or signal the grader, and every process it starts dies with
it), a new session (no terminal to push keystrokes into) and uid/gid 65534. The
child process inside sets the time, memory and file-size limits on itself
(:mod:`.child`).

>>> command(["python", "-c", "pass"], Path("/pkg/micrograd_edu"))[0]
'bwrap'
"""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .stubbed import stubbed_files

__all__ = ["SandboxUnavailable", "available", "command", "FIX", "PACKAGE_MOUNT"]

FIX = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; `make install` "
    "does it when run as root), or pass --no-sandbox to grade without one (the gradebook "
    "then says so)"
)
PACKAGE_MOUNT = "/pkg"  # the package is importable from here inside the sandbox
NOBODY = "65534"
# The grading modules a submission's process imports; every other one (the chapters'
# judges, oracles and mistake models, the references, the batch grader) is mounted as
# an empty file, and the compiled copies of them are not mounted at all.
CHILD_MODULES = (
    "__init__.py",
    "child.py",
    "feedback.py",
    "notebook.py",
    "plain.py",
    "registry.py",
    "time_limit.py",
    "withhold.py",
)


class SandboxUnavailable(RuntimeError):
    """Grading cannot be sandboxed on this machine; the message says why and the fix."""


def _system_mounts() -> list[str]:
    """Read-only binds of what the interpreter needs: /usr (and /lib, /bin as Debian's
    symlinks into it, or binds where they are real directories), the Python it was
    built from, and the environment it runs in."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("lib", "lib64", "lib32", "bin", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    if Path("/etc/alternatives").is_dir():  # Debian's /usr/bin links point through here
        args += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix)}
    for root in sorted(roots):
        if not str(root).startswith("/usr"):
            args += ["--ro-bind", str(root), str(root)]
    return args


def command(argv: list[str], package: Path, withheld: frozenset[str] = frozenset()) -> list[str]:
    """``argv`` run inside the sandbox, with ``package`` (this package's directory)
    importable from :data:`PACKAGE_MOUNT`, its answers hidden, and the definitions of
    the ``withheld`` names raising in the files themselves (:mod:`.stubbed`)."""
    return [
        "bwrap",
        "--unshare-all",  # user, pid, network, ipc, uts, cgroup namespaces
        "--die-with-parent",
        "--new-session",
        "--uid", NOBODY, "--gid", NOBODY,
        "--tmpfs", "/tmp",
        "--tmpfs", "/home",
        *_system_mounts(),
        "--ro-bind", str(package), f"{PACKAGE_MOUNT}/{package.name}",
        *_hidden(package, f"{PACKAGE_MOUNT}/{package.name}", withheld),
        "--proc", "/proc",
        "--dev", "/dev",
        "--chdir", "/tmp",
        "--setenv", "HOME", "/tmp",
        "--setenv", "PYTHONPATH", PACKAGE_MOUNT,
        "--",
        *argv,
    ]  # fmt: skip


@functools.lru_cache(maxsize=1)
def _empty_module() -> Path:
    """An empty file to mount over a hidden module (it must be a regular file for
    Python to import it: the package's own ``__init__`` imports every chapter)."""
    folder = Path(tempfile.mkdtemp(prefix="micrograd-sandbox-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "hidden.py"
    path.write_text('"""Not mounted while a submission is graded."""\n')
    path.chmod(0o444)
    folder.chmod(0o755)
    return path


def _hidden(package: Path, mount: str, withheld: frozenset[str]) -> list[str]:
    """Binds that hide the grader's answers in the mounted package: each grading module
    the child does not import becomes an empty file, and ``__pycache__`` an empty
    directory. Also where the package lies inside a mounted environment (installed
    into site-packages), so no copy of it is readable."""
    grading = package / "grading"
    mounts = [mount]
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix), Path("/usr")}
    if any(package.is_relative_to(root) for root in roots):
        mounts.append(str(package))
    args: list[str] = []
    for where in mounts:
        for path in sorted(grading.glob("*.py")):
            if path.name not in CHILD_MODULES:
                args += ["--ro-bind", str(_empty_module()), f"{where}/grading/{path.name}"]
        if (grading / "__pycache__").is_dir():
            args += ["--tmpfs", f"{where}/grading/__pycache__"]
        for copy, original in stubbed_files(withheld, package):
            args += ["--ro-bind", str(copy), f"{where}/{original.relative_to(package)}"]
            if (original.parent / "__pycache__").is_dir():  # no compiled original either
                args += ["--tmpfs", f"{where}/{original.parent.relative_to(package)}/__pycache__"]
    return args


@functools.lru_cache(maxsize=1)
def available() -> str | None:
    """None when submissions can be sandboxed here, else why not (with the fix)."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (bubblewrap); this is {sys.platform}: {FIX}"
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {FIX}"
    package = Path(__file__).resolve().parents[1]
    probe = [sys.executable, "-c", "import micrograd_edu, numpy; print('ok')"]
    try:
        done = subprocess.run(command(probe, package), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not start ({error}): {FIX}"
    if done.stdout.strip() != "ok":
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"bubblewrap cannot run here ({why}; user namespaces may be forbidden): {FIX}"
    return None


if __name__ == "__main__":  # `python -m micrograd_edu.grading.sandbox`: can we sandbox here?
    reason = available()
    print(reason or "grading is sandboxed here (bubblewrap)")
    sys.exit(1 if reason else 0)
