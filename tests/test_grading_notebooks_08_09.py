"""Chapters 08 and 09 in the batch grader: each solution notebook earns full marks, and the
generated exercise notebook earns 0, neither with an error (each in its own process)."""

import csv
from pathlib import Path

import pytest

from micrograd_edu.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["08_modules", "09_mlp"])
def test_solution_grades_full_and_exercise_zero_without_errors(tmp_path, name):
    pytest.importorskip("resource")  # the batch grader is POSIX only
    out = tmp_path / "gradebook.csv"
    notebooks = [str(ROOT / folder / f"{name}.ipynb") for folder in ("solutions", "exercises")]
    # A generous time limit: tests assert no wall-clock times, and a loaded CI machine may run
    # 09.train_model's two trainings (about a second on a quiet one) well past the default 10 s.
    limits = ["--timeout", "60", "--workers", "2"]
    assert main(["grade", *notebooks, "--csv", str(out), *limits]) == 0
    with open(out, newline="") as f:
        solution, student = list(csv.DictReader(f))
    assert float(solution["score"]) == float(solution["max_score"]) > 0, solution["reason"]
    assert float(student["score"]) == 0
    assert solution["reason"] == student["reason"] == ""
