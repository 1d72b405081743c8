"""The authoritative grader: each submission in its own process, judged in this one.

For each submission the parent draws the cases from a secret seed, starts a
child (:mod:`.child`) with memory and file-size limits, hands it the code and
the cases through a pipe, and reads back plain observations tagged with a
fresh nonce. Only lines carrying that nonce count. The parent judges every
observation against its oracles, so a cheating object, a patched ``check``, a
printed "PASSED" or a forged file earns nothing.

When the child dies or runs past its time limit, the cell or exercise it was
in scores 0 with the reason, and a new child carries on without it: one
broken exercise never costs the others. POSIX only (``resource``, process
groups); on Windows grade inside WSL or on Gradescope.
"""

from __future__ import annotations

import inspect
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import sandbox
from .registry import Exercise, ExerciseResult, Served, broken, draw_cases, inputs, judge
from .time_limit import EXERCISE_SECONDS

__all__ = ["Limits", "Row", "grade_submission", "require_posix", "stop_all", "resume"]

_MAX_OUTPUT = 16 << 20  # bytes a child may send before it is stopped
_MAX_MESSAGE = 4 << 20  # bytes of one message (an observation) the parent will parse
_STARTUP_SECONDS = 30.0  # allowance for the child to import Python and numpy, loaded machine


@dataclass(frozen=True)
class Limits:
    timeout: float = EXERCISE_SECONDS  # for the notebook's cells, and again for each exercise
    memory_mb: int = 1024
    file_mb: int = 16
    sandbox: bool = True  # run each child in bubblewrap (see .sandbox)
    all_or_nothing: bool = False  # an exercise's points only when every check passes


@dataclass
class Row:
    """One submission's line of the gradebook."""

    submission: str
    results: list[ExerciseResult]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sandboxed: bool = True
    student: str = ""  # whose: the roster's ID ("" for a file matched to nobody, or no roster)
    chapter: str = ""

    @property
    def score(self) -> float:
        return sum(r.score for r in self.results)

    @property
    def max_score(self) -> float:
        return sum(r.max_score for r in self.results)

    @property
    def reason(self) -> str:
        parts = list(self.notes)
        parts += [
            f"{r.id}: {r.reason}"
            for r in self.results
            if r.status == "broken" and r.reason not in self.notes
        ]
        return "; ".join(parts)[:1000]


def require_posix() -> None:
    """Raise a clear error where the batch grader cannot isolate submissions."""
    if os.name != "posix":
        raise OSError(
            "micrograd-edu grade needs a POSIX system (Linux or macOS) to limit each "
            "submission's memory and time; on Windows run it inside WSL, or grade on "
            "Gradescope (micrograd-edu gradescope-bundle)"
        )


@dataclass
class _Attempt:
    observed: dict[str, object] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # exercise id -> what escaped observe
    cell_errors: dict[int, str] = field(default_factory=dict)
    blame: tuple[str, object] | None = None  # ("cell", index) / ("exercise", id) / ("start", None)
    why: str = ""


# Every submission's process alive now, so that a second Ctrl-C can stop them all at once.
_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()
_STOP = threading.Event()


def stop_all() -> None:
    """Stop every submission being graded now; none starts until :func:`resume`."""
    _STOP.set()
    with _LIVE_LOCK:
        for process in list(_LIVE):
            _kill(process, wait=False)


def resume() -> None:
    _STOP.clear()


def grade_submission(
    path: str | Path,
    exercises: Sequence[Exercise],
    seed: str,
    limits: Limits = Limits(),
    judging: Callable[[Exercise, str, Any, bool], ExerciseResult] | None = None,
    cells: list[str] | None = None,
) -> Row:
    """Grade one notebook; whatever the submission does, return its row. ``judging``
    (:func:`~micrograd_edu.grading.judging.judges`) judges in a limited process of its
    own; without it, the judges run here. ``cells``: the notebook's code, already read
    (:mod:`.intake`); else the file is read here, as guardedly."""
    name = Path(path).name
    if cells is None:
        try:
            cells = _read(path)
        except ValueError as error:
            why = str(error) if str(error).startswith(name) else f"{name}: {error}"
            return Row(name, [broken(ex, why) for ex in exercises], [why], 0.0, limits.sandbox)
    started = time.perf_counter()  # the submission's own time: its budget starts here
    cases = {ex.id: draw_cases(ex, seed) for ex in exercises}
    groups = _groups(exercises)
    results: dict[str, ExerciseResult] = {}
    skip: set[int] = set()  # cells that stopped a child: later children skip them too
    notes: dict[int, str] = {}
    budget = limits.timeout * (len(exercises) + 2 * len(groups))  # endless cells end too
    for k, group in enumerate(groups):
        group_notes: dict[int, str] = {}
        for _ in range(len(cells) + len(group) + 1):
            pending = [ex for ex in group if ex.id not in results]
            if not pending:
                break
            if _STOP.is_set():
                for ex in pending:
                    results[ex.id] = broken(ex, "grading was stopped (Ctrl-C)")
                break
            if time.perf_counter() - started > budget:
                for ex in pending:
                    results[ex.id] = broken(ex, f"the submission used up its {budget:g} s in all")
                break
            attempt = _run(cells, skip, pending, cases, limits)
            group_notes.update(attempt.cell_errors)
            for ex in pending:
                if ex.id in attempt.errors:
                    results[ex.id] = broken(ex, attempt.errors[ex.id])
                elif ex.id in attempt.observed:
                    seen = attempt.observed[ex.id]
                    results[ex.id] = (
                        judging(ex, seed, seen, limits.all_or_nothing)
                        if judging
                        else judge(ex, cases[ex.id], seen, limits.all_or_nothing)
                    )
            # Every round settles something: a cell to skip, an exercise, or all that is left.
            kind, key = attempt.blame or (None, None)
            if kind == "cell" and isinstance(key, int) and key not in skip:
                skip.add(key)
                group_notes[key] = attempt.why
            elif kind == "exercise" and key in {ex.id for ex in pending} and key not in results:
                results[key] = broken(_find(exercises, key), attempt.why)
            else:
                for ex in pending:
                    results.setdefault(ex.id, broken(ex, attempt.why or "reported no result"))
        # The first child's cells are the notebook's; a later child withholds more (what
        # an exercise graded alone withholds), so errors only it met are not the student's.
        notes.update(group_notes if k == 0 else {})
    row_notes = [f"code cell {i + 1}: {why}" for i, why in sorted(notes.items())]
    ordered = [results.get(ex.id) or broken(ex, "reported no result") for ex in exercises]
    return Row(name, ordered, row_notes, time.perf_counter() - started, limits.sandbox)


def _read(path: str | Path) -> list[str]:
    """The code cells of the notebook at ``path``, read and parsed in the guarded reader."""
    from .intake import Reader, Unreadable

    with Reader() as reader:
        try:
            call = "micrograd_edu.grading.intake:parse"
            return reader(call, str(path), [], Path(path).name)["cells"]
        except Unreadable as error:
            raise ValueError(str(error)) from None


def _groups(exercises: Sequence[Exercise]) -> list[list[Exercise]]:
    """The exercises one child observes together: all but those graded alone
    (``Exercise.alone``), then each of those in a child of its own."""
    shared = [ex for ex in exercises if not ex.alone]
    return ([shared] if shared else []) + [[ex] for ex in exercises if ex.alone]


def _find(exercises: Sequence[Exercise], exercise_id: object) -> Exercise:
    return next(ex for ex in exercises if ex.id == exercise_id)


def _child_env(home: str) -> dict[str, str]:
    package_root = str(_PACKAGE.parent)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "PYTHONPATH": package_root,
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "LANG": "C.UTF-8",
    }


_PACKAGE = Path(__file__).resolve().parents[1]  # micrograd_edu/


def _run(
    cells: list[str],
    skip: set[int],
    pending: list[Exercise],
    cases: dict[str, list],
    limits: Limits,
) -> _Attempt:
    """One child process: run the cells, observe the pending exercises."""
    nonce = secrets.token_hex(16)
    task = {
        "nonce": nonce,
        "cells": cells,
        "skip_cells": sorted(skip),
        "exercises": [_spec(ex, cases[ex.id]) for ex in pending],
        "memory_mb": limits.memory_mb,
        "file_mb": limits.file_mb,
    }
    withheld = frozenset(name for ex in pending for name in ex.withheld)
    task_read, task_write = os.pipe()
    result_read, result_write = os.pipe()
    with tempfile.TemporaryDirectory(prefix="micrograd-grade-", ignore_cleanup_errors=True) as home:
        try:
            argv = [
                sys.executable,
                "-m",
                "micrograd_edu.grading.child",
                str(task_read),
                str(result_write),
            ]
            process = subprocess.Popen(
                sandbox.command(argv, _PACKAGE, withheld) if limits.sandbox else argv,
                pass_fds=(task_read, result_write),
                cwd=home,
                env=_child_env(home),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            os.close(task_read)
            os.close(result_write)
        with _LIVE_LOCK:
            _LIVE.add(process)
        try:
            _send(task_write, task)
            os.set_blocking(task_write, False)  # a reply the child never reads is dropped
            answers = _Answers(pending, cases, task_write)
            return _watch(process, result_read, nonce, len(pending), limits.timeout, answers)
        finally:
            os.close(result_read)
            os.close(task_write)
            _kill(process)
            with _LIVE_LOCK:
                _LIVE.discard(process)


def _spec(ex: Exercise, cases: list) -> dict[str, Any]:
    """What the child needs of ``ex``: the names to call, its runners (by dotted name:
    the child imports nothing but :mod:`.runners`), what is withheld, the names of the
    steps it builds on, and the cases without their held-back entries."""
    return {
        "id": ex.id,
        "names": list(ex.names),
        "runs": [_runner_name(check.run) for check in ex.checks],
        "withheld": list(ex.withheld),
        "requires": sorted(ex.requires),
        "cases": inputs(cases),
    }


def _runner_name(run: Callable) -> list:
    """How the child finds ``run``: [module:function, None], or [module:factory, its
    arguments] for one made by a :func:`~.registry.runner_factory`."""
    module, name, args = getattr(run, "recipe", (run.__module__, run.__qualname__, None))
    return [f"{module}:{name}", args]


def _send(fd: int, message: dict[str, Any]) -> None:
    data = (json.dumps(message) + "\n").encode()
    try:
        while data:
            data = data[os.write(fd, data) :]
    except (BrokenPipeError, BlockingIOError):
        pass  # the child is gone, or not reading: it will report nothing for this


class _Answers:
    """The parent's side of the child's requests.

    ``requires``: the references an exercise builds on (``Exercise.requires``), once per
    exercise, and only after the child has reported the student's own version of each
    of those steps, so a reference can never serve as the answer to the exercise it is
    the reference of. ``ask``: an evaluation of a check's function (``Check.serve``),
    for the exercise being observed only, counted here; ``observed`` puts those counts
    in the exercise's observation."""

    def __init__(self, pending: list[Exercise], cases: dict[str, list], fd: int) -> None:
        self.pending, self.fd, self.answered = pending, fd, set()
        self.served = {ex.id: Served(ex, cases[ex.id]) for ex in pending}

    def requires(self, exercise_id: object, attempt: _Attempt) -> None:
        ex = next((e for e in self.pending if e.id == exercise_id), None)
        if ex is None or not ex.requires or ex.id in self.answered:
            return
        early = [
            other.id
            for other in self.pending
            if other is not ex
            and set(other.names) & set(ex.requires)
            and other.id not in attempt.observed
            and other.id not in attempt.errors
        ]
        if early:
            why = f"{ex.id} was asked for before {', '.join(early)} reported"
            _send(self.fd, {"refused": why})
            return
        sources = {
            name: (function.__name__, textwrap.dedent(inspect.getsource(function)))
            for name, function in ex.requires.items()
        }
        self.answered.add(ex.id)
        _send(self.fd, {"sources": sources})

    def ask(self, message: dict[str, Any], current: object) -> None:
        served = self.served.get(current) if message.get("id") == current else None
        try:
            if served is None:
                raise ValueError("an evaluation was asked for outside its exercise")
            answer = served(message.get("check"), message.get("case"), message.get("request"))
        except Exception as error:  # the request is the child's: anything may be in it
            _send(self.fd, {"refused": f"{type(error).__name__}: {str(error)[:300]}"})
        else:
            _send(self.fd, {"answer": answer})

    def observed(self, exercise_id: object, observed: object) -> object:
        served = self.served.get(exercise_id) if isinstance(exercise_id, str) else None
        return served.counted(observed) if served else observed


def _watch(
    process: subprocess.Popen,
    fd: int,
    nonce: str,
    n: int,
    timeout: float,
    answers: _Answers,
) -> _Attempt:
    attempt = _Attempt()
    phase: tuple[str, object] = ("start", None)
    # The clock for the submission starts once the child has started (Python and numpy
    # imported): on a loaded machine that alone can take longer than a short timeout.
    deadline = hard_deadline = time.monotonic() + max(timeout, _STARTUP_SECONDS)
    buffer, received, done = b"", 0, False
    while not done:
        wait = min(deadline, hard_deadline) - time.monotonic()
        if wait <= 0:
            attempt.blame, attempt.why = phase, f"ran past the {timeout:g} s time limit"
            if phase[0] == "start":
                attempt.why = f"the grader's process did not start within {_STARTUP_SECONDS:g} s"
            return attempt
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        received += len(chunk)
        if not chunk or received > _MAX_OUTPUT:
            break
        *lines, buffer = (buffer + chunk).split(b"\n")
        for line in lines:
            message = _parse(line, nonce)
            if message is None:
                continue  # not from this run's harness: ignored
            event = message.get("event")
            if phase[0] == "start":
                now = time.monotonic()
                deadline, hard_deadline = now + timeout, now + timeout * (n + 1)
            if event == "cell":
                phase = ("cell", message.get("index"))
            elif event == "cell_error":
                attempt.cell_errors[message.get("index")] = str(message.get("error"))[:300]
            elif event == "exercise":
                phase, deadline = ("exercise", message.get("id")), time.monotonic() + timeout
            elif event == "requires":
                answers.requires(message.get("id"), attempt)
            elif event == "ask":
                answers.ask(message, phase[1] if phase[0] == "exercise" else None)
            elif event == "observed":
                observed = answers.observed(message.get("id"), message.get("observed"))
                attempt.observed.setdefault(message.get("id"), observed)
            elif event == "exercise_error":
                attempt.errors.setdefault(message.get("id"), f"raised {message.get('error')}"[:300])
            elif event == "done":
                done = True
    if not done:
        attempt.blame, attempt.why = phase, _ended(process, received > _MAX_OUTPUT)
        if phase[0] == "start":
            attempt.why = f"the grader could not start a process for it ({attempt.why})"
    return attempt


def _parse(line: bytes, nonce: str) -> dict | None:
    """The message on ``line`` if it carries this run's nonce. Anything else, however
    long, deep or malformed, is ignored: the child's output is never trusted."""
    if len(line) > _MAX_MESSAGE:
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(message, dict) or message.get("nonce") != nonce:
        return None
    # the fields the parent keys its records by: a forged list or dict there is ignored
    if not isinstance(message.get("id", ""), str) or type(message.get("index", 0)) is not int:
        return None
    return message


def _ended(process: subprocess.Popen, flooded: bool) -> str:
    if flooded:
        return "sent more output than the grader accepts"
    try:
        code = process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return "closed its channel to the grader"
    if code < 0:
        name = signal.Signals(-code).name
        hint = " (out of memory?)" if name in ("SIGKILL", "SIGSEGV", "SIGABRT") else ""
        return f"the process was killed by {name}{hint}"
    return f"the process ended with exit code {code} (os._exit or a crash)"


def _kill(process: subprocess.Popen, wait: bool = True) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the whole group: no grandchild survives
    except (ProcessLookupError, PermissionError):
        pass
    if wait:
        process.wait()
