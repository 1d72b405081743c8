"""Every chapter reads the same way, and no exercise can be answered by copying a lecture.

* a lecture opens with ``# NN · Title`` and ends with ``## Summary``, ``## Check yourself``
  (questions with their answers folded away in ``<details>``) and ``## Where to go next``
  (its exercise notebook and the survey the course draws on);
* an exercise notebook opens with ``# NN · Title: exercises``;
* student-facing notebooks never point at ``solutions/``;
* lectures import only public names (no grader internals, no ``_private`` names);
* an ``assert`` stands in the cell that computes what it checks: no cell only asserts, so
  the checks do not chop the narrative;
* no non-trivial line of a solution stands in a lecture notebook.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
STUDENT_FACING = LECTURES + sorted((ROOT / "exercises").glob("*.ipynb"))
SURVEY = "arxiv.org/abs/1502.05767"  # Baydin et al., Automatic differentiation in ML: a survey
ENDING = ["Summary", "Check yourself", "Where to go next"]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _ids(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _headings(nb: nbformat.NotebookNode, level: int) -> list[str]:
    marker = "#" * level + " "
    return [
        line[len(marker) :].strip()
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith(marker)
    ]


def _section(nb: nbformat.NotebookNode, title: str) -> str:
    """The markdown from the heading ``## title`` to the next ``## `` heading."""
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    match = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no '## {title}' section"
    return match.group(1)


@pytest.mark.parametrize("path", LECTURES, ids=_ids)
def test_a_lecture_opens_and_ends_the_same_way(path):
    nb = _read(path)
    number = path.name[:2]
    first = nb.cells[0].source.splitlines()[0]
    assert re.fullmatch(rf"# {number} · \S.*", first), f"first line {first!r}: use '# {number} · '"
    assert _headings(nb, 1) == [first[2:]], "one '# ' title per notebook"
    assert _headings(nb, 2)[-3:] == ENDING, f"the last sections must be {ENDING}"
    questions = _section(nb, "Check yourself")
    assert questions.count("<details>") >= 2, "two or more questions, answers in <details>"
    links = _section(nb, "Where to go next")
    assert SURVEY in links, "link the survey (Baydin et al.)"
    exercises = sorted((ROOT / "exercises").glob(f"{number}_*.ipynb"))
    for exercise in exercises:
        assert f"../exercises/{exercise.name}" in links, f"link ../exercises/{exercise.name}"


@pytest.mark.parametrize("path", SOLUTIONS, ids=_ids)
def test_an_exercise_notebook_opens_with_its_chapter(path):
    first = _read(path).cells[0].source.splitlines()[0]
    assert re.fullmatch(rf"# {path.name[:2]} · \S.*: exercises", first), first


@pytest.mark.parametrize("path", STUDENT_FACING, ids=_ids)
def test_student_notebooks_never_point_at_the_solutions(path):
    for cell in _read(path).cells:
        assert "solutions/" not in cell.source and "solutions\\" not in cell.source, cell.id


def _private_imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("micrograd_edu"):
            module = node.module or ""
            if ".grading" in module or any(p.startswith("_") for p in module.split(".")):
                found.append(f"from {module} import ...")
            found += [f"{module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if ".grading" in a.name or "._" in a.name]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            if not node.attr.startswith("__") and isinstance(node.value, ast.Name):
                if node.value.id in ("mg", "micrograd_edu"):
                    found.append(f"{node.value.id}.{node.attr}")
    return found


def _code(cell: nbformat.NotebookNode) -> ast.AST:
    lines = [line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    return ast.parse("\n".join(lines))


@pytest.mark.parametrize("path", LECTURES, ids=_ids)
def test_a_lecture_imports_only_public_names(path):
    for cell in _read(path).cells:
        if cell.cell_type == "code":
            assert not _private_imports(_code(cell)), (cell.id, _private_imports(_code(cell)))


def _only_asserts(tree: ast.Module) -> bool:
    return bool(tree.body) and all(isinstance(node, ast.Assert) for node in tree.body)


@pytest.mark.parametrize("path", LECTURES, ids=_ids)
def test_asserts_stand_in_the_cell_that_computes_what_they_check(path):
    for cell in _read(path).cells:
        if cell.cell_type == "code":
            assert "self-check" not in cell.metadata.get("tags", []), cell.id
            assert not _only_asserts(_code(cell)), f"cell {cell.id} only asserts: merge it"


def _normal(line: str) -> str:
    code = line.split("#", 1)[0] if "#" in line and "'" not in line and '"' not in line else line
    return " ".join(code.split())


# Lines any two programs share (a loop header, PyTorch's three calls of a training step).
_IDIOMS = re.compile(
    r"for \w+ in range\(\w+\):|\w+ = np\.random\.default_rng\(\w*\)"
    r"|(\w+\.)?(zero_grad|backward|step)\(\)|return \w+"
)


def _nontrivial(line: str) -> bool:
    """A line that computes something: arithmetic, or long enough to carry an idea."""
    if len(line) < 15 or _IDIOMS.fullmatch(line):
        return False
    return bool(re.search(r"[-+/@%]|\w\s*\*\s*[\w(]", line)) or len(line) >= 30


def _solution_lines(path: Path) -> set[str]:
    lines, inside = set(), False
    for cell in _read(path).cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            if "### BEGIN SOLUTION" in line:
                inside = True
            elif "### END SOLUTION" in line:
                inside = False
            elif inside and _nontrivial(_normal(line)):
                lines.add(_normal(line))
    return lines


def _lecture_lines() -> dict[str, str]:
    seen: dict[str, str] = {}
    for path in LECTURES:
        for cell in _read(path).cells:
            for line in cell.source.splitlines():  # code cells and code shown in markdown
                seen.setdefault(_normal(line), f"{path.name} cell {cell.id}")
    return seen


@pytest.mark.parametrize("path", SOLUTIONS, ids=_ids)
def test_no_solution_line_stands_in_a_lecture(path):
    lecture = _lecture_lines()
    shared = {line: lecture[line] for line in _solution_lines(path) if line in lecture}
    assert not shared, f"solution lines copied from a lecture: {shared}"


def _bound_and_read(tree: ast.AST) -> tuple[set[str], set[str]]:
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound, read


@pytest.mark.parametrize("path", LECTURES, ids=_ids)
def test_the_lesson_needs_nothing_its_self_checks_compute(path):
    # A self-check cell only asserts: a name it binds (a loop variable, a helper) that a later
    # lesson cell reads means the lesson is hidden in the self-test, where a student skims.
    last_bound_by: dict[str, str] = {}
    for cell in _read(path).cells:
        if cell.cell_type != "code":
            continue
        bound, read = _bound_and_read(_code(cell))
        check = "self-check" in cell.metadata.get("tags", [])
        if not check:
            leaked = {n for n in read - bound if last_bound_by.get(n, "").startswith("check:")}
            assert not leaked, f"cell {cell.id} reads {sorted(leaked)}, made by a self-check cell"
        for name in bound:
            last_bound_by[name] = ("check:" if check else "lesson:") + str(cell.id)
