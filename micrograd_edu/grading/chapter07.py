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

from ..numerical import jacobian
from .arrays import compare, numerical_gradients, random_matrix
from .chapter06 import WITHHELD
from .registry import Case, Check, Exercise, register

_NAMES = ("X", "W", "b", "dY")


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


def _arrays(case: Case) -> list[np.ndarray]:
    return [np.array(case[name], dtype=float) for name in _NAMES]


# --- the Jacobian ∂Y/∂X, formed for a small layer --------------------------------


def _run_jacobian(functions: dict, case: Case) -> dict:
    x, w, _, _ = _arrays(case)
    return {"value": functions["linear_jacobian"](x, w)}


def _judge_jacobian(case: Case, seen: dict) -> str | None:
    x, w, _, _ = _arrays(case)
    want = jacobian(lambda *flat: (np.reshape(flat, x.shape) @ w).ravel(), x.ravel().tolist())
    what = f"the Jacobian for X {x.shape}, W {w.shape}"
    return compare(seen.get("value"), want.jacobian, what)


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
                "∂Y[i, j]/∂X[p, q] is W[q, j] when i = p and 0 otherwise. The row is the "
                "entry of Y (row i·H2 + j), the column the entry of X (column p·H1 + q), "
                "so the matrix is B·H2 × B·H1 and block-diagonal: example i's row of Y "
                "depends only on example i's row of X, through an H2 × H1 block whose "
                "entry (j, q) is W[q, j] (W transposed), the same block for every example",
                _layer_cases(),
                _run_jacobian,
                _judge_jacobian,
            ),
            Check(
                "a batch of one",
                "with B = 1 the Jacobian is Wᵀ itself (H2 rows, H1 columns)",
                _layer_cases(batch_one=True, count=2),
                _run_jacobian,
                _judge_jacobian,
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- the backward of the layer -------------------------------------------------------


def _run_backward(name: str):
    def run(functions: dict, case: Case) -> dict:
        x, w, b, dy = _arrays(case)
        if name == "torch_linear_backward":
            w = np.ascontiguousarray(w.T)  # PyTorch's layout: (out_features, in_features)
        answer = functions[name](x, w, b, dy)
        if not isinstance(answer, (tuple, list)) or len(answer) != 3:
            return {"triple": False}
        return {"triple": True, "dX": answer[0], "dW": answer[1], "db": answer[2]}

    return run


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
                "dX = dY Wᵀ: (B, H2) @ (H2, H1) gives X's shape (B, H1); without the "
                "transpose the shapes do not even fit",
                _layer_cases(),
                _run_backward("linear_backward"),
                _judge_backward(("dX",)),
            ),
            Check(
                "dW on non-square shapes",
                "dW = Xᵀ dY: ∂L/∂W[j, k] = Σ_i X[i, j] dY[i, k], a sum over the batch, "
                "of W's shape (H1, H2)",
                _layer_cases(),
                _run_backward("linear_backward"),
                _judge_backward(("dW",)),
            ),
            Check(
                "db sums over the batch",
                "b was broadcast to every row of XW, so db = dY.sum(axis=0), of b's shape (H2,)",
                _layer_cases(),
                _run_backward("linear_backward"),
                _judge_backward(("db",)),
            ),
            Check(
                "a batch of one",
                "with B = 1, dY has shape (1, H2): db must still have shape (H2,) "
                "and dX shape (1, H1); do not squeeze or reshape by hand",
                _layer_cases(batch_one=True),
                _run_backward("linear_backward"),
                _judge_backward(("dX", "dW", "db")),
            ),
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
                "the weight is stored (out_features, in_features), so its gradient is "
                "grad_outputᵀ x, the transpose of the Xᵀ dY you derived for Y = XW",
                _layer_cases(),
                _run_backward("torch_linear_backward"),
                _judge_backward(("dW",), torch_layout=True),
            ),
            Check(
                "grad_x and grad_bias, also for a batch of one",
                "y = x Aᵀ, so grad_x = grad_output @ A (no transpose this time); "
                "grad_bias sums grad_output over the batch",
                lambda rng: _layer_cases(count=2)(rng) + _layer_cases(True, 1)(rng),
                _run_backward("torch_linear_backward"),
                _judge_backward(("dX", "db"), torch_layout=True),
            ),
        ),
        withheld=WITHHELD,
    )
)
