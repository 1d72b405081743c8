"""Matrix products: ``@`` (``matmul``), ``dot`` and ``trace``, each an
:class:`~micrograd_edu.tensor.operation.Op` with its forward and VJP side by side, and
:class:`Products`, the mixin that gives them to ``Tensor``.

The VJP of ``C = A @ B`` is the lecture's pair of products, ``dA = G Bᵀ`` and
``dB = Aᵀ G``, computed only for an input that wants a gradient; a batch axis that
broadcast is summed back (:func:`~micrograd_edu.tensor.shape.unbroadcast`).

``trace`` sums the diagonal with ``np.add.reduce``: the same sum as ``a.trace()``,
whose generic reduction machinery costs 150 ns more, a tenth of the engine's
overhead in ``benchmarks/bench_trace.py``.

>>> a, b = np.ones((2, 3)), np.ones((3, 4))
>>> MATMUL.forward(a, b).shape
(2, 4)
>>> [g.shape for g in MATMUL.vjp(np.ones((2, 4)), None, (a, b), (True, True))]
[(2, 3), (3, 4)]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .operation import Op, ShapeError, saves_none
from .shape import unbroadcast

__all__ = ["Products", "MATMUL", "DOT", "TRACE"]


def _matmul_forward(a, b):
    if a.dtype is not b.dtype and a.dtype != b.dtype:
        raise RuntimeError(
            f"matmul: expected both sides to have the same dtype, got {a.dtype} and {b.dtype} "
            "(PyTorch does not promote here); convert one, e.g. x.double() or x.float()"
        )
    if a.ndim > 1 and b.ndim > 1 and a.shape[-1] == 1 == b.shape[-2]:
        # An outer product: each entry is one product, whose sign PyTorch keeps (-0.0 where
        # numpy's sum of one term, started at +0.0, gives 0.0; 1 / -0.0 is -inf).
        return a * b
    try:
        return a @ b
    except ValueError:
        if a.ndim == 0 or b.ndim == 0:
            raise ShapeError(
                f"matmul: shapes {a.shape} and {b.shape}: @ needs at least one axis on "
                "each side; multiply by a scalar with *"
            ) from None
        inner = "first" if b.ndim == 1 else "second-to-last"
        raise ShapeError(
            f"matmul: cannot multiply shapes {a.shape} and {b.shape}: the last axis of the "
            f"left ({a.shape[-1]}) must equal the {inner} axis of the right "
            f"({b.shape[0 if b.ndim == 1 else -2]}) (and leading batch axes must broadcast); "
            "transpose or reshape one of them"
        ) from None


def _matmul_vjp(g, out, xs, needs):
    a, b = xs
    if a.ndim == 2 and b.ndim == 2:  # the common case, kept short
        return (g @ b.T if needs[0] else None, a.T @ g if needs[1] else None)
    # Vectors: numpy treats a 1-D left operand as a row and a 1-D right one as
    # a column, then drops that axis from the result; put it back in g.
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if b.ndim == 1:
        g = g[..., None]  # the column axis, last
    if a.ndim == 1:
        g = g[..., None, :]  # the row axis, second to last
    ga = gb = None
    if needs[0]:
        ga = unbroadcast(g @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape)
    if needs[1]:
        gb = unbroadcast(a2.swapaxes(-1, -2) @ g, b2.shape).reshape(b.shape)
    return ga, gb


def _matmul_saves(needs: tuple) -> tuple:
    return needs[1], needs[0]  # each gradient reads the other input


MATMUL = Op("matmul", _matmul_forward, _matmul_vjp, _matmul_saves, fresh=True)


def _dot_forward(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeError(f"dot: expects two 1-D tensors, got shapes {a.shape} and {b.shape}")
    return _matmul_forward(a, b)


DOT = Op("dot", _dot_forward, _matmul_vjp, _matmul_saves, fresh=True)


def _trace_forward(a):
    if a.ndim != 2:
        raise ShapeError(f"trace: expects a 2-D tensor (a matrix), got shape {a.shape}")
    return np.add.reduce(a.diagonal())  # a.trace(), without numpy's generic reduction


def _trace_vjp(g, out, xs, needs):
    rows, columns = xs[0].shape
    # d tr(A) / dA = I: g on the diagonal, 0 elsewhere.
    if not isinstance(g, np.ndarray | np.generic):
        return (g * np.eye(rows, columns, dtype=g.dtype),)
    # The diagonal of a flattened matrix is every (columns + 1)-th entry.
    grad = np.zeros(rows * columns, dtype=xs[0].dtype)
    grad[: min(rows, columns) * (columns + 1) : columns + 1] = g
    return (grad.reshape(rows, columns),)


TRACE = Op("trace", _trace_forward, _trace_vjp, saves_none, fresh=True)


def _dims(name: str, a: Any, b: Any, ndim: int) -> None:
    if a.ndim != ndim or getattr(b, "ndim", None) != ndim:
        kind = "matrices (2-d)" if ndim == 2 else "batches of matrices (3-d)"
        raise RuntimeError(
            f"{name}: both arguments must be {kind}, got shapes {tuple(a.shape)} and "
            f"{tuple(getattr(b, 'shape', ()))}; torch.matmul (or @) also takes vectors and "
            "batches that broadcast"
        )


class Products:
    """The matrix products of ``Tensor`` (a mixin of
    :class:`~micrograd_edu.tensor.tensor.Tensor`, which provides ``_apply``)."""

    __slots__ = ()

    def __matmul__(self, other: Any):
        return self._apply(MATMUL, self, other)

    def __rmatmul__(self, other: Any):
        return self._apply(MATMUL, other, self)

    matmul = __matmul__

    def mm(self, other: Any):
        """The product of two matrices (2-d only, as ``torch.mm``)."""
        _dims("mm", self, other, 2)
        return self._apply(MATMUL, self, other)

    def bmm(self, other: Any):
        """Batches of matrix products: (b, n, m) @ (b, m, p), the same b (``torch.bmm``)."""
        _dims("bmm", self, other, 3)
        if self.shape[0] != other.shape[0]:
            raise RuntimeError(
                "bmm: expected two 3-d tensors with the same batch size, got shapes "
                f"{tuple(self.shape)} and {tuple(other.shape)}"
            )
        return self._apply(MATMUL, self, other)

    def mv(self, vec: Any):
        """A matrix times a vector (``torch.mv``)."""
        if self.ndim != 2 or getattr(vec, "ndim", None) != 1:
            raise RuntimeError(
                f"mv: expects a matrix and a vector, got shapes {tuple(self.shape)} and "
                f"{tuple(getattr(vec, 'shape', ()))}"
            )
        return self._apply(MATMUL, self, vec)

    def dot(self, other: Any):
        """Inner product of two 1-D tensors."""
        return self._apply(DOT, self, other)

    def trace(self):
        """Sum of the diagonal of a matrix."""
        return self._apply(TRACE, self)
