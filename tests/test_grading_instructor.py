"""An exercise an instructor adds without editing the package: a solution notebook with
markers and a check file next to it; release, check() and grade all pick it up."""

import json
import os
import sys

import pytest

from micrograd_edu.course.cli import main
from micrograd_edu.grading import EXERCISES, check, instructor
from micrograd_edu.grading.notebook import code_cells, read_notebook
from micrograd_edu.grading.release import release

pytest.importorskip("resource")  # the batch grader is POSIX only

CHECKS = """import math
from micrograd_edu.grading.instructor import exercise


def cases(rng):
    return [(0.0,), (-30.0,), (30.0,), (800.0,)] + [(rng.uniform(-50, 50),) for _ in range(6)]


def right(args, got):
    (x,) = args
    want = max(x, 0.0) + math.log1p(math.exp(-abs(x)))
    if not isinstance(got, float) or not math.isfinite(got):
        return f"softplus({x:g}) returned {got!r}, not a finite number"
    return math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300) or f"softplus({x:g}) is off"


exercise(
    "11.softplus",
    title="softplus without overflow",
    points=2,
    function="softplus",
    cases=cases,
    check=right,
    hint="for a large x, log(1 + e^x) is x plus a small part",
)
"""
SOLVED = (
    "import math\n\n\ndef softplus(x):\n    ### BEGIN SOLUTION\n"
    "    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))\n    ### END SOLUTION\n"
)
NAIVE = "import math\n\n\ndef softplus(x):\n    return math.log(1 + math.exp(x))\n"


def _notebook(code: str) -> dict:
    cells = [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": "# Softplus"},
        {
            "cell_type": "code",
            "id": "softplus-code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": code,
        },  # fmt: skip
        {
            "cell_type": "code",
            "id": "softplus-check",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": 'check("11.softplus")',
        },  # fmt: skip
    ]
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}


@pytest.fixture
def fresh_registry():
    """The exercise is registered for the test only (other tests list every exercise)."""
    saved, loaded = dict(EXERCISES), dict(instructor._LOADED)
    yield
    EXERCISES.clear()
    EXERCISES.update(saved)
    instructor._LOADED.clear()
    instructor._LOADED.update(loaded)
    sys.modules.pop("micrograd_edu_checks.11_softplus", None)


def test_release_check_and_grade_pick_up_an_instructors_exercise(tmp_path, fresh_registry):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    (solutions / "11_softplus.ipynb").write_text(json.dumps(_notebook(SOLVED)))
    (solutions / "11_softplus.checks.py").write_text(CHECKS)
    # release grades the solution with the check file (full marks) and ships both
    changed = release(solutions, exercises)
    assert sorted(p.name for p in changed) == ["11_softplus.checks.py", "11_softplus.ipynb"]
    released = read_notebook(exercises / "11_softplus.ipynb")
    assert "raise NotImplementedError()" in "".join(code_cells(released))

    # check() in the student's notebook: the kernel runs in exercises/, next to the file
    EXERCISES.pop("11.softplus")
    instructor._LOADED.clear()
    here = os.getcwd()
    os.chdir(exercises)
    try:
        student: dict = {}
        exec(NAIVE, student)
        feedback = check("11.softplus", student)
    finally:
        os.chdir(here)
    assert not feedback.passed and "log(1 + e^x) is x plus a small part" in repr(feedback)

    # grade: honest and naive submissions, the check file loaded from --solutions
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "honest.ipynb").write_text(json.dumps(_notebook(SOLVED.replace("### ", "# "))))
    (subs / "naive.ipynb").write_text(json.dumps(_notebook(NAIVE)))
    out = tmp_path / "gradebook.csv"
    assert main(["grade", str(subs), "--solutions", str(solutions), "--csv", str(out)]) == 0
    import csv

    rows = {r["submission"]: r for r in csv.DictReader(open(out, newline=""))}
    assert rows["honest.ipynb"]["11.softplus"] == "2" and rows["honest.ipynb"]["chapter"] == "11"
    assert rows["naive.ipynb"]["11.softplus"] == "0"


def test_a_check_file_with_a_mistake_is_a_clear_error(tmp_path, fresh_registry):
    (tmp_path / "12_bad.checks.py").write_text(
        "from micrograd_edu.grading.instructor import exercise\n"
        "exercise('12.bad', title='x', points=0, function='f', cases=[], check=bool)\n"
    )
    with pytest.raises(ValueError, match="12_bad.checks.py: ValueError: 12.bad: points must be"):
        instructor.load_checks(tmp_path)
