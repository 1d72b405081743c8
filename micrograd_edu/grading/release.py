"""``micrograd-edu release``: the student notebooks in ``exercises/`` from ``solutions/``.

Solutions sit between nbgrader's ``### BEGIN SOLUTION`` and ``### END
SOLUTION`` lines; a release replaces each such region by a stub that raises
``NotImplementedError`` (in a code cell) or by "YOUR ANSWER HERE" (in a
markdown cell), clears outputs and execution counts, and keeps cell ids and
metadata, so a course that uses nbgrader can take the notebooks as they are.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .notebook import NotebookError, dumps, read_notebook, source

__all__ = ["BEGIN", "END", "strip_solutions", "exercise_notebook", "release"]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"


def strip_solutions(text: str, stub: list[str], where: str = "cell") -> str:
    """``text`` with every solution region replaced by ``stub`` (indented like its marker).

    >>> code = "def f(x):\\n    ### BEGIN SOLUTION\\n    return 2 * x\\n    ### END SOLUTION\\n"
    >>> print(strip_solutions(code, ["# YOUR CODE HERE", "raise NotImplementedError()"]))
    def f(x):
        # YOUR CODE HERE
        raise NotImplementedError()
    <BLANKLINE>
    """
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise NotebookError(f"{where}: {BEGIN} inside another solution region")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(f"{indent}{s}\n" for s in stub)
        elif marker == END:
            if not inside:
                raise NotebookError(f"{where}: {END} without a {BEGIN} before it")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise NotebookError(f"{where}: {BEGIN} without an {END} after it")
    stripped = "".join(out)
    # a cell that did not end with a newline still does not (ruff format wants it so)
    return stripped if text.endswith("\n") else stripped.removesuffix("\n")


_STUBS = {
    "code": ["# YOUR CODE HERE", "raise NotImplementedError()"],
    "markdown": ["YOUR ANSWER HERE"],
}


def exercise_notebook(solution: dict[str, Any], name: str = "notebook") -> dict[str, Any]:
    """The student version of a solution notebook (a new dict; ``solution`` is unchanged)."""
    nb = copy.deepcopy(solution)
    for i, cell in enumerate(nb["cells"]):
        kind = cell.get("cell_type")
        if kind in _STUBS:
            where = f"{name} cell {cell.get('id', i)}"
            cell["source"] = strip_solutions(source(cell), _STUBS[kind], where)
        if kind == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return nb


def release(solutions: str | Path, exercises: str | Path, check: bool = False) -> list[Path]:
    """Write ``exercises/`` from ``solutions/``; return the files that changed.

    With ``check=True`` nothing is written: the list names the exercise
    notebooks that are missing, out of date, or have no solution any more.
    """
    solutions, exercises = Path(solutions), Path(exercises)
    if not solutions.is_dir():
        raise FileNotFoundError(f"release: no solutions folder at {solutions}")
    wanted = {
        exercises / path.name: dumps(exercise_notebook(read_notebook(path), path.name))
        for path in sorted(solutions.glob("*.ipynb"))
    }
    stale = [path for path, text in wanted.items() if _read(path) != text]
    orphans = sorted(set(exercises.glob("*.ipynb")) - set(wanted)) if exercises.is_dir() else []
    if not check:
        exercises.mkdir(parents=True, exist_ok=True)
        for path in stale:
            path.write_text(wanted[path], encoding="utf-8")
        for path in orphans:
            path.unlink()
    return stale + orphans


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
