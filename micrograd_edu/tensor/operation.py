"""What an operation of the tensor engine is: an :class:`Op`, a ``forward`` and a ``vjp``
over plain numpy arrays, and the errors shapes raise.

Every family of operations (:mod:`.elementwise`, :mod:`.reduce`, :mod:`.shape`,
:mod:`.indexing`, :mod:`.products`, :mod:`.losses`) writes its ``Op`` values here::

    forward(*xs, *static) -> out
    vjp(g, out, xs, needs, *static) -> one gradient (or None) per input

``xs`` are the input arrays, ``needs[i]`` says whether input ``i`` wants a gradient
(so ``X @ W`` with a constant ``X`` skips one matrix product; the gradient is an
array of the input's shape, exactly where it is wanted) and ``static`` holds the
arguments that are not differentiated (an axis, a shape, an index). Nothing here
knows about ``Tensor``: the dynamic graph (:func:`micrograd_edu.tensor.apply`) and the
frozen replay (:mod:`micrograd_edu.tensor.freeze`) call the same functions.

A ``vjp`` is written once for two kinds of arguments: numpy arrays (every ordinary
``backward``) and tensors (``backward(create_graph=True)``, where the backward pass is
itself recorded so that a gradient can be differentiated again). It uses operators and
the methods both kinds share, and for the rest the namespace :func:`namespace_of`
picks: :data:`ARRAYS` for arrays, :data:`TENSOR` (the same names as tensor methods)
for tensors.

>>> op = Op("double", lambda a: 2 * a, lambda g, out, xs, needs: (2 * g,), fresh=True)
>>> op.forward(np.ones(2)), op.vjp(np.ones(2), None, (np.ones(2),), (True,))
(array([2., 2.]), (array([2., 2.]),))
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from ..rules import NUMPY

__all__ = [
    "Op",
    "ShapeError",
    "DimensionError",
    "saves_all",
    "saves_none",
    "never",
    "always",
    "ARRAYS",
    "TENSOR",
    "namespace_of",
    "data_of",
    "storage",
    "row_major",
]


class ShapeError(ValueError):
    """Shapes that do not fit an operation (the message names both)."""


class DimensionError(ShapeError, IndexError):
    """An axis (``dim``) out of range: an ``IndexError`` as in PyTorch and numpy, and a
    :class:`ShapeError` like every other shape mistake."""


def saves_all(needs: tuple) -> tuple:
    """An op's backward reads every input (the default :attr:`Op.saves`)."""
    return (True,) * len(needs)


def saves_none(needs: tuple) -> tuple:
    """An op's backward reads no input, only shapes (a reshape, a sum)."""
    return (False,) * len(needs)


def never(needs: tuple) -> bool:
    """An op's backward does not read its result (the default :attr:`Op.saves_out`)."""
    return False


def always(needs: tuple) -> bool:
    """An op's backward reads its result (``exp``'s is its result)."""
    return True


class Op(NamedTuple):
    """An operation the engine can record: see the module docstring.

    ``saves(needs)`` says which inputs the backward pass reads (one bool per
    input), and ``saves_out(needs)`` whether it reads the result: what PyTorch saves for
    backward, so that a value changed in place afterwards is refused where PyTorch refuses
    it, and only there (``x + x`` saves nothing), and an inference tensor may be used where
    it is not read (``inference + w`` records, ``inference * w`` cannot).

    ``fresh`` promises that ``vjp``, given arrays, returns new arrays, one per input,
    that nothing else holds (not ``g``, not a view of it, not a saved value): the
    backward pass may then keep one as a leaf's ``.grad`` without copying it. Leave
    it False when ``vjp`` may pass ``g`` on (see :mod:`micrograd_edu.tensor.backward`).
    """

    name: str
    forward: Callable[..., Any]
    vjp: Callable[..., tuple]
    saves: Callable[[tuple], tuple] = saves_all
    fresh: bool = False
    saves_out: Callable[[tuple], bool] = never


def _method(name: str) -> Callable[..., Any]:
    return lambda x, *args: getattr(x, name)(*args)


def _pow_slope(a: Any, b: Any) -> Any:
    """d(a**b)/da on tensors, recorded. A constant exponent 0 (``x ** 0``) gives zeros
    tied to nothing, as PyTorch's does, so a later pass does not reach ``a`` through it."""
    if not b._requires_grad and b._data.ndim == 0 and b._data == 0:
        return b._leaf(np.zeros(np.broadcast_shapes(a._data.shape, ()), a._data.dtype))
    return (b * a ** (b - 1)).where(b != 0, 0.0)


#: The primitives of :data:`~micrograd_edu.rules.NUMPY` as tensor methods, so a rule's
#: partials and a generic ``vjp`` run on tensors and are recorded (``create_graph``).
TENSOR = SimpleNamespace(
    **{name: _method(name) for name in vars(NUMPY) if name not in ("pow_slope", "pow_log")},
    pow_slope=_pow_slope,
    pow_log=lambda out, a, b: (out * a.log()).where(~((a._data == 0) & (b._data >= 0)), 0.0),
    where=lambda condition, a, b: a.where(condition, b),
    broadcast_to=lambda x, shape: x.expand(*shape),
    flip=lambda x, axis: x.flip(axis),
    cumsum=lambda x, axis: x.cumsum(axis),
    permute=lambda x, axes: x.permute(*axes),
)


#: The same names for numpy arrays: :data:`~micrograd_edu.rules.NUMPY` and the few array
#: functions a generic ``vjp`` needs beyond operators and shared methods.
ARRAYS = SimpleNamespace(
    **vars(NUMPY),
    where=np.where,
    broadcast_to=np.broadcast_to,
    flip=np.flip,
    cumsum=lambda x, axis: np.cumsum(x, axis=axis),
    permute=np.transpose,
)


def namespace_of(x: Any) -> SimpleNamespace:
    """:data:`ARRAYS` for an array or a number, :data:`TENSOR` for a tensor: the
    primitives a generic ``vjp`` calls.

    >>> namespace_of(np.ones(2)).exp is np.exp, namespace_of(2.0) is ARRAYS
    (True, True)
    """
    if type(x) is np.ndarray:
        return ARRAYS
    return ARRAYS if isinstance(x, np.ndarray | np.generic | float | int) else TENSOR


def storage(array: np.ndarray) -> np.ndarray:
    """The array that owns ``array``'s memory: itself, or the base its views share (numpy
    keeps a view's ``base`` pointing at the owner).

    >>> a = np.zeros((2, 3)); storage(a.T[0]) is storage(a)
    True
    """
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def row_major(array: np.ndarray) -> np.ndarray:
    """``array`` laid out row by row (itself when it already is), 0-d arrays staying 0-d
    (``np.ascontiguousarray`` makes them 1-d): what PyTorch's operations that copy return.

    >>> row_major(np.ones((2, 3)).T).flags.c_contiguous, row_major(np.array(1.0)).shape
    (True, ())
    """
    return array if array.flags.c_contiguous else np.array(array, order="C")


def data_of(x: Any) -> Any:
    """A tensor's array; anything else (a number, an array, None) as it is.

    >>> data_of(2.0), data_of(None)
    (2.0, None)
    """
    return getattr(x, "_data", x)
