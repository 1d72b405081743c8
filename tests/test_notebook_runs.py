"""Every notebook, run once (tests/notebook_runs.py), and what each run must show.

* Lectures, solutions and exercises run top to bottom without an error: every number a
  notebook claims is checked by an ``assert`` in it, so a wrong result fails here too.
* One verdict (issue 11): a notebook's own ``check(...)`` and the batch grader give the
  same result on the same submission, every check of every exercise (passed or not, its
  score and its hint). The batch grader runs the notebook in its sandboxed child, with
  the public seed the notebook's ``check`` uses; over every solution and exercise notebook
  and every chapter-01 fixture that a kernel runs to the end.
* In the batch grader, which finds the chapter from the functions a notebook defines, each
  solution earns full marks and its released exercise 0 as "not attempted", neither with
  an error; each solution earns full marks on the cases of another seed too, drawn anew
  each run (the batch grader's seeds are secret).
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from notebook_runs import label, run

from micrograd_edu.grading import batch, chapter, gradebook
from micrograd_edu.grading.feedback import PUBLIC_SEED

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "grading"
LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))
# The fixtures that a kernel runs to the end (the others crash it, loop, exit or attack
# the grader: test_grading_batch.py and test_grading_sandbox.py grade those).
HONEST = [
    FIXTURES / f"{name}.ipynb"
    for name in [
        "correct_but_different",
        "notebook_idioms",
        "crash_in_function",
        "wrong_extrapolated_difference",
        "wrong_numerical_gradient",
        "wrong_one_sided_difference",
        "wrong_second_difference",
        "wrong_step_size",
    ]
]
OTHER_SEED = secrets.token_hex(8)


def _params(paths: list[Path]) -> list:
    """One test per notebook, in its notebook's xdist group: one worker runs the notebook
    once for all its tests (the lectures share one group with the browser's look at them,
    tests/test_viz_browser.py)."""
    return [
        pytest.param(
            path,
            id=label(path),
            marks=pytest.mark.xdist_group("lectures" if path in LECTURES else label(path)),
        )
        for path in paths
    ]


def _chapter(path: Path) -> str | None:
    return None if path in LECTURES else "01" if path.parent == FIXTURES else path.name[:2]


def _run(path: Path):
    """The notebook's one run: a chapter's is checked in the kernel at its end, a
    solution's on another seed too."""
    return run(path, _chapter(path), OTHER_SEED if path in SOLUTIONS else None)


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """The batch grader's row for a notebook, graded once, with the public seed."""
    rows = {}

    def row(path: Path) -> batch.Row:
        if path not in rows:
            (rows[path],) = gradebook.grade_all(
                [path],
                csv_path=tmp_path_factory.mktemp("gradebook") / "g.csv",
                # generous: tests assert no wall-clock times, and a loaded machine may run
                # 09.train_model's two trainings (about a second alone) well past 10 s
                limits=batch.Limits(timeout=60),
                seed=PUBLIC_SEED,
            )
        return rows[path]

    pytest.importorskip("resource")  # the batch grader is POSIX only
    return row


@pytest.mark.parametrize("path", _params(LECTURES + SOLUTIONS + EXERCISES))
def test_runs_top_to_bottom_without_an_error(path):
    errors = _run(path).errors
    assert not errors, "\n\n".join(errors)


@pytest.mark.parametrize("path", _params(SOLUTIONS + EXERCISES + HONEST))
def test_the_notebook_and_the_batch_grader_give_one_verdict(path, graded):
    done = _run(path)
    assert done.report is not None, f"the check cell printed no report: {done.no_report}"
    notebook = done.report["public"]
    row = graded(path)
    in_batch = {
        r.id: [[c.name, c.passed, round(c.score, 6), c.hint] for c in r.checks] for r in row.results
    }
    assert in_batch.keys() == notebook.keys(), row.reason
    for exercise_id, checks in notebook.items():
        if not in_batch[exercise_id]:  # not attempted: the batch reports no checks at all
            assert not any(passed for _, passed, _, _ in checks), (exercise_id, checks)
            continue
        assert in_batch[exercise_id] == checks, exercise_id


@pytest.mark.parametrize("path", _params(SOLUTIONS + EXERCISES))
def test_solution_grades_full_and_exercise_zero_without_errors(path, graded):
    row = graded(path)
    number = path.name[:2]
    points = sum(e.points for e in chapter(number))
    assert row.chapter == number and points > 0, (row.chapter, row.reason)
    assert not row.notes and row.reason == "", row.reason
    if path in SOLUTIONS:
        assert row.score == row.max_score == points
        assert all(r.status == "passed" for r in row.results), row.results
    else:
        assert row.score == 0 and row.max_score == points
        assert all(r.status == "not attempted" for r in row.results), row.results


@pytest.mark.parametrize("path", _params(SOLUTIONS))
def test_solution_passes_every_check_on_another_seed(path):
    done = _run(path)
    assert done.report is not None, f"the check cell printed no report: {done.no_report}"
    failed = {
        exercise_id: [check for check in checks if not check[1]]
        for exercise_id, checks in done.report["other"].items()
        if not all(check[1] for check in checks)
    }
    assert not failed, f"on seed {OTHER_SEED!r}: {failed}"
    assert done.report["other"].keys() == {e.id for e in chapter(path.name[:2])}


def test_every_chapter_has_its_lecture_solution_and_exercise():
    chapters = [f"{n:02d}" for n in range(1, 11)]
    assert [p.name[:2] for p in LECTURES] == ["00", *chapters]
    assert [p.name[:2] for p in SOLUTIONS] == [p.name[:2] for p in EXERCISES] == chapters
    assert all(p.is_file() for p in HONEST)
