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
  memory (pages shared among the processes counted once) and the number of the
  submission's processes several times a second and stops it when it is over.
  Per-process limits (:mod:`.child`) and bubblewrap's size-limited ``/tmp`` bound what
  can happen between two measurements.

>>> Meter(memory_mb=1, processes=10_000, pids=lambda: [os.getpid()]).over()
'used more than its 1 MB of memory in all'
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["Cgroup", "Meter", "cgroups", "cpu_seconds", "descendants", "kill", "processes_of"]

_CONTROLLERS = ("memory", "pids")
_counter = itertools.count()
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cgroups() -> dict[str, Path] | str:
    """The grader's own cgroup in each v1 hierarchy it needs (``{"memory": path, ...}``)
    when it may create groups there; else why not. Found once per process: the batch
    grader's threads ask at the same moment, and two probes at once made one of them fail
    (and the failure was kept for the process's life)."""
    with _PROBING:
        return _probe()


_PROBING = threading.Lock()


@functools.lru_cache(maxsize=1)
def _probe() -> dict[str, Path] | str:
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
    try:
        _remove(_make(own, "micrograd-probe"))
    except OSError as error:
        return f"cannot create a cgroup ({error.strerror}: {error.filename})"
    return own


def _make(roots: dict[str, Path], prefix: str) -> dict[str, Path]:
    """A new group named alike in each hierarchy of ``roots``. A name already taken (a
    group a killed grader left, whose process id is reused now) is passed over, never
    entered or removed: it may be another grader's."""
    for _ in range(1000):
        name = f"{prefix}-{os.getpid()}-{next(_counter)}"
        made: dict[str, Path] = {}
        try:
            for controller, root in roots.items():
                (root / name).mkdir()
                made[controller] = root / name
            return made
        except FileExistsError:
            _remove(made)
        except BaseException:
            _remove(made)
            raise
    raise FileExistsError(f"no free cgroup name under {', '.join(map(str, roots.values()))}")


def _remove(paths: dict[str, Path], seconds: float = 10.0) -> None:
    """Kill whatever is in the groups ``paths``, then remove them (waiting, within
    ``seconds``, for killed processes to leave: 64 of them exit slowly on a busy machine)."""
    deadline = time.monotonic() + seconds
    for path in paths.values():
        while True:
            try:
                pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
            except FileNotFoundError:
                break
            kill(pids)
            try:
                path.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:  # processes still exiting
                if time.monotonic() > deadline:
                    break
                time.sleep(0.01)


class Cgroup:
    """A cgroup for one sandbox: ``memory_mb`` for all its processes and their tmpfs
    files, at most ``processes`` processes (threads count). :meth:`wrap` makes a command
    join it before it starts anything."""

    def __init__(self, memory_mb: int, processes: int) -> None:
        roots = cgroups()
        assert isinstance(roots, dict), roots
        self.memory_mb, self.processes = memory_mb, processes
        self.paths = _make(roots, "micrograd")
        try:
            limit = str(memory_mb << 20)
            (self.paths["memory"] / "memory.limit_in_bytes").write_text(limit)
            swap = self.paths["memory"] / "memory.memsw.limit_in_bytes"
            if swap.exists():  # swap counts too, where the kernel accounts it
                swap.write_text(limit)
            (self.paths["pids"] / "pids.max").write_text(str(processes))
        except BaseException:
            _remove(self.paths)
            raise

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv``, run by a shell that first moves itself into the group (so every
        process it starts is in it from the start)."""
        join = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
        files = [str(path / "cgroup.procs") for path in self.paths.values()]
        return ["/bin/sh", "-c", join, "sh", *files, "--", *argv]

    def over(self) -> str | None:
        """The kernel enforces the budget: nothing to measure."""
        return None

    def counts(self) -> tuple[int, int]:
        """How often the budget held so far: (processes the kernel killed for the
        memory, processes it refused to start)."""
        control = (self.paths["memory"] / "memory.oom_control").read_text().split()
        kills = int(control[control.index("oom_kill") + 1]) if "oom_kill" in control else 0
        refused = (self.paths["pids"] / "pids.events").read_text().split()
        return kills, int(refused[-1]) if refused else 0

    def exceeded(self, since: tuple[int, int] = (0, 0)) -> str | None:
        """Which budgets the group ran out of (after :meth:`counts` was ``since``), if
        any, said for the gradebook."""
        return _said(
            self.memory_mb, self.processes, self.counts(), since, ", its files in /tmp included"
        )

    def close(self) -> None:
        """Kill whatever is left in the group, then remove it."""
        _remove(self.paths)


def kill(pids: Iterable[int]) -> None:
    """SIGKILL each of ``pids`` (one already gone is no error).

    >>> import subprocess
    >>> sleeper = subprocess.Popen(["sleep", "30"])
    >>> kill([sleeper.pid]), kill([sleeper.pid]), sleeper.wait()
    (None, None, -9)
    """
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


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


def _said(
    memory_mb: int, processes: int, counts: tuple[int, int], since: tuple[int, int], files: str
) -> str | None:
    """The budgets whose ``counts`` (memory, processes) grew past ``since``, in words."""
    said = []
    if counts[1] > since[1]:
        said.append(f"tried to run more than {processes} processes at once")
    if counts[0] > since[0]:
        said.append(f"used more than its {memory_mb} MB of memory in all{files}")
    return " and ".join(said) or None


def _read(pids: Iterable[int], path: str, field: Callable[[str], int]) -> int:
    """The sum of ``field`` of ``/proc/PID/path`` over ``pids`` (a process gone: 0)."""
    total = 0
    for pid in pids:
        try:
            total += field(Path(f"/proc/{pid}/{path}").read_text())
        except (OSError, IndexError, ValueError):
            continue
    return total


def _threads(text: str) -> int:  # of /proc/PID/status
    return next(int(line.split()[1]) for line in text.splitlines() if line[:8] == "Threads:")


def _resident(text: str) -> int:  # of /proc/PID/statm
    return int(text.split()[1]) * _PAGE


def _proportional(text: str) -> int:  # of /proc/PID/smaps_rollup, Linux >= 4.14
    return next(int(line.split()[1]) << 10 for line in text.splitlines() if line[:4] == "Pss:")


class Meter:
    """The budget measured by the grader where no cgroup holds it: ``over()``, called
    several times a second, says when the processes ``pids()`` lists hold more than
    ``memory_mb`` or are more than ``processes`` (threads count).

    Memory is their resident pages, read cheaply; only when those are over is it read
    again with each page shared among processes counted once (their proportional set
    sizes, a walk of their page tables): 340 forks of one interpreter share its pages,
    and summed as resident they were 340 interpreters."""

    def __init__(self, memory_mb: int, processes: int, pids: Callable[[], Iterable[int]]) -> None:
        self.memory_mb, self.processes, self.pids = memory_mb, processes, pids
        self.broken = (0, 0)  # as Cgroup.counts(): once over, the grader stops it

    def over(self) -> str | None:
        pids, limit = list(self.pids()), self.memory_mb << 20
        too_many = _read(pids, "status", _threads) > self.processes
        too_big = not too_many and _read(pids, "statm", _resident) > limit
        if too_big and Path("/proc/self/smaps_rollup").is_file():
            too_big = _read(pids, "smaps_rollup", _proportional) > limit
        memory, processes = self.broken
        self.broken = (memory or int(too_big), processes or int(too_many))
        return self.exceeded()

    def wrap(self, argv: list[str]) -> list[str]:
        return argv

    def counts(self) -> tuple[int, int]:
        return self.broken

    def exceeded(self, since: tuple[int, int] = (0, 0)) -> str | None:
        return _said(self.memory_mb, self.processes, self.broken, since, "")

    def close(self) -> None:
        return None
