"""The similarity report flags disguised copies and not independent honest solutions.

tests/fixtures/similarity holds, for three exercises of different length (01's gradient,
04's topological order, 02's symbolic derivative), honest solutions written
independently in different styles (loops, comprehensions, numpy, closures, Kahn's
algorithm, a match statement...) and copies of some of them disguised as a student
would: every name changed, independent statements reordered, if/else swapped, comments
rewritten. Each variant is first checked to be a right answer."""

import shutil
from pathlib import Path

import pytest
from grading_helpers import grade

from micrograd_edu.course.cli import main
from micrograd_edu.grading.notebook import dumps, read_notebook
from micrograd_edu.grading.similarity import build

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ROOT / "tests" / "fixtures" / "similarity"
# exercise -> (chapter, notebook, the cell its code goes in)
EXERCISES = {
    "01.numerical_gradient": ("01", "01_numerical", "gradient-code"),
    "04.topological_order": ("04", "04_reverse", "order-code"),
    "02.my_diff": ("02", "02_symbolic", "diff-code"),
}
NOTEBOOK_NAMES = (
    "import math\n"
    "from micrograd_edu.scalar.symbolic import Apply, Constant, Symbol\n"
    "from micrograd_edu.scalar.numerical import central_difference\n"
)


def _variants(exercise_id: str) -> list[Path]:
    return sorted((VARIANTS / exercise_id.split(".")[1]).glob("*.py"))


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_every_variant_is_a_right_answer(exercise_id):
    name = exercise_id.split(".")[1]
    for path in _variants(exercise_id):
        namespace: dict = {}
        exec(NOTEBOOK_NAMES, namespace)
        exec(path.read_text(), namespace)
        result = grade(exercise_id, {name: namespace[name]})
        assert result.score == result.max_score, (path.name, result)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Per exercise: the listed pairs of a class made of the variants, the reference
    solution and two students who handed in the released notebook untouched."""
    found = {}
    for exercise_id, (number, notebook, cell) in EXERCISES.items():
        folder = tmp_path_factory.mktemp(number)
        for path in _variants(exercise_id):
            nb = read_notebook(ROOT / "exercises" / f"{notebook}.ipynb")
            next(c for c in nb["cells"] if c.get("id") == cell)["source"] = path.read_text()
            (folder / f"{path.stem}.ipynb").write_text(dumps(nb), encoding="utf-8")
        shutil.copy(ROOT / "solutions" / f"{notebook}.ipynb", folder / "reference.ipynb")
        for stub in ("stub_a", "stub_b"):
            shutil.copy(ROOT / "exercises" / f"{notebook}.ipynb", folder / f"{stub}.ipynb")
        _, sections, notes = build([folder], number, ROOT / "exercises")
        assert notes == []
        found[exercise_id] = {e: pairs for e, _, pairs in sections}
    return found


def _listed(pairs) -> set[frozenset[str]]:
    return {
        frozenset((p.a.who.removesuffix(".ipynb"), p.b.who.removesuffix(".ipynb"))) for p in pairs
    }


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_disguised_copies_are_listed_and_honest_pairs_are_not(reports, exercise_id):
    copies = {
        frozenset((p.stem, p.stem.replace("copy_of_", "honest_")))
        for p in _variants(exercise_id)
        if p.stem.startswith("copy_of_")
    }
    assert copies and _listed(reports[exercise_id][exercise_id]) == copies


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_pairs_that_share_only_the_released_notebook_are_never_listed(reports, exercise_id):
    # every other exercise of the chapter: all of them kept the stub there
    others = {e: pairs for e, pairs in reports[exercise_id].items() if e != exercise_id}
    assert others and all(pairs == [] for pairs in others.values())


def test_the_page_shows_the_closest_pairs_side_by_side_and_gives_no_verdict(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    for path in _variants("04.topological_order"):
        nb = read_notebook(ROOT / "exercises" / "04_reverse.ipynb")
        next(c for c in nb["cells"] if c.get("id") == "order-code")["source"] = path.read_text()
        (folder / f"{path.stem}.ipynb").write_text(dumps(nb), encoding="utf-8")
    page = tmp_path / "similarity.html"
    args = ["similarity", str(folder), "--chapter", "04", "--released", str(ROOT / "exercises")]
    assert main([*args, "--html", str(page)]) == 0
    assert (
        "04.topological_order: 6 submissions compared, 2 pair(s) listed" in capsys.readouterr().out
    )
    text = page.read_text()
    assert text.count("<td><pre>") == 4  # two pairs, two columns each
    assert "background:#fff3b0" in text and "id(current) in visited" in text
    assert not any(word in text.lower() for word in ("plagiar", "cheat", "guilty", "copied"))
