"""Written answers: one page per question for marking by hand, and marks merged into
the gradebook without touching anything else (and kept through a regrade)."""

import csv
import json
import shutil
from pathlib import Path

import pytest

from micrograd_edu.course.cli import main
from micrograd_edu.grading.notebook import dumps, read_notebook
from micrograd_edu.grading.release import release

pytest.importorskip("resource")  # the batch grader is POSIX only

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "**Question.** Why is the central difference more accurate than the forward one?"
ROSTER = 'Student,ID\n"Lee, Ann",104233\n"Chen, Bo",104234\n"Park, Cy",104235\n"Diaz, Dee",104236\n'


def _answered(exercise: Path, text: str | None, untag: bool = False) -> dict:
    nb = read_notebook(exercise)
    cell = next(c for c in nb["cells"] if c.get("id") == "why-central")
    if text is not None:
        cell["source"] = f"{QUESTION}\n\n{text}\n"
    if untag:  # a student who wiped the cell's metadata: found by its id
        cell["metadata"] = {}
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    (root / "solutions").mkdir()
    nb = read_notebook(ROOT / "solutions" / "01_numerical.ipynb")
    tag = {"micrograd_edu": {"written": "01.why_central", "points": 2}}
    model = "### BEGIN SOLUTION\nIts odd error terms cancel: O(h²), not O(h).\n### END SOLUTION\n"
    nb["cells"].insert(5, {"cell_type": "markdown", "id": "why-central", "metadata": tag,
                           "source": f"{QUESTION}\n\n{model}"})  # fmt: skip
    (root / "solutions" / "01_numerical.ipynb").write_text(dumps(nb), encoding="utf-8")
    release(root / "solutions", root / "exercises", grade=False)
    exercise = root / "exercises" / "01_numerical.ipynb"
    subs = root / "subs"
    subs.mkdir()
    answers = {
        "leeann_104233_1_01.ipynb": _answered(
            exercise, "The odd terms of the Taylor series cancel."
        ),
        "chenbo_104234_2_01.ipynb": _answered(exercise, "Symmetry <script>alert(1)</script>"),
        "parkcy_104235_3_01.ipynb": _answered(exercise, "It averages both sides.", untag=True),
        "diazdee_104236_4_01.ipynb": _answered(exercise, None),  # left as released
    }
    for name, notebook in answers.items():
        (subs / name).write_text(json.dumps(notebook), encoding="utf-8")
    (root / "roster.csv").write_text(ROSTER)
    book = root / "gradebook.csv"
    grade = ["grade", str(subs), "--chapter", "01", "--roster", str(root / "roster.csv")]
    assert main([*grade, "--csv", str(book)]) == 0
    written = ["written", str(subs), "--chapter", "01", "--roster", str(root / "roster.csv")]
    assert (
        main([*written, "--solutions", str(root / "solutions"), "--out", str(root / "marking")])
        == 0
    )
    return root


def test_release_keeps_the_question_and_its_tag_and_hides_the_model_answer(course):
    cell = next(
        c for c in read_notebook(course / "exercises" / "01_numerical.ipynb")["cells"]
        if c.get("id") == "why-central"
    )  # fmt: skip
    assert "YOUR ANSWER HERE" in "".join(cell["source"]) and "cancel" not in "".join(cell["source"])
    assert cell["metadata"]["micrograd_edu"]["written"] == "01.why_central"


def test_one_page_per_question_with_every_answer_escaped(course):
    page = (course / "marking" / "01.why_central.html").read_text()
    assert "Its odd error terms cancel" in page  # the model answer, for the marker
    assert "The odd terms of the Taylor series cancel." in page
    assert "It averages both sides." in page  # found by the cell's id
    assert "&lt;script&gt;" in page and "<script>" not in page
    assert page.count("<h3>") == 4 and "(no answer)" in page and "Answers (3 of 4)" in page


def _rows(path: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(open(path, newline=""))}


def _fill(course: Path, marks: dict[str, str], name: str) -> Path:
    sheet = list(csv.DictReader(open(course / "marking" / "marks_01.csv", newline="")))
    for line in sheet:
        line["mark"] = marks.get(line["student"], "")
    path = course / name
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(sheet[0]))
        writer.writeheader()
        writer.writerows(sheet)
    return path


def test_marks_merge_into_their_rows_and_nothing_else_changes(course, tmp_path):
    book = tmp_path / "gradebook.csv"
    shutil.copy(course / "gradebook.csv", book)
    before = _rows(book)
    sheet = _fill(course, {"104233": "2", "104234": "1.5"}, "marks_a.csv")
    assert main(["marks", str(sheet), "--csv", str(book)]) == 0
    after = _rows(book)
    column = "01.why_central (written /2)"
    assert (after["104233"][column], after["104234"][column], after["104235"][column]) == (
        "2",
        "1.5",
        "",
    )
    assert (after["104233"]["raw_score"], after["104233"]["max_score"]) == ("2", "13")
    assert after["104235"] == {**before["104235"], column: ""}  # not marked yet: as it was
    changed = {column, "score", "raw_score", "max_score", "regraded"}
    for student in ("104233", "104234"):
        assert {c: v for c, v in after[student].items() if c not in changed} == {
            c: v for c, v in before[student].items() if c not in changed
        }
    # a regrade of Ann keeps her mark, and the points it adds
    regrade = ["grade", str(course / "subs" / "leeann_104233_1_01.ipynb"), "--chapter", "01"]
    assert main([*regrade, "--roster", str(course / "roster.csv"), "--csv", str(book)]) == 0
    ann = _rows(book)["104233"]
    assert (ann[column], ann["max_score"], ann["seed"] != after["104233"]["seed"]) == (
        "2",
        "13",
        True,
    )


def test_a_mark_out_of_range_is_refused_by_line_and_nothing_is_merged(course, tmp_path, capsys):
    book = tmp_path / "gradebook.csv"
    shutil.copy(course / "gradebook.csv", book)
    text = book.read_text()
    sheet = _fill(course, {"104233": "3", "104234": "good"}, "marks_b.csv")
    assert main(["marks", str(sheet), "--csv", str(book)]) == 1
    err = capsys.readouterr().err
    assert "mark 3 is not from 0 to 2" in err and "'good' (out of 2) is not a number" in err
    assert book.read_text() == text
