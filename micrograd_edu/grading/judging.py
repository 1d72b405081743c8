"""Judging in a process of its own, under its own time and memory limits.

What a submission reports is data the grader reads, and a hostile submission can
forge it: an observation of the right form built to make a judge slow or hungry. So
the batch grader does not judge in its own process. Each of its worker threads
keeps one judging process (``python -m micrograd_edu.grading.judging``) with a
memory limit; a request names the exercise, the secret seed and the observation,
and the process draws the cases from the seed itself (the same cases, never sent
twice). A judgement that runs past its time, or runs out of memory, costs that
exercise of that submission only: the process is killed and the next request starts
a new one.

>>> with judges(seconds=30) as judge:
...     result = judge(exercise("01.one_sided_difference"), "seed", {"missing": ["f"]}, False)
>>> result.status
'missing'
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .confine import cpu_seconds
from .registry import CheckResult, Exercise, ExerciseResult, broken, draw_cases, exercise, judge

__all__ = ["judges", "JUDGE_MEMORY_MB"]

JUDGE_MEMORY_MB = 2048  # far above any honest judgement; a forged observation hits it
_START_SECONDS = 60.0  # importing numpy and the grader, on a loaded machine
_WALL = 3.0  # the wall clock's limit, in times the limit on CPU time


def fresh_interpreter() -> list[str]:
    """The command that starts a judging process as this one was started, and from
    nothing a submission may have left since: ``-I -S`` (no ``.pth`` file, no
    ``sitecustomize``, no environment variable, no current folder), with the grader's own
    import path (fixed when it started, before any submission ran) given explicitly."""
    extra = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    paths = [str(Path(__file__).resolve().parents[2]), *extra, *sys.path]
    paths = list(dict.fromkeys(p for p in paths if p and os.path.isabs(p)))
    boot = f"import sys; sys.path[:0] = {paths!r}; import {__name__} as j; j.main_from_argv()"
    return [sys.executable, "-I", "-S", "-c", boot]


class _Worker:
    """One judging process, started on first use and again after a kill."""

    def __init__(self, seconds: float, memory_mb: int, modules: tuple[str, ...]) -> None:
        self.seconds, self.memory_mb, self.modules = seconds, memory_mb, modules
        self.process: subprocess.Popen | None = None
        self.buffer = b""

    def _start(self) -> subprocess.Popen:
        self.buffer = b""
        return subprocess.Popen(
            [*fresh_interpreter(), str(self.memory_mb), *self.modules],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
            start_new_session=True,  # a Ctrl-C lets the batch finish the rows it is judging
        )

    def __call__(
        self, ex: Exercise, seed: str, observed: Any, all_or_nothing: bool
    ) -> ExerciseResult:
        first = self.process is None or self.process.poll() is not None
        if first:
            self.process = self._start()
        request = {"id": ex.id, "seed": seed, "observed": observed, "all": all_or_nothing}
        try:
            assert self.process.stdin is not None
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
            line = self._read_line(self.seconds + (_START_SECONDS if first else 0.0))
            return _result(json.loads(line))
        except (BrokenPipeError, OSError, TimeoutError, ValueError, TypeError) as error:
            self.close()
            why = str(error) or type(error).__name__
            return broken(ex, f"the grader could not judge what this submission reported: {why}")

    def _read_line(self, seconds: float) -> bytes:
        """The judgement's line, within ``seconds`` of the process's CPU time (a busy
        machine stretches the wall clock, not the work) and ``_WALL`` times that of the
        wall clock (a judge never waits)."""
        assert self.process is not None and self.process.stdout is not None
        fd, pid = self.process.stdout.fileno(), self.process.pid
        cpu_end, wall_end = cpu_seconds([pid]) + seconds, time.monotonic() + _WALL * seconds
        while b"\n" not in self.buffer:
            if cpu_seconds([pid]) > cpu_end or time.monotonic() > wall_end:
                raise TimeoutError(f"judging took longer than {self.seconds:g} s")
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise ValueError(
                        f"judging stopped (over its {self.memory_mb} MB, or it crashed)"
                    )
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            for pipe in (self.process.stdin, self.process.stdout):
                if pipe is not None:
                    pipe.close()
            self.process = None


def _result(data: dict[str, Any]) -> ExerciseResult:
    checks = tuple(CheckResult(**c) for c in data.pop("checks"))
    return ExerciseResult(**data, checks=checks)


@contextmanager
def judges(
    seconds: float = 10.0, memory_mb: int = JUDGE_MEMORY_MB, modules: tuple[str, ...] = ()
) -> Iterator[Any]:
    """A judge function for the block, ``judge(ex, seed, observed, all_or_nothing)``: one
    judging process per calling thread, all of them stopped when the block ends.
    ``modules`` are imported by each process (exercises registered outside the package)."""
    local, workers = threading.local(), []
    lock = threading.Lock()

    def judge_limited(ex: Exercise, seed: str, observed: Any, all_or_nothing: bool) -> Any:
        worker = getattr(local, "worker", None)
        if worker is None:
            worker = local.worker = _Worker(seconds, memory_mb, modules)
            with lock:
                workers.append(worker)
        return worker(ex, seed, observed, all_or_nothing)

    try:
        yield judge_limited
    finally:
        for worker in workers:
            worker.close()


def main(memory_mb: int, modules: list[str]) -> None:
    import importlib
    import resource

    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name in modules:  # a module, or an instructor's check file (grading/instructor.py)
        if name.endswith(".py"):
            from .instructor import load_file

            load_file(name)
        else:
            importlib.import_module(name)
    for line in sys.stdin:
        request = json.loads(line)
        ex = exercise(request["id"])
        result = judge(ex, draw_cases(ex, request["seed"]), request["observed"], request["all"])
        sys.stdout.write(json.dumps(asdict(result)) + "\n")
        sys.stdout.flush()


def main_from_argv() -> None:
    main(int(sys.argv[1]), sys.argv[2:])


if __name__ == "__main__":
    main_from_argv()
