"""Chapter 06's first exercises (the MyTensor track and chapter 07 have files of their own):
right answers pass on any seed, each mistake fails its check with its own hint,
and the solution notebooks grade full while the released exercises grade zero."""

import csv
from pathlib import Path

import numpy as np
import pytest
from grading_helpers import failed_checks, grade

from micrograd_edu.course.cli import main
from micrograd_edu.grading import chapter
from micrograd_edu.grading.arrays import as_array, numerical_gradients

ROOT = Path(__file__).resolve().parent.parent


def unbroadcast(grad, shape):
    # written out here rather than taken from the engine (mg.unbroadcast)
    extra = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True)


def matmul_backward(a, b, dc):
    # a vector is a one-row (left) or one-column (right) matrix; a stack of matrices
    # multiplies matrix by matrix, and an input broadcast over the stack sums its shares
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    dc2 = np.asarray(dc, dtype=float)
    dc2 = dc2[..., None] if b.ndim == 1 else dc2  # the column B was
    dc2 = dc2[..., None, :] if a.ndim == 1 else dc2  # the row A was
    da = unbroadcast(dc2 @ np.swapaxes(b2, -1, -2), a2.shape)
    db = unbroadcast(np.swapaxes(a2, -1, -2) @ dc2, b2.shape)
    return da.reshape(a.shape), db.reshape(b.shape)


def matmul_2d_only(a, b, dc):
    """Right for matrices and vectors; a stack's gradients keep the product's batch axes."""
    if max(a.ndim, b.ndim) < 3:
        return matmul_backward(a, b, dc)
    b2 = b[:, None] if b.ndim == 1 else b
    dc2 = np.expand_dims(dc, -1) if b.ndim == 1 else dc
    da = dc2 @ np.swapaxes(b2, -1, -2)
    db = np.swapaxes(a, -1, -2) @ dc2
    return da, db.reshape(db.shape[:-1]) if b.ndim == 1 else db


CORRECT = {
    "unbroadcast": unbroadcast,
    "matmul_backward": matmul_backward,
    "quadratic_form_grad": lambda a, x: (a + a.T) @ x,
}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(6)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    # (the MyTensor track of 06 has tests of its own: test_grading_chapter06_engine.py)
    for ex in [ex for ex in chapter("06") if set(ex.names) <= set(CORRECT)]:
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])
        assert result.score == ex.points


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


BROADCASTING = {
    "a (1, n) row added to an (m, n) batch",
    "leading axes that broadcasting added",
    "length-1 axes anywhere",
}
# The phrase of each targeted hint: a mistake gets its own, and no other.
HINTS = {
    "grad itself": "that is grad itself",
    "axes gone": "axes of length 1 are gone",
    "averaged": "averaged instead of summed",
    "not stretched": "but not the stretched ones",
    "first axis": "summed over the first axis",
    "as they stood": "the factors enter as they stood",
    "transposed": "laid out transposed",
    "1-D": "a 1-D vector has no second axis",
    "batch axes": "with the batch axes of the product",
    "stack reversed": ".T reverses every axis",
    "x twice": "x appears twice",
    "not symmetric": "equal only when A equals its transpose",
}


def _lead(g, s):
    return g.sum(axis=tuple(range(g.ndim - len(s))))


STACKS = "stacks of matrices, with broadcast batch axes"
MISTAKES = [  # (exercise, function, the mistake, the checks it fails, its hint)
    ("06.unbroadcast", "unbroadcast", lambda g, s: g, BROADCASTING, "grad itself"),
    (  # summed the batch axis away without keeping it
        "06.unbroadcast",
        "unbroadcast",
        lambda g, s: g.sum(axis=0) if g.shape != tuple(s) else g,
        BROADCASTING,
        "axes gone",  # (m, n) to (1, n) summed to (n,); elsewhere no model matches
    ),
    (  # the right axes, the length-1 axes dropped
        "06.unbroadcast",
        "unbroadcast",
        lambda g, s: (
            unbroadcast(g, s).reshape([n for n in np.shape(unbroadcast(g, s)) if n != 1])
            if 1 in s and g.shape != tuple(s)
            else unbroadcast(g, s)
        ),
        {"a (1, n) row added to an (m, n) batch", "length-1 axes anywhere"},
        "axes gone",
    ),
    (  # mean instead of sum
        "06.unbroadcast",
        "unbroadcast",
        lambda g, s: unbroadcast(g, s) * unbroadcast(np.ones_like(g), s) ** -1,
        BROADCASTING,
        "averaged",
    ),
    (  # only handles leading axes
        "06.unbroadcast",
        "unbroadcast",
        _lead,
        {"a (1, n) row added to an (m, n) batch", "length-1 axes anywhere"},
        # where every failing case has no leading axes, it returned grad itself; where some
        # have, the leading axes are summed and the stretched ones are not
        ("grad itself", "not stretched"),
    ),
    (  # always the first axis
        "06.unbroadcast",
        "unbroadcast",
        lambda g, s: (
            _lead(g, s).sum(axis=0, keepdims=True) if _lead(g, s).shape != tuple(s) else _lead(g, s)
        ),
        {"a (1, n) row added to an (m, n) batch", "length-1 axes anywhere"},
        "first axis",
    ),
    (  # forgot the transposes
        "06.matmul_backward",
        "matmul_backward",
        lambda a, b, dc: (dc @ b, a @ dc),
        {"square matrices", "non-square matrices", "1-D vectors", STACKS},
        ("as they stood", "1-D", "stack reversed", "batch axes"),  # vectors and stacks raise
    ),
    (  # transposed results
        "06.matmul_backward",
        "matmul_backward",
        lambda a, b, dc: tuple(np.transpose(g) for g in matmul_backward(a, b, dc)),
        {"square matrices", "non-square matrices", "1-D vectors", STACKS},
        ("transposed", "1-D"),
    ),
    (  # right for matrices, but .T on 1-D vectors does nothing (and reverses a stack)
        "06.matmul_backward",
        "matmul_backward",
        lambda a, b, dc: (dc @ b.T, a.T @ dc),
        {"1-D vectors", STACKS},
        ("1-D", "stack reversed"),
    ),
    (  # right for matrices and vectors, the stacks' gradients never summed back
        "06.matmul_backward",
        "matmul_backward",
        matmul_2d_only,
        {STACKS},
        "batch axes",
    ),
    (
        "06.quadratic_form_grad",
        "quadratic_form_grad",
        lambda a, x: 2 * a @ x,
        {"non-symmetric A"},
        "not symmetric",
    ),
    (
        "06.quadratic_form_grad",
        "quadratic_form_grad",
        lambda a, x: a @ x,
        {"symmetric A", "non-symmetric A"},
        "x twice",
    ),
]


@pytest.mark.parametrize("exercise_id, name, wrong, failing, hint", MISTAKES)
def test_each_mistake_fails_its_checks_with_its_own_hint(exercise_id, name, wrong, failing, hint):
    result = grade(exercise_id, {**CORRECT, name: wrong})
    assert failed_checks(result) == failing, [(c.name, c.reason) for c in result.checks]
    # partial credit: the checks it passes count, once the first (the main property) holds
    passed_share = sum(c.max_score for c in result.checks if c.passed)
    expected = passed_share if result.checks[0].passed else 0.0
    assert result.score == pytest.approx(expected) and result.score < result.max_score
    hints = [c.hint for c in result.checks if not c.passed and c.hint]
    own = hint if isinstance(hint, tuple) else (hint,)
    others = [phrase for key, phrase in HINTS.items() if key not in own]
    assert not any(phrase in h for h in hints for phrase in others), hints
    if hint is not None:
        assert hints and any(HINTS[own[0]] in h for h in hints), hints


def test_a_wrong_shape_is_named_before_values():
    result = grade("06.unbroadcast", {"unbroadcast": lambda g, s: g})
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
