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

import json
import subprocess
import sys
from pathlib import Path

from micrograd_edu.grading import batch, chapter, isolation

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "fixtures" / "sandbox"
ATTACKS_ON_THE_BUDGET = ["fills_its_tmp.ipynb", "starts_340_processes.ipynb", "three_hogs.ipynb"]


def _cell(name: str) -> str:
    """The last code cell of a fixture: the attack."""
    cells = json.loads((ATTACKS / name).read_text())["cells"]
    return "".join([c for c in cells if c["cell_type"] == "code"][-1]["source"])


def test_without_a_cgroup_the_grader_measures_the_budget(sandboxed, monkeypatch):
    # Where no cgroup can be made (a laptop's user session, Gradescope's container) the
    # grader measures the sandbox's memory itself and stops it when over.
    monkeypatch.setattr(isolation, "cgroups", lambda: "no cgroups here")
    row = batch.grade_submission(ATTACKS / "three_hogs.ipynb", chapter("01"), "seed")
    assert row.score == 11, row.reason
    assert "used more than its 1024 MB of memory in all" in row.reason, row.reason


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
