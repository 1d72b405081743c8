"""Reading notebooks as plain JSON: the code a grader runs, the file release writes.

The grader reads a submission with ``json`` alone (no Jupyter needed, and a
file that is not a notebook becomes a clear error, not a crash), then turns
its code cells into plain Python: IPython magics and shell lines have no
meaning outside a kernel, so they are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["NotebookError", "read_notebook", "dumps", "source", "code_cells"]

# Cell magics whose body is still ordinary Python; any other cell magic skips its cell.
_TRANSPARENT_CELL_MAGICS = {"time", "timeit", "capture", "prun"}


class NotebookError(ValueError):
    """A file that is not a readable Jupyter notebook (version 4)."""


def read_notebook(path: str | Path) -> dict[str, Any]:
    """The notebook at ``path`` as a dict, or a :class:`NotebookError` saying why not."""
    path = Path(path)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise NotebookError(f"{path.name}: not a valid notebook ({error})") from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list) or nb.get("nbformat") != 4:
        raise NotebookError(f"{path.name}: not a valid notebook (no nbformat-4 'cells' list)")
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or not isinstance(cell.get("source", ""), (str, list)):
            raise NotebookError(f"{path.name}: not a valid notebook (cell {i} is malformed)")
    return nb


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
    """The Python source of each code cell, magics and shell lines skipped.

    >>> code_cells({"cells": [{"cell_type": "code", "source": "%matplotlib inline\\nx = 1"},
    ...                       {"cell_type": "markdown", "source": "# title"},
    ...                       {"cell_type": "code", "source": "%%bash\\nls"}]})
    ['pass  # magic skipped by the grader\\nx = 1', '']
    """
    return [python_source(source(c)) for c in nb["cells"] if c.get("cell_type") == "code"]


def python_source(text: str) -> str:
    """``text`` with IPython-only lines made harmless (``%``, ``!``, a ``%%`` header)."""
    lines = text.splitlines()
    if lines and lines[0].startswith("%%"):
        magic = lines[0][2:].split(maxsplit=1)[0] if lines[0][2:].strip() else ""
        if magic not in _TRANSPARENT_CELL_MAGICS:
            return ""
        lines = lines[1:]
    out = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            line = line[: len(line) - len(stripped)] + "pass  # magic skipped by the grader"
        out.append(line)
    return "\n".join(out)
