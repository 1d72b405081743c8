"""Every chapter's notebooks in the batch grader: each solution notebook earns full marks,
and the generated exercise notebook earns 0 as "not attempted", neither with an error
(each in its own process). Chapter 01's pair is graded with the fixtures in
test_grading_batch.py."""

from pathlib import Path

import pytest

from micrograd_edu.grading import batch, chapter, gradebook

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(p.stem for p in (ROOT / "solutions").glob("*.ipynb") if p.stem[:2] != "01")


def test_every_chapter_after_01_is_covered():
    assert [name[:2] for name in NAMES] == [f"{n:02d}" for n in range(2, 11)]


@pytest.mark.parametrize("name", NAMES)
def test_solution_grades_full_and_exercise_zero_without_errors(tmp_path, name):
    pytest.importorskip("resource")  # the batch grader is POSIX only
    paths = [ROOT / folder / f"{name}.ipynb" for folder in ("solutions", "exercises")]
    # A generous time limit: tests assert no wall-clock times, and a loaded CI machine may run
    # 09.train_model's two trainings (about a second on a quiet one) well past the default 10 s.
    limits = batch.Limits(timeout=60)
    solution, released = gradebook.grade_all(paths, csv_path=tmp_path / "g.csv", limits=limits)
    points = sum(e.points for e in chapter(name[:2]))
    assert solution.score == solution.max_score == points > 0, solution.reason
    assert released.score == 0 and released.max_score == points
    for row, want in ((solution, "passed"), (released, "not attempted")):
        assert not row.notes and row.reason == "", (row.submission, row.reason)
        assert all(r.status == want for r in row.results), (row.submission, row.results)
