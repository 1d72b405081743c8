"""The Gradescope bundle has no silent fallback (issue 26, class 7).

The bundle's ``run_autograder`` runs in a folder laid out as Gradescope's (``source`` from
the zip, ``venv``, ``submission``, ``results``) with a PATH that has no bubblewrap, as in
Gradescope's Docker container. A notebook that rewrites what will judge it (the grader's
registry, and a ``.pth`` file in every environment it can find) gets no points: it ran as
an unprivileged user who can write none of it, and the judge starts with ``python -I -S``.
An honest notebook keeps full marks, and results.json says how both were isolated. The
control grades the same notebook unsandboxed in the same layout: there it does rewrite the
judge and takes full marks. With neither bubblewrap nor a way to switch users, grading
stops and results.json says so: nothing is graded unsandboxed.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from micrograd_edu.grading.gradescope import bundle
from micrograd_edu.grading.isolation import USER

ROOT = Path(__file__).resolve().parents[1]
ATTACK = ROOT / "tests" / "fixtures" / "sandbox" / "rewrites_the_judge.ipynb"
SOLUTION = ROOT / "solutions" / "01_numerical.ipynb"


def _layout(root: Path, notebook: Path, tools: tuple[str, ...]) -> Path:
    """Gradescope's folders under ``root``: the bundle unzipped in source/, a venv with the
    bundle's package (its setup.sh installs it the same way, editable), ``notebook`` in
    submission/, and a folder of ``tools`` to be the whole PATH."""
    root.mkdir()
    with zipfile.ZipFile(bundle("01", root / "autograder.zip")) as zf:
        zf.extractall(root / "source")
    python = getattr(sys, "_base_executable", sys.executable)
    venv = ["-m", "venv", "--without-pip", "--system-site-packages", str(root / "venv")]
    subprocess.run([python, *venv], check=True)
    site = next((root / "venv" / "lib").glob("python*/site-packages"))
    (site / "bundle.pth").write_text(str(root / "source" / "package") + "\n")
    for folder in ("submission", "results", "bin"):
        (root / folder).mkdir()
    shutil.copy(notebook, root / "submission" / notebook.name)
    for tool in tools:
        os.symlink(shutil.which(tool), root / "bin" / tool)
    return root


def _run_autograder(root: Path) -> tuple[int, dict]:
    env = {"AUTOGRADER": str(root), "PATH": str(root / "bin")}  # nothing of ours
    script = root / "source" / "run_autograder"
    done = subprocess.run(
        ["bash", str(script)], cwd=root, env=env, capture_output=True, timeout=300
    )
    return done.returncode, json.loads((root / "results" / "results.json").read_text())


TOOLS = ("bash", "ls", "head", "chmod", "setpriv")  # no bwrap


def test_without_bubblewrap_a_judge_rewriting_submission_gets_nothing(as_root, tmp_path):
    code, result = _run_autograder(_layout(tmp_path / "attack", ATTACK, TOOLS))
    assert code == 0 and result["score"] == 0, result["output"]
    assert result["extra_data"]["isolation"] == USER
    assert "isolated as an unprivileged user" in result["output"]
    registry = tmp_path / "attack/source/package/micrograd_edu/grading/registry.py"
    assert "every exercise passes" not in registry.read_text()
    assert not list((tmp_path / "attack/venv").rglob("zz_judge.pth"))


def test_without_bubblewrap_an_honest_submission_keeps_full_marks(as_root, tmp_path):
    code, result = _run_autograder(_layout(tmp_path / "honest", SOLUTION, TOOLS))
    assert code == 0 and result["score"] == 11, result["output"]
    assert result["extra_data"]["isolation"] == USER


def test_unsandboxed_the_same_submission_does_rewrite_its_judge(as_root, tmp_path):
    layout = _layout(tmp_path / "control", ATTACK, TOOLS)
    out = layout / "results" / "results.json"
    python = layout / "venv" / "bin" / "python"
    grade = ["-m", "micrograd_edu.course.cli", "grade", str(layout / "submission" / ATTACK.name)]
    args = [*grade, "--chapter", "01", "--no-sandbox", "--gradescope", str(out)]
    env = {"PATH": os.environ["PATH"]}  # this package only from the layout's source/
    run = [str(python), *args]  # from the layout: `python -m` imports from the current folder
    subprocess.run(run, cwd=layout, check=True, env=env, capture_output=True, timeout=300)
    assert json.loads(out.read_text())["score"] == 11
    registry = layout / "source/package/micrograd_edu/grading/registry.py"
    assert "every exercise passes" in registry.read_text()
    mine = ROOT / "micrograd_edu/grading/registry.py"  # only the layout's copy was reached
    assert "every exercise passes" not in mine.read_text()


def test_with_no_way_to_isolate_nothing_is_graded(as_root, tmp_path):
    layout = _layout(tmp_path / "none", ATTACK, ("bash", "ls", "head", "chmod"))  # no setpriv
    code, result = _run_autograder(layout)
    assert code == 2 and result["score"] == 0 and result["tests"] == []
    assert result["output"].startswith("NOT GRADED") and "setpriv" in result["output"]
    assert (
        "every exercise passes"
        not in (layout / "source/package/micrograd_edu/grading/registry.py").read_text()
    )
