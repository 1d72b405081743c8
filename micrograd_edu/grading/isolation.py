"""How a submission's process is isolated, and starting it so.

* ``bubblewrap`` (:mod:`.sandbox`), the default: a view of the machine of its own;
* ``user`` (:mod:`.unprivileged`), where bubblewrap cannot run and the grader is root
  (Gradescope): an unprivileged uid and the same view as a folder of links;
* ``auto``: the first of those two that works here, else grading stops;
* ``none`` (``--no-sandbox``): the instructor's own choice, recorded in the gradebook.

Whichever it is, the process gets one budget of memory and processes for everything it
starts (:mod:`.confine`) and the gradebook says how it was isolated.

>>> choose("none")
'none (--no-sandbox)'
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import sandbox, unprivileged
from .confine import Cgroup, Meter, cgroups, cpu_seconds, descendants, processes_of
from .view import ENV, PACKAGE, PYTHON

__all__ = ["BUBBLEWRAP", "USER", "NONE", "REQUESTS", "choose", "start", "Started"]

BUBBLEWRAP = "bubblewrap"
USER = "unprivileged user (bubblewrap cannot run here)"
NONE = "none (--no-sandbox)"
REQUESTS = ("bubblewrap", "user", "auto", "none")
_USERS = unprivileged.Users()


def choose(requested: str) -> str:
    """The isolation to grade with for ``requested`` (one of :data:`REQUESTS`, or an
    isolation already chosen); raises :class:`~.sandbox.SandboxUnavailable` saying why
    when none of those asked for works."""
    if requested in (USER, NONE):
        return requested
    if requested not in REQUESTS:
        raise ValueError(f"isolation: {requested!r} is not one of {', '.join(REQUESTS)}")
    if requested == "none":
        return NONE
    reasons = []
    if requested in ("bubblewrap", "auto"):
        why = sandbox.available()
        if why is None:
            return BUBBLEWRAP
        reasons.append(why)
    if requested in ("user", "auto"):
        why = unprivileged.available()
        if why is None:
            return USER
        reasons.append(f"nor as an unprivileged user: {why}")
    raise sandbox.SandboxUnavailable(f"grade: cannot sandbox submissions: {'; '.join(reasons)}")


@dataclass(eq=False)  # hashed by identity: the batch keeps the live ones in a set
class Started:
    """A submission's process, started; :meth:`close` ends it and all it started."""

    process: subprocess.Popen
    budget: Cgroup | Meter
    pids: Callable[[], list[int]]  # the processes it runs: its uid's, or its descendants
    processes: int | None  # the RLIMIT_NPROC the child should set itself (None: none)
    uid: int | None = None

    def cpu(self) -> float:
        """CPU seconds its processes have used."""
        return cpu_seconds(self.pids())

    def kill(self) -> None:
        """Kill it and all it started, without waiting (a Ctrl-C stops every row at once)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # the whole group: no grandchild
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        self.kill()
        self.process.wait()
        self.budget.close()
        if self.uid is not None:
            _USERS.give_back(self.uid)


def _plain_env(home: str) -> dict[str, str]:
    """Unsandboxed: the view's settings, with this package importable from its folder."""
    plain = {k: v for k, v in ENV.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    path = os.environ.get("PATH", "/usr/bin:/bin")
    return {**plain, "HOME": home, "PYTHONPATH": str(PACKAGE.parent), "PATH": path}


def _nproc(uid: int, allowance: int) -> int | None:
    """RLIMIT_NPROC counts every thread of the uid on the host: those it runs already,
    and the allowance. Root is never limited by it (the cgroup or the meter is then)."""
    if uid == 0:
        return None
    threads = 0
    for pid in processes_of(uid):
        try:
            threads += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue
    return threads + allowance


def start(
    isolation: str,
    withheld: frozenset[str],
    fds: tuple[int, int],
    home: str,
    limits: Any,
) -> Started:
    """The child (``python -m micrograd_edu.grading.child TASK RESULT``) started with
    ``isolation`` in ``home``, its view withholding ``withheld``, within ``limits``
    (``memory_mb``, ``processes``, ``disk_mb``)."""
    tail = ["-s", "-m", "micrograd_edu.grading.child", *map(str, fds)]
    pass_fds, uid, options = fds, None, None
    if isolation == BUBBLEWRAP:
        argv, options = sandbox.command([PYTHON, *tail], withheld, limits.disk_mb)
        env, pass_fds = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, (*fds, options)
        processes = _nproc(os.getuid(), limits.processes)
    elif isolation == USER:
        uid, root = _USERS.take(), unprivileged.build(withheld)
        os.chown(home, uid, uid)
        Path(home).chmod(0o700)
        argv = unprivileged.setpriv(uid, root, [PYTHON, *tail])
        env, processes = unprivileged.environment(root, home), limits.processes
    else:
        argv, env = [sys.executable, *tail], _plain_env(home)
        processes = _nproc(os.getuid(), limits.processes)
    group = Cgroup(limits.memory_mb, limits.processes) if isinstance(cgroups(), dict) else None
    try:
        process = subprocess.Popen(
            group.wrap(argv) if group else argv,
            pass_fds=pass_fds,
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except BaseException:
        if group:
            group.close()
        if uid is not None:
            _USERS.give_back(uid)
        raise
    finally:
        if options is not None:
            os.close(options)

    def pids() -> list[int]:  # a uid of its own, or (in a PID namespace) its descendants
        return processes_of(uid) if uid is not None else descendants(process.pid)

    budget = group or Meter(limits.memory_mb, limits.processes, pids)
    return Started(process, budget, pids, processes, uid)
