"""grade --roster --canvas writes what Canvas imports; --feedback writes one page each."""

import csv
import shutil
from pathlib import Path

from micrograd_edu.course.cli import main

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "grading"


def test_canvas_gradebook_and_feedback_pages(tmp_path, capsys):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copy(ROOT / "solutions" / "01_numerical.ipynb", submissions / "ann.ipynb")
    shutil.copy(FIXTURES / "wrong_second_difference.ipynb", submissions / "bo.ipynb")
    shutil.copy(FIXTURES / "crash_in_function.ipynb", submissions / "stranger.ipynb")
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "submission,Student,ID,SIS User ID,SIS Login ID,Section\n"
        'ann.ipynb,"Lee, Ann",101,s101,ann,A\n'
        "bo.ipynb,Bo Chen,102,s102,bo,A\n"
        "cy.ipynb,Cy Park,103,s103,cy,B\n"
    )
    canvas, pages, book = tmp_path / "canvas.csv", tmp_path / "feedback", tmp_path / "g.csv"
    args = [
        "grade",
        str(submissions),
        "--chapter",
        "01",
        "--roster",
        str(roster),
        "--csv",
        str(book),
    ]
    assert main([*args, "--canvas", str(canvas), "--feedback", str(pages)]) == 0
    out = capsys.readouterr().out
    assert "not in the roster" in out and "stranger.ipynb" in out  # named, not lost
    assert "no submission" in out and "Cy Park" in out
    rows = list(csv.reader(canvas.open(newline="")))
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "micrograd_edu chapter 01"]
    assert rows[0] == header
    assert rows[1] == ["Points Possible", "", "", "", "", "11"]
    scores = {r[0]: r[5] for r in rows[2:]}
    assert scores["Lee, Ann"] == "11" and scores["Cy Park"] == "0"
    assert 0 < float(scores["Bo Chen"]) < 10
    # a page per student, named by their roster ID (by the file's name for a stranger)
    assert sorted(p.name for p in pages.iterdir()) == ["101.html", "102.html", "stranger.html"]
    page = (pages / "102.html").read_text()
    assert "second_difference" in page and "Hint:" in page and "/11 points" in page


def test_a_roster_without_the_columns_it_needs_is_refused(tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("file,name\nann.ipynb,Ann\n")
    args = ["grade", str(FIXTURES / "sys_exit.ipynb"), "--chapter", "01"]
    book = ["--csv", str(tmp_path / "g.csv")]
    assert main([*args, "--roster", str(roster), *book, "--canvas", str(tmp_path / "c.csv")]) == 2
    assert "Student" in capsys.readouterr().err
    # Canvas's file is derived from the whole gradebook: it needs one, and the roster
    assert main([*args, "--canvas", str(tmp_path / "c.csv"), *book]) == 2
    assert "--roster" in capsys.readouterr().err
    assert main([*args, "--roster", str(roster), "--canvas", str(tmp_path / "c.csv")]) == 2
    assert "--csv" in capsys.readouterr().err
