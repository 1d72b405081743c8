"""Chapter 06's first exercises beyond the mistakes of tests/mistakes/chapter06.py (which
test_grading_mistakes.py grades): the reference matmul_backward agrees with PyTorch, a wrong
shape is named before values, the package's own answers are withheld while grading, and
array-likes are read as arrays."""

import csv
from pathlib import Path

import numpy as np
import pytest
from grading_helpers import grade
from mistakes.chapter06 import matmul_backward

from micrograd_edu.course.cli import main
from micrograd_edu.grading.arrays import as_array, numerical_gradients

ROOT = Path(__file__).resolve().parent.parent


def test_the_reference_matmul_backward_agrees_with_torch_when_installed():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    shapes = [((3, 4), (4, 2)), ((3, 4), (4,)), ((4,), (4, 2)), ((4,), (4,))]
    shapes += [((2, 3, 4), (4, 5)), ((3, 1, 2, 4), (2, 4, 5)), ((2, 3, 4), (4,)), ((4,), (2, 4, 3))]
    for a_shape, b_shape in shapes:
        a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
        ta = torch.tensor(a, requires_grad=True)
        tb = torch.tensor(b, requires_grad=True)
        out = ta @ tb
        dc = rng.normal(size=tuple(out.shape))
        out.backward(torch.tensor(dc))
        da, db = matmul_backward(a, b, dc)
        assert np.allclose(da, ta.grad.numpy()) and np.allclose(db, tb.grad.numpy())


def test_a_wrong_shape_is_named_before_values():
    result = grade("06.unbroadcast", {"unbroadcast": lambda g, s: g})
    assert not any(c.hint for c in result.checks)  # the shape is what was seen, not a cause
    reason = next(c.reason for c in result.checks if not c.passed)
    assert "has shape" in reason and "it must have shape (1," in reason


def test_a_function_that_returns_one_array_is_told_to_return_a_tuple():
    result = grade("06.matmul_backward", {"matmul_backward": lambda a, b, dc: a})
    assert all("tuple (dA, dB)" in c.reason for c in result.checks)


def test_as_array_rejects_ragged_and_non_numbers():
    assert as_array([[1.0], [1.0, 2.0]], (2, 2), "dA")[0] is None
    assert "not an array of numbers" in as_array(["1"], (1,), "dA")[1]
    assert "not an array of numbers" in as_array({"unsupported": "Liar"}, (1,), "dA")[1]


def test_numerical_gradients_match_a_closed_form():
    rng = np.random.default_rng(1)
    a, x = rng.normal(size=(3, 3)), rng.normal(size=3)
    (g,) = numerical_gradients(lambda v: v @ a @ v, x)
    assert np.allclose(g, (a + a.T) @ x, atol=1e-8)


def test_the_package_own_unbroadcast_and_engine_are_withheld_while_grading(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    cells = [
        "import numpy as np\nfrom micrograd_edu import Tensor, unbroadcast",
        "def matmul_backward(A, B, dC):\n"
        "    a, b = Tensor(A, requires_grad=True), Tensor(B, requires_grad=True)\n"
        "    (a @ b).backward(dC)\n"
        "    return a.grad, b.grad",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["micrograd_edu"] = {"chapter": "06"}
    path = tmp_path / "borrowed.ipynb"
    nbformat.write(notebook, path)
    out, results = tmp_path / "gradebook.csv", tmp_path / "results.json"
    assert main(["grade", str(path), "--csv", str(out), "--gradescope", str(results)]) == 0
    with open(out, newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert float(row["06.unbroadcast"]) == 0 and float(row["06.matmul_backward"]) == 0
    assert float(row["score"]) == 0
    assert "micrograd_edu.tensor.Tensor is withheld" in results.read_text()


def test_array_like_answers_are_read_as_arrays():
    # issue 26: np.matrix values lost points; any array-like of the right shape is an array
    as_scalars = {"quadratic_form_grad": lambda a, x: [np.float64(v) for v in (a + a.T) @ x]}
    assert grade("06.quadratic_form_grad", as_scalars).passed
    as_lists = {"matmul_backward": lambda a, b, dc: [g.tolist() for g in matmul_backward(a, b, dc)]}
    assert grade("06.matmul_backward", as_lists).passed
    # (an np.matrix is always 2-D: for a vector's gradient its shape is named, not accepted)
