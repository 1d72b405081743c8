"""What a student and a class hub get: the wheel built from a clone of this repository,
installed with ``[course]`` into environments of their own, in empty folders.

These tests run in ``make package-test`` (CI's .ci/run calls it), not in ``make test``:
building the wheel and installing JupyterLab and its kin into fresh environments takes a
few minutes, mostly pip (its cache makes later runs shorter). One wheel is built and one
student environment made per session, and every test shares them.
"""

import sys
from pathlib import Path

import pytest
from package_helpers import ROOT, build, clone, environment, run

sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' helpers (test_viz_browser)


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> tuple[Path, Path]:
    """The source distribution and the wheel, built once from a clone."""
    folder = tmp_path_factory.mktemp("build")
    return build(clone(folder / "clone"), folder / "dist")


@pytest.fixture(scope="session")
def wheel(dist) -> Path:
    return dist[1]


@pytest.fixture(scope="session")
def student(tmp_path_factory, wheel) -> Path:
    """A fresh environment with ``micrograd-edu[course]`` from the wheel: its bin/."""
    folder = tmp_path_factory.mktemp("student")
    bin_folder = environment(folder / "venv", f"{wheel}[course]")
    where = run(bin_folder / "python", "-c", "import micrograd_edu; print(micrograd_edu.__file__)",
                cwd=folder).stdout  # fmt: skip
    assert where.startswith(str(folder / "venv")), f"micrograd_edu came from {where}"
    return bin_folder
