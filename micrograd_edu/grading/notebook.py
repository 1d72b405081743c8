"""Reading notebooks as plain JSON: the code a grader runs, the file release writes.

The grader reads a submission with ``json`` (no Jupyter needed, and a file that is not a
notebook becomes a clear error, not a crash; an nbformat-3 notebook is upgraded with
``nbformat``), then turns its code cells into plain Python with IPython's own input
transformer, as Jupyter does: ``x?``, ``%magic``, ``!shell`` and cell magics become calls
on ``get_ipython()``, which the grader's process answers with :class:`Shell` (the magics
that only time or show run their code; the others, and the shell, do nothing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "NotebookError",
    "read_notebook",
    "parse_notebook",
    "dumps",
    "source",
    "code_cells",
    "Shell",
]

# Magics whose code is still ordinary Python (they time or capture it): it runs once.
_TRANSPARENT = {"time", "timeit", "capture", "prun"}


class NotebookError(ValueError):
    """A file that is not a readable Jupyter notebook (version 4)."""


def read_notebook(path: str | Path) -> dict[str, Any]:
    """The notebook at ``path`` as a dict, or a :class:`NotebookError` saying why not."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise NotebookError(f"{path.name}: not a valid notebook ({error})") from None
    return parse_notebook(text, path.name)


def parse_notebook(text: str, name: str) -> dict[str, Any]:
    """The notebook whose JSON is ``text`` (the file ``name``), or a :class:`NotebookError`.
    Its metadata is always a dict (a student can write anything there)."""
    try:
        nb = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise NotebookError(f"{name}: not a valid notebook ({error})") from None
    if isinstance(nb, dict) and nb.get("nbformat") == 3:
        nb = _upgrade(nb, name)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list) or nb.get("nbformat") != 4:
        raise NotebookError(f"{name}: not a valid notebook (no nbformat-4 'cells' list)")
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or not isinstance(cell.get("source", ""), (str, list)):
            raise NotebookError(f"{name}: not a valid notebook (cell {i} is malformed)")
    if not isinstance(nb.get("metadata", {}), dict):
        nb["metadata"] = {}
    return nb


def _upgrade(nb: dict[str, Any], name: str) -> dict[str, Any]:
    """An nbformat-3 notebook (Jupyter before 2015) as nbformat 4, as Jupyter opens it."""
    try:
        import nbformat
    except ImportError:
        raise NotebookError(
            f"{name}: an nbformat-3 notebook; open and save it in Jupyter, or pip install "
            "nbformat so that the grader can upgrade it"
        ) from None
    try:
        return json.loads(nbformat.writes(nbformat.reads(json.dumps(nb), as_version=4)))
    except Exception as error:
        raise NotebookError(
            f"{name}: an nbformat-3 notebook that cannot be read ({error})"
        ) from None


def dumps(nb: dict[str, Any]) -> str:
    """``nb`` as Jupyter writes it, so files round-trip without spurious diffs."""
    for cell in nb["cells"]:
        cell["source"] = source(cell).splitlines(keepends=True)
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def source(cell: dict[str, Any]) -> str:
    """A cell's source as one string (notebooks store it as a string or a list of lines).

    >>> source({"source": ["x = 1\\n", "y = 2"]})
    'x = 1\\ny = 2'
    """
    text = cell.get("source", "")
    return text if isinstance(text, str) else "".join(str(line) for line in text)


def code_cells(nb: dict[str, Any]) -> list[str]:
    """The Python source of each code cell, as IPython would run it.

    >>> code_cells({"cells": [{"cell_type": "code", "source": "%matplotlib inline\\nx = 1"},
    ...                       {"cell_type": "markdown", "source": "# title"},
    ...                       {"cell_type": "code", "source": "np.einsum?"}]})
    ["get_ipython().run_line_magic('matplotlib', 'inline')\\nx = 1\\n", \
"get_ipython().run_line_magic('pinfo', 'np.einsum')\\n"]
    """
    return [python_source(source(c)) for c in nb["cells"] if c.get("cell_type") == "code"]


def python_source(text: str) -> str:
    """``text`` as plain Python, by IPython's own transformer (what Jupyter runs)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(text)
    except Exception:  # what IPython cannot transform, Python reports as it would
        return text


class Shell:
    """What ``get_ipython()`` is in the grader's process: the magics that time or
    capture code run it once; any other magic, ``x?`` help and the shell do nothing."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._namespace = namespace

    def run_line_magic(self, name: str, line: str) -> Any:
        if name in _TRANSPARENT and line.strip():
            return eval(compile(line, "<magic>", "eval"), self._namespace)
        return None

    def run_cell_magic(self, name: str, line: str, cell: str) -> None:
        if name in _TRANSPARENT:  # its body may hold IPython syntax too
            exec(compile(python_source(cell), "<cell magic>", "exec"), self._namespace)

    def system(self, command: str) -> None:
        return None

    def getoutput(self, command: str) -> list[str]:
        return []
