"""A semester's routine on a real roster: files named as LMS downloads name them, a late
policy, the gradebook kept as a record through regrades, Canvas derived from all of it.

One class is graded once (module fixture: six notebooks, two at a time); each test that
regrades works on a copy of that gradebook."""

import csv
import io
import os
import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest

import micrograd_edu
from micrograd_edu.course.cli import main
from micrograd_edu.grading import isolation

pytest.importorskip("resource")  # the batch grader is POSIX only

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "01_numerical.ipynb"
STUB = ROOT / "exercises" / "01_numerical.ipynb"
FIXTURES = ROOT / "tests" / "fixtures" / "grading"
ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section
Points Possible,,,,
"Lee, Ann",104233,S1,alee,A
"Chen, Bo",104234,S2,bchen,A
"Park, Cy",104235,S3,cpark,B
"Diaz, Dee",104236,S4,ddiaz,B
"Evans, Eli",104237,S5,eevans,B
"Fox, Fay",104238,S6,ffox,B
"""
LATE = """timezone = "UTC"
percent_per_day = 10
max_percent = 50
[due]
01 = 2026-02-06T23:59:00
"""
# where each file comes from, and the time it was last written (None: now)
CLASS = {
    "leeann_104233_5551_01_numerical.ipynb": (SOLUTION, None),  # Canvas
    "Bo Chen_77_assignsubmission_file_/01_numerical.ipynb": (  # Moodle: the name only
        FIXTURES / "wrong_second_difference.ipynb",
        None,
    ),
    "01_numerical_104235 (1) LATE.ipynb": (SOLUTION, "2026-02-08T12:00:00"),  # renamed, late
    "parkcy_104235_5553_02_symbolic.ipynb": (ROOT / "solutions" / "02_symbolic.ipynb", None),
    "diazdee_104236_5554_01_numerical.ipynb": (FIXTURES / "wrong_step_size.ipynb", "2026-02-05"),
    "diazdee_104236_5555_01_numerical-1.ipynb": (SOLUTION, "2026-02-06"),  # the newer
    '=HYPERLINK("http://x")_104237.ipynb': (STUB, None),  # a formula for a name
    "stranger_01_numerical.ipynb": (SOLUTION, None),  # nobody in the roster
}


def _stamp(path: Path, when: str | None) -> None:
    if when:
        moment = datetime.fromisoformat(when + ("+00:00" if "T" in when else "T12:00:00+00:00"))
        os.utime(path, (moment.timestamp(), moment.timestamp()))


def _rows(path: Path) -> dict[tuple[str, str, str], dict]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {
        (r["student"], r["chapter"], r["submission"] if not r["student"] else ""): r for r in rows
    }


def _canvas(path: Path) -> dict[str, list[str]]:
    with open(path, newline="") as f:
        return {row[1]: row[5:] for row in csv.reader(f)}


def _grade(folder: Path, *args: str) -> int:
    common = ["--roster", str(folder / "roster.csv"), "--csv", str(folder / "gradebook.csv")]
    return main(["grade", *args, *common, "--canvas", str(folder / "canvas.csv")])


@pytest.fixture(scope="module")
def semester(tmp_path_factory):
    folder = tmp_path_factory.mktemp("semester")
    (folder / "roster.csv").write_text(ROSTER)
    (folder / "late.toml").write_text(LATE)
    for name, (source, when) in CLASS.items():
        path = folder / "submissions" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, path)
        _stamp(path, when)
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        code = _grade(
            folder,
            str(folder / "submissions"),
            "--chapter",
            "01",
            "--late",
            str(folder / "late.toml"),
        )
    assert code == 0
    return folder, out.getvalue()


def test_every_file_lands_in_its_students_row(semester):
    folder, _ = semester
    rows = _rows(folder / "gradebook.csv")
    score = {k[0]: float(r["score"]) for k, r in rows.items() if k[0]}
    assert score == {"104233": 11, "104234": 9, "104235": 8.8, "104236": 11, "104237": 0}
    assert rows["104234", "01", ""]["submission"].startswith("Bo Chen_77_assignsubmission_file_/")
    # parallel honest grading: nothing ran out of time
    assert not any("time limit" in r["reason"] for r in rows.values())


def test_an_lms_renamed_late_file_is_matched_and_its_penalty_kept_beside_the_raw_score(semester):
    folder, _ = semester
    cy = _rows(folder / "gradebook.csv")["104235", "01", ""]
    assert cy["submission"] == "01_numerical_104235 (1) LATE.ipynb"
    assert (cy["raw_score"], cy["late_days"], cy["penalty"], cy["score"]) == (
        "11",
        "2",
        "20",
        "8.8",
    )
    assert cy["submitted"].startswith("2026-02-08T12:00:00") and "2 day(s), 20% off" in cy["reason"]
    ann = _rows(folder / "gradebook.csv")["104233", "01", ""]
    assert (ann["late_days"], ann["penalty"], ann["score"]) == ("0", "0", "11")


def test_another_chapters_notebook_is_not_graded_as_this_one(semester):
    folder, _ = semester
    cy = _rows(folder / "gradebook.csv")["104235", "01", ""]
    # Cy's chapter-02 notebook, handed in for 01 as well, is named, not graded as 01
    assert "parkcy_104235_5553_02_symbolic.ipynb (chapter 02's notebook)" in cy["reason"]


def test_two_files_for_one_student_are_reported_and_the_newest_counts(semester):
    folder, _ = semester
    dee = _rows(folder / "gradebook.csv")["104236", "01", ""]
    assert dee["submission"] == "diazdee_104236_5555_01_numerical-1.ipynb" and dee["score"] == "11"
    assert "diazdee_104236_5554_01_numerical.ipynb (older)" in dee["reason"]


def test_an_unmatched_file_is_a_listed_error_not_a_silent_zero(semester):
    folder, printed = semester
    rows = _rows(folder / "gradebook.csv")
    stranger = rows["", "01", "stranger_01_numerical.ipynb"]
    assert "not matched to a student in the roster" in stranger["reason"]
    assert stranger["score"] == "11"  # graded all the same, for the instructor to assign
    assert "stranger_01_numerical.ipynb" in printed and "not matched" in printed


def test_each_row_records_how_it_was_made(semester):
    folder, _ = semester
    for row in _rows(folder / "gradebook.csv").values():
        assert datetime.fromisoformat(row["graded_at"]).tzinfo is not None
        assert row["version"] == micrograd_edu.__version__ and row["chapter"] == "01"
        assert re.fullmatch(r"[0-9a-f]{32}", row["seed"])
        assert row["sandboxed"] in (isolation.BUBBLEWRAP, isolation.USER, isolation.NONE)


def test_a_file_name_never_reaches_the_gradebook_as_a_formula(semester):
    folder, _ = semester
    text = (folder / "gradebook.csv").read_text()
    assert not re.search(r"(^|,)\"?[=+\-@]", text, re.MULTILINE), "a cell starts a formula"
    eli = _rows(folder / "gradebook.csv")["104237", "01", ""]
    assert eli["submission"].startswith("'=HYPERLINK")


def test_canvas_is_derived_from_the_gradebook(semester):
    folder, printed = semester
    canvas = _canvas(folder / "canvas.csv")
    assert canvas["ID"] == ["micrograd_edu chapter 01"] and canvas[""] == ["11"]
    scores = {k: v[0] for k, v in canvas.items() if k.startswith("1042")}
    assert scores == {
        "104233": "11",
        "104234": "9",
        "104235": "8.8",
        "104236": "11",
        "104237": "0",
        "104238": "0",
    }
    assert "Fox, Fay (104238): no row for chapter 01" in printed


@pytest.fixture
def copy(semester, tmp_path):
    folder, _ = semester
    for name in ("roster.csv", "late.toml", "gradebook.csv", "canvas.csv"):
        shutil.copy(folder / name, tmp_path / name)
    return tmp_path


def test_regrading_one_student_leaves_every_other_row_and_canvas_score_as_it_was(copy, capsys):
    before, canvas_before = _rows(copy / "gradebook.csv"), _canvas(copy / "canvas.csv")
    text_before = (copy / "gradebook.csv").read_text()
    fixed = copy / "fixed" / "01_numerical_104234 (1).ipynb"  # Bo's corrected file, by e-mail
    fixed.parent.mkdir()
    shutil.copy(SOLUTION, fixed)
    assert _grade(copy, str(fixed), "--chapter", "01") == 0
    after, canvas_after = _rows(copy / "gradebook.csv"), _canvas(copy / "canvas.csv")
    assert after.keys() == before.keys()
    assert {k: r for k, r in after.items() if k[0] != "104234"} == {
        k: r for k, r in before.items() if k[0] != "104234"
    }
    assert after["104234", "01", ""]["score"] == "11"
    assert after["104234", "01", ""]["seed"] != before["104234", "01", ""]["seed"]
    assert {k: v for k, v in canvas_after.items() if k != "104234"} == {
        k: v for k, v in canvas_before.items() if k != "104234"
    }
    assert canvas_after["104234"] == ["11"]
    # the gradebook as it was is kept beside it
    (backup,) = copy.glob("gradebook.csv.*.bak")
    assert backup.read_text() == text_before


def test_regrading_one_exercise_for_everyone_changes_only_its_cells(semester, copy):
    folder, _ = semester
    rows = list(csv.DictReader(open(copy / "gradebook.csv", newline="")))
    for row in rows:  # as if an old grader had judged step_size wrongly
        row["01.step_size"], row["score"] = "0", str(float(row["score"]) - 1)
    with open(copy / "gradebook.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    before = _rows(copy / "gradebook.csv")
    args = [
        str(folder / "submissions"),
        "--exercise",
        "01.step_size",
        "--late",
        str(copy / "late.toml"),
    ]
    assert _grade(copy, *args) == 0
    after = _rows(copy / "gradebook.csv")
    totals = {"01.step_size", "score", "raw_score", "max_score", "regraded", "reason"}
    for k, row in after.items():
        assert {c: v for c, v in row.items() if c not in totals} == {
            c: v for c, v in before[k].items() if c not in totals
        }, k
        assert "01.step_size: at " in row["regraded"]
    assert (
        after["104233", "01", ""]["01.step_size"] == "2"
        and after["104233", "01", ""]["score"] == "11"
    )
    assert after["104235", "01", ""]["score"] == "8.8"  # the late penalty applies to the new total
    assert after["104234", "01", ""]["seed"] == before["104234", "01", ""]["seed"]


def test_without_chapter_each_notebook_lands_in_its_own_chapters_row_and_column(copy):
    bo = copy / "bo"
    bo.mkdir()
    shutil.copy(ROOT / "exercises" / "02_symbolic.ipynb", bo / "chenbo_104234_7_hw.ipynb")
    assert _grade(copy, str(bo)) == 0
    rows = _rows(copy / "gradebook.csv")
    assert rows["104234", "02", ""]["score"] == "0" and rows["104234", "01", ""]["score"] == "9"
    canvas = _canvas(copy / "canvas.csv")
    assert canvas["ID"] == ["micrograd_edu chapter 02"] and canvas["104234"] == ["0"]


def test_a_csv_that_is_not_a_gradebook_is_never_merged_into(tmp_path, capsys):
    (tmp_path / "roster.csv").write_text(ROSTER)
    target = tmp_path / "gradebook.csv"
    shutil.copy(tmp_path / "roster.csv", target)
    code = main(["grade", str(STUB), "--chapter", "01", "--csv", str(target)])
    assert code == 2 and "not a gradebook" in capsys.readouterr().err
    assert target.read_text() == ROSTER
