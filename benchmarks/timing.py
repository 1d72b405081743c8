"""Timing shared by the benchmarks: functions timed in turns, round after round,
so that a busy machine (other processes on two cores) slows them alike."""

from __future__ import annotations

import timeit
from collections.abc import Callable


def measure(functions: dict[str, Callable], number: int, repeat: int) -> dict:
    """``{name: (minimum, median)}`` microseconds per call of each function."""
    for f in functions.values():
        f()  # warm up
    times: dict = {name: [] for name in functions}
    for _ in range(repeat):
        for name, f in functions.items():
            times[name].append(timeit.timeit(f, number=number) / number * 1e6)
    return {name: (min(t), sorted(t)[len(t) // 2]) for name, t in times.items()}
