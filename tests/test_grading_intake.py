"""One submission never costs the batch (issue 26, class 5): files the grader will not
read, parses that blow up, links it will not follow, and a Ctrl-C that keeps the rows."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from micrograd_edu.course.cli import main
from micrograd_edu.grading.intake import Reader, Unreadable, documents, read_bytes
from micrograd_edu.grading.notebook import code_cells, dumps, read_notebook

pytest.importorskip("resource")  # the batch grader is POSIX only

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "01_numerical.ipynb"
STUB = ROOT / "exercises" / "01_numerical.ipynb"
LOOPS = ROOT / "tests" / "fixtures" / "grading" / "infinite_loop_in_function.ipynb"


def _variant(path: Path, change) -> Path:
    nb = read_notebook(STUB)  # quick to grade: every exercise raises NotImplementedError
    change(nb)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _hostile_folder(folder: Path) -> Path:
    """A class folder where every file but the bystander's is built to break the batch."""
    folder.mkdir()
    (folder / "bystander.ipynb").write_bytes(SOLUTION.read_bytes())
    _variant(folder / "list_metadata.ipynb", lambda nb: nb.update(metadata=[1, 2]))
    _variant(
        folder / "minuses.ipynb",
        lambda nb: nb["cells"].append(
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": "-" * 100_000 + "1"}
        ),
    )
    os.mkfifo(folder / "fifo.ipynb")
    (folder / "zero.ipynb").symlink_to("/dev/zero")
    (folder / "answers.ipynb").symlink_to(SOLUTION)
    (folder / "solutions").symlink_to(ROOT / "solutions")
    with open(folder / "huge.ipynb", "wb") as f:  # sparse: 64 GB that take no disk
        f.truncate(64 << 30)
    (folder / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    # a name that is not UTF-8 and holds a terminal's escape sequence and a newline
    with open(os.fsencode(folder) + b"/\xff\x1b[2J\nname.ipynb", "wb") as f:
        f.write(STUB.read_bytes())
    nested = folder.joinpath(*["d"] * 40)  # as an unpacked zip can nest folders
    nested.mkdir(parents=True)
    (nested / "bottom.ipynb").write_bytes(STUB.read_bytes())
    return folder


def test_the_grader_reads_only_regular_files_under_its_cap(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    with open(tmp_path / "huge", "wb") as f:
        f.truncate(1 << 40)
    for name, why in [("fifo", "a FIFO"), ("zero", "symbolic link"), ("huge", "over the grader")]:
        with pytest.raises(Unreadable, match=why):
            read_bytes(tmp_path / name)


def test_zips_are_searched_but_their_links_never_read(tmp_path):
    inner = tmp_path / "inner.zip"
    with zipfile.ZipFile(inner, "w") as z:
        z.write(SOLUTION, "ann/01_numerical.ipynb")
    with zipfile.ZipFile(tmp_path / "class.zip", "w") as z:
        z.write(SOLUTION, "leeann_104233_1_01.ipynb")
        z.write(inner, "bochen_104234_2_hw.zip")
        z.write(SOLUTION, ".ipynb_checkpoints/leeann-checkpoint.ipynb")
        link = zipfile.ZipInfo("evil.ipynb")
        link.external_attr = 0o120777 << 16  # a symbolic link to the instructor's solutions
        z.writestr(link, str(SOLUTION))
    (tmp_path / "inner.zip").unlink()
    with Reader() as reader:
        found = {d.name: d for d in documents([tmp_path], reader)}
    assert sorted(found) == [
        "class.zip/bochen_104234_2_hw.zip/ann/01_numerical.ipynb",
        "class.zip/evil.ipynb",
        "class.zip/leeann_104233_1_01.ipynb",
    ]
    assert "symbolic link" in found["class.zip/evil.ipynb"].error
    assert not found["class.zip/leeann_104233_1_01.ipynb"].error
    assert "numerical_gradient" in found["class.zip/leeann_104233_1_01.ipynb"].defined


def test_a_parse_that_kills_or_stalls_the_reader_costs_that_file_only(tmp_path):
    with Reader(seconds=30) as reader:
        with pytest.raises(Unreadable, match="not the grader's function"):
            reader("os:system", "true")
        reader.process.kill()  # as a parser crash would
        reader.process.wait()
        assert reader("micrograd_edu.grading.intake:defined_names", ["y = 1"]) == ["y"]
    with Reader(seconds=0.01) as slow:  # a parse that outlasts its time is stopped
        with pytest.raises(Unreadable, match="took over"):
            slow("micrograd_edu.grading.intake:parse", str(SOLUTION), [], "x.ipynb")
        assert slow.process is None


@pytest.mark.parametrize("chapter", [None, "01"], ids=["without --chapter", "with --chapter"])
def test_no_file_costs_the_batch_and_no_link_is_followed(tmp_path, chapter):
    folder = _hostile_folder(tmp_path / "class")
    out = tmp_path / "gradebook.csv"
    args = ["grade", str(folder), "--csv", str(out), "--workers", "2"]
    assert main(args + (["--chapter", chapter] if chapter else [])) == 0
    rows = {r["submission"]: r for r in csv.DictReader(open(out, newline=""))}
    assert float(rows["bystander.ipynb"]["score"]) == 11  # the bystander keeps full marks
    for name in ("list_metadata.ipynb", "minuses.ipynb"):  # graded, as any notebook is
        assert (rows[name]["score"], rows[name]["max_score"]) == ("0", "11"), rows[name]
        assert "read" not in rows[name]["reason"]
    last = len(code_cells(read_notebook(SOLUTION))) + 1  # the cell of minuses, appended
    assert f"code cell {last}: MemoryError" in rows["minuses.ipynb"]["reason"]  # it failed
    for name, why in [
        ("fifo.ipynb", "a FIFO"),
        ("zero.ipynb", "symbolic link"),
        ("answers.ipynb", "symbolic link"),
        ("solutions", "symbolic link"),
        ("huge.ipynb", "over the grader's limit"),
        ("deep.ipynb", "not a valid notebook"),
    ]:
        assert why in rows[name]["reason"], rows[name]
        assert rows[name]["score"] in ("0", "")
    assert not any(n.startswith("solutions/") for n in rows)  # the linked folder was not entered
    assert rows["??[2J?name.ipynb"]["max_score"] == "11"  # graded, its name made printable
    deep = next(r for n, r in rows.items() if n.startswith("d/d/"))
    assert "folders nested more than 32 deep" in deep["reason"]
    out.read_bytes().decode("utf-8")  # the gradebook is text a spreadsheet can open


def test_one_ctrl_c_finishes_the_running_rows_and_writes_the_gradebook(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "a.ipynb").write_bytes(SOLUTION.read_bytes())
    (folder / "b_loops.ipynb").write_bytes(LOOPS.read_bytes())  # takes its time limit
    (folder / "c.ipynb").write_bytes(SOLUTION.read_bytes())
    out = tmp_path / "gradebook.csv"
    argv = [sys.executable, "-m", "micrograd_edu.course.cli", "grade", str(folder), "--chapter"]
    argv += ["01", "--csv", str(out), "--workers", "1", "--timeout", "3"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not out.exists() or len(out.read_text().splitlines()) < 2:  # a first row is in
            assert process.poll() is None, process.communicate()
            time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)  # a hang fails here, not forever
    finally:
        process.kill()
    assert process.returncode == 130, err
    rows = list(csv.DictReader(open(out, newline="")))
    assert 1 <= len(rows) < 3 and "stopping" in err and "not graded:" in err
    # every row written is whole: none was cut short by the stop
    assert all(float(r["score"]) == 11 for r in rows if r["submission"].startswith(("a", "c")))


def test_a_notebook_read_by_grade_submission_alone_is_read_as_guardedly(tmp_path):
    from micrograd_edu.grading import batch, chapter

    (tmp_path / "zero.ipynb").symlink_to("/dev/zero")
    row = batch.grade_submission(tmp_path / "zero.ipynb", chapter("01"), "seed")
    assert row.score == 0 and "symbolic link" in row.reason


def test_release_round_trip_keeps_a_notebook_readable(tmp_path):
    # the notebook writer and the guarded reader agree on what a notebook is
    path = tmp_path / "x.ipynb"
    path.write_text(dumps(read_notebook(SOLUTION)))
    with Reader() as reader:
        (found,) = documents([path], reader)
    assert not found.error and found.claimed == "01"
