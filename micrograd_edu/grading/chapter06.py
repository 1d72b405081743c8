"""Chapter 06's exercises: tensors, broadcasting and the backward of ``@``.

The oracles are central differences of the functions the gradients belong to
(broadcasting, ``sum(dC * (A @ B))``, ``xᵀAx``) and, for a symmetric matrix, the
closed form ``2Ax``; none calls the code being graded. The shapes are drawn so
that the classic mistakes show: a (1, n) bias next to an (m, n) batch, matrices
whose three sizes all differ, 1-D vectors.
"""

from __future__ import annotations

import random

import numpy as np

from .arrays import compare, numerical_gradients, random_matrix
from .registry import Case, Check, Exercise, register

# The package's own answers to chapters 06 and 07 (an engine that differentiates for
# the student, the oracles' differences); the batch grader withholds them.
WITHHELD = (
    "micrograd_edu.ops.unbroadcast",
    "micrograd_edu.tensor.Tensor",
    "micrograd_edu.tensor.tensor",
    "micrograd_edu.numerical.gradient",
    "micrograd_edu.numerical.jacobian",
    "micrograd_edu.grading.arrays.numerical_gradients",
)

# --- unbroadcast ---------------------------------------------------------------


def _unbroadcast_cases(pairs: list[tuple[str, str]]):
    """Cases from (grad shape, input shape) patterns over the letters m, n, k (sizes 2..5)."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for grad_pattern, shape_pattern in pairs:
            size = {letter: rng.randint(2, 5) for letter in "mnk"}

            def shape(pattern: str, size: dict = size) -> list[int]:
                return [size.get(c, 1) for c in pattern]

            out.append(
                {
                    "grad": random_matrix(rng, *shape(grad_pattern)),
                    "shape": shape(shape_pattern),
                }
            )
        return out

    return cases


def _run_unbroadcast(functions: dict, case: Case) -> dict:
    grad = np.array(case["grad"], dtype=float)
    return {"value": functions["unbroadcast"](grad, tuple(case["shape"]))}


def _judge_unbroadcast(case: Case, seen: dict) -> str | None:
    grad, shape = np.array(case["grad"]), tuple(case["shape"])

    # Broadcasting is linear: the gradient it sends back is Jᵀ grad, J its Jacobian.
    def spread(v: np.ndarray) -> float:
        return float(np.sum(np.broadcast_to(v, grad.shape) * grad))

    (want,) = numerical_gradients(spread, np.zeros(shape))
    return compare(seen.get("value"), want, f"unbroadcast(grad of shape {grad.shape}, {shape})")


UNBROADCAST = register(
    Exercise(
        "06.unbroadcast",
        "Summing a gradient back to an input's shape",
        2,
        "unbroadcast(grad, shape) sums grad over the axes broadcasting added or stretched, "
        "returning an array of exactly `shape`.",
        ("unbroadcast",),
        (
            Check(
                "a (1, n) row added to an (m, n) batch",
                "you forgot to unbroadcast, or dropped the axis: the (1, n) row was used by "
                "all m rows, so sum grad over axis 0 and keep it (keepdims=True)",
                _unbroadcast_cases([("mn", "1n"), ("mn", "1n"), ("kmn", "k1n")]),
                _run_unbroadcast,
                _judge_unbroadcast,
            ),
            Check(
                "leading axes that broadcasting added",
                "numpy lines shapes up from the right and prepends axes to the shorter one: "
                "sum those leading axes away (an input of shape () sums everything)",
                _unbroadcast_cases([("mn", "n"), ("kmn", "mn"), ("kmn", "n"), ("mn", "")]),
                _run_unbroadcast,
                _judge_unbroadcast,
            ),
            Check(
                "length-1 axes anywhere",
                "sum over every axis where shape has length 1 but grad does not, "
                "not only over axis 0, and keep those axes with length 1",
                _unbroadcast_cases([("mn", "m1"), ("mn", "11"), ("kmn", "1m1"), ("kmn", "m1")]),
                _run_unbroadcast,
                _judge_unbroadcast,
            ),
            Check(
                "nothing to undo",
                "when grad already has the input's shape (even with axes of length 1), "
                "return it unchanged: nothing was broadcast",
                _unbroadcast_cases([("mn", "mn"), ("1n", "1n"), ("n", "n")]),
                _run_unbroadcast,
                _judge_unbroadcast,
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- the backward of @ ---------------------------------------------------------


def _matmul_cases(kinds: list[str]):
    """One case per kind: "square", "matrix" (m, k) @ (k, n) with m, k, n all different,
    "matvec" (m, k) @ (k,), "vecmat" (k,) @ (k, n), "dot" (k,) @ (k,)."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for kind in kinds:
            m, k, n = rng.sample(range(2, 7), 3)
            a_shape, b_shape = {
                "square": ((k, k), (k, k)),
                "matrix": ((m, k), (k, n)),
                "matvec": ((m, k), (k,)),
                "vecmat": ((k,), (k, n)),
                "dot": ((k,), (k,)),
            }[kind]
            c_shape = (np.zeros(a_shape) @ np.zeros(b_shape)).shape
            out.append(
                {
                    "kind": kind,
                    "A": random_matrix(rng, *a_shape),
                    "B": random_matrix(rng, *b_shape),
                    "dC": random_matrix(rng, *c_shape),
                }
            )
        return out

    return cases


def _run_matmul(functions: dict, case: Case) -> dict:
    a, b, dc = (np.array(case[key], dtype=float) for key in ("A", "B", "dC"))
    answer = functions["matmul_backward"](a, b, dc)
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return {"pair": False}
    return {"pair": True, "dA": answer[0], "dB": answer[1]}


def _judge_matmul(case: Case, seen: dict) -> str | None:
    if not seen.get("pair"):
        return "matmul_backward must return a tuple (dA, dB)"
    a, b, dc = (np.array(case[key], dtype=float) for key in ("A", "B", "dC"))
    want_a, want_b = numerical_gradients(lambda x, y: np.sum(dc * (x @ y)), a, b)
    where = f" for A {a.shape} @ B {b.shape}"
    return compare(seen.get("dA"), want_a, "dA" + where) or compare(
        seen.get("dB"), want_b, "dB" + where
    )


MATMUL = register(
    Exercise(
        "06.matmul_backward",
        "The backward of the matrix product",
        3,
        "matmul_backward(A, B, dC) returns (dA, dB), the gradients of sum(dC * (A @ B)) "
        "with respect to A and B, for matrices and 1-D vectors.",
        ("matmul_backward",),
        (
            Check(
                "square matrices",
                "dA = dC Bᵀ and dB = Aᵀ dC: each input's gradient multiplies dC by the "
                "other input, transposed, on the side where that input stood",
                _matmul_cases(["square", "square"]),
                _run_matmul,
                _judge_matmul,
            ),
            Check(
                "non-square matrices",
                "you forgot a transpose or swapped the order: with A (m, k) and B (k, n), "
                "dA must be (m, k) = dC (m, n) @ Bᵀ (n, k), and dB (k, n) = Aᵀ @ dC",
                _matmul_cases(["matrix", "matrix", "matrix"]),
                _run_matmul,
                _judge_matmul,
            ),
            Check(
                "1-D vectors",
                "a 1-D vector has no transpose (.T does nothing): with A @ b for a vector b, "
                "dA = np.outer(dC, b) and db = Aᵀ dC; for a dot product dC is a scalar",
                _matmul_cases(["matvec", "vecmat", "dot"]),
                _run_matmul,
                _judge_matmul,
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- the gradient of xᵀAx --------------------------------------------------------


def _quadratic_cases(symmetric: bool):
    def cases(rng: random.Random) -> list[Case]:
        out = []
        for n in (1, rng.randint(2, 3), rng.randint(4, 6)):
            a = np.array(random_matrix(rng, n, n))
            if symmetric:
                a = (a + a.T) / 2
            out.append({"A": a.tolist(), "x": random_matrix(rng, n)})
        return out

    return cases


def _run_quadratic(functions: dict, case: Case) -> dict:
    a, x = np.array(case["A"], dtype=float), np.array(case["x"], dtype=float)
    return {"value": functions["quadratic_form_grad"](a, x)}


def _judge_symmetric(case: Case, seen: dict) -> str | None:
    a, x = np.array(case["A"]), np.array(case["x"])
    what = f"the gradient for a symmetric {len(x)}x{len(x)} A"
    return compare(seen.get("value"), 2 * a @ x, what)


def _judge_general(case: Case, seen: dict) -> str | None:
    a, x = np.array(case["A"]), np.array(case["x"])
    (want,) = numerical_gradients(lambda v: v @ a @ v, x)
    return compare(seen.get("value"), want, f"the gradient for a {len(x)}x{len(x)} A")


QUADRATIC = register(
    Exercise(
        "06.quadratic_form_grad",
        "The gradient of xᵀAx",
        2,
        "quadratic_form_grad(A, x) returns the gradient of y = xᵀAx with respect to the "
        "1-D vector x, as a 1-D vector.",
        ("quadratic_form_grad",),
        (
            Check(
                "symmetric A",
                "x appears twice in xᵀAx: ∂y/∂x_k = Σ_j A_kj x_j + Σ_i x_i A_ik, "
                "which is 2Ax when A = Aᵀ; return a 1-D vector like x",
                _quadratic_cases(symmetric=True),
                _run_quadratic,
                _judge_symmetric,
            ),
            Check(
                "non-symmetric A",
                "2Ax holds only for symmetric A: you forgot the transpose term, "
                "the gradient is (A + Aᵀ)x",
                _quadratic_cases(symmetric=False),
                _run_quadratic,
                _judge_general,
            ),
        ),
        withheld=WITHHELD,
    )
)
