"""The grader's references never reach a student (issue 26, class 1): the wheel and sdist
built from this repository hold no reference step (pyproject.toml leaves
``micrograd_edu.grading.references`` out), and in a student's install of the wheel the
in-notebook ``check()`` still works, on the student's own earlier steps."""

import inspect
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy

from micrograd_edu.grading import references

ROOT = Path(__file__).resolve().parents[1]

# The student's install: chapter 04's solution notebook run, then the checks of the
# exercises that build on an earlier step (in the grader's install, on its reference).
STUDENT = """
import importlib.util, json, sys
sys.path[:0] = {paths!r}
import micrograd_edu
assert micrograd_edu.__file__.startswith({site!r}), micrograd_edu.__file__
assert importlib.util.find_spec("micrograd_edu.grading.references") is None
from micrograd_edu.grading.notebook import code_cells
namespace = {{"__name__": "__main__"}}
for code in code_cells(json.load(open({notebook!r}))):
    exec(code, namespace)
from micrograd_edu import check
print(json.dumps({{name: check(name, namespace).passed for name in {names!r}}}))
"""


def _archives(tmp_path: Path) -> tuple[Path, Path]:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "micrograd_edu", source / "micrograd_edu", ignore=ignore)
    (tmp_path / "dist").mkdir()
    # (the folder read first: setuptools rewrites sys.argv while it builds)
    build = "import setuptools.build_meta as m, sys\nd = sys.argv[1]\n"
    build += "m.build_wheel(d)\nm.build_sdist(d)"
    subprocess.run(
        [sys.executable, "-c", build, str(tmp_path / "dist")],
        cwd=source,
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    return wheel, sdist


def test_no_reference_ships_and_check_works_without_them(tmp_path):
    wheel, sdist = _archives(tmp_path)
    with zipfile.ZipFile(wheel) as zf:
        files = {name: zf.read(name).decode(errors="replace") for name in zf.namelist()}
    with tarfile.open(sdist) as tf:
        files |= {
            f"sdist:{m.name}": tf.extractfile(m).read().decode(errors="replace")
            for m in tf.getmembers()
            if m.isfile()
        }
    assert any(name.endswith("grading/chapter04.py") for name in files)  # the package is in
    assert not [name for name in files if "grading/references" in name]
    for name, function in inspect.getmembers(references, inspect.isfunction):
        body = inspect.getsource(function).split('"""')[-1].strip()  # the code, no docstring
        assert not [f for f, text in files.items() if body in text], name
    site = tmp_path / "site"
    install = ["-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)]
    subprocess.run([sys.executable, *install], check=True, capture_output=True)
    names = ["04.backward", "04.train", "04.topological_order"]
    code = STUDENT.format(
        paths=[str(site), str(Path(numpy.__file__).parents[1])],
        site=str(site),
        notebook=str(ROOT / "solutions" / "04_reverse.ipynb"),
        names=names,
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == dict.fromkeys(names, True)
