"""Submissions that game a check, and honest ones in unusual forms, graded by the batch
grader in its sandbox as a class's would be: each fixture is a solution notebook with one
cell rewritten as a student would write it, and the score it deserves on the exercise it
games is written here (issue 26 classes 2 to 4, issue 28's "wrong work earns points").

One batch per chapter grades all of that chapter's fixtures (about 5 s each)."""

import csv
from pathlib import Path

import pytest

from micrograd_edu.grading import batch, gradebook
from micrograd_edu.grading.notebook import dumps, read_notebook

ROOT = Path(__file__).resolve().parents[1]

# --- chapter 01 -------------------------------------------------------------------

SPREADS_THE_POINT = """
def numerical_gradient(f, xs, h=1e-5):
    grad = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        grad.append((f(*up) - f(*down)) / (2 * h))  # the entries, not the point
    return grad
"""

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

DIFFERENCE_QUOTIENT = """
def substitute(expr, var, value):
    if isinstance(expr, Symbol):
        return value if expr.name == var.name else expr
    if isinstance(expr, Constant):
        return expr
    return Apply(expr.op, tuple(substitute(a, var, value) for a in expr.args))


def my_diff(expr, var, h=1e-5):
    return (substitute(expr, var, var + h) - substitute(expr, var, var - h)) / (2 * h)
"""

FOLDS_IN_PLACE = """
def fold_constants(expr):
    if isinstance(expr, Apply):
        expr.args = tuple(fold_constants(a) for a in expr.args)
        if all(isinstance(a, Constant) for a in expr.args):
            return Constant(expr.evaluate())
    return expr
"""

FOLDS_TO_A_NUMBER = """
def fold_constants(expr):
    if not isinstance(expr, Apply):
        return expr
    args = tuple(fold_constants(a) for a in expr.args)
    args = tuple(Constant(a) if isinstance(a, float) else a for a in args)
    if all(isinstance(a, Constant) for a in args):
        return Apply(expr.op, args).evaluate()
    return Apply(expr.op, args)
"""

# --- chapter 04 -------------------------------------------------------------------

RECURSIVE_WITH_A_HIGHER_LIMIT = """
import sys

sys.setrecursionlimit(100_000)


def topological_order(root):
    order, seen = [], set()

    def visit(node):
        if id(node) not in seen:
            seen.add(id(node))
            for parent in node.parents:
                visit(parent)
            order.append(node)

    visit(root)
    return order
"""

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

NO_BACKWARD_RULES = """
class MyValue:
    def __init__(self, data, parents=(), op=""):
        self.data, self.grad, self.parents, self.op = float(data), 0.0, tuple(parents), op
        self.label = ""
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, MyValue) else MyValue(other)
        out = MyValue(self.data + other.data, (self, other), "add")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, MyValue) else MyValue(other)
        out = MyValue(self.data * other.data, (self, other), "mul")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def tanh(self):
        out = MyValue(math.tanh(self.data), (self,), "tanh")

        def _backward():
            self.grad += (1.0 - out.data**2) * out.grad

        out._backward = _backward
        return out

    # the values only: no backward rule at all
    def __pow__(self, k):
        return MyValue(self.data**k, (self,), "pow")

    def exp(self):
        return MyValue(math.exp(self.data), (self,), "exp")

    def relu(self):
        return MyValue(max(self.data, 0.0), (self,), "relu")
"""

DIVISION_OF_ITS_OWN = NO_BACKWARD_RULES.replace(
    "    # the values only: no backward rule at all",
    """    def __pow__(self, k):
        out = MyValue(self.data**k, (self,), "pow")

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rtruediv__(self, other):
        return other * self**-1

    def __truediv__(self, other):  # a rule of its own, and calls of + * ** for show
        other = other if isinstance(other, MyValue) else MyValue(other)
        self + 0, self * 1, other**1
        out = MyValue(self.data / other.data, (self, other), "div")

        def _backward():
            self.grad += out.grad / other.data
            other.grad -= out.grad * self.data / other.data**2

        out._backward = _backward
        return out

    # (exp and relu as the values only, below)""",
).replace(
    """    def __pow__(self, k):
        return MyValue(self.data**k, (self,), "pow")

""",
    "",
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

TRAINED_WITHOUT_BACKWARD = """
import numpy as np


def train(xs, ys, hidden=8, steps=3000, lr=0.05):  # hand-derived numpy gradients
    rng = np.random.default_rng(0)
    w, b, v, c = rng.normal(size=hidden), rng.normal(size=hidden), np.zeros(hidden), 0.0
    x, y = np.array(xs)[:, None], np.array(ys)
    for _ in range(steps):
        h = np.tanh(x * w + b)
        e = h @ v + c - y
        gh = (2 / len(xs)) * e[:, None] * v * (1 - h**2)
        w, b = w - lr * (gh * x).sum(0), b - lr * gh.sum(0)
        v, c = v - lr * (2 / len(xs)) * h.T @ e, c - lr * (2 / len(xs)) * e.sum()
    return [w, b, v, c]
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
    ("05", "05_forward_vs_reverse", "differences", "vjp-code", VJP_BY_DIFFERENCES, {"05.vjp": 0}),
    ("05", "05_forward_vs_reverse", "secrets", "vjp-code", LOOKS_FOR_THE_SECRETS, {"05.vjp": 0}),
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
