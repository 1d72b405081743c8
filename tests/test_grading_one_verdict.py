"""One verdict (issue 11): a notebook's own ``check(...)`` cells and the batch grader give
the same result on the same submission. The notebook runs in a Jupyter kernel and checks
itself there, as a student's does; the batch grader runs it in its sandboxed child with
the public seed the notebook uses. Every check of every exercise must come
out the same: passed or not, its score and its hint. Run over every solution and
exercise notebook and every chapter-01 fixture that a kernel can run to the end."""

import json
from pathlib import Path

import pytest

from micrograd_edu.grading import batch, gradebook
from micrograd_edu.grading.feedback import PUBLIC_SEED

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "grading"
# The fixtures that a kernel runs to the end (the others crash it, loop, exit or attack
# the grader: test_grading_batch.py and test_grading_sandbox.py grade those).
HONEST = [
    "correct_but_different",
    "notebook_idioms",
    "crash_in_function",
    "wrong_extrapolated_difference",
    "wrong_numerical_gradient",
    "wrong_one_sided_difference",
    "wrong_second_difference",
    "wrong_step_size",
]
NOTEBOOKS = (
    sorted((ROOT / "solutions").glob("*.ipynb"))
    + sorted((ROOT / "exercises").glob("*.ipynb"))
    + [FIXTURES / f"{name}.ipynb" for name in HONEST]
)

# The last cell added to the notebook: check() for each exercise of the chapter, as the
# notebook's own check cells call it (without a time limit: a busy machine must not turn
# a verdict into a timeout; the batch side gets a generous one), printed as JSON.
REPORT = """
import json
from micrograd_edu.grading import chapter, check
report = {}
for ex in chapter(NUMBER):
    result = check(ex.id, time_limit=None).result
    report[ex.id] = [[c.name, c.passed, round(c.score, 6), c.hint] for c in result.checks]
print(json.dumps(report))
"""


def _in_the_notebook(path: Path, number: str) -> dict:
    """The notebook run top to bottom in a Jupyter kernel, as a student runs it (a cell
    that raises does not stop the next), then checked there."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(REPORT.replace("NUMBER", repr(number))))
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )  # fmt: skip
    client.execute()
    # A busy kernel may split one print into several stream messages: join them.
    out = "".join(o["text"] for o in nb.cells[-1].outputs if o.get("name") == "stdout")
    assert out.strip(), nb.cells[-1].outputs
    return json.loads(out.strip().splitlines()[-1])


def _chapter(path: Path) -> str:
    return "01" if path.parent == FIXTURES else path.name[:2]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS])
def test_the_notebook_and_the_batch_grader_give_one_verdict(path, tmp_path):
    pytest.importorskip("resource")  # the batch grader is POSIX only
    number = _chapter(path)
    notebook = _in_the_notebook(path, number)
    (row,) = gradebook.grade_all(
        [path],
        chapter_number=number,
        csv_path=tmp_path / "g.csv",
        limits=batch.Limits(timeout=60),
        seed=PUBLIC_SEED,
    )
    graded = {
        r.id: [[c.name, c.passed, round(c.score, 6), c.hint] for c in r.checks] for r in row.results
    }
    assert graded.keys() == notebook.keys()
    for exercise_id, checks in notebook.items():
        if not graded[exercise_id]:  # not attempted: the batch reports no checks at all
            assert not any(passed for _, passed, _, _ in checks), (exercise_id, checks)
            continue
        assert graded[exercise_id] == checks, exercise_id
