"""Hostile submissions against the sandbox (tests/fixtures/sandbox), graded in one batch
with chapter 01's solution beside them: each attack earns what it deserves, leaves no
process and no trace behind, and the batch completes with every honest row at full
marks; graded unsandboxed, the attacks take what they look for, so what stops them is
the sandbox. The attacks: on the grader (reading the solutions, finding, killing or
outliving the grader, the network, evaluating a served function uncounted), on what is
withheld (issue 26, class 1: scikit-learn after taking the import blocker away, numpy's
lstsq behind its stand-in, the rule table's derivatives on expressions, the package's
Dual dividing for the student's; and
``looks_around``, which answers an exercise only where it finds nothing: libraries,
scikit-learn's digits, the grader's references, the host's paths in process 1's command
line, class 8), and on the budget of the whole sandbox (class 6: its /tmp filled, 340
processes, three of 450 MB). Where bubblewrap cannot run these tests skip with the
reason; under CI (``CI`` set) they fail instead."""

import csv
import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from micrograd_edu.course.cli import main
from micrograd_edu.grading import confine, sandbox

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "fixtures" / "sandbox"
SOLUTION = ROOT / "solutions" / "01_numerical.ipynb"
FULL = 11.0
MARKER = b"micrograd-edu-daemon-marker"
# Graded with limits of their own (test_grading_budget.py, test_grading_gradescope.py).
APART = {"holds_the_worker.ipynb", "rewrites_the_judge.ipynb"}
DESERVED = {
    "reads_the_solutions.ipynb": 0.0,  # stubs: the solutions are not on its disk
    "finds_the_grader.ipynb": 0.0,  # stubs: the grader's process is not in its /proc
    "kills_the_grader.ipynb": FULL,  # honest answers; the signals reach nothing
    "outlives_the_grader.ipynb": FULL,
    "phones_home.ipynb": FULL,
    "evaluates_f_uncounted.ipynb": FULL - 0.6,  # the grader counted 6n calls of f: not O(n)
    "unblocks_scikit_learn.ipynb": 3.0,  # its backward; no scikit-learn to classify with
    "solves_through_numpy_internals.ipynb": 1.0,  # its mini-batches; lstsq raises in its file
    "derives_from_the_rule_table.ipynb": 3.0,  # my_size, fold_constants; no derivative table
    "borrows_the_package_dual.ipynb": 3.0,  # its Jacobian; the package's Dual cannot divide
    "looks_around.ipynb": FULL,  # it found no library, data set, reference or host path
    "fills_its_tmp.ipynb": FULL,  # its honest functions; the attack cell stopped (below)
    "starts_340_processes.ipynb": FULL,
    "three_hogs.ipynb": FULL,
    "01_numerical.ipynb": FULL,  # the bystander
}
STOPPED_BY = {  # what each budget attack's row says stopped it, kept by a cgroup or metered
    "fills_its_tmp.ipynb": "No space left on device",  # its /tmp is a tmpfs of 64 MB
    "starts_340_processes.ipynb": "tried to run more than 64 processes at once",
    "three_hogs.ipynb": "used more than its 1024 MB of memory in all",
}
UNSANDBOXED = {  # the same attacks, graded with --no-sandbox
    "reads_the_solutions.ipynb": FULL,
    "finds_the_grader.ipynb": FULL,
    "solves_through_numpy_internals.ipynb": 3.0,
    # the child's own withholding takes the rule table's derivatives away in its process
    # too (as check() does); the stubbed file, which only the sandbox mounts, is what a
    # reload of micrograd_edu.rules meets
    "derives_from_the_rule_table.ipynb": 3.0,
    "borrows_the_package_dual.ipynb": 3.0,
    "looks_around.ipynb": 2.0,  # found all four (scikit-learn among the libraries)
}


def _listen(port: int):
    server = socket.socket()
    try:
        server.bind(("127.0.0.1", port))
    except OSError:
        pytest.skip(f"port {port} is busy: phones_home needs it")
    server.listen()
    server.settimeout(0.2)
    heard, stop = [], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            heard.append(connection.recv(100))
            connection.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return heard, lambda: (stop.set(), thread.join(), server.close())


def _daemons() -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if MARKER in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def _grade(out: Path, paths: list[Path], *extra: str) -> tuple[dict, dict]:
    csv_path, json_path = out / "gradebook.csv", out / "results.json"
    # no --chapter: each notebook is graded on the chapter whose functions it defines
    args = ["grade", *map(str, paths), "--csv", str(csv_path), "--workers", "2"]
    assert main([*args, "--gradescope", str(json_path), "--timeout", "3", *extra]) == 0
    with open(csv_path, newline="") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    return rows, json.loads(json_path.read_text())


@pytest.fixture(scope="module")
def graded(sandboxed, tmp_path_factory):
    # phones_home tries ports 47613-47620: one for each pytest-xdist worker, which each
    # grade these attacks when the module's tests are shared out between them
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    heard, stop = _listen(47613 + int(worker) % 8 if worker.isdigit() else 47613)
    attacks = sorted(p for p in ATTACKS.glob("*.ipynb") if p.name not in APART)
    try:
        rows, results = _grade(tmp_path_factory.mktemp("sandboxed"), [*attacks, SOLUTION])
    finally:
        time.sleep(0.5)
        stop()
    return rows, results, heard


def test_attacks_earn_what_they_deserve_and_bystanders_keep_full_marks(graded):
    rows, results, _ = graded
    assert {name: float(row["score"]) for name, row in rows.items()} == DESERVED
    assert {row["sandboxed"] for row in rows.values()} == {"bubblewrap"}
    assert all(r["extra_data"]["isolation"] == "bubblewrap" for r in results.values())


def test_attacks_leave_nothing_behind(graded):
    _, _, heard = graded
    assert heard == [], "a submission reached a server on the grader's machine"
    assert _daemons() == [], "a process started by a submission outlived grading"


@pytest.mark.parametrize("name", sorted(STOPPED_BY))
def test_the_budget_of_the_whole_sandbox_stopped_each_hog(graded, name):
    rows, _, _ = graded
    held_by = confine.cgroups()  # the cgroup's paths, or why the grader metered instead
    assert STOPPED_BY[name] in rows[name]["reason"], f"budget: {held_by}; row: {rows[name]}"


def test_the_attacks_are_real_without_the_sandbox(sandboxed, tmp_path):
    rows, results = _grade(tmp_path, [ATTACKS / name for name in UNSANDBOXED], "--no-sandbox")
    assert {name: float(row["score"]) for name, row in rows.items()} == UNSANDBOXED
    assert {row["sandboxed"] for row in rows.values()} == {"none (--no-sandbox)"}
    assert not any(r["extra_data"]["sandboxed"] for r in results.values())
    assert all("WITHOUT a sandbox" in r["output"] for r in results.values())


def test_without_a_sandbox_grade_stops_and_says_how_to_go_on(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sandbox, "available", lambda: "bubblewrap (bwrap) is not installed")
    args = ["grade", str(SOLUTION), "--chapter", "01", "--csv", str(tmp_path / "g.csv")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "cannot sandbox" in err and "bwrap" in err
    assert not (tmp_path / "g.csv").exists()


@pytest.mark.parametrize(
    "line",
    [
        b"[" * 200_000 + b"]" * 200_000,  # nesting past Python's recursion limit
        b'{"nonce": "n", "event": "observed", "observed": "' + b"x" * (5 << 20) + b'"}',
        b"\xff\xfe not json",
        b'{"nonce": "other", "event": "done"}',
        b'{"nonce": "n", "event": "observed", "id": ["x"], "observed": {}}',
        b'{"nonce": "n", "event": "cell_error", "index": {"a": 1}, "error": "x"}',
    ],
    ids=["deep", "huge", "garbage", "wrong-nonce", "list-id", "dict-index"],
)
def test_the_parent_ignores_any_line_it_should_not_trust(line):
    from micrograd_edu.grading.batch import _parse

    assert _parse(line, "n") is None
    assert _parse(b'{"nonce": "n", "event": "done"}', "n") == {"nonce": "n", "event": "done"}
