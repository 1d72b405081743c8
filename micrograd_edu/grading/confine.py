"""One budget of memory and processes for everything a submission's process starts.

Per-process limits do not bound a submission: three processes of 450 MB each pass a
1 GB limit per process, files written to a tmpfs ``/tmp`` are memory outside every
process's address space, and ``RLIMIT_NPROC`` counts per user, which inside bubblewrap
run by root is root (never limited). So each process the grader starts for a submission
gets a budget for all its processes together:

* :class:`Cgroup`, where the grader may create cgroups (cgroup v1's ``memory`` and
  ``pids`` controllers, writable by root on a Linux host): the kernel holds the memory
  (the tmpfs's pages are charged to it too) and the process count;
* :class:`Meter` elsewhere (cgroup v2 needs a delegated subtree, which a laptop's user
  session or Gradescope's container does not give the grader): the grader measures the
  resident memory and the number of the submission's processes several times a second
  and stops it when it is over. Per-process limits (:mod:`.child`) and bubblewrap's
  size-limited ``/tmp`` bound what can happen between two measurements.

>>> Meter(memory_mb=1, processes=10_000, pids=lambda: [os.getpid()]).over()
'used more than its 1 MB of memory in all'
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["Cgroup", "Meter", "cgroups", "cpu_seconds", "descendants", "processes_of"]

_CONTROLLERS = ("memory", "pids")
_counter = itertools.count()
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@functools.lru_cache(maxsize=1)
def cgroups() -> dict[str, Path] | str:
    """The grader's own cgroup in each v1 hierarchy it needs (``{"memory": path, ...}``)
    when it may create groups there; else why not."""
    if not Path("/proc/self/cgroup").is_file():
        return "no cgroups on this system"
    mounts: dict[str, Path] = {}
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in _CONTROLLERS:
                    mounts[option] = Path(fields[1])
    own: dict[str, Path] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(","):
            if name in mounts:
                own[name] = mounts[name] / path.lstrip("/")
    missing = [name for name in _CONTROLLERS if name not in own]
    if missing:
        return f"no cgroup v1 hierarchy for {', '.join(missing)} (cgroup v2 needs delegation)"
    probe = {name: path / f"micrograd-probe-{os.getpid()}" for name, path in own.items()}
    try:
        for path in probe.values():
            path.mkdir()
    except OSError as error:
        return f"cannot create a cgroup ({error.strerror}: {error.filename})"
    finally:
        for path in probe.values():
            if path.is_dir():
                path.rmdir()
    return own


class Cgroup:
    """A cgroup for one sandbox: ``memory_mb`` for all its processes and their tmpfs
    files, at most ``processes`` processes (threads count). :meth:`wrap` makes a command
    join it before it starts anything."""

    def __init__(self, memory_mb: int, processes: int) -> None:
        roots = cgroups()
        assert isinstance(roots, dict), roots
        self.memory_mb, self.processes = memory_mb, processes
        name = f"micrograd-{os.getpid()}-{next(_counter)}"
        self.paths = {controller: root / name for controller, root in roots.items()}
        for path in self.paths.values():
            path.mkdir()
        limit = str(memory_mb << 20)
        (self.paths["memory"] / "memory.limit_in_bytes").write_text(limit)
        swap = self.paths["memory"] / "memory.memsw.limit_in_bytes"
        if swap.exists():  # swap counts too, where the kernel accounts it
            swap.write_text(limit)
        (self.paths["pids"] / "pids.max").write_text(str(processes))

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv``, run by a shell that first moves itself into the group (so every
        process it starts is in it from the start)."""
        join = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
        files = [str(path / "cgroup.procs") for path in self.paths.values()]
        return ["/bin/sh", "-c", join, "sh", *files, "--", *argv]

    def over(self) -> str | None:
        """The kernel enforces the budget: nothing to measure."""
        return None

    def exceeded(self) -> str | None:
        """Which budget the group ran out of, if any, said for the gradebook."""
        control = (self.paths["memory"] / "memory.oom_control").read_text()
        if any(line.split()[-1] != "0" for line in control.splitlines() if "oom_kill " in line):
            return f"used more than its {self.memory_mb} MB of memory in all (files in /tmp count)"
        events = (self.paths["pids"] / "pids.events").read_text().split()
        if events[-1:] != ["0"]:
            return f"tried to run more than {self.processes} processes at once"
        return None

    def close(self) -> None:
        """Kill whatever is left in the group, then remove it."""
        for path in self.paths.values():
            for _ in range(100):
                pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                try:
                    path.rmdir()
                    break
                except OSError:  # processes still exiting
                    time.sleep(0.01)


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (inside a PID namespace, orphans are adopted
    by its first process, so they stay below the sandbox's)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{current}/task/{task}/children").read_text()
            except OSError:
                continue
            todo.extend(int(child) for child in children.split())
    return found


def cpu_seconds(pids: Iterable[int]) -> float:
    """The CPU time the processes ``pids`` have used, with that of the children they
    have reaped.

    >>> cpu_seconds([os.getpid()]) > 0
    True
    """
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
    return total / _TICKS


def processes_of(uid: int) -> list[int]:
    """Every process whose real uid is ``uid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found.append(int(entry))
            except OSError:
                continue
    return found


class Meter:
    """The budget measured by the grader where no cgroup holds it: ``over()``, called
    several times a second, says when the processes ``pids()`` lists hold more than
    ``memory_mb`` resident or are more than ``processes`` (threads count)."""

    def __init__(self, memory_mb: int, processes: int, pids: Callable[[], Iterable[int]]) -> None:
        self.memory_mb, self.processes, self.pids = memory_mb, processes, pids
        self.why: str | None = None

    def over(self) -> str | None:
        resident, threads = 0, 0
        for pid in self.pids():
            try:
                resident += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
                threads += len(os.listdir(f"/proc/{pid}/task"))
            except (OSError, IndexError, ValueError):
                continue
        if resident > self.memory_mb << 20:
            self.why = f"used more than its {self.memory_mb} MB of memory in all"
        elif threads > self.processes:
            self.why = f"tried to run more than {self.processes} processes at once"
        return self.why

    def wrap(self, argv: list[str]) -> list[str]:
        return argv

    def exceeded(self) -> str | None:
        return self.why

    def close(self) -> None:
        return None
