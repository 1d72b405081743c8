"""Hostile submissions against the sandbox (tests/fixtures/sandbox): each attack earns nothing
for what it tried, leaves no process and no trace behind, and the batch completes with every
honest row at full marks. Where bubblewrap cannot run these tests skip with the reason; under
CI (``CI`` set) they fail instead."""

import csv
import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from micrograd_edu.course.cli import main
from micrograd_edu.grading import sandbox

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "fixtures" / "sandbox"
SOLUTION = ROOT / "solutions" / "01_numerical.ipynb"
FULL = 11.0
MARKER = b"micrograd-edu-daemon-marker"
EXPECTED = {
    "reads_the_solutions.ipynb": 0.0,  # stubs: the solutions are not on its disk
    "finds_the_grader.ipynb": 0.0,  # stubs: the grader's process is not in its /proc
    "kills_the_grader.ipynb": FULL,  # honest answers; the signals reach nothing
    "outlives_the_grader.ipynb": FULL,
    "phones_home.ipynb": FULL,
    "evaluates_f_uncounted.ipynb": FULL - 0.75,  # the grader counted 6n calls of f: not O(n)
    "01_numerical.ipynb": FULL,
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


def _grade(out: Path, *paths: Path, extra: tuple = ()) -> tuple[dict, dict]:
    csv_path, json_path = out / "gradebook.csv", out / "results.json"
    args = ["grade", *map(str, paths), "--chapter", "01", "--csv", str(csv_path)]
    code = main([*args, "--gradescope", str(json_path), "--timeout", "3", *extra])
    assert code == 0
    with open(csv_path, newline="") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    return rows, json.loads(json_path.read_text())


def test_attacks_earn_nothing_and_leave_nothing_behind(sandboxed, tmp_path):
    heard, stop = _listen(47613)
    try:
        rows, results = _grade(tmp_path, ATTACKS, SOLUTION)
    finally:
        time.sleep(0.5)
        stop()
    assert {name: float(row["score"]) for name, row in rows.items()} == EXPECTED
    assert {row["sandboxed"] for row in rows.values()} == {"bubblewrap"}
    assert all(r["extra_data"]["isolation"] == "bubblewrap" for r in results.values())
    assert heard == [], "a submission reached a server on the grader's machine"
    assert _daemons() == [], "a process started by a submission outlived grading"


def test_the_attacks_are_real_without_the_sandbox(sandboxed, tmp_path):
    # The same two notebooks, graded with --no-sandbox, take the answers they look for:
    # what stops them above is the sandbox, not a quirk of the fixtures.
    attacks = [ATTACKS / "reads_the_solutions.ipynb", ATTACKS / "finds_the_grader.ipynb"]
    rows, results = _grade(tmp_path, *attacks, extra=("--no-sandbox",))
    assert {float(row["score"]) for row in rows.values()} == {FULL}
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
