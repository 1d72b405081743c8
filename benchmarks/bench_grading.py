"""Batch grading overhead: 50 submissions, 2 workers, against the notebooks' own run time.

The issue's target: at most 1.5 s per submission beyond the notebook's own run
time. The notebook's own time is its code cells executed plainly in this
process; the batch cost per submission is wall time x workers / submissions
(core-seconds, so the figure does not flatter parallelism).

    python benchmarks/bench_grading.py
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from micrograd_edu.grading import chapter, check, sandbox  # noqa: E402
from micrograd_edu.grading.batch import Limits  # noqa: E402
from micrograd_edu.grading.gradebook import grade_all  # noqa: E402
from micrograd_edu.grading.notebook import code_cells, read_notebook  # noqa: E402

SUBMISSIONS, WORKERS, TARGET = 50, 2, 1.5
NOTEBOOK = ROOT / "solutions" / "01_numerical.ipynb"


def own_time(repeat: int = 5) -> float:
    """Seconds to run the notebook's code cells plainly (best of ``repeat``)."""
    cells = code_cells(read_notebook(NOTEBOOK))
    best = float("inf")
    for _ in range(repeat):
        namespace = {"__name__": "__main__"}
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            for code in cells:
                exec(compile(code, "<cell>", "exec"), namespace)
        best = min(best, time.perf_counter() - start)
    return best


def check_time() -> float:
    """The slowest in-notebook check() of the chapter, in seconds (target: under 1 s)."""
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for code in code_cells(read_notebook(NOTEBOOK)):
            exec(compile(code, "<cell>", "exec"), namespace)
    slowest = 0.0
    for ex in chapter("01"):
        start = time.perf_counter()
        assert check(ex.id, namespace).passed
        slowest = max(slowest, time.perf_counter() - start)
    return slowest


def main() -> None:
    slowest_check = check_time()
    print(
        f"slowest check() in a notebook {slowest_check * 1000:7.1f} ms (target 1000 ms, "
        f"met: {slowest_check < 1.0})"
    )
    own = own_time()
    sandboxed = sandbox.available() is None
    plain = batch_seconds(Limits(isolation="none"))
    per_plain = plain * WORKERS / SUBMISSIONS
    overhead = per_plain - own
    print(f"notebook's own run time      {own * 1000:8.1f} ms")
    print(f"batch: {SUBMISSIONS} submissions, {WORKERS} workers  {plain:6.2f} s wall (no sandbox)")
    print(f"cost per submission          {per_plain * 1000:8.1f} ms (core time)")
    print(f"overhead per submission      {overhead * 1000:8.1f} ms")
    print(f"ratio overhead / target      {overhead / TARGET:8.3f} (target {TARGET} s)")
    print(f"target met: {overhead <= TARGET}")
    if not sandboxed:
        print(f"sandbox: not measured ({sandbox.available()})")
        return
    boxed = batch_seconds(Limits())
    cost = (boxed - plain) * WORKERS / SUBMISSIONS
    print(f"batch in the sandbox         {boxed:6.2f} s wall")
    print(
        f"sandbox cost per submission  {cost * 1000:8.1f} ms (target <= 100 ms, met: {cost <= 0.1})"
    )


def batch_seconds(limits: Limits) -> float:
    """Wall time to grade SUBMISSIONS copies of the solution (each must score full)."""
    with tempfile.TemporaryDirectory() as folder:
        for i in range(SUBMISSIONS):
            shutil.copy(NOTEBOOK, Path(folder) / f"student{i:02d}.ipynb")
        start = time.perf_counter()
        rows = grade_all(
            [folder],
            chapter_number="01",
            csv_path=Path(folder) / "g.csv",
            workers=WORKERS,
            limits=limits,
        )
        wall = time.perf_counter() - start
    assert len(rows) == SUBMISSIONS and all(r.score == r.max_score for r in rows)
    return wall


if __name__ == "__main__":
    main()
