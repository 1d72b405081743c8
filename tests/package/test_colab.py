"""A Python like Colab's: a kernel with ipywidgets 7.8.5 and no micrograd_edu. An exercise
notebook opened there alone installs the package from its first cell (the wheel stands in
for PyPI), saying so, keeps ipywidgets 7, and checks; opened again it installs nothing."""

from __future__ import annotations

import json
import zipfile

from package_helpers import ROOT, environment, private_env, run


def test_the_first_cell_installs_the_package_once_and_keeps_ipywidgets_7(wheel, tmp_path):
    colab = environment(tmp_path / "colab", "ipykernel", "nbclient", "ipywidgets==7.8.5")
    alone = tmp_path / "uploaded"
    alone.mkdir()
    with zipfile.ZipFile(wheel) as zf:  # the exercise exactly as the course ships it
        name = "micrograd_edu/course/content/exercises/01_numerical.ipynb"
        (alone / "01_numerical.ipynb").write_bytes(zf.read(name))
    env = private_env(tmp_path / "home", colab)
    env["PIP_FIND_LINKS"] = str(wheel.parent)  # where `pip install micrograd-edu` finds it
    script = [colab / "python", ROOT / "tests" / "run_notebooks.py", "--ipywidgets", "7.8.5"]
    for attempt in ("first", "again"):
        done = run(*script, alone / "01_numerical.ipynb", env=env, timeout=900)
        [result] = json.loads(done.stdout.strip().splitlines()[-1]).values()
        assert result["error"] is None, result["error"]
        assert result["checks"], "no check reported"  # the stubs: "not attempted yet"
        said = result["first_cell_said"]
        if attempt == "first":
            assert said.startswith("Installing micrograd-edu"), said
        else:
            assert said == "", said
