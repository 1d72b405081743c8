"""One budget for the whole sandbox, not per process (issue 26, class 6).

The fixtures (tests/fixtures/sandbox) are chapter 01's solution with cells added that
try to take more than a submission's share: 512 MB written to its /tmp (a tmpfs: memory
outside every process's limit), 340 processes at once, three processes of 450 MB each
(under a limit of 1 GB per process), and thirteen cells that wait forever and swallow
the time limit. test_grading_sandbox.py grades the first three with the other attacks;
here the controls run the same cells under the per-process limits alone (what the child
sets on itself), and they get what they asked for: what stops them in the sandbox is its
budget. Without a cgroup the grader measures the budget itself; and a notebook that
swallows the time limit costs two limits, not one per cell.
"""

import itertools
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from micrograd_edu.grading import batch, chapter, confine, isolation

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "fixtures" / "sandbox"
ATTACKS_ON_THE_BUDGET = ["fills_its_tmp.ipynb", "starts_340_processes.ipynb", "three_hogs.ipynb"]


def _cell(name: str) -> str:
    """The last code cell of a fixture: the attack."""
    cells = json.loads((ATTACKS / name).read_text())["cells"]
    return "".join([c for c in cells if c["cell_type"] == "code"][-1]["source"])


@pytest.mark.parametrize(
    "name, broken",
    [
        ("three_hogs.ipynb", "used more than its 1024 MB of memory in all"),
        # 340 forks of one interpreter share its pages: measured as each one's resident
        # memory they were 340 interpreters, and the row blamed the memory
        ("starts_340_processes.ipynb", "tried to run more than 64 processes at once"),
    ],
)
def test_without_a_cgroup_the_grader_measures_the_budget(sandboxed, monkeypatch, name, broken):
    # Where no cgroup can be made (a laptop's user session, Gradescope's container) the
    # grader measures the sandbox's memory and processes itself and stops it when over;
    # the row names the budget the attack broke, as where a cgroup holds it.
    monkeypatch.setattr(isolation, "cgroups", lambda: "no cgroups here")
    row = batch.grade_submission(ATTACKS / name, chapter("01"), "seed")
    told = [(r.id, r.score, r.status, r.reason) for r in row.results], row.reason
    assert row.score == 11, told
    assert f"code cell 13: {broken}" in row.reason, told


def test_threads_asking_for_the_cgroups_at_once_all_get_them(cgrouped):
    # The batch grader's threads start their first sandboxes together: two probes at
    # once failed one thread's row (FileNotFoundError) and left the process
    # metering every budget for the rest of its life.
    for _ in range(30):
        confine._probe.cache_clear()
        barrier = threading.Barrier(4)

        def ask(_, barrier=barrier):
            barrier.wait()
            return confine.cgroups()

        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(ask, range(4)))
        assert all(isinstance(roots, dict) for roots in found), found
        assert isinstance(confine.cgroups(), dict)
    roots = confine.cgroups()
    assert not [p for r in roots.values() for p in r.glob(f"micrograd-probe-{os.getpid()}-*")]


def test_a_cgroup_name_already_taken_is_passed_over_and_left_alone(cgrouped, monkeypatch):
    # A grader killed before it removed its groups leaves them; a later process with the
    # same id must neither fail on them nor take them over.
    roots = confine.cgroups()
    monkeypatch.setattr(confine, "_counter", itertools.count(10**6))
    taken = {c: root / f"micrograd-{os.getpid()}-{10**6}" for c, root in roots.items()}
    taken["pids"].mkdir()  # left in one hierarchy only
    try:
        group = confine.Cgroup(memory_mb=256, processes=8)
        assert {p.name for p in group.paths.values()} == {f"micrograd-{os.getpid()}-{10**6 + 1}"}
        assert not taken["memory"].exists()  # made for the taken name, then removed
        assert group.counts() == (0, 0) and group.exceeded() is None
        forks = "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 0.3 & done; wait"
        subprocess.run(group.wrap(["/bin/sh", "-c", forks]), stderr=subprocess.DEVNULL)
        assert group.counts()[1] > 0  # the kernel refused forks past 8
        assert group.exceeded() == "tried to run more than 8 processes at once"
        assert group.exceeded(since=group.counts()) is None
        group.close()
        assert not any(path.exists() for path in group.paths.values())
        assert taken["pids"].is_dir()  # not the grader's to remove
    finally:
        taken["pids"].rmdir()


LIMITED = """
import sys
sys.path.insert(0, {root!r})
from micrograd_edu.grading.child import _limit
_limit(1024, 16, None)  # the child's own limits, per process
"""


def test_per_process_limits_alone_let_each_attack_through(tmp_path):
    runs = {}
    for name in ATTACKS_ON_THE_BUDGET:  # all at once: a few seconds each
        code = LIMITED.format(root=str(ROOT)) + _cell(name)
        code += "\nassert started == 340\n" if name == "starts_340_processes.ipynb" else ""
        (tmp_path / name).mkdir()
        runs[name] = subprocess.Popen(
            [sys.executable, "-c", code], cwd=tmp_path / name, stderr=subprocess.PIPE, text=True
        )
    errors = {name: run.communicate(timeout=120)[1] for name, run in runs.items()}
    for written in tmp_path.glob("*/fill_*"):  # 512 MB: not left for pytest to keep
        written.unlink()
    assert {name: run.returncode for name, run in runs.items()} == dict.fromkeys(runs, 0), errors


def test_code_that_swallows_the_time_limit_costs_two_limits_not_one_per_cell(sandboxed):
    # Thirteen cells that wait forever and catch the limit's alarm: two are stopped from
    # outside, then only the cells seen to end run, and the functions are graded.
    limits = batch.Limits(timeout=0.5, wall=1.0)
    row = batch.grade_submission(ATTACKS / "holds_the_worker.ipynb", chapter("01"), "s", limits)
    assert row.score == 11, row.reason
    stopped = [note for note in row.notes if "wall-clock limit" in note]
    skipped = [note for note in row.notes if "not run: the code fought the time limits" in note]
    assert len(stopped) == 2 and len(skipped) == 11, row.notes
