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

from .arrays import compare, numerical_gradients, random_matrix, same
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter06 import _run_matmul, _run_quadratic, _run_unbroadcast
from .steps import reference_steps

# The package's own answers to chapters 06 and 07 (an engine that differentiates for
# the student, the oracles' differences); the batch grader withholds them.
WITHHELD = (
    "micrograd_edu.tensor.shape.unbroadcast",
    "micrograd_edu.tensor.Tensor",
    "micrograd_edu.tensor.tensor",
    "micrograd_edu.tensor.backward._walk",  # every backward pass of the Tensor engine runs it
    "micrograd_edu.scalar.numerical.gradient",
    "micrograd_edu.scalar.numerical.jacobian",
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


def _judge_unbroadcast(case: Case, seen: dict) -> str | None:
    grad, shape = np.array(case["grad"]), tuple(case["shape"])

    # Broadcasting is linear: the gradient it sends back is Jᵀ grad, J its Jacobian.
    def spread(v: np.ndarray) -> float:
        return float(np.sum(np.broadcast_to(v, grad.shape) * grad))

    (want,) = numerical_gradients(spread, np.zeros(shape))
    return compare(seen.get("value"), want, f"unbroadcast(grad of shape {grad.shape}, {shape})")


def _grad_shape(case: Case) -> tuple[np.ndarray, tuple[int, ...]]:
    return np.array(case["grad"], dtype=float), tuple(case["shape"])


def _axes(case: Case) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The leading axes broadcasting added, and the stretched axes (in shape's numbering)."""
    grad, shape = _grad_shape(case)
    lead = grad.ndim - len(shape)
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
    return tuple(range(lead)), stretched


def _unbroadcast_is(model):
    return lambda case, seen: same(seen.get("value"), model(*_grad_shape(case), *_axes(case)))


_UNBROADCAST_MISTAKES = (
    Mistake(
        lambda case, seen: "cannot reshape" in str(seen.get("error", "")),
        "grad has more entries than the input: no reshape makes them fit. Each entry of the "
        "input was copied several times; which entries of grad belong to it?",
    ),
    Mistake(
        _unbroadcast_is(lambda g, s, lead, stretched: g),
        "that is grad itself, with grad's shape: the input was smaller, and broadcasting used "
        "each of its entries several times. Each use sends back a share",
    ),
    Mistake(
        _unbroadcast_is(
            lambda g, s, lead, stretched: (
                g.sum(axis=lead).sum(axis=stretched) if stretched else np.zeros(0)
            )
        ),
        "the right sums, but the axes of length 1 are gone: the result must have exactly "
        "the input's shape, axes of length 1 included",
    ),
    Mistake(
        _unbroadcast_is(
            lambda g, s, lead, stretched: (
                g.sum(axis=lead).mean(axis=stretched, keepdims=True)
                if stretched
                else g.mean(axis=lead)
            )
        ),
        "averaged instead of summed: every use of an entry sends back its whole share",
    ),
    Mistake(
        _unbroadcast_is(lambda g, s, lead, stretched: g.sum(axis=lead) if stretched else None),
        "the added leading axes are summed away, but not the stretched ones: which axes of "
        "the input have length 1 where grad's do not?",
    ),
    Mistake(
        lambda case, seen: (
            _axes(case)[1] != (0,)
            and same(seen.get("value"), _grad_shape(case)[0].sum(axis=0, keepdims=True))
        ),
        "summed over the first axis, but here broadcasting stretched others: which axes of "
        "the input have length 1 where grad's do not?",
    ),
)


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
            ),
            Check(
                "leading axes that broadcasting added",
                "",
                _unbroadcast_cases([("mn", "n"), ("kmn", "mn"), ("kmn", "n"), ("mn", "")]),
                _run_unbroadcast,
                _judge_unbroadcast,
                mistakes=_UNBROADCAST_MISTAKES,
            ),
            Check(
                "length-1 axes anywhere",
                "",
                _unbroadcast_cases([("mn", "m1"), ("mn", "11"), ("kmn", "1m1"), ("kmn", "m1")]),
                _run_unbroadcast,
                _judge_unbroadcast,
                mistakes=_UNBROADCAST_MISTAKES,
            ),
            Check(
                "nothing to undo",
                "",
                _unbroadcast_cases([("mn", "mn"), ("1n", "1n"), ("n", "n")]),
                _run_unbroadcast,
                _judge_unbroadcast,
                mistakes=_UNBROADCAST_MISTAKES,
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
    whole batch), "broadcast" (q, 1, m, k) @ (p, k, n), "stackvec" (p, m, k) @ (k,)."""

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


def _judge_matmul(case: Case, seen: dict) -> str | None:
    if not seen.get("pair"):
        return "matmul_backward must return a tuple (dA, dB)"
    a, b, dc = (np.array(case[key], dtype=float) for key in ("A", "B", "dC"))
    want_a, want_b = numerical_gradients(lambda x, y: np.sum(dc * (x @ y)), a, b)
    where = f" for A {a.shape} @ B {b.shape}"
    return compare(seen.get("dA"), want_a, "dA" + where) or compare(
        seen.get("dB"), want_b, "dB" + where
    )


def _abc(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tuple(np.array(case[key], dtype=float) for key in ("A", "B", "dC"))


def _pair_is(model):
    def matches(case: Case, seen: dict) -> bool:
        want_a, want_b = model(*_abc(case))
        return same(seen.get("dA"), want_a) or same(seen.get("dB"), want_b)

    return matches


def _swap(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def _batch_not_summed(case: Case, seen: dict) -> bool:
    # the products' gradients, each with the product's batch axes, never summed back to
    # an input that broadcasting used in several products
    a, b, dc = _abc(case)
    if a.ndim < 3 or b.ndim < 2:
        return False
    want_a, want_b = dc @ _swap(b), _swap(a) @ dc
    sums_a, sums_b = want_a.shape != a.shape, want_b.shape != b.shape
    return (sums_a and same(seen.get("dA"), want_a)) or (sums_b and same(seen.get("dB"), want_b))


def _stack_transposed_whole(case: Case, seen: dict) -> bool:
    # .T on a stack of matrices reverses every axis, not only the last two
    a, b, dc = _abc(case)
    if max(a.ndim, b.ndim) < 3:
        return False
    if "error" in seen:
        return "matmul" in str(seen["error"]) or "shapes" in str(seen["error"])
    try:
        return same(seen.get("dA"), dc @ b.T) or same(seen.get("dB"), a.T @ dc)
    except ValueError:
        return False


def _vector_flattened(case: Case, seen: dict) -> bool:
    # with a 1-D input, a gradient came back of the wrong size, or the products raised
    # (matrices pass): .T left the vector as it was
    a, b, _ = _abc(case)
    if a.ndim != 1 and b.ndim != 1:
        return False
    if "error" in seen:
        return "ValueError" in str(seen["error"])
    return any(np.size(seen.get(key)) != x.size for key, x in (("dA", a), ("dB", b)))


_MATMUL_MISTAKES = (
    Mistake(
        lambda case, seen: (
            "cannot reshape" in str(seen.get("error", ""))
            and max(np.ndim(case["A"]), np.ndim(case["B"])) > 2
        ),
        "a gradient with the product's batch axes has more entries than its input: no reshape "
        "makes them fit. An input shared by several products of the stack collects a "
        "contribution from each of them (exercise 1's idea)",
    ),
    Mistake(
        _pair_is(lambda a, b, dc: (dc @ b, a @ dc)),
        "the factors enter as they stood in A @ B: for dA to have A's shape, and dB B's, "
        "one of them must turn its rows into columns",
    ),
    Mistake(
        _pair_is(lambda a, b, dc: ((dc @ b.T).T, (a.T @ dc).T)),
        "the right entries, laid out transposed: each gradient has the shape of its input",
    ),
    Mistake(
        _batch_not_summed,
        "a gradient came back with the batch axes of the product, not of its input: an "
        "input that broadcasting shared among several products of the stack collects a "
        "contribution from each of them (exercise 1's idea)",
    ),
    Mistake(
        _stack_transposed_whole,
        ".T reverses every axis of an array, so on a stack of matrices it also reverses the "
        "stack: transpose only the last two axes",
    ),
    Mistake(
        _vector_flattened,
        "a 1-D vector has no second axis, so .T leaves it as it is: treat a vector on the "
        "left as a one-row matrix and on the right as a one-column matrix",
    ),
)


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
            ),
            Check(
                "non-square matrices",
                "",
                _matmul_cases(["matrix", "matrix", "matrix"]),
                _run_matmul,
                _judge_matmul,
                mistakes=_MATMUL_MISTAKES,
            ),
            Check(
                "1-D vectors",
                "",
                _matmul_cases(["matvec", "vecmat", "dot"]),
                _run_matmul,
                _judge_matmul,
                mistakes=_MATMUL_MISTAKES,
            ),
            Check(
                "stacks of matrices, with broadcast batch axes",
                "",
                _matmul_cases(["stacked", "shared", "broadcast", "stackvec"]),
                _run_matmul,
                _judge_matmul,
                weight=2,
                mistakes=_MATMUL_MISTAKES,
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


def _judge_symmetric(case: Case, seen: dict) -> str | None:
    a, x = np.array(case["A"]), np.array(case["x"])
    what = f"the gradient for a symmetric {len(x)}x{len(x)} A"
    return compare(seen.get("value"), 2 * a @ x, what)


def _judge_general(case: Case, seen: dict) -> str | None:
    a, x = np.array(case["A"]), np.array(case["x"])
    (want,) = numerical_gradients(lambda v: v @ a @ v, x)
    return compare(seen.get("value"), want, f"the gradient for a {len(x)}x{len(x)} A")


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
    ),
    Mistake(
        _quadratic_is(lambda a, x: 2 * a @ x),
        "the two terms are equal only when A equals its transpose; this A does not",
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
                _judge_symmetric,
                mistakes=_QUADRATIC_MISTAKES,
            ),
            Check(
                "non-symmetric A",
                "",
                _quadratic_cases(symmetric=False),
                _run_quadratic,
                _judge_general,
                mistakes=_QUADRATIC_MISTAKES,
            ),
        ),
        withheld=WITHHELD,
    )
)
