"""``micrograd-edu release``: the student notebooks in ``exercises/`` from ``solutions/``.

Solutions sit between nbgrader's ``### BEGIN SOLUTION`` and ``### END SOLUTION``
lines; a release replaces each such region by a stub that raises
``NotImplementedError`` (in a code cell) or by "YOUR ANSWER HERE" (in a markdown
cell), clears outputs and execution counts, keeps cell ids and metadata (so a course
that uses nbgrader can take the notebooks as they are), and records the package's
version in the notebook's metadata (``metadata["micrograd_edu"]["version"]``).

A release is checked before anything is written. A broken marker (an END without a
BEGIN, a BEGIN inside another, a region never closed, a line that looks like a marker
but is not one) is reported with its notebook, cell and line. Then each solution
notebook that changed is graded by the batch grader, with a secret seed, and must earn
full marks, and the exercise notebook made from it must earn nothing (a solution left
outside its markers would show there). Instructor's check files (``*.checks.py``, see
:mod:`.instructor`) are loaded for the grading and copied next to the exercises.
"""

from __future__ import annotations

import copy
import re
import secrets
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .instructor import SUFFIX, load_checks
from .notebook import NotebookError, dumps, read_notebook, source
from .record import version

__all__ = ["BEGIN", "END", "ReleaseError", "strip_solutions", "exercise_notebook", "release"]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
_LOOKS_LIKE = re.compile(r"^#+\s*(begin|end)\s*solutions?\b", re.IGNORECASE)


class ReleaseError(ValueError):
    """Why a release wrote nothing: every problem found, one a line."""


def strip_solutions(text: str, stub: list[str], where: str = "cell") -> str:
    """``text`` with every solution region replaced by ``stub`` (indented like its marker).

    >>> code = "def f(x):\\n    ### BEGIN SOLUTION\\n    return 2 * x\\n    ### END SOLUTION\\n"
    >>> print(strip_solutions(code, ["# YOUR CODE HERE", "raise NotImplementedError()"]))
    def f(x):
        # YOUR CODE HERE
        raise NotImplementedError()
    <BLANKLINE>
    >>> try:
    ...     strip_solutions("x = 1\\n## END SOLUTION\\n", [], "01.ipynb code cell 3")
    ... except NotebookError as error:
    ...     print(str(error).replace(": ", ":\\n"))
    01.ipynb code cell 3, line 2:
    `## END SOLUTION` looks like a marker but is not one:
    write `### END SOLUTION`
    """
    out: list[str] = []
    opened = 0  # the line of the BEGIN of the region we are in
    for n, line in enumerate(text.splitlines(keepends=True), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if opened:
                raise NotebookError(
                    f"{where}, line {n}: {BEGIN} inside the region opened on line {opened}"
                )
            opened = n
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(f"{indent}{s}\n" for s in stub)
        elif marker == END:
            if not opened:
                raise NotebookError(f"{where}, line {n}: {END} without a {BEGIN} before it")
            opened = 0
        elif _LOOKS_LIKE.match(marker):
            word = "END" if "end" in marker.lower() else "BEGIN"
            raise NotebookError(
                f"{where}, line {n}: `{marker}` looks like a marker but is not one: write "
                f"`### {word} SOLUTION`"
            )
        elif not opened:
            out.append(line)
    if opened:
        raise NotebookError(f"{where}, line {opened}: {BEGIN} without an {END} after it")
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
    code = 0
    for i, cell in enumerate(nb["cells"]):
        kind = cell.get("cell_type")
        code += kind == "code"
        if kind in _STUBS:
            number = f"code cell {code}" if kind == "code" else f"cell {i + 1}"
            where = f"{name} {number} (id {cell.get('id', '?')})"
            cell["source"] = strip_solutions(source(cell), _STUBS[kind], where)
        if kind == "code":
            cell["outputs"], cell["execution_count"] = [], None
    meta = nb.setdefault("metadata", {}).get("micrograd_edu")
    nb["metadata"]["micrograd_edu"] = {
        **(meta if isinstance(meta, dict) else {}),
        "version": version(),
    }
    return nb


def _wanted(solutions: Path, exercises: Path) -> tuple[dict[Path, str], list[str]]:
    """The exercise files a release writes (notebooks and check files), and the marker
    problems found on the way, all of them."""
    wanted, problems = {}, []
    for path in sorted(solutions.glob("*.ipynb")):
        try:
            wanted[exercises / path.name] = dumps(exercise_notebook(read_notebook(path), path.name))
        except NotebookError as error:
            problems.append(str(error))
    for path in sorted(solutions.glob(f"*{SUFFIX}")):
        wanted[exercises / path.name] = path.read_text(encoding="utf-8")
    return wanted, problems


def _grade(pairs: list[tuple[Path, Path]]) -> list[str]:
    """Grade each (solution, exercise) notebook pair; the problems: a solution short of
    full marks, an exercise earning anything."""
    from . import isolation, sandbox
    from .batch import Limits, grade_submission
    from .judging import judges
    from .registry import EXERCISES, chapter

    seed = secrets.token_hex(16)
    # the instructor's own code: sandboxed where bubblewrap runs, as it is
    how = isolation.BUBBLEWRAP if sandbox.available() is None else isolation.NONE
    limits = Limits(timeout=60, isolation=how)
    problems = []

    def one(solution: Path, exercise: Path, judging: Any) -> list[str]:
        number = solution.name[:2]
        if not any(e.chapter == number for e in EXERCISES.values()):
            return [
                f"{solution.name}: no exercises are registered for chapter {number}: add a "
                f"check file next to it ({solution.stem}{SUFFIX})"
            ]
        exercises, found = chapter(number), []
        graded = grade_submission(solution, exercises, seed, limits, judging)
        if graded.score < graded.max_score:
            found.append(
                f"{solution.name} scores {graded.score:g}/{graded.max_score:g} with the grader, "
                f"not full marks: {graded.reason or 'see its checks'}"
            )
        released = grade_submission(exercise, exercises, seed, limits, judging)
        if released.score > 0:
            earned = [f"{r.id} ({r.score:g})" for r in released.results if r.score > 0]
            found.append(
                f"{exercise.name}, as released, earns {released.score:g} points "
                f"({', '.join(earned)}): part of a solution is outside its markers"
            )
        return found

    from .instructor import loaded_files

    with judges(seconds=limits.timeout, modules=tuple(loaded_files())) as judging:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for found in pool.map(lambda pair: one(*pair, judging), pairs):
                problems += found
    return problems


def release(
    solutions: str | Path, exercises: str | Path, check: bool = False, grade: bool = True
) -> list[Path]:
    """Write ``exercises/`` from ``solutions/``; return the files that changed. A
    :class:`ReleaseError` lists every problem (markers, grades) and nothing is written.

    With ``check=True`` nothing is written or graded: the list names the exercise
    files that are missing, out of date, or have no solution any more.
    """
    solutions, exercises = Path(solutions), Path(exercises)
    if not solutions.is_dir():
        raise FileNotFoundError(f"release: no solutions folder at {solutions}")
    load_checks(solutions)
    wanted, problems = _wanted(solutions, exercises)
    if problems:
        raise ReleaseError("\n".join(problems))
    stale = [path for path, text in wanted.items() if _read(path) != text]
    kinds = ("*.ipynb", f"*{SUFFIX}")
    found = {p for kind in kinds for p in exercises.glob(kind)} if exercises.is_dir() else set()
    orphans = sorted(found - set(wanted))
    if check:
        return stale + orphans
    notebooks = [p for p in stale if p.suffix == ".ipynb"]
    if grade and notebooks:
        with tempfile.TemporaryDirectory(prefix="micrograd-release-") as folder:
            pairs = []
            for path in notebooks:
                draft = Path(folder) / path.name
                draft.write_text(wanted[path], encoding="utf-8")
                pairs.append((solutions / path.name, draft))
            problems = _grade(pairs)
        if problems:
            raise ReleaseError("\n".join(problems))
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
