"""Chapter 06's exercises: tensors, broadcasting and the backward of ``@``.

The oracles are central differences of the functions the gradients belong to
(broadcasting, ``sum(dC * (A @ B))``, ``xᵀAx``); none calls the code being graded, and
none is the answer written out. The shapes are drawn so
that the classic mistakes show: a (1, n) bias next to an (m, n) batch, matrices
whose three sizes all differ, 1-D vectors.
"""

from __future__ import annotations

import random

import numpy as np

from .arrays import compare, numerical_gradients, random_matrix, same
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter06 import _run_matmul, _run_quadratic, _run_unbroadcast
from .steps import reference_steps

# The package's own answers to chapters 06 and 07: the engines that differentiate for the
# student and the oracles' differences. Whole modules (the tensor engine, every operation's
# vjp and helper such as products._matmul_vjp or reduce.expand_reduced; the scalar engines;
# linear's vjp): every function in them raises, by any path, in the graded process. The
# names below them are also stubbed in the sandbox's files, so that a module reloaded or
# read and run there holds none of them either.
WITHHELD = (
    "micrograd_edu.tensor",
    "micrograd_edu.scalar",
    "micrograd_edu.nn.functional",
    "micrograd_edu.tensor.shape.unbroadcast",
    "micrograd_edu.tensor.Tensor",
    "micrograd_edu.tensor.backward._walk",  # every backward pass of the Tensor engine runs it
    "micrograd_edu.tensor.products._matmul_vjp",
    "micrograd_edu.tensor.reduce.expand_reduced",
    "micrograd_edu.tensor.reduce._logsumexp_vjp",
    "micrograd_edu.tensor.losses._cross_entropy_vjp",
    "micrograd_edu.tensor.losses._softmax_vjp",
    "micrograd_edu.nn.functional._linear_vjp",
    "micrograd_edu.scalar.numerical.gradient",
    "micrograd_edu.scalar.numerical.jacobian",
    "micrograd_edu.grading.arrays.numerical_gradients",
)

# --- unbroadcast ---------------------------------------------------------------


def _unbroadcast_cases(pairs: list[tuple[str, str]]):
    """Cases from (grad shape, input shape) patterns over the letters m, n, k (sizes 2..5).
    Within a check no two cases copy the input's entries the same number of times, so an
    answer that averages the copies is never one constant factor off."""

    def cases(rng: random.Random) -> list[Case]:
        out, copies = [], set()
        for grad_pattern, shape_pattern in pairs:
            while True:
                size = {letter: rng.randint(2, 5) for letter in "mnk"}
                grad = [size.get(c, 1) for c in grad_pattern]
                shape = [size.get(c, 1) for c in shape_pattern]
                count = int(np.prod(grad)) // int(np.prod(shape))
                if count not in copies or count == 1:
                    copies.add(count)
                    break
            out.append({"grad": random_matrix(rng, *grad), "shape": shape})
        return out

    return cases


def _unbroadcast_want(case: Case) -> np.ndarray:
    """The input's gradient, by central differences of the linear map broadcasting is (the
    gradient it sends back is Jᵀ grad, J its Jacobian)."""
    grad, shape = np.array(case["grad"]), tuple(case["shape"])

    def spread(v: np.ndarray) -> float:
        return float(np.sum(np.broadcast_to(v, grad.shape) * grad))

    (want,) = numerical_gradients(spread, np.zeros(shape))
    return want


def _judge_unbroadcast(case: Case, seen: dict) -> str | None:
    grad, shape = np.shape(case["grad"]), tuple(case["shape"])
    return compare(
        seen.get("value"), _unbroadcast_want(case), f"unbroadcast(grad of shape {grad}, {shape})"
    )


def _unbroadcast_right(case: Case) -> dict:
    return {"value": _unbroadcast_want(case).tolist()}


def _copies(case: Case) -> float:
    """How many entries of grad each entry of the input stands for."""
    return np.size(case["grad"]) / max(1, int(np.prod(case["shape"])))


_UNBROADCAST_MISTAKES = (
    Mistake(
        lambda case, seen: "cannot reshape" in str(seen.get("error", "")),
        "grad has more entries than the input: no reshape makes them fit. Each entry of the "
        "input was copied several times; which entries of grad belong to it?",
        name="reshape",
    ),
    Mistake(
        lambda case, seen: (
            _copies(case) > 1 and same(seen.get("value"), _unbroadcast_want(case) / _copies(case))
        ),
        "averaged instead of summed: every use of an entry sends back its whole share",
        name="averaged",
    ),
)

# (an answer of the wrong shape, such as grad itself or the sums without their axes of
# length 1, is told its shape and the one it must have: that is what was seen)

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
                "",
                _unbroadcast_cases([("mn", "1n"), ("mn", "1n"), ("kmn", "k1n")]),
                _run_unbroadcast,
                _judge_unbroadcast,
                mistakes=_UNBROADCAST_MISTAKES,
                right=_unbroadcast_right,
            ),
            Check(
                "leading axes that broadcasting added",
                "",
                _unbroadcast_cases([("mn", "n"), ("kmn", "mn"), ("kmn", "n"), ("mn", "")]),
                _run_unbroadcast,
                _judge_unbroadcast,
                mistakes=_UNBROADCAST_MISTAKES,
                right=_unbroadcast_right,
            ),
            Check(
                "length-1 axes anywhere",
                "",
                _unbroadcast_cases([("mn", "m1"), ("mn", "11"), ("kmn", "1m1"), ("kmn", "m1")]),
                _run_unbroadcast,
                _judge_unbroadcast,
                mistakes=_UNBROADCAST_MISTAKES,
                right=_unbroadcast_right,
            ),
            Check(
                "nothing to undo",
                "",
                _unbroadcast_cases([("mn", "mn"), ("1n", "1n"), ("n", "n")]),
                _run_unbroadcast,
                _judge_unbroadcast,
                mistakes=_UNBROADCAST_MISTAKES,
                right=_unbroadcast_right,
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- the backward of @ ---------------------------------------------------------


def _matmul_cases(kinds: list[str]):
    """One case per kind: "square", "matrix" (m, k) @ (k, n) with m, k, n all different,
    "matvec" (m, k) @ (k,), "vecmat" (k,) @ (k, n), "dot" (k,) @ (k,); stacks of
    matrices: "stacked" (p, m, k) @ (p, k, n), "shared" (p, m, k) @ (k, n) (one B for the
    whole batch), "broadcast" (q, 1, m, k) @ (p, k, n), "stackvec" (p, m, k) @ (k,),
    "vecstack" (k,) @ (p, k, n)."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for kind in kinds:
            m, k, n = rng.sample(range(2, 7), 3)
            p, q = rng.sample(range(2, 5), 2)
            a_shape, b_shape = {
                "square": ((k, k), (k, k)),
                "matrix": ((m, k), (k, n)),
                "matvec": ((m, k), (k,)),
                "vecmat": ((k,), (k, n)),
                "dot": ((k,), (k,)),
                "stacked": ((p, m, k), (p, k, n)),
                "shared": ((p, m, k), (k, n)),
                "broadcast": ((q, 1, m, k), (p, k, n)),
                "stackvec": ((p, m, k), (k,)),
                "vecstack": ((k,), (p, k, n)),
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


def _matmul_want(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """(dA, dB): central differences of sum(dC * (A @ B))."""
    a, b, dc = _abc(case)
    want_a, want_b = numerical_gradients(lambda x, y: np.sum(dc * (x @ y)), a, b)
    return want_a, want_b


def _judge_matmul(case: Case, seen: dict) -> str | None:
    if not seen.get("pair"):
        return "matmul_backward must return a tuple (dA, dB)"
    (a, b, _), (want_a, want_b) = _abc(case), _matmul_want(case)
    where = f" for A {a.shape} @ B {b.shape}"
    return compare(seen.get("dA"), want_a, "dA" + where) or compare(
        seen.get("dB"), want_b, "dB" + where
    )


def _matmul_right(case: Case) -> dict:
    want_a, want_b = _matmul_want(case)
    return {"dA": want_a.tolist(), "dB": want_b.tolist()}


def _abc(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tuple(np.array(case[key], dtype=float) for key in ("A", "B", "dC"))


def _same_error(seen: dict, error: Exception) -> bool:
    """Whether the student's code raised what the mistake's model raises on the case."""
    return str(seen.get("error", "")).startswith(f"{type(error).__name__}: {str(error)[:200]}")


def _pair_is(model, when=lambda a, b: True):
    """The mistake ``model(A, B, dC) -> (dA, dB)``: the student's pair is the model's (each
    part the model's or the right one, and one the model's where the model is wrong), or
    the student's code raised what the model raises, on the cases ``when(A, B)`` allows."""

    def matches(case: Case, seen: dict) -> bool:
        a, b, dc = _abc(case)
        if not when(a, b):
            return False
        try:
            with np.errstate(all="ignore"):
                wrong = model(a, b, dc)
        except Exception as error:  # the model raises: so must the student's code
            return _same_error(seen, error)
        right = _matmul_want(case)
        made = [not same(w.tolist(), r) for w, r in zip(wrong, right, strict=True)]
        parts = [seen.get("dA"), seen.get("dB")]
        return any(m and same(p, w) for m, p, w in zip(made, parts, wrong, strict=True)) and all(
            same(p, w) or same(p, r) for p, w, r in zip(parts, wrong, right, strict=True)
        )

    return matches


def _laid_out_transposed(want: tuple, seen: dict) -> bool:
    """Each gradient is the right one with its axes reversed (np.transpose, .T), and one at
    least differs from the right one so."""
    parts = [seen.get("dA"), seen.get("dB")]
    turned = [not same(w.tolist(), w.T) for w in want]
    return any(turned) and all(same(p, w.T) for p, w in zip(parts, want, strict=True))


def _as_matrices(a: np.ndarray, b: np.ndarray, dc: np.ndarray) -> tuple:
    # the lecture's rule for two matrices, applied as it is: .T reverses every axis (a
    # stack's too) and leaves a 1-D vector as it is
    return dc @ b.T, a.T @ dc


def _stack_averaged(case: Case, seen: dict) -> bool:
    """Matrices in stacks where an input that lacks some of the product's leading axes got
    the mean of its shares over them, not their sum (the right gradient divided by the
    number of products it took part in)."""
    a, b, dc = _abc(case)
    if min(a.ndim, b.ndim) < 2:
        return False
    copies = [int(np.prod(dc.shape[: dc.ndim - x.ndim])) for x in (a, b)]
    if max(copies) == 1:
        return False
    wrong = [r / k for r, k in zip(_matmul_want(case), copies, strict=True)]
    return all(same(seen.get(p), w.tolist()) for p, w in zip(("dA", "dB"), wrong, strict=True))


_STACK_AVERAGED = tuple(
    Mistake(
        _stack_averaged,
        "an input shared by the products of the stack got the mean of its shares: it took "
        "part in each of those products, and each sends back its full share (exercise 1's "
        "idea)",
        name="stack averaged",
        factor=factor,
    )
    # (where the failing cases share one number of copies, a constant factor is what shows)
    for factor in (None, lambda c: 0 < c < 1)
)

_MATMUL_MISTAKES = (
    Mistake(
        _pair_is(lambda a, b, dc: (dc @ b, a @ dc)),
        "the factors enter as they stood in A @ B: for dA to have A's shape, and dB B's, "
        "one of them must turn its rows into columns",
        name="as they stood",
    ),
    Mistake(
        lambda case, seen: _laid_out_transposed(_matmul_want(case), seen),
        "the right entries, laid out transposed: each gradient has the shape of its input",
        name="transposed",
    ),
)
_RESHAPE = Mistake(
    lambda case, seen: (
        "cannot reshape" in str(seen.get("error", ""))
        and max(np.ndim(case["A"]), np.ndim(case["B"])) > 2
    ),
    "a gradient with the product's batch axes has more entries than its input: no reshape "
    "makes them fit. An input shared by several products of the stack collects a "
    "contribution from each of them (exercise 1's idea)",
    name="reshape",
)
_STACK_T = Mistake(
    _pair_is(_as_matrices, when=lambda a, b: max(a.ndim, b.ndim) > 2),
    ".T reverses every axis of an array, so on a stack of matrices it also reverses the "
    "stack: transpose only the last two axes",
    name="stack .T",
)
_VECTOR_T = Mistake(
    _pair_is(_as_matrices, when=lambda a, b: min(a.ndim, b.ndim) == 1),
    "a 1-D vector has no second axis, so .T leaves it as it is: treat a vector on the "
    "left as a one-row matrix and on the right as a one-column matrix",
    name="vector .T",
)

# (a gradient that keeps the product's batch axes, or of a transposed non-square shape, is
# told its shape and the one it must have: that is what was seen)


MATMUL = register(
    Exercise(
        "06.matmul_backward",
        "The backward of the matrix product",
        3,
        "matmul_backward(A, B, dC) returns (dA, dB), the gradients of sum(dC * (A @ B)) "
        "with respect to A and B, for matrices, 1-D vectors and stacks of matrices whose "
        "batch axes broadcast.",
        ("matmul_backward",),
        (
            Check(
                "square matrices",
                "",
                _matmul_cases(["square", "square"]),
                _run_matmul,
                _judge_matmul,
                mistakes=_MATMUL_MISTAKES,
                right=_matmul_right,
            ),
            Check(
                "non-square matrices",
                "",
                _matmul_cases(["matrix", "matrix", "matrix"]),
                _run_matmul,
                _judge_matmul,
                mistakes=_MATMUL_MISTAKES,
                right=_matmul_right,
            ),
            Check(
                "1-D vectors",
                "",
                _matmul_cases(["matvec", "vecmat", "dot"]),
                _run_matmul,
                _judge_matmul,
                mistakes=(*_MATMUL_MISTAKES, _VECTOR_T),
                right=_matmul_right,
            ),
            Check(
                "stacks of matrices, with broadcast batch axes",
                "",
                _matmul_cases(["stacked", "shared", "broadcast"]),
                _run_matmul,
                _judge_matmul,
                weight=2,
                mistakes=(_RESHAPE, *_MATMUL_MISTAKES, _STACK_T, *_STACK_AVERAGED),
                right=_matmul_right,
            ),
            Check(
                "a stack times a vector",
                "",
                _matmul_cases(["stackvec", "vecstack"]),
                _run_matmul,
                _judge_matmul,
                mistakes=(*_MATMUL_MISTAKES, _STACK_T, _VECTOR_T),
                right=_matmul_right,
            ),
        ),
        requires=reference_steps(unbroadcast="unbroadcast_reference"),
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


def _quadratic_want(case: Case) -> np.ndarray:
    a = np.array(case["A"], dtype=float)
    (want,) = numerical_gradients(lambda v: v @ a @ v, np.array(case["x"], dtype=float))
    return want


def _judge_quadratic(case: Case, seen: dict) -> str | None:
    n = len(case["x"])
    return compare(seen.get("value"), _quadratic_want(case), f"the gradient for a {n}x{n} A")


def _quadratic_right(case: Case) -> dict:
    return {"value": _quadratic_want(case).tolist()}


def _quadratic_is(model):
    def matches(case: Case, seen: dict) -> bool:
        a, x = np.array(case["A"], dtype=float), np.array(case["x"], dtype=float)
        return same(seen.get("value"), model(a, x))

    return matches


_QUADRATIC_MISTAKES = (
    Mistake(
        lambda case, seen: (
            _quadratic_is(lambda a, x: a @ x)(case, seen)
            or _quadratic_is(lambda a, x: a.T @ x)(case, seen)
        ),
        "x appears twice in xᵀAx, once on each side of A: each appearance contributes a term",
        name="x twice",
    ),
    Mistake(
        _quadratic_is(lambda a, x: 2 * a @ x),
        "the two terms are equal only when A equals its transpose; this A does not",
        name="not symmetric",
    ),
)


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
                "",
                _quadratic_cases(symmetric=True),
                _run_quadratic,
                _judge_quadratic,
                mistakes=_QUADRATIC_MISTAKES,
                right=_quadratic_right,
            ),
            Check(
                "non-symmetric A",
                "",
                _quadratic_cases(symmetric=False),
                _run_quadratic,
                _judge_quadratic,
                mistakes=_QUADRATIC_MISTAKES,
                right=_quadratic_right,
            ),
        ),
        withheld=WITHHELD,
    )
)
