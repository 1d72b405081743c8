"""Every notebook of the course opens with its install cell (tools/install_cell.py adds it):
on Colab, or wherever micrograd_edu is missing, it says so and installs the package
quietly; where the package is there, it does nothing. tests/package/test_colab.py runs it
for real, in an environment that lacks the package."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from unittest import mock

import pytest
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("install_cell", ROOT / "tools" / "install_cell.py")
install_cell = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install_cell)

NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises")
                   for p in (ROOT / folder).glob("*.ipynb"))  # fmt: skip


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_first_code_cell_installs_the_course(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first = next(c for c in cells if c["cell_type"] == "code")
    assert "".join(first["source"]) == install_cell.SOURCE, (
        f"{path.name} lacks the install cell: run python tools/install_cell.py"
    )


class Shell:
    def __init__(self):
        self.magics = []

    def run_line_magic(self, name, line):
        self.magics.append((name, line))


def _run(present: bool, capsys) -> tuple[list, str]:
    shell = Shell()
    code = TransformerManager().transform_cell(install_cell.SOURCE)
    found = object() if present else None
    with mock.patch("importlib.util.find_spec", lambda name: found):
        exec(compile(code, "<install cell>", "exec"), {"get_ipython": lambda: shell})
    return shell.magics, capsys.readouterr().out


def test_the_install_cell_does_nothing_where_the_package_is(capsys):
    assert _run(True, capsys) == ([], "")


def test_the_install_cell_installs_quietly_and_says_so_where_it_is_missing(capsys):
    magics, said = _run(False, capsys)
    assert magics == [("pip", "install --quiet micrograd-edu")]
    assert said.startswith("Installing micrograd-edu")


def test_the_tool_adds_the_cell_after_the_title_once():
    title = {"cell_type": "markdown", "id": "t", "metadata": {}, "source": "# 01"}
    code = {"cell_type": "code", "id": "c", "metadata": {}, "outputs": [], "source": "x = 1"}
    notebook = {"cells": [title, code], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    once = install_cell.with_install_cell(notebook)
    assert [c["id"] for c in once["cells"]] == ["t", install_cell.CELL_ID, "c"]
    assert install_cell.with_install_cell(once) == once
