"""The batch grader on wrong, broken and cheating submissions (tests/fixtures/grading)."""

import csv
import json
import os
import zipfile
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

from micrograd_edu.course.cli import main  # noqa: E402
from micrograd_edu.grading import batch, chapter, gradebook  # noqa: E402
from micrograd_edu.grading.gradescope import bundle  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "grading"
IDS = [
    "one_sided_difference",
    "second_difference",
    "extrapolated_difference",
    "numerical_gradient",
    "step_size",
]
FULL = {
    "one_sided_difference": 2,
    "second_difference": 2,
    "extrapolated_difference": 2,
    "numerical_gradient": 3,
    "step_size": 2,
}
NOTHING = dict.fromkeys(IDS, 0)


def losing(*names):
    return {k: (0 if k in names else v) for k, v in FULL.items()}


# Each submission loses exactly the points of what it broke.
EXPECTED = {
    "correct_but_different": FULL,
    "crash_in_function": losing("second_difference"),
    "crash_at_top_level": losing("step_size"),
    "infinite_loop_in_function": losing("numerical_gradient"),
    "infinite_loop_at_top_level": FULL,
    "sys_exit": losing("one_sided_difference"),
    "os_exit": losing("extrapolated_difference"),
    "memory_bomb": losing("numerical_gradient"),
    "syntax_error": losing("second_difference"),
    "not_a_notebook": NOTHING,
    "always_true_eq": losing("one_sided_difference", "second_difference"),
    "patched_check": NOTHING,
    "printed_passed": NOTHING,
    "fake_results_file": NOTHING,
    "monkeypatch_grader": NOTHING,
    "forged_messages": NOTHING,
    "imports_the_answer": losing("numerical_gradient"),
    "notebook_idioms": FULL,  # magics, display(), a pickled dataclass
    "wrong_one_sided_difference": losing("one_sided_difference"),
    "wrong_second_difference": losing("second_difference"),
    "wrong_extrapolated_difference": losing("extrapolated_difference"),
    "wrong_numerical_gradient": losing("numerical_gradient"),
    "wrong_step_size": losing("step_size"),
}

# Gradescope's documented results.json format, as a JSON schema.
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
GRADESCOPE_SCHEMA = {
    "type": "object",
    "required": ["score", "execution_time", "tests"],
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number", "minimum": 0},
        "output": {"type": "string"},
        "output_format": {"enum": ["text", "html", "simple_format", "md", "ansi"]},
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "score", "max_score", "status", "output", "visibility"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "number": {"type": "string"},
                    "score": {"type": "number"},
                    "max_score": {"type": "number"},
                    "status": {"enum": ["passed", "failed"]},
                    "output": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "visibility": VISIBILITY,
                    "extra_data": {"type": "object"},
                },
            },
        },
        "leaderboard": {"type": "array"},
    },
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("gradebook")
    code = main(
        [
            "grade",
            str(FIXTURES),
            str(ROOT / "solutions" / "01_numerical.ipynb"),
            str(ROOT / "exercises" / "01_numerical.ipynb"),
            "--chapter",
            "01",
            "--csv",
            str(out / "gradebook.csv"),
            "--gradescope",
            str(out / "results.json"),
            "--timeout",
            "2",
            "--workers",
            "2",
        ]
    )
    assert code == 0
    with open(out / "gradebook.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, json.loads((out / "results.json").read_text())


def test_every_submission_has_its_row(graded):
    rows, _ = graded
    names = [r["submission"] for r in rows]
    assert sorted(n for n in names if n != "01_numerical.ipynb") == sorted(
        f"{name}.ipynb" for name in EXPECTED
    )
    assert names.count("01_numerical.ipynb") == 2
    assert len({r["run"] for r in rows}) == 1


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_submission_loses_exactly_what_it_broke(graded, name):
    rows, _ = graded
    row = next(r for r in rows if r["submission"] == f"{name}.ipynb")
    got = {k: float(row[f"01.{k}"]) for k in IDS}
    assert got == EXPECTED[name], row["reason"]
    assert float(row["score"]) == sum(EXPECTED[name].values())
    assert float(row["max_score"]) == 11


def test_the_reason_for_a_broken_submission_is_in_its_row(graded):
    rows, _ = graded
    reasons = {r["submission"]: r["reason"] for r in rows}
    assert "time limit" in reasons["infinite_loop_in_function.ipynb"]
    assert "time limit" in reasons["infinite_loop_at_top_level.ipynb"]
    assert "os._exit" in reasons["os_exit.ipynb"]
    assert "SyntaxError" in reasons["syntax_error.ipynb"]
    assert "not a valid notebook" in reasons["not_a_notebook.ipynb"]
    assert "SystemExit" in reasons["sys_exit.ipynb"]


def test_solutions_grade_full_and_exercises_zero_without_errors(graded):
    rows, results = graded
    # without a roster a row is keyed by its file's path: the two notebooks have a row each
    solution, exercise = [
        next(r for r in rows if r["student"].endswith(f"{folder}/01_numerical.ipynb"))
        for folder in ("solutions", "exercises")
    ]
    assert float(solution["score"]) == 11 and solution["reason"] == ""
    assert float(exercise["score"]) == 0 and exercise["reason"] == ""


def test_results_json_follows_gradescopes_schema(graded):
    _, results = graded
    assert len(results) == len(EXPECTED) + 1  # two files share a name
    for result in results.values():
        jsonschema.validate(result, GRADESCOPE_SCHEMA)
    cheat = results["always_true_eq.ipynb"]
    assert cheat["score"] == 7 and "unsupported" not in json.dumps(cheat)


def test_one_submission_writes_one_gradescope_result(tmp_path):
    out = tmp_path / "results.json"
    assert (
        main(["grade", str(ROOT / "solutions" / "01_numerical.ipynb"), "--gradescope", str(out)])
        == 0
    )  # chapter from the functions the notebook defines
    result = json.loads(out.read_text())
    jsonschema.validate(result, GRADESCOPE_SCHEMA)
    # one test per check, their scores adding up to the total
    checks = [c for ex in chapter("01") for c in ex.checks]
    assert result["score"] == 11 and len(result["tests"]) == len(checks)
    assert [t["name"].split(": ", 1)[1] for t in result["tests"]] == [c.name for c in checks]
    assert sum(t["score"] for t in result["tests"]) == pytest.approx(11)
    assert all(t["status"] == "passed" and t["output"].startswith("✔") for t in result["tests"])


def test_checks_get_their_own_columns_and_gradescope_tests_that_add_up(tmp_path):
    # the precedence slip (/ h * h) fails the second difference's checks, each in a column
    # of its own that adds up to the exercise's score
    out, results = tmp_path / "g.csv", tmp_path / "results.json"
    wrong = FIXTURES / "wrong_second_difference.ipynb"
    args = ["grade", str(wrong), "--chapter", "01", "--checks", "--csv", str(out)]
    assert main([*args, "--gradescope", str(results)]) == 0
    with open(out, newline="") as f:
        (row,) = list(csv.DictReader(f))
    ex = next(e for e in chapter("01") if e.id == "01.second_difference")
    columns = [f"{ex.id}: {c.name}" for c in ex.checks]
    assert all(c in row for c in columns)
    assert sum(float(row[c]) for c in columns) == pytest.approx(float(row[ex.id]))
    tests = json.loads(results.read_text())["tests"]
    assert sum(t["score"] for t in tests) == pytest.approx(json.loads(results.read_text())["score"])
    mine = [t for t in tests if t["name"].startswith(ex.id)]
    assert [t["name"] for t in mine] == columns
    assert any(t["status"] == "failed" and "✘" in t["output"] for t in mine)


def test_an_interrupted_batch_keeps_every_finished_row(tmp_path):
    def interrupt(done, total):
        if done == 2:
            raise KeyboardInterrupt

    paths = [FIXTURES / f"wrong_{name}.ipynb" for name in IDS]
    with pytest.raises(KeyboardInterrupt) as stop:
        gradebook.grade_all(
            paths, chapter_number="01", csv_path=tmp_path / "g.csv", workers=1, progress=interrupt
        )
    with open(tmp_path / "g.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # the rows done, and the one being graded when the interrupt came, are whole; no other starts
    assert 2 <= len(rows) <= 3 and all(float(r["score"]) in (8, 9) for r in rows)
    assert len(stop.value.left) == len(paths) - len(rows)


def test_cheaters_cannot_learn_the_secret_seed_from_the_environment(monkeypatch, tmp_path):
    from micrograd_edu.grading import isolation, unprivileged, view

    plain = isolation._plain_env(str(tmp_path))
    for env in (view.ENV, plain, unprivileged.environment(tmp_path, "h")):
        assert not any("seed" in k.lower() or "nonce" in k.lower() for k in env)


def test_grade_needs_an_output_and_posix(monkeypatch, capsys):
    assert main(["grade", str(FIXTURES)]) == 2
    assert "--csv" in capsys.readouterr().err
    monkeypatch.setattr(os, "name", "nt")
    with pytest.raises(OSError, match="POSIX"):
        batch.require_posix()


def test_gradescope_bundle_holds_setup_run_and_the_package(tmp_path):
    path = bundle("01", tmp_path / "autograder.zip")
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        assert {"setup.sh", "run_autograder", "package/pyproject.toml"} <= names
        assert "package/micrograd_edu/grading/child.py" in names
        run = zf.read("run_autograder").decode()
        assert "--chapter 01" in run and '"$root/results/results.json"' in run
        assert "${AUTOGRADER:-/autograder}" in run and "--isolation auto" in run
        assert zf.getinfo("run_autograder").external_attr >> 16 & 0o111
    with pytest.raises(KeyError, match="chapters with exercises"):
        bundle("42", tmp_path / "x.zip")
    assert main(["gradescope-bundle", "01", "-o", str(tmp_path / "y.zip")]) == 0


def test_a_fault_in_the_grader_costs_one_row_not_the_batch(monkeypatch, tmp_path):
    real = batch.grade_submission

    def flaky(path, *args, **kwargs):
        if "second" in str(path):
            raise RuntimeError("grader bug")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(gradebook, "grade_submission", flaky)
    paths = [FIXTURES / "wrong_second_difference.ipynb", FIXTURES / "wrong_step_size.ipynb"]
    rows = gradebook.grade_all(paths, chapter_number="01", csv_path=tmp_path / "g.csv")
    assert [r.score for r in rows] == [0, 9] and "grader bug" in rows[0].reason
    assert rows[0].max_score == 11


def test_a_notebook_of_endless_cells_costs_one_limit_in_one_process(tmp_path):
    cells = [
        {
            "cell_type": "code",
            "id": str(i),
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "while True:\n    pass",
        }
        for i in range(9)
    ]
    path = tmp_path / "loops.ipynb"
    path.write_text(
        json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})
    )
    exercises = gradebook.chapter("01")[:1]
    limits = batch.Limits(timeout=0.4, isolation="none")
    row = batch.grade_submission(path, exercises, "seed", limits)
    # The cells share one limit of CPU time, which the child's own alarm enforces: the
    # first loop uses it up, the others are not run, and no process is killed for it.
    assert row.score == 0 and len(row.notes) == 9, row.notes
    assert row.notes[0] == "code cell 1: ran past the 0.4 s time limit"
    assert all(note.endswith("not run: the cells used up 0.4 s") for note in row.notes[1:])


def test_a_notebook_of_no_known_chapter_gets_a_row_saying_so(tmp_path):
    path = tmp_path / "homework.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}))
    (row,) = gradebook.grade_all([path], csv_path=tmp_path / "g.csv")
    assert row.max_score == 0 and "--chapter" in row.reason


def test_the_command_line_limits_default_to_the_graders(monkeypatch, tmp_path):
    from micrograd_edu.grading.time_limit import EXERCISE_SECONDS

    seen = []
    monkeypatch.setattr(gradebook, "grade_all", lambda *a, limits, **k: seen.append(limits) or [])
    out = str(tmp_path / "g.csv")
    assert main(["grade", str(tmp_path), "--csv", out]) == 0
    assert main(["grade", str(tmp_path), "--csv", out, "--timeout", "2", "--memory", "512"]) == 0
    # the batch grader stops what the in-notebook check stops, unless told otherwise
    assert seen[0] == batch.Limits() and seen[0].timeout == EXERCISE_SECONDS
    assert seen[1] == batch.Limits(timeout=2.0, memory_mb=512)


def test_the_chapter_comes_from_the_functions_a_notebook_defines_not_its_metadata(tmp_path):
    # A student who edits the metadata to pick an easier chapter is graded on the chapter
    # whose functions the notebook defines, and the row says what the metadata claimed.
    nbformat = pytest.importorskip("nbformat")
    solution = nbformat.read(ROOT / "solutions" / "01_numerical.ipynb", as_version=4)
    solution.metadata["micrograd_edu"] = {"chapter": "05"}
    claims_05 = tmp_path / "homework.ipynb"
    nbformat.write(solution, claims_05)
    nothing = tmp_path / "05_empty.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), nothing)
    limits = batch.Limits(timeout=60, isolation="none")
    graded, empty = gradebook.grade_all([claims_05, nothing], limits=limits)
    assert {r.id[:2] for r in graded.results} == {"01"}
    assert graded.score == graded.max_score > 0
    assert "graded as chapter 01" in graded.reason and "metadata says chapter 05" in graded.reason
    assert empty.results == [] and "cannot tell which chapter" in empty.reason
