"""The authoritative grader: each submission in its own process, judged in this one.

For each submission the parent draws the cases from a secret seed, starts a child
(:mod:`.child`) isolated as :mod:`.isolation` says, within the submission's
:class:`Limits`, hands it the code and the cases through a pipe, and reads back plain
observations tagged with a fresh nonce. Only lines carrying that nonce count. The parent
judges every observation against its oracles, so a cheating object, a patched ``check``,
a printed "PASSED" or a forged file earns nothing.

When the child dies or runs past its time limit, the cell or exercise it was in scores
0 with the reason, and a new child carries on without it: one broken exercise never
costs the others, and the submission's budget bounds them all. POSIX only
(``resource``, process groups); on Windows grade inside WSL or on Gradescope.
"""

from __future__ import annotations

import inspect
import json
import os
import secrets
import select
import signal
import subprocess
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import isolation
from .confine import Cgroup, Meter
from .registry import Exercise, ExerciseResult, Served, broken, draw_cases, inputs, judge
from .time_limit import EXERCISE_SECONDS, wall_for

__all__ = ["Limits", "Row", "grade_submission", "require_posix", "stop_all", "resume"]

_MAX_OUTPUT = 16 << 20  # bytes a child may send before it is stopped
_MAX_MESSAGE = 4 << 20  # bytes of one message (an observation) the parent will parse
_STARTUP_SECONDS = 30.0  # allowance for the child to import Python and numpy, loaded machine
_BUDGET, _MIN_BUDGET = 6.0, 10.0  # the submission's wall clock: times the CPU limit, least
_GRACE = 1.0  # CPU seconds past the limit before the parent kills: the child's alarm acts first
_KILLS = 2  # kills for running past a limit (the child's alarm could not stop the code)
_METER_SECONDS = 0.1  # how often the budget is measured where no cgroup holds it


@dataclass(frozen=True)
class Limits:
    """What one submission may use. ``timeout``: CPU seconds for the notebook's cells
    together, and again for each exercise; ``wall``: seconds of the wall clock for them
    (default: twice ``timeout``, at least 10 s: a busy machine stretches the wall
    clock, so only code that waits reaches it); ``budget``: seconds of the wall clock for
    the whole submission (default: six times ``timeout``, at least 10 s);
    ``memory_mb``, ``processes``: for all of a submission's processes together (its
    ``/tmp`` files count as memory); ``disk_mb``: its ``/tmp``; ``file_mb``: any one
    file it writes; ``isolation``: see :mod:`.isolation`."""

    timeout: float = EXERCISE_SECONDS
    memory_mb: int = 1024
    file_mb: int = 16
    processes: int = 64
    disk_mb: int = 64
    wall: float | None = None
    budget: float | None = None
    isolation: str = "bubblewrap"
    all_or_nothing: bool = False  # an exercise's points only when every check passes


@dataclass
class Row:
    """One submission's line of the gradebook."""

    submission: str
    results: list[ExerciseResult]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    isolation: str = isolation.BUBBLEWRAP  # how its processes were isolated

    student: str = ""  # whose: the roster's ID ("" for a file matched to nobody, or no roster)
    chapter: str = ""

    @property
    def sandboxed(self) -> bool:
        return self.isolation != isolation.NONE

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


# Every submission's process alive now, so that a second Ctrl-C can stop them all at once.
_LIVE: set[isolation.Started] = set()
_LIVE_LOCK = threading.Lock()
_STOP = threading.Event()


def stop_all() -> None:
    """Stop every submission being graded now; none starts until :func:`resume`."""
    _STOP.set()
    with _LIVE_LOCK:
        for child in list(_LIVE):
            child.kill()


def resume() -> None:
    _STOP.clear()


@dataclass
class _Attempt:
    observed: dict[str, object] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # exercise id -> what escaped observe
    cell_errors: dict[int, str] = field(default_factory=dict)
    blame: tuple[str, object] | None = None  # ("cell", index) / ("exercise", id) / ("start", None)
    why: str = ""
    killed: bool = False  # for running past a limit: its own alarm did not stop it
    completed: set[int] = field(default_factory=set)  # cells it ran to their end
    seconds: float = 0.0  # from its first message to its end: the submission's time


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
    how = isolation.choose(limits.isolation)
    if cells is None:
        try:
            cells = _read(path)
        except ValueError as error:
            why = str(error) if str(error).startswith(name) else f"{name}: {error}"
            return Row(name, [broken(ex, why) for ex in exercises], [why], 0.0, how)
    started = time.perf_counter()  # the submission's own time: its budget starts here
    cases = {ex.id: draw_cases(ex, seed) for ex in exercises}
    groups = _groups(exercises)
    results: dict[str, ExerciseResult] = {}
    skip: set[int] = set()  # cells that stopped a child: later children skip them too
    completed: set[int] = set()  # cells a child has been seen to run to their end
    notes: dict[int, str] = {}
    # Counted from each process's first message, not its interpreter's start.
    budget = limits.budget or max(_BUDGET * limits.timeout, _MIN_BUDGET)
    spent, kills = 0.0, 0
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
            if spent >= budget:
                for ex in pending:
                    results[ex.id] = broken(ex, f"the submission used up its {budget:g} s in all")
                break
            # Once its code has fought the time limits _KILLS times, a child runs only the
            # cells seen to end before: each new cell that fights them would cost a limit.
            unseen = set(range(len(cells))) - completed if kills >= _KILLS else set()
            attempt = _run(cells, skip | unseen, pending, cases, limits, how, budget - spent)
            spent, kills = spent + attempt.seconds, kills + attempt.killed
            completed |= attempt.completed
            group_notes.update(attempt.cell_errors)
            for index in sorted(unseen - skip):
                if cells[index].strip():
                    group_notes.setdefault(
                        index, f"not run: the code fought the time limits {_KILLS} times"
                    )
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
    return Row(name, ordered, row_notes, time.perf_counter() - started, how)


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
    (``Exercise.alone``), then those in a child of their own, one per set of withheld
    names (03's division and powers share one).

    >>> from micrograd_edu.grading import chapter
    >>> [[ex.id for ex in group] for group in _groups(chapter("03"))]
    [['03.jacobian_forward'], ['03.dual_divide', '03.dual_power']]
    """
    shared = [ex for ex in exercises if not ex.alone]
    apart: dict[frozenset[str], list[Exercise]] = {}
    for ex in exercises:
        if ex.alone:
            apart.setdefault(frozenset(ex.withheld), []).append(ex)
    return ([shared] if shared else []) + list(apart.values())


def _find(exercises: Sequence[Exercise], exercise_id: object) -> Exercise:
    return next(ex for ex in exercises if ex.id == exercise_id)


def _run(
    cells: list[str],
    skip: set[int],
    pending: list[Exercise],
    cases: dict[str, list],
    limits: Limits,
    how: str,
    seconds_left: float,
) -> _Attempt:
    """One child process: run the cells, observe the pending exercises, within
    ``seconds_left`` of the submission's budget."""
    nonce = secrets.token_hex(16)
    task = {
        "nonce": nonce,
        "cells": cells,
        "skip_cells": sorted(skip),
        "exercises": [_spec(ex, cases[ex.id]) for ex in pending],
        "memory_mb": limits.memory_mb,
        "file_mb": limits.file_mb,
        "seconds": limits.timeout,
        "wall": _wall(limits),
    }
    withheld = frozenset(name for ex in pending for name in ex.withheld)
    task_read, task_write = os.pipe()
    result_read, result_write = os.pipe()
    with tempfile.TemporaryDirectory(prefix="micrograd-grade-", ignore_cleanup_errors=True) as home:
        try:
            child = isolation.start(how, withheld, (task_read, result_write), home, limits)
            with _LIVE_LOCK:
                _LIVE.add(child)
        finally:
            os.close(task_read)
            os.close(result_write)
        try:
            _send(task_write, {**task, "processes": child.processes})
            os.set_blocking(task_write, False)  # a reply the child never reads is dropped
            answers = _Answers(pending, cases, task_write)
            clock = _Clock(limits.timeout, _wall(limits), len(pending), seconds_left, child.cpu)
            attempt = _watch(child.process, result_read, nonce, clock, answers, child.budget)
            over = child.budget.exceeded()
            if over and attempt.blame is not None:
                attempt.why = over
            return attempt
        finally:
            os.close(result_read)
            os.close(task_write)
            with _LIVE_LOCK:
                _LIVE.discard(child)
            child.close()


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


def _wall(limits: Limits) -> float:
    return limits.wall or wall_for(limits.timeout)


@dataclass
class _Clock:
    """A child's limits. The cells together, then each exercise, get ``timeout`` seconds
    of CPU time and ``wall`` seconds of the wall clock, which the child's own alarms
    enforce; the parent kills code that runs on past them (it caught or blocked the
    alarms), measuring its CPU time and the wall clock, with a grace. Every phase ends
    within ``left`` seconds of the submission's budget. The clock starts with the child's
    first message, once its interpreter has started (on a loaded machine that alone can
    take longer than a short timeout)."""

    timeout: float
    wall: float
    exercises: int
    left: float
    cpu: Callable[[], float]
    started: float = 0.0
    phase_end: float = 0.0
    phase_cpu: float = 0.0
    end: float = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        self.end = self.started + self.left
        self.next_phase()

    def next_phase(self) -> None:
        grace = min(_GRACE, self.timeout)
        self.phase_end = time.monotonic() + self.wall + grace
        self.phase_cpu = self.cpu() + self.timeout + grace

    def over(self) -> str:
        """Why the current phase must end now, or ""."""
        now = time.monotonic()
        if self.cpu() > self.phase_cpu:
            return (
                f"ran past the {self.timeout:g} s time limit (and kept running: it caught or "
                "blocked the limit's alarm)"
            )
        if now >= self.end and self.end < self.phase_end:
            return "ran past what was left of the submission's time in all"
        if now >= self.phase_end:
            return (
                f"ran past the {self.wall:g} s wall-clock limit (and kept waiting: it caught "
                "or blocked the limit's alarm)"
            )
        return ""

    def spent(self) -> float:
        return time.monotonic() - self.started if self.started else 0.0


def _watch(
    process: subprocess.Popen,
    fd: int,
    nonce: str,
    clock: _Clock,
    answers: _Answers,
    budget: Cgroup | Meter,
) -> _Attempt:
    attempt = _Attempt()
    phase: tuple[str, object] = ("start", None)
    counts = budget.counts()  # the budget's tally when the current cell or exercise began
    startup_end = time.monotonic() + max(clock.timeout, _STARTUP_SECONDS)
    buffer, received, done, measured = b"", 0, False, 0.0
    try:
        while not done:
            if not clock.started and time.monotonic() > startup_end:
                attempt.blame = phase
                attempt.why = f"the grader's process did not start within {_STARTUP_SECONDS:g} s"
                return attempt
            now = time.monotonic()
            if now >= measured + _METER_SECONDS:  # measured a few times a second, not per line
                measured = now
                why = budget.over()  # first: a broken budget is what a slow clock follows
                if why:
                    attempt.blame, attempt.why = phase, why
                    return attempt
                why = clock.over() if clock.started else ""
                if why:
                    attempt.blame, attempt.killed, attempt.why = phase, True, why
                    return attempt
            ready, _, _ = select.select([fd], [], [], _METER_SECONDS)
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
                    clock.start()
                    phase = ("cells", None)
                if phase[0] == "cell" and event in ("cell", "exercise", "done"):
                    attempt.completed.add(phase[1])
                if event in ("cell", "exercise"):
                    counts = budget.counts()
                if event == "cell":
                    phase = ("cell", message.get("index"))
                elif event == "cell_error":
                    error = _with_budget(str(message.get("error")), budget, counts)
                    attempt.cell_errors[message.get("index")] = error
                elif event == "exercise":
                    phase = ("exercise", message.get("id"))
                    clock.next_phase()
                elif event == "requires":
                    answers.requires(message.get("id"), attempt)
                elif event == "ask":
                    answers.ask(message, phase[1] if phase[0] == "exercise" else None)
                elif event == "observed":
                    observed = answers.observed(message.get("id"), message.get("observed"))
                    attempt.observed.setdefault(message.get("id"), observed)
                elif event == "exercise_error":
                    error = str(message.get("error"))
                    why = error if message.get("limit") is True else f"raised {error}"
                    attempt.errors.setdefault(message.get("id"), _with_budget(why, budget, counts))
                elif event == "done":
                    done = True
        if not done:
            attempt.blame, attempt.why = phase, _ended(process, received > _MAX_OUTPUT)
            if phase[0] == "start":
                attempt.why = f"the grader could not start a process for it ({attempt.why})"
        return attempt
    finally:
        attempt.seconds = clock.spent()


def _with_budget(error: str, budget: Cgroup | Meter, counts: tuple[int, int]) -> str:
    """``error`` (what the child reported), and the budget the code broke since the tally
    was ``counts``: a process refused or killed by the kernel surfaces in the code as
    ``BlockingIOError`` or a child's death, which alone do not say that the submission
    ran out of its budget of processes or memory."""
    broken = budget.exceeded(counts)
    return f"{error[:300]} (the submission {broken})" if broken else error[:300]


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
