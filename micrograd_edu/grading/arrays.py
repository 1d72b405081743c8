"""Arrays in checks: seeded random matrices as plain data, answers read back as arrays.

Chapters 06 and 07 grade functions that return numpy arrays. A case holds its
matrices as nested lists (plain data, drawn from the check's ``random.Random``);
``run`` turns them into arrays for the student's function; ``judge`` reads the
observation back with :func:`as_array`, which names a wrong shape before it
compares values, and compares with gradients from central differences
(:func:`numerical_gradients`) or closed forms that the grader computes itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..scalar.numerical import gradient
from .plain import describe

__all__ = ["random_matrix", "as_array", "compare", "same", "numerical_gradients", "shape_name"]


def random_matrix(rng: random.Random, *shape: int) -> Any:
    """Nested lists of ``shape`` with entries uniform in [-2, 2] (a float for ``()``).

    >>> np.shape(random_matrix(random.Random(0), 2, 3))
    (2, 3)
    """
    if not shape:
        return rng.uniform(-2, 2)
    return [random_matrix(rng, *shape[1:]) for _ in range(shape[0])]


def shape_name(shape: tuple[int, ...]) -> str:
    """``(2, 3)`` as ``"(2, 3)"``, ``(3,)`` as ``"(3,)"`` and ``()`` as ``"() (a scalar)"``.

    >>> shape_name((3,)), shape_name(())
    ('(3,)', '() (a scalar)')
    """
    return "() (a scalar)" if shape == () else str(tuple(shape))


def _shape(value: Any) -> tuple[int, ...] | None:
    """The shape of nested lists of real numbers, or ``None`` when ragged or not numbers."""
    if type(value) in (int, float):
        return ()
    if not isinstance(value, list) or not value:
        return None
    inner = [_shape(v) for v in value]
    if inner[0] is None or any(s != inner[0] for s in inner):
        return None
    return (len(value), *inner[0])


def is_array(value: Any) -> bool:
    """Whether ``value`` reads as an array of numbers with at least one axis.

    >>> is_array([1.0, 2.0]), is_array(3.0), is_array("no")
    (True, False, False)
    """
    try:
        return np.asarray(value, dtype=float).ndim > 0
    except (TypeError, ValueError):
        return False


def as_array(value: Any, shape: tuple[int, ...], what: str) -> tuple[np.ndarray | None, str]:
    """``value`` (plain data) as a float array of ``shape``, or ``None`` and the reason.

    >>> as_array([[1, 2]], (1, 2), "dA")[0]
    array([[1., 2.]])
    >>> as_array([1.0, 2.0], (1, 2), "dA")[1]
    'dA has shape (2,); it must have shape (1, 2)'
    """
    found = _shape(value)
    if found is None:
        return None, f"{what} is {describe(value)}, not an array of numbers"
    if found != tuple(shape):
        return None, f"{what} has shape {shape_name(found)}; it must have shape {shape_name(shape)}"
    return np.array(value, dtype=float), ""


def compare(
    value: Any, want: np.ndarray, what: str, tol: float = 1e-6, exact: bool = False
) -> str | None:
    """``None`` if ``value`` has ``want``'s shape and values (within ``tol``; with ``exact``,
    within ``tol`` times ``want``'s largest entry: a derived formula's rounding, which a
    difference quotient does not reach), else what was seen against what a correct answer
    satisfies: the shape, a constant factor, or the size of the error (never the expected
    values).

    >>> compare([1.0, 2.0], np.array([1.0, 2.0]), "dx") is None
    True
    >>> compare([2.0, 4.0], np.array([1.0, 2.0]), "dx")
    'dx has the right shape (2,), but every entry is 2 times the right one'
    >>> compare([1.0, 2.5], np.array([1.0, 2.0]), "dx")[-60:]
    'largest error is 0.2 times its largest entry (1e-06 allowed)'
    >>> compare([1.0, 2.0 + 1e-9], np.array([1.0, 2.0]), "dx", 1e-12, exact=True)[-54:]
    'error is 5e-10 times its largest entry (1e-12 allowed)'
    """
    got, problem = as_array(value, want.shape, what)
    if got is None:
        return problem
    largest = max(float(np.max(np.abs(want))), 1e-300) if want.size else 1.0
    if np.all(np.isfinite(got)):
        if exact and float(np.max(np.abs(got - want), initial=0.0)) <= tol * largest:
            return None
        if not exact and np.allclose(got, want, rtol=tol, atol=tol):
            return None
    right_shape = f"{what} has the right shape {shape_name(want.shape)}"
    if not np.all(np.isfinite(got)):
        return f"{right_shape}, but entries that are inf or nan"
    factor = _factor(got, want)
    if factor is not None:
        return f"{right_shape}, but every entry is {factor:.3g} times the right one"
    error = float(np.max(np.abs(got - want)) / largest)
    return (
        f"{right_shape}, but its largest error is {error:.1g} times its largest entry "
        f"({tol:g} allowed)"
    )


def _factor(got: np.ndarray, want: np.ndarray) -> float | None:
    """The constant c with got = c * want, when there is one (and c is not 1)."""
    if not np.any(want):
        return None
    c = float(np.sum(got * want) / np.sum(want * want))
    if abs(c - 1) > 1e-6 and np.allclose(got, c * want, rtol=1e-6, atol=1e-9):
        return c
    return None


def same(value: Any, model: np.ndarray) -> bool:
    """Whether an observed array is exactly what a mistake's model gives (shape and
    values): the test behind a targeted hint."""
    found = _shape(value)
    if found is None or found != np.shape(model):
        return False
    return bool(np.allclose(np.array(value, dtype=float), model, rtol=1e-6, atol=1e-9))


def numerical_gradients(f: Callable[..., float], *arrays: np.ndarray) -> list[np.ndarray]:
    """The gradient of the scalar ``f(*arrays)`` with respect to each array, by central
    differences (the grader's oracle: it never calls the code being graded).

    >>> a, b = np.array([1.0, 2.0]), np.array(3.0)
    >>> [g.round(6).tolist() for g in numerical_gradients(lambda x, y: y * x.sum(), a, b)]
    [[3.0, 3.0], 3.0]
    """
    grads = []
    for i, array in enumerate(arrays):

        def along(*flat: float, i: int = i, shape: tuple = array.shape) -> float:
            moved = list(arrays)
            moved[i] = np.array(flat).reshape(shape)
            return float(f(*moved))

        grads.append(gradient(along, array.ravel().tolist()).gradient.reshape(array.shape))
    return grads
