"""Chapters 08 and 09 in the batch grader: each solution notebook earns full marks, and the
generated exercise notebook earns 0, neither with an error (each in its own process); and
every committed notebook is clean."""

import csv
import json
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


NOTEBOOKS = sorted(
    path.relative_to(ROOT).as_posix()
    for folder in ("notebooks", "solutions", "exercises")
    for path in (ROOT / folder).glob("*.ipynb")
)


@pytest.mark.parametrize("relative", NOTEBOOKS)
def test_every_committed_notebook_is_clean(relative):
    # no outputs or execution counts (diffs stay reviewable), python3 kernel, unique cell ids
    nb = json.loads((ROOT / relative).read_text(encoding="utf-8"))
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    ids = [cell.get("id") for cell in nb["cells"]]
    assert all(ids) and len(set(ids)) == len(ids)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
