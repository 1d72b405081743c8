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
:mod:`micrograd_edu.tensor` and the frozen replay in :mod:`micrograd_edu.freeze`
call the same functions.

Elementwise operations are not written here one by one: they are built from
the derivative table :data:`micrograd_edu.rules.RULES` by :func:`elementwise`.
Every gradient of a broadcast input goes back to its shape through one helper,
:func:`unbroadcast`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .rules import NUMPY, RULES, DomainError, Rule

__all__ = ["Op", "ShapeError", "unbroadcast", "elementwise", "ELEMENTWISE"]


class ShapeError(ValueError):
    """Shapes that do not fit an operation (the message names both)."""


class Op(NamedTuple):
    """An operation the engine can record: see the module docstring."""

    name: str
    forward: Callable[..., Any]
    vjp: Callable[..., tuple]


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
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


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

    if rule.arity == 1:
        (partial,) = partials

        def vjp(g, out, xs, needs):
            if check_grad:
                check_domain_arrays(rule, xs, grad=True)
            return (_times(g, partial(ns, out, *xs)),)

    else:  # two inputs, either of which may have been broadcast
        partial_a, partial_b = partials

        def vjp(g, out, xs, needs):
            a, b = xs
            if check_grad and needs[1]:
                check_domain_arrays(rule, xs, grad=True)
            ga = unbroadcast(_times(g, partial_a(ns, out, a, b)), a.shape) if needs[0] else None
            gb = unbroadcast(_times(g, partial_b(ns, out, a, b)), b.shape) if needs[1] else None
            return ga, gb

    return Op(name, forward, vjp)


#: One tensor operation per rule, built by :func:`elementwise`.
ELEMENTWISE: dict[str, Op] = {name: elementwise(rule) for name, rule in RULES.items()}
