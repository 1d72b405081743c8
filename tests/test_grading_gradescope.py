"""Gradescope as instructors use it: the bundle run here as Gradescope runs it, a
submission searched for the chapter's notebook, per-check visibility, setup.sh's Python."""

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from micrograd_edu.grading.gradescope import bundle, level, parse_rules
from micrograd_edu.grading.notebook import dumps, read_notebook

pytest.importorskip("resource")  # the batch grader is POSIX only

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "01_numerical.ipynb"
VENV = Path(sys.prefix)


def _autograder(root: Path) -> Path:
    """Gradescope's /autograder, here: the bundle unpacked in source/, this environment
    as its venv (setup.sh's work), run_autograder run with AUTOGRADER pointing here."""
    rules = ["01.step_size=after_due_date", "01.numerical_gradient: *=hidden"]
    path = bundle("01", root / "autograder.zip", parse_rules(rules))
    with zipfile.ZipFile(path) as zf:
        zf.extractall(root / "source")
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    (root / "venv").symlink_to(VENV)
    return root


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    return _autograder(tmp_path_factory.mktemp("autograder"))


def _run(root: Path, files: dict[str, Path | bytes], path: str | None = None) -> dict:
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    shutil.rmtree(root / "results", ignore_errors=True)
    submission.mkdir()
    for name, content in files.items():
        target = submission / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.read_bytes())
    env = {**os.environ, "AUTOGRADER": str(root)}
    if path is not None:
        env["PATH"] = path
    done = subprocess.run(
        ["/bin/bash", str(root / "source" / "run_autograder")],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    results = root / "results" / "results.json"
    assert results.is_file(), done.stdout + done.stderr
    return json.loads(results.read_text())


def _zip(files: dict[str, Path]) -> bytes:
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, source in files.items():
            zf.write(source, name)
    return buffer.getvalue()


def test_the_chapters_notebook_is_found_in_a_zip_among_others(sandboxed, autograder):
    other = ROOT / "exercises" / "02_symbolic.ipynb"
    scratch = autograder / "scratch.ipynb"  # defines none of the chapter's functions
    nb = read_notebook(SOLUTION)
    nb["cells"] = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "def f(): pass"}]
    scratch.write_text(dumps(nb), encoding="utf-8")
    upload = _zip({"hw/notes.ipynb": other, "hw/my_work.ipynb": SOLUTION, "hw/zz.ipynb": scratch})
    result = _run(autograder, {"homework.zip": upload, "readme.txt": b"hi"})
    assert result["score"] == 11
    assert result["output"].startswith("graded homework.zip/hw/my_work.ipynb: 11/11")
    assert "homework.zip/hw/notes.ipynb (chapter 02's notebook)" in result["output"]
    assert "homework.zip/hw/zz.ipynb (none of the chapter's functions)" in result["output"]
    visibility = {t["name"].split(": ")[0]: t["visibility"] for t in result["tests"]}
    assert visibility["01.step_size"] == "after_due_date"
    assert visibility["01.numerical_gradient"] == "hidden"
    assert visibility["01.second_difference"] == "visible"


def _one_submission(tmp_path: Path, files: dict[str, Path | bytes]) -> dict:
    """What run_autograder does with a submission, in this process."""
    from micrograd_edu.course.cli import main

    folder = tmp_path / "submission"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.read_bytes())
    out = tmp_path / "results.json"
    assert (
        main(
            ["grade", str(folder), "--one-submission", "--chapter", "01", "--gradescope", str(out)]
        )
        == 0
    )
    return json.loads(out.read_text())


def test_an_empty_submission_gets_a_clear_message(sandboxed, tmp_path):
    empty = _one_submission(tmp_path, {"report.pdf": b"%PDF-1.4"})
    assert empty["score"] == 0 and "no notebook (.ipynb file) was handed in" in empty["output"]
    assert "report.pdf" in empty["output"] and len(empty["tests"]) == 5


def test_another_chapters_notebook_gets_a_clear_message(sandboxed, tmp_path):
    wrong = _one_submission(
        tmp_path, {"02_symbolic.ipynb": ROOT / "exercises" / "02_symbolic.ipynb"}
    )
    assert wrong["score"] == 0
    assert "is chapter 02's notebook" in wrong["output"] and "not chapter 01's" in wrong["output"]


JUDGE_REWRITER = """
import os, pathlib
# The grader's working directory comes first on its judges' sys.path: a package named
# like the grader's, left there, is what a judge started afterwards imports.
cwd = pathlib.Path(os.readlink(f"/proc/{os.getppid()}/cwd"))
judge = cwd / "micrograd_edu" / "grading"
judge.mkdir(parents=True, exist_ok=True)
(cwd / "micrograd_edu" / "__init__.py").write_text("")
(judge / "__init__.py").write_text("")
(judge / "judging.py").write_text(
    "import json, sys\\n"
    "for line in sys.stdin:\\n"
    "    r = json.loads(line)\\n"
    "    print(json.dumps({'id': r['id'], 'title': 'forged', 'score': 100.0, 'max_score': 1.0,"
    " 'status': 'passed', 'checks': [], 'reason': ''}), flush=True)\\n"
)
"""


def _rewriter(tmp_path: Path) -> Path:
    nb = read_notebook(ROOT / "exercises" / "01_numerical.ipynb")
    nb["cells"].insert(
        0, {"cell_type": "code", "metadata": {}, "outputs": [], "source": JUDGE_REWRITER}
    )
    path = tmp_path / "01_numerical.ipynb"
    path.write_text(dumps(nb), encoding="utf-8")
    return path


def test_a_judge_rewriting_submission_earns_nothing(sandboxed, autograder, tmp_path):
    result = _run(autograder, {"01_numerical.ipynb": _rewriter(tmp_path)})
    assert result["score"] == 0, result["output"]
    assert not (autograder / "micrograd_edu").exists()


def test_the_judge_rewriting_attack_is_real_without_isolation(tmp_path):
    """The control: graded with --no-sandbox in a folder of its own, the submission does
    write its forged judge where a judge started with the working folder on its path would
    import it (so the test above fails for the reason it names); the judge, started with
    ``python -I -S`` from the grader's own files, still does not take it."""
    from micrograd_edu.course.cli import main

    work = tmp_path / "work"
    work.mkdir()
    cwd = os.getcwd()
    os.chdir(work)
    try:
        out = tmp_path / "results.json"
        args = ["grade", str(_rewriter(tmp_path)), "--chapter", "01", "--no-sandbox"]
        assert main([*args, "--gradescope", str(out)]) == 0
    finally:
        os.chdir(cwd)
    assert (work / "micrograd_edu" / "grading" / "judging.py").exists()  # the attack ran
    assert json.loads(out.read_text())["score"] == 0  # and earned nothing


def test_without_bubblewrap_a_judge_rewriting_submission_still_earns_nothing(tmp_path):
    (tmp_path / "autograder").mkdir()
    root = _autograder(tmp_path / "autograder")
    tools = tmp_path / "bin"  # a PATH with what the script needs and no bwrap
    tools.mkdir()
    for tool in ("mkdir", "bash", "ls", "id", "setpriv", "runuser", "useradd", "chown", "chmod"):
        found = shutil.which(tool)
        if found:
            (tools / tool).symlink_to(found)
    result = _run(root, {"01_numerical.ipynb": _rewriter(tmp_path)}, path=str(tools))
    assert result["score"] == 0, result["output"]


def test_visibility_rules_match_in_order_and_reject_unknown_levels():
    rules = parse_rules(["01.step_size: works at x = 0=visible", "01.step_size=hidden"])
    assert level("01.step_size: works at x = 0", rules) == "visible"
    assert level("01.step_size: scales with |x|", rules) == "hidden"
    assert level("01.second_difference: exact", rules) == "visible"
    with pytest.raises(ValueError, match="PATTERN=LEVEL"):
        parse_rules(["01.*=secret"])


STUB_PYTHON = """#!/bin/bash
# a stand-in for a system python3 of version {version}: it logs what it is asked
echo "python3 $*" >> "$LOG"
if [ "$1" = "-c" ]; then exit {fails}; fi
if [ "$1 $2 $3 $4" = "-m uv python find" ]; then echo "{found}"; exit 0; fi
exit 0
"""
STUB_NEW_PYTHON = """#!/bin/bash
echo "python3.11 $*" >> "$LOG"
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin"
    printf '#!/bin/bash\\necho "venv-python $*" >> "$LOG"\\n' > "$3/bin/python"
    chmod +x "$3/bin/python"
fi
if [ "$1" = "--version" ]; then echo "Python 3.11.9"; fi
exit 0
"""


@pytest.mark.parametrize("image", ["ubuntu-22.04", "python-3.12"])
def test_setup_sh_brings_a_python_the_package_can_run_on(tmp_path, image):
    """setup.sh's logic with stand-ins for apt-get and Python (Gradescope is not reachable
    from here): on Ubuntu 22.04, whose python3 is 3.10, uv installs a 3.11 every user can
    read and the venv is made with it; where python3 is new enough, it is used as it is."""
    path = bundle("01", tmp_path / "autograder.zip")
    with zipfile.ZipFile(path) as zf:
        setup = zf.read("setup.sh").decode()
    assert subprocess.run(["bash", "-n"], input=setup, text=True).returncode == 0
    tools, log = tmp_path / "bin", tmp_path / "log"
    tools.mkdir()
    new = tmp_path / "opt" / "python3.11"
    new.parent.mkdir()
    new.write_text(STUB_NEW_PYTHON)
    old = image == "ubuntu-22.04"
    stub = STUB_PYTHON.format(version="3.10" if old else "3.12", fails=1 if old else 0, found=new)
    (tools / "python3").write_text(
        stub if old else STUB_NEW_PYTHON.replace("python3.11", "python3")
    )
    (tools / "apt-get").write_text('#!/bin/bash\necho "apt-get $*" >> "$LOG"\n')
    for script in (*tools.iterdir(), new):
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    for tool in ("bash", "chmod", "mkdir", "printf", "echo", "cat"):
        if shutil.which(tool):
            (tools / tool).symlink_to(shutil.which(tool))
    env = {"PATH": str(tools), "LOG": str(log), "AUTOGRADER": str(tmp_path / "ag")}
    env["UV_PYTHON_INSTALL_DIR"] = str(new.parent)
    done = subprocess.run(["/bin/bash", "-c", setup], env=env, capture_output=True, text=True)
    calls = log.read_text().splitlines()
    assert done.returncode == 0, done.stderr + "\n".join(calls)
    assert any(c.startswith("apt-get install") and "bubblewrap" in c for c in calls)
    venv = f"-m venv {tmp_path / 'ag' / 'venv'}"
    if old:
        assert "python3 -m pip install --quiet uv" in calls
        assert "python3 -m uv python install 3.11" in calls
        assert f"python3.11 {venv}" in calls
    else:
        assert not any("uv" in c for c in calls) and f"python3 {venv}" in calls
    installs = [c for c in calls if c.startswith("venv-python -m pip install")]
    assert installs[-1].endswith(f"{tmp_path / 'ag' / 'source' / 'package'} scikit-learn")


def test_a_grader_that_fails_still_leaves_a_results_json(tmp_path):
    """run_autograder with a grader that crashes (stand-ins for the venv's programs)."""
    root = tmp_path / "autograder"
    (root / "venv" / "bin").mkdir(parents=True)
    for name, code in (("python", 1), ("micrograd-edu", 3)):
        tool = root / "venv" / "bin" / name
        tool.write_text(f"#!/bin/bash\nexit {code}\n")
        tool.chmod(0o755)
    path = bundle("01", tmp_path / "autograder.zip")
    with zipfile.ZipFile(path) as zf:
        script = zf.read("run_autograder").decode()
    env = {**os.environ, "AUTOGRADER": str(root)}
    subprocess.run(["/bin/bash", "-c", script], env=env, capture_output=True, timeout=60)
    result = json.loads((root / "results" / "results.json").read_text())
    assert result["score"] == 0 and "not a verdict on your work" in result["output"]
