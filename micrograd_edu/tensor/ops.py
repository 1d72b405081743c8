"""The operations a ``Tensor`` records, written over plain numpy arrays.

Each operation is an :class:`Op`: a name, a ``forward`` that computes the
result from the input arrays, and a ``vjp`` (vector-Jacobian product) that
turns the gradient of the result into gradients of the inputs::

    forward(*xs, *static) -> out
    vjp(g, out, xs, needs, *static) -> one gradient (or None) per input

``xs`` are the input arrays, ``needs[i]`` says whether input ``i`` wants a
gradient (so ``X @ W`` with a constant ``X`` skips one matrix product; the
gradient is an array, of the input's shape, exactly where it is wanted) and
``static`` holds arguments that are not differentiated (an axis, a shape, an
index). Nothing here knows about ``Tensor``: the dynamic graph in
:mod:`micrograd_edu.tensor` and the frozen replay in :mod:`micrograd_edu.tensor.freeze`
call the same functions.

A ``vjp`` is written once for two kinds of arguments: numpy arrays (every
ordinary ``backward``) and tensors (``backward(create_graph=True)``, where the
backward pass is itself recorded so that a gradient can be differentiated
again). It uses operators and the methods both kinds share, and for the rest the
namespace :func:`namespace_of` picks: :data:`~micrograd_edu.rules.NUMPY` for
arrays, :data:`TENSOR` (the same names as tensor methods) for tensors.

Elementwise operations are not written here one by one: they are built from
the derivative table :data:`micrograd_edu.rules.RULES` by :func:`elementwise`.
Every gradient of a broadcast input goes back to its shape through one helper,
:func:`unbroadcast`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from ..rules import NUMPY, RULES, DomainError, Rule

__all__ = [
    "Op",
    "ShapeError",
    "DimensionError",
    "saves_all",
    "saves_none",
    "ARRAYS",
    "TENSOR",
    "namespace_of",
    "unbroadcast",
    "elementwise",
    "ELEMENTWISE",
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


class Op(NamedTuple):
    """An operation the engine can record: see the module docstring.

    ``saves(needs)`` says which inputs the backward pass reads (one bool per
    input): an inference tensor may be used where it is not read, as in
    PyTorch (``inference + w`` records, ``inference * w`` cannot).

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


def _method(name: str) -> Callable[..., Any]:
    return lambda x, *args: getattr(x, name)(*args)


#: The primitives of :data:`~micrograd_edu.rules.NUMPY` as tensor methods, so a rule's
#: partials and a generic ``vjp`` run on tensors and are recorded (``create_graph``).
TENSOR = SimpleNamespace(
    **{name: _method(name) for name in vars(NUMPY) if name != "pow_slope"},
    pow_slope=lambda a, b: (b * a ** (b - 1)).where(b != 0, 0.0),
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


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` back to ``shape``, undoing numpy broadcasting.

    When an input of shape ``shape`` was broadcast to a larger result, each of
    its entries was used several times, so its gradient is the *sum* of the
    result's gradient over the copies: over the leading axes that broadcasting
    added, and over the axes where ``shape`` has length 1.

    >>> g = np.ones((2, 3))
    >>> unbroadcast(g, (3,))          # a bias row added to two rows
    array([2., 2., 2.])
    >>> unbroadcast(g, (2, 1))        # a column added to three columns
    array([[3.],
           [3.]])
    >>> unbroadcast(g, ())            # a scalar
    array(6.)
    """
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if shape and extra > 0 and grad.shape[extra:] == shape:  # leading axes only: a bias row
        return grad.sum(axis=tuple(range(extra)))
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, grad.shape[extra:], strict=True)):
        raise ShapeError(
            f"unbroadcast: a gradient of shape {grad.shape} cannot be summed to shape "
            f"{shape}; it is not a shape that broadcasts to {grad.shape}"
        )
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1
    )
    return grad.sum(axis=axes, keepdims=True).reshape(shape)  # a Tensor's methods too


# --------------------------------------------------------------------------
# Elementwise operations, from the rule table
# --------------------------------------------------------------------------


def _times(g: np.ndarray, d: Any) -> np.ndarray:
    # Rules write constant partials as 1.0 / -1.0: skip multiplying by them.
    if type(d) is float:
        if d == 1.0:
            return g
        if d == -1.0:
            return -g
    return g * d


def check_domain_arrays(rule: Rule, xs: tuple, grad: bool = False) -> None:
    """Raise :class:`DomainError` if any entry of ``xs`` is outside ``rule``'s
    domain, naming the operation, how many entries, and the first of them.

    The tensor engine raises instead of returning NaN so that the error points
    at the operation that *made* the first NaN, not at a loss far downstream.

    >>> check_domain_arrays(RULES["log"], (np.array([1.0, -2.0, 0.0]),))
    Traceback (most recent call last):
    ...
    micrograd_edu.rules.DomainError: log: 2 of 3 entries are outside the domain \
(log is defined only for positive inputs); the first is at index (1,) with input -2.0
    """
    test, message = rule.domain_test(grad)
    bad = test(NUMPY, *xs)
    if not np.any(bad):
        return
    shape = np.broadcast_shapes(*(np.shape(x) for x in xs))
    bad = np.broadcast_to(bad, shape)
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    values = ", ".join(repr(np.broadcast_to(x, shape)[first].item()) for x in xs)
    what = "the derivative of " + rule.name if grad else rule.name
    raise DomainError(
        f"{what}: {int(np.count_nonzero(bad))} of {bad.size} entries are outside the domain "
        f"({message}); the first is at index {first} with input {values}"
    )


def _broadcast_error(name: str, xs: tuple) -> ShapeError:
    shapes = " and ".join(str(np.shape(x)) for x in xs)
    return ShapeError(
        f"{name}: shapes {shapes} do not broadcast: aligned from the right, each pair of "
        "axis lengths must be equal or one of them 1 (reshape one input, e.g. x.reshape(-1, 1))"
    )


def elementwise(rule: Rule) -> Op:
    """Build the tensor operation for one entry of the rule table.

    >>> op = elementwise(RULES["mul"])
    >>> a, b = np.array([1.0, 2.0]), np.array(3.0)
    >>> op.forward(a, b)
    array([3., 6.])
    >>> op.vjp(np.ones(2), op.forward(a, b), (a, b), (True, True))
    (array([3., 3.]), array(3.))
    """
    value, partials, name = rule.value, rule.partials, rule.name
    ns = NUMPY

    def forward(*xs):
        try:
            if rule.domain is not None:
                check_domain_arrays(rule, xs)
            return value(ns, *xs)
        except ValueError as error:
            # numpy's own words for shapes that do not broadcast, said again with the op
            if type(error) is ValueError and len(xs) == 2 and "broadcast" in str(error):
                raise _broadcast_error(name, xs) from None
            raise

    check_grad = rule.grad_domain is not None
    reads = _reads(rule)

    def saves(needs: tuple) -> tuple:
        return tuple(any(n and i in r for n, r in zip(needs, reads)) for i in range(len(needs)))  # noqa: B905

    if rule.arity == 1:
        (partial,) = partials

        def vjp(g, out, xs, needs):
            if check_grad:
                check_domain_arrays(rule, _arrays(xs), grad=True)
            return (_times(g, partial(namespace_of(g), out, *xs)),)

    else:  # two inputs, either of which may have been broadcast
        partial_a, partial_b = partials

        def vjp(g, out, xs, needs):
            a, b = xs
            if check_grad and needs[1]:
                check_domain_arrays(rule, _arrays(xs), grad=True)
            space = namespace_of(g)
            ga = unbroadcast(_times(g, partial_a(space, out, a, b)), a.shape) if needs[0] else None
            gb = unbroadcast(_times(g, partial_b(space, out, a, b)), b.shape) if needs[1] else None
            return ga, gb

    # _times passes g on when a partial is the constant 1.0 (add, sub): not fresh.
    fresh = not any(_is_one(partial, rule.arity) for partial in partials)
    return Op(name, forward, vjp, saves, fresh)


def _is_one(partial: Callable[..., Any], arity: int) -> bool:
    """Whether ``partial`` is the constant 1.0, whatever its arguments."""
    probes = [_Probe(i, set()) for i in range(-1, arity)]
    space = SimpleNamespace(**{n: (lambda *a: a[0]._use(*a)) for n in vars(NUMPY)})
    result = partial(space, *probes)
    return type(result) is float and result == 1.0


def _arrays(xs: tuple) -> tuple:
    return tuple(x if isinstance(x, np.ndarray) else np.asarray(x) for x in xs)


class _Probe:
    """Stands for an argument of a partial, to learn which arguments it reads."""

    def __init__(self, index: int, seen: set[int]) -> None:
        self.index, self.seen = index, seen

    def _use(self, *others: Any) -> _Probe:
        self.seen.add(self.index)
        for other in others:
            if isinstance(other, _Probe):
                other.seen.add(other.index)
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _use
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = _use
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __and__ = __or__ = _use
    __hash__ = object.__hash__


def _reads(rule: Rule) -> list[set[int]]:
    """For each partial of ``rule``, the inputs it reads (``out`` counts as every input:
    it is computed from them, and an inference tensor's result is an inference tensor)."""
    found = []
    for partial in rule.partials:
        seen: set[int] = set()
        probes = [_Probe(i, seen) for i in range(-1, rule.arity)]
        space = SimpleNamespace(**{n: (lambda *a: a[0]._use(*a)) for n in vars(NUMPY)})
        result = partial(space, *probes)
        if isinstance(result, _Probe):
            seen.add(result.index)
        found.append(set(range(rule.arity)) if -1 in seen else seen)
    return found


#: One tensor operation per rule, built by :func:`elementwise`.
ELEMENTWISE: dict[str, Op] = {name: elementwise(rule) for name, rule in RULES.items()}
