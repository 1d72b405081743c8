"""Time limits for code run in the notebook's own process (the in-notebook check) and in
the batch grader's child: the same measure in both, so that a notebook stops what the
grade would stop.

A student's endless loop should end the check, not hang the cell until the
kernel is interrupted. The only way to stop running Python code from inside
the same process is a signal: on POSIX, in the main thread (where Jupyter runs
cells), ``signal.setitimer`` delivers ``SIGALRM`` after the limit and the
handler raises :class:`TimeLimitExceeded`. A timer or ``SIGALRM`` handler set
before is put back afterwards. Elsewhere (Windows, a thread other than the
main one) the code runs without a limit. The batch grader does not need this:
it runs submissions in a child process that it kills.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "EXERCISE_SECONDS",
    "TimeLimitExceeded",
    "can_limit",
    "limited",
    "time_limit",
    "wall_for",
]

# Seconds an exercise's checks may take: the batch grader's default per exercise, and the
# in-notebook check's, so that the notebook stops what the grade would stop. The checks
# take well under a second, except training a model (a few seconds on a loaded machine).
EXERCISE_SECONDS = 10.0

# The wall clock's limit for a limit of CPU time: a busy machine stretches the wall clock,
# not the work, so the wall clock stops only code that waits (sleeps, reads a pipe).
_WALL_TIMES, _WALL_LEAST = 2.0, 10.0


class TimeLimitExceeded(BaseException):
    """Raised in the code that ran past its limit.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that the ``except Exception``
    around each case, or in the student's code, does not swallow it.
    """


def can_limit() -> bool:
    """Whether :func:`time_limit` can stop code here (POSIX, main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(seconds: float | None, cpu: bool = False) -> Iterator[None]:
    """Raise :class:`TimeLimitExceeded` in the body once it has run ``seconds``: of the
    wall clock, or with ``cpu`` of the process's CPU time (what the batch grader's child
    counts: a busy machine stretches the wall clock, not the work a computation needs).

    ``None``, or a platform where it cannot work (see :func:`can_limit`), means no limit.

    >>> with time_limit(5.0):
    ...     total = sum(range(1000))
    >>> try:
    ...     with time_limit(0.05, cpu=True):
    ...         while True:
    ...             pass
    ... except TimeLimitExceeded:
    ...     print("stopped")
    stopped
    """
    if seconds is None or not can_limit():
        yield
        return
    which, signum = (
        (signal.ITIMER_PROF, signal.SIGPROF) if cpu else (signal.ITIMER_REAL, signal.SIGALRM)
    )

    def on_alarm(signum: int, frame: object) -> None:
        raise TimeLimitExceeded(
            f"used more than {seconds:g} s of CPU time" if cpu else f"waited past {seconds:g} s"
        )

    clock = time.process_time if cpu else time.monotonic
    handler = signal.signal(signum, on_alarm)
    start = clock()
    delay, interval = signal.setitimer(which, seconds)
    try:
        yield
    finally:
        try:
            signal.setitimer(which, 0)
        finally:  # even if the alarm went off just before it was cancelled
            # None: a handler installed from C, which Python cannot put back; the default then
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
            if delay > 0:  # someone else's timer: what is left of it (due now if it expired)
                left = max(delay - (clock() - start), 1e-6)
                signal.setitimer(which, left, interval)


def wall_for(cpu_seconds: float) -> float:
    """The wall clock's limit that goes with ``cpu_seconds`` of CPU time.

    >>> wall_for(10.0), wall_for(1.0)
    (20.0, 10.0)
    """
    return max(_WALL_TIMES * cpu_seconds, _WALL_LEAST)


@contextmanager
def limited(cpu: float | None, wall: float | None = None) -> Iterator[None]:
    """``cpu`` seconds of CPU time and ``wall`` seconds of the wall clock (by default
    :func:`wall_for` ``cpu``) for the body; ``None``: no limit.

    >>> try:
    ...     with limited(0.05):
    ...         while True:
    ...             pass
    ... except TimeLimitExceeded as stop:
    ...     print(stop)
    used more than 0.05 s of CPU time
    """
    if cpu is not None and wall is None:
        wall = wall_for(cpu)
    with time_limit(wall), time_limit(cpu, cpu=True):
        yield
