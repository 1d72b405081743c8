"""Chapter 07's exercises: backpropagation through a linear layer.

The oracle is always central differences, of ``Y = XW`` itself (its Jacobian)
or of the scalar ``L = sum(dY * Y)`` whose gradient with respect to ``Y`` is
``dY`` (the gradients of ``X``, ``W`` and ``b``). Batch sizes and the two
widths are drawn all different, so a missing transpose gives a wrong shape,
and a batch of one is checked on its own, where summing over the batch is
easy to forget.
"""

from __future__ import annotations

import random

import numpy as np

from ..scalar.numerical import jacobian
from .arrays import compare, numerical_gradients, random_matrix, same
from .chapter06 import WITHHELD
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter07 import _arrays, _run_backward, _run_jacobian


def _layer_cases(batch_one: bool = False, count: int = 3):
    """Cases with X (B, H1), W (H1, H2), b (H2,), dY (B, H2); B, H1, H2 all different."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for _ in range(count):
            batch, h1, h2 = rng.sample(range(2, 7), 3)
            batch = 1 if batch_one else batch
            out.append(
                {
                    "X": random_matrix(rng, batch, h1),
                    "W": random_matrix(rng, h1, h2),
                    "b": random_matrix(rng, h2),
                    "dY": random_matrix(rng, batch, h2),
                }
            )
        return out

    return cases


# --- the Jacobian ∂Y/∂X, formed for a small layer --------------------------------


def _judge_jacobian(case: Case, seen: dict) -> str | None:
    x, w, _, _ = _arrays(case)
    want = jacobian(lambda *flat: (np.reshape(flat, x.shape) @ w).ravel(), x.ravel().tolist())
    what = f"the Jacobian for X {x.shape}, W {w.shape}"
    return compare(seen.get("value"), want.jacobian, what)


def _jacobian_is(model):
    def matches(case: Case, seen: dict) -> bool:
        x, w, _, _ = _arrays(case)
        return same(seen.get("value"), model(x, w))

    return matches


def _column_major(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The Jacobian with Y and X flattened column by column (Fortran order)."""
    batch, h1, h2 = x.shape[0], *w.shape
    rows = np.arange(batch * h2).reshape(batch, h2).ravel(order="F")
    cols = np.arange(batch * h1).reshape(batch, h1).ravel(order="F")
    return np.kron(np.eye(batch), w.T)[np.ix_(rows, cols)]


_JACOBIAN_MISTAKES = (
    Mistake(
        _jacobian_is(lambda x, w: np.kron(np.eye(x.shape[0]), w)),
        "rows and columns are swapped: the matrix has one row per entry of Y and one "
        "column per entry of X",
    ),
    Mistake(
        _jacobian_is(lambda x, w: np.tile(w.T, (x.shape[0], x.shape[0]))),
        "in your matrix every row of Y depends on every row of X: does example i's output "
        "depend on example j's input?",
    ),
    Mistake(
        _jacobian_is(_column_major),
        "the right entries in the wrong places: rows and columns follow Y.ravel() and "
        "X.ravel(), row by row",
    ),
)


JACOBIAN = register(
    Exercise(
        "07.linear_jacobian",
        "The Jacobian of Y = XW with respect to X",
        2,
        "linear_jacobian(X, W) returns the matrix of ∂Y[i, j]/∂X[p, q] for Y = X @ W, "
        "with one row per entry of Y and one column per entry of X, both in row-major "
        "order (as Y.ravel() and X.ravel()).",
        ("linear_jacobian",),
        (
            Check(
                "matches finite differences on non-square shapes",
                "",
                _layer_cases(),
                _run_jacobian,
                _judge_jacobian,
                mistakes=_JACOBIAN_MISTAKES,
            ),
            Check(
                "a batch of one",
                "",
                _layer_cases(batch_one=True, count=2),
                _run_jacobian,
                _judge_jacobian,
                mistakes=_JACOBIAN_MISTAKES,
            ),
        ),
        answers=(
            "np.kron(np.eye(X.shape[0]), W.T)",
            "kron(",
            "eye(",
            r"copies of $W^\top$",
            "block diagonal",
        ),
        withheld=WITHHELD,
    )
)


# --- the backward of the layer -------------------------------------------------------


def _judge_backward(parts: tuple[str, ...], torch_layout: bool = False):
    """Compare the named parts of (dX, dW, db) with central differences of sum(dY * Y)."""

    def judge(case: Case, seen: dict) -> str | None:
        if not seen.get("triple"):
            return "the function must return a tuple of three arrays (dX, dW, db)"
        x, w, b, dy = _arrays(case)
        want = dict(
            zip(
                ("dX", "dW", "db"),
                numerical_gradients(lambda x_, w_, b_: np.sum(dy * (x_ @ w_ + b_)), x, w, b),
                strict=True,
            )
        )
        if torch_layout:
            want["dW"] = want["dW"].T
        names = {"dX": "grad of X", "dW": "grad of the weight", "db": "grad of the bias"}
        where = f" (batch {x.shape[0]}, {x.shape[1]} in, {w.shape[1]} out)"
        for part in parts:
            problem = compare(seen.get(part), want[part], names[part] + where)
            if problem:
                return problem
        return None

    return judge


def _part_is(part: str, model, torch_layout: bool = False):
    """A mistake whose ``part`` (dX, dW or db) is ``model(X, W, dY)`` (W in PyTorch's layout
    when the exercise uses it)."""

    def matches(case: Case, seen: dict) -> bool:
        x, w, _, dy = _arrays(case)
        right = {"dX": dy @ w.T, "dW": (dy.T @ x) if torch_layout else x.T @ dy}
        right["db"] = dy.sum(axis=0)
        if same(seen.get(part), right[part]):
            return False  # where the mistake gives the right answer (B = 1) it is not seen
        return same(seen.get(part), model(x, w.T if torch_layout else w, dy))

    return matches


def _backward_mistakes(torch_layout: bool = False) -> tuple[Mistake, ...]:
    t = torch_layout
    weight = "the weight's" if t else "W's"
    return (
        Mistake(
            _part_is("dW", lambda x, w, dy: (x.T @ dy).T if not t else x.T @ dy, t),
            f"the right entries, laid out transposed: the gradient has {weight} shape",
        ),
        Mistake(
            _part_is("dX", lambda x, w, dy: (dy @ (w.T if not t else w)).T, t),
            "the right entries, laid out transposed: the gradient of X has X's shape",
        ),
        Mistake(
            lambda case, seen: any(
                _part_is(p, m, t)(case, seen)
                for p, m in (
                    ("dW", lambda x, w, dy: (x.T @ dy if not t else dy.T @ x) / len(x)),
                    ("db", lambda x, w, dy: dy.mean(axis=0)),
                )
            ),
            "divided by the batch size: L adds up the rows' contributions, so each row's "
            "counts in full",
        ),
        Mistake(
            _part_is("db", lambda x, w, dy: dy[0], t),
            "that is the first row's share only: b was added to every row of the batch",
        ),
        Mistake(
            _part_is("db", lambda x, w, dy: dy.sum(axis=0, keepdims=True), t),
            "the right sums, with an extra axis: the bias's gradient has the bias's shape",
        ),
        Mistake(  # (with a batch of one it is the mistake above: that hint comes first)
            _part_is("db", lambda x, w, dy: dy, t),
            "db has the shape of dY, one row per example: the bias has one entry per output, "
            "and was added to every row of the batch",
        ),
    )


BACKWARD = register(
    Exercise(
        "07.linear_backward",
        "Backward through Y = XW + b",
        3,
        "linear_backward(X, W, b, dY) returns (dX, dW, db) for Y = X @ W + b, with X of "
        "shape (B, H1), W (H1, H2), b (H2,) and dY = ∂L/∂Y of shape (B, H2).",
        ("linear_backward",),
        (
            Check(
                "dX on non-square shapes",
                "",
                _layer_cases(),
                _run_backward("linear_backward"),
                _judge_backward(("dX",)),
                mistakes=_backward_mistakes(),
            ),
            Check(
                "dW on non-square shapes",
                "",
                _layer_cases(),
                _run_backward("linear_backward"),
                _judge_backward(("dW",)),
                mistakes=_backward_mistakes(),
            ),
            Check(
                "db sums over the batch",
                "",
                _layer_cases(),
                _run_backward("linear_backward"),
                _judge_backward(("db",)),
                mistakes=_backward_mistakes(),
            ),
            Check(
                "a batch of one",
                "",
                _layer_cases(batch_one=True),
                _run_backward("linear_backward"),
                _judge_backward(("dX", "dW", "db")),
                mistakes=_backward_mistakes(),
            ),
        ),
        answers=(
            "dY @ W.T",
            "X.T @ dY",
            "dY.sum(axis=0)",
            "dY Wᵀ",
            "Xᵀ dY",
            r"\bar Y W^\top",
            r"X^\top \bar Y",
            r"\sum_i \bar Y_{ij}",
        ),
        withheld=WITHHELD,
    )
)


TORCH_LAYOUT = register(
    Exercise(
        "07.torch_linear_backward",
        "Backward in PyTorch's layout y = x Aᵀ + b",
        2,
        "torch_linear_backward(x, weight, bias, grad_output) returns (grad_x, grad_weight, "
        "grad_bias) for y = x @ weight.T + bias, with weight of shape "
        "(out_features, in_features) as in torch.nn.Linear.",
        ("torch_linear_backward",),
        (
            Check(
                "grad_weight in the weight's layout",
                "",
                _layer_cases(),
                _run_backward("torch_linear_backward"),
                _judge_backward(("dW",), torch_layout=True),
                mistakes=_backward_mistakes(torch_layout=True),
            ),
            Check(
                "grad_x and grad_bias, also for a batch of one",
                "",
                lambda rng: _layer_cases(count=2)(rng) + _layer_cases(True, 1)(rng),
                _run_backward("torch_linear_backward"),
                _judge_backward(("dX", "db"), torch_layout=True),
                mistakes=_backward_mistakes(torch_layout=True),
            ),
        ),
        answers=(
            "grad_output @ weight",
            "grad_output.T @ x",
            "grad_outputᵀ x",
            "grad_output.sum(axis=0)",
            r"\bar Y^\top X",
            r"\bar y^\top x",
            r"= \bar Y A",
        ),
        withheld=WITHHELD,
    )
)
