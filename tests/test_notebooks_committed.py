"""Committed notebooks are clean: valid nbformat 4, no outputs, stable cell ids, python3 kernel."""

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(
    path
    for folder in ("notebooks", "solutions", "exercises")
    for path in (ROOT / folder).glob("*.ipynb")
)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_committed_notebook_is_valid_and_has_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    ids = [cell.get("id") for cell in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids), "every cell needs its own id"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.id
