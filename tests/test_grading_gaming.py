"""Submissions that game a check, and honest ones in unusual forms, graded by the batch
grader in its sandbox as a class's would be: each fixture is a solution notebook with one
cell rewritten as a student would write it, and the score it deserves on the exercise it
games is written here (issue 26 classes 2 to 4, issue 28's "wrong work earns points").

One batch per chapter grades all of that chapter's fixtures (about 5 s each)."""

import csv
import inspect
from pathlib import Path

import pytest
from mistakes import chapter01, chapter02, chapter04
from test_grading_withheld_in_check import ORDER_WITH_GRAPHLIB, VALUE, VJP_BY_THE_PACKAGE

from micrograd_edu.grading import batch, gradebook
from micrograd_edu.grading.notebook import dumps, read_notebook

ROOT = Path(__file__).resolve().parents[1]


def _cell(name: str, *functions, imports: str = "", value: str = "") -> str:
    """A notebook cell defining ``name`` as ``value`` (by default the last of
    ``functions``), the functions written as in tests/mistakes/ (where
    test_grading_mistakes.py grades the same mistakes directly)."""
    sources = [inspect.getsource(f) for f in functions]
    value = value or functions[-1].__name__
    return "\n\n".join([imports, *sources, f"{name} = {value}\n"]).lstrip()


SPREADS_THE_POINT = _cell("numerical_gradient", chapter01.gradient_spread)
DIFFERENCE_QUOTIENT = _cell("my_diff", chapter02.substitute, chapter02.difference_quotient)
FOLDS_IN_PLACE = _cell("fold_constants", chapter02.fold_in_place)
FOLDS_TO_A_NUMBER = _cell("fold_constants", chapter02.fold_to_a_number)
RECURSIVE_WITH_A_HIGHER_LIMIT = _cell(
    "topological_order", chapter04.recursive_order, chapter04.recursive_with_a_higher_limit
)
TRAINED_WITHOUT_BACKWARD = _cell("train", chapter04.numpy_network, imports="import numpy as np")
LEAST_SQUARES_WITH_DUMMY_BACKWARD = _cell(
    "train",
    chapter04.least_squares_with_dummy_backward,
    imports="import random\n\nimport numpy as np\n\nCORRECT = {'MyValue': MyValue}",
)
GRAPHLIB_AT_THE_TOP = ORDER_WITH_GRAPHLIB.format(
    imports="from graphlib import TopologicalSorter", sorter="TopologicalSorter"
)

# --- chapter 01 -------------------------------------------------------------------


ANSWERS_A_DEQUE = """
from collections import deque


def numerical_gradient(f, xs, h=1e-5):
    grad = deque()
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        grad.append((f(up) - f(down)) / (2 * h))
    return grad
"""

STEP_AS_NUMPY = """
import numpy as np


def step_size(x):
    return np.float64(2.0) ** (-13) * max(1.0, abs(x))
"""

# --- chapter 02 -------------------------------------------------------------------


# --- chapter 04 -------------------------------------------------------------------


REPLAYS_THE_LISTING = """
import micrograd_edu.grading.runners.chapter04 as runners


def _replay(functions, case):
    graph = case["graph"]
    return {"order": list(range(len(graph))), "depth": 0, "raised_limit": False}


def _replay_backward(functions, case):  # the listing reversed, as a backward order
    nodes = runners._build(case["graph"], runners._ClosureNode)
    root = nodes[case["root"]]
    root.grad = 1.0
    for node in reversed(nodes):
        node._backward()
    leaves = [nodes[i] for i in runners._leaf_indices(case["graph"])]
    return {"root_grad": 1.0, "grads": [leaf.grad for leaf in leaves]}


runners._run_order = _replay
runners._run_backward = _replay_backward


def topological_order(root):
    raise NotImplementedError()


def backward(root):
    raise NotImplementedError()
"""

NO_BACKWARD_RULES = _cell(  # **, exp and relu make their values, with no backward rule
    "MyValue",
    chapter04.make_value_class,
    value='make_value_class(pow="nothing", exp="nothing", relu="nothing")',
)
DIVISION_OF_ITS_OWN = _cell(  # with calls of +, * and ** for show
    "MyValue", chapter04.make_value_class, value='make_value_class(div="dummy_calls")'
)

POLYNOMIAL_WITH_DUMMY_VALUES = """
import numpy as np


def train(xs, ys):
    for _ in range(200 * len(xs)):
        MyValue(0.0)  # what "trained with MyValue" once counted
    for _ in range(30):
        backward(MyValue(1.0))  # and calls of backward, on nothing
    coefficients = np.polyfit(xs, ys, 7)
    return [[0.0], [0.0], [0.0], float(np.polyval(coefficients, 0.0))]
"""


# --- chapter 05 -------------------------------------------------------------------

VJP_BY_DIFFERENCES = """
def vjp(f, xs, v, h=1e-6):  # f at shifted points: every call is the grader's to count
    out = []
    for j in range(len(xs)):
        up = [mg.Value(x + h * (k == j)) for k, x in enumerate(xs)]
        down = [mg.Value(x - h * (k == j)) for k, x in enumerate(xs)]
        rows = zip(f(*up), f(*down), strict=True)
        out.append(sum(vi * (a.data - b.data) / (2 * h) for vi, (a, b) in zip(v, rows)))
    return out
"""

LOOKS_FOR_THE_SECRETS = """
def vjp(f, xs, v):  # f's closure holds the case: take its scales and rebuild f, uncounted
    found = {}
    for cell in f.__closure__ or ():
        value = cell.cell_contents
        if isinstance(value, dict):
            found.update(value)
    scales = found.get("held") or {}
    if not scales:
        raise LookupError(f"no secret scales in reach; f holds {sorted(found)}")
    return [0.0] * len(xs)
"""

GRADIENT = "01.numerical_gradient"
# (chapter, solution notebook, fixture name, cell id, source, {exercise: deserved score})
FIXTURES = [
    ("01", "01_numerical", "spreads", "gradient-code", SPREADS_THE_POINT, {GRADIENT: 0}),
    ("01", "01_numerical", "deque", "gradient-code", ANSWERS_A_DEQUE, {GRADIENT: 3}),
    ("01", "01_numerical", "float64", "step-code", STEP_AS_NUMPY, {"01.step_size": 2}),
    ("02", "02_symbolic", "quotient", "diff-code", DIFFERENCE_QUOTIENT, {"02.my_diff": 0}),
    ("02", "02_symbolic", "in_place", "fold-code", FOLDS_IN_PLACE, {"02.fold_constants": 4 / 3}),
    ("02", "02_symbolic", "a_number", "fold-code", FOLDS_TO_A_NUMBER, {"02.fold_constants": 0}),
    ("04", "04_reverse", "recursive", "order-code", RECURSIVE_WITH_A_HIGHER_LIMIT,
     {"04.topological_order": 0, "04.backward": 2}),
    ("04", "04_reverse", "replay", "order-code", REPLAYS_THE_LISTING,
     {"04.topological_order": 0, "04.backward": 0}),
    ("04", "04_reverse", "no_rules", "value-code", NO_BACKWARD_RULES,
     {"04.pow": 0, "04.exp": 0, "04.relu": 0}),
    ("04", "04_reverse", "own_division", "value-code", DIVISION_OF_ITS_OWN,
     {"04.pow": 2, "04.div": 2 * 4 / 5}),
    ("04", "04_reverse", "polynomial", "train-code", POLYNOMIAL_WITH_DUMMY_VALUES, {"04.train": 0}),
    ("04", "04_reverse", "numpy", "train-code", TRAINED_WITHOUT_BACKWARD, {"04.train": 0}),
    ("04", "04_reverse", "lstsq", "train-code", LEAST_SQUARES_WITH_DUMMY_BACKWARD, {"04.train": 0}),
    ("04", "04_reverse", "graphlib", "order-code", GRAPHLIB_AT_THE_TOP,
     {"04.topological_order": 0, "04.backward": 2}),
    ("04", "04_reverse", "value_pow", "value-code", VALUE, {"04.pow": 0}),
    ("05", "05_forward_vs_reverse", "differences", "vjp-code", VJP_BY_DIFFERENCES, {"05.vjp": 0}),
    ("05", "05_forward_vs_reverse", "secrets", "vjp-code", LOOKS_FOR_THE_SECRETS, {"05.vjp": 0}),
    ("05", "05_forward_vs_reverse", "package", "vjp-code", VJP_BY_THE_PACKAGE, {"05.vjp": 0}),
]  # fmt: skip


def _fixture(solution: str, cell_id: str, source: str, path: Path) -> Path:
    nb = read_notebook(ROOT / "solutions" / f"{solution}.ipynb")
    (cell,) = [c for c in nb["cells"] if c.get("id") == cell_id]
    cell["source"] = source
    path.write_text(dumps(nb), encoding="utf-8")
    return path


@pytest.mark.parametrize("number", sorted({f[0] for f in FIXTURES}))
def test_gamed_exercises_earn_nothing_and_honest_forms_full_marks(number, tmp_path):
    pytest.importorskip("resource")  # the batch grader is POSIX only
    chosen = [f for f in FIXTURES if f[0] == number]
    paths = [
        _fixture(sol, cell, src, tmp_path / f"{name}.ipynb")
        for _, sol, name, cell, src, _ in chosen
    ]
    csv_path = tmp_path / "g.csv"
    gradebook.grade_all(
        paths, chapter_number=number, csv_path=csv_path, limits=batch.Limits(timeout=60)
    )
    with open(csv_path, newline="") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    for _, _, name, _, _, deserved in chosen:
        row = rows[f"{name}.ipynb"]
        for exercise_id, score in deserved.items():
            # (the gradebook writes 6 significant digits)
            assert float(row[exercise_id]) == pytest.approx(score, abs=1e-4), (name, row)
