"""Forward mode: dual numbers, ``jvp``, the forward Jacobian and the tangent steps.

A :class:`Dual` carries a value (the *primal*) and its directional derivative
(the *tangent*) through a computation. Every operation applies the chain rule
at once: ``tangent(out) = sum_i d out/d arg_i * tangent(arg_i)``, with the
partials read from the rule table, so one pass gives ``J @ v`` for one
direction ``v``.

>>> from micrograd_edu import functions as F
>>> f = lambda x1, x2: F.log(x1) + x1 * x2 - F.sin(x2)
>>> y = f(Dual(2.0, 1.0), Dual(5.0, 0.0))   # the tangent (1, 0) picks d/dx1
>>> round(y.primal, 3), y.tangent
(11.652, 5.5)
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..functions import as_float, evaluate
from ..rules import MATH, RULES, Rule
from .graph import lecture_order

__all__ = [
    "Dual",
    "jvp",
    "jacobian_forward",
    "ForwardJacobian",
    "TangentStep",
    "TangentSteps",
    "tangent_steps",
]


class Dual:
    """A dual number ``primal + tangent * eps`` with ``eps**2 = 0``.

    Python numbers mix in on either side of every operator (as constants,
    tangent 0); the methods are named after the rules (``exp``, ``log``, ...).

    >>> x = Dual(3.0, 1.0)
    >>> y = 2 * x ** 2 - 1 / x
    >>> y.primal, round(y.tangent, 6)
    (17.666666666666668, 12.111111)
    """

    __slots__ = ("primal", "tangent")

    def __init__(self, primal: float, tangent: float = 0.0) -> None:
        self.primal = primal if type(primal) is float else as_float(primal, "Dual")
        self.tangent = tangent if type(tangent) is float else as_float(tangent, "Dual")

    def __repr__(self) -> str:
        return f"Dual(primal={self.primal!r}, tangent={self.tangent!r})"

    def _result(self, rule: Rule, args: tuple[Any, ...], primal: float, tangent: float) -> Dual:
        # The one place a new Dual is made: _TracedDual overrides it to record a step.
        return Dual(primal, tangent)

    # ---------------------------------------- operations, each from its rule in RULES
    # A reflected operator has self on the right: 2 - x calls x.__rsub__(2).

    def __add__(self, other: Any) -> Dual:
        return _binary(RULES["add"], self, other)

    def __radd__(self, other: Any) -> Dual:
        return _binary(RULES["add"], other, self)

    def __sub__(self, other: Any) -> Dual:
        return _binary(RULES["sub"], self, other)

    def __rsub__(self, other: Any) -> Dual:
        return _binary(RULES["sub"], other, self)

    def __mul__(self, other: Any) -> Dual:
        return _binary(RULES["mul"], self, other)

    def __rmul__(self, other: Any) -> Dual:
        return _binary(RULES["mul"], other, self)

    def __truediv__(self, other: Any) -> Dual:
        return _binary(RULES["div"], self, other)

    def __rtruediv__(self, other: Any) -> Dual:
        return _binary(RULES["div"], other, self)

    def __pow__(self, other: Any) -> Dual:
        return _binary(RULES["pow"], self, other)

    def __rpow__(self, other: Any) -> Dual:
        return _binary(RULES["pow"], other, self)

    def __neg__(self) -> Dual:
        return _unary(RULES["neg"], self)

    def __abs__(self) -> Dual:
        return _unary(RULES["abs"], self)

    abs = __abs__

    def exp(self) -> Dual:
        return _unary(RULES["exp"], self)

    def log(self) -> Dual:
        return _unary(RULES["log"], self)

    def log1p(self) -> Dual:
        return _unary(RULES["log1p"], self)

    def sqrt(self) -> Dual:
        return _unary(RULES["sqrt"], self)

    def sin(self) -> Dual:
        return _unary(RULES["sin"], self)

    def cos(self) -> Dual:
        return _unary(RULES["cos"], self)

    def tan(self) -> Dual:
        return _unary(RULES["tan"], self)

    def tanh(self) -> Dual:
        return _unary(RULES["tanh"], self)

    def sigmoid(self) -> Dual:
        return _unary(RULES["sigmoid"], self)

    def relu(self) -> Dual:
        return _unary(RULES["relu"], self)

    def step(self) -> Dual:
        return _unary(RULES["step"], self)

    def sign(self) -> Dual:
        return _unary(RULES["sign"], self)

    @staticmethod
    def _rule(rule: Rule, *args: Any) -> Dual:
        """Any rule of the table, by :func:`micrograd_edu.functions.apply` (a new rule's path)."""
        return _unary(rule, *args) if rule.arity == 1 else _binary(rule, *args)


def _checked(rule: Rule, made_by: Dual, args: tuple[Any, ...]) -> Dual:
    # The path of the rules with a domain (div, pow, log, sqrt): `evaluate` checks it.
    is_dual = [isinstance(a, Dual) for a in args]
    xs = tuple(a.primal if d else a for a, d in zip(args, is_dual, strict=True))
    out, partials = evaluate(rule, xs, constant_last=not is_dual[-1])
    # A constant has tangent 0: skip its term (its partial may be undefined, e.g.
    # d(a**b)/db for a < 0 with b a plain number).
    tangent = sum(p * a.tangent for p, a, d in zip(partials, args, is_dual, strict=True) if d)
    return made_by._result(rule, args, out, float(tangent))


_NUMBERS = (float, int)


def _unary(rule: Rule, a: Dual) -> Dual:
    """``rule(a)``: the value, and the tangent times the local derivative."""
    if rule.domain is not None or rule.grad_domain is not None:
        return _checked(rule, a, (a,))
    x = a.primal
    out = rule.value(MATH, x)
    return a._result(rule, (a,), out, float(rule.partials[0](MATH, out, x) * a.tangent))


def _binary(rule: Rule, a: Any, b: Any) -> Dual:
    """``rule(a, b)`` with a plain number on either side (a constant: tangent 0)."""
    made_by = a if isinstance(a, Dual) else b
    if not isinstance(a, Dual):
        a = float(a) if type(a) in _NUMBERS else as_float(a, rule.name, "Dual")
    if not isinstance(b, Dual):
        b = float(b) if type(b) in _NUMBERS else as_float(b, rule.name, "Dual")
    if rule.domain is not None or rule.grad_domain is not None:
        return _checked(rule, made_by, (a, b))
    # a constant has tangent 0: its term is skipped, as in _checked
    x, tx = (a.primal, a.tangent) if isinstance(a, Dual) else (a, 0.0)
    y, ty = (b.primal, b.tangent) if isinstance(b, Dual) else (b, 0.0)
    out = rule.value(MATH, x, y)
    da, db = rule.partials
    tangent = (da(MATH, out, x, y) * tx if tx else 0.0) + (db(MATH, out, x, y) * ty if ty else 0.0)
    return made_by._result(rule, (a, b), out, float(tangent))


def _outputs(out: Any) -> tuple[list[Any], bool]:
    """f's result as a list, and whether it was a sequence (ℝⁿ → ℝᵐ)."""
    if isinstance(out, (list, tuple)):
        return list(out), True
    return [out], False


def _split(out: Any, caller: str) -> tuple[Any, Any]:
    items, many = _outputs(out)
    for item in items:
        if not isinstance(item, (Dual, numbers.Real)):
            raise TypeError(
                f"{caller}: f returned {type(item).__name__} {item!r}; it must return numbers "
                "(or a list of them) computed from its arguments"
            )
    primals = [y.primal if isinstance(y, Dual) else float(y) for y in items]
    tangents = [y.tangent if isinstance(y, Dual) else 0.0 for y in items]
    return (tuple(primals), tuple(tangents)) if many else (primals[0], tangents[0])


def _seed(
    caller: str, primals: Sequence[float], tangents: Sequence[float], make: type = Dual
) -> list[Dual]:
    if len(primals) != len(tangents):
        raise ValueError(
            f"{caller}: {len(primals)} primals but {len(tangents)} tangents; "
            "give one tangent (a direction component) per input"
        )
    return [make(p, t) for p, t in zip(primals, tangents, strict=True)]


def jvp(
    f: Callable[..., Any], primals: Sequence[float], tangents: Sequence[float]
) -> tuple[Any, Any]:
    """``(f(*primals), J(primals) @ tangents)`` in one forward pass, as ``jax.jvp``.

    ``f`` takes scalars and returns a scalar or a sequence of them; the result
    has the same shape (a float, or a tuple of floats).

    >>> jvp(lambda x, y: x * y, (2.0, 5.0), (1.0, 0.0))
    (10.0, 5.0)
    >>> jvp(lambda x, y: [x + y, x * y], (2.0, 5.0), (0.0, 1.0))
    ((7.0, 10.0), (1.0, 2.0))
    """
    return _split(f(*_seed("jvp", primals, tangents)), "jvp")


class ForwardJacobian(NamedTuple):
    """The Jacobian (shape ``(n,)`` for a scalar f, ``(m, n)`` otherwise) and the
    number of forward passes (calls of f) spent on it: one per input."""

    jacobian: np.ndarray
    passes: int


def jacobian_forward(f: Callable[..., Any], xs: Sequence[float]) -> ForwardJacobian:
    """The Jacobian of ``f`` at ``xs`` by forward mode: pass j seeds the unit
    tangent e_j and reads off column j, so n inputs cost n passes whatever m is.

    >>> J, passes = jacobian_forward(lambda x, y: [x * y, x + y], [2.0, 5.0])
    >>> J.tolist(), passes
    ([[5.0, 2.0], [1.0, 1.0]], 2)
    """
    if isinstance(xs, numbers.Real) or not isinstance(xs, Sequence | np.ndarray):
        raise TypeError(
            f"jacobian_forward: xs must be a sequence of numbers (one per argument of f), "
            f"got {type(xs).__name__}; write [x] for a single input"
        )
    passes = 0

    def counted(*args: Dual) -> Any:
        nonlocal passes
        passes += 1
        return f(*args)

    n = len(xs)
    columns = [jvp(counted, xs, [float(k == j) for k in range(n)])[1] for j in range(n)]
    jacobian = np.array(columns, dtype=float)
    many = bool(columns) and isinstance(columns[0], tuple)
    return ForwardJacobian(jacobian.T if many else jacobian, passes)


class TangentStep(NamedTuple):
    """One row of the forward trace.

    ``index`` is the lecture's number: inputs v₋ₙ₊₁ … v₀, then v₁, v₂, ...
    ``op`` is the rule's name (``"input"`` for an input); ``args`` are the
    indices (``int``) of earlier steps the operation read, or the constants
    (``float``) it was given; ``primal`` and ``tangent`` are vᵢ and v̇ᵢ.
    """

    index: int
    op: str
    args: tuple[int | float, ...]
    primal: float
    tangent: float


class TangentSteps(NamedTuple):
    """What :func:`tangent_steps` returns: as :func:`jvp`, plus the steps."""

    value: Any
    tangent: Any
    steps: list[TangentStep]


class _TracedDual(Dual):
    # A Dual that remembers how it was made, following the graph protocol
    # (parents, op) so that graph.lecture_order can number the steps.
    __slots__ = ("parents", "op", "args")

    def __init__(self, primal: float, tangent: float = 0.0) -> None:
        super().__init__(primal, tangent)
        self.parents, self.op, self.args = (), "", ()

    def _result(self, rule: Rule, args: tuple[Any, ...], primal: float, tangent: float) -> Dual:
        out = _TracedDual(primal, tangent)
        out.op, out.args = rule.name, args
        out.parents = tuple(a for a in args if isinstance(a, _TracedDual))
        return out


def tangent_steps(
    f: Callable[..., Any], primals: Sequence[float], tangents: Sequence[float]
) -> TangentSteps:
    """Run :func:`jvp` and record every elementary step, numbered as the lecture does.

    >>> from micrograd_edu import functions as F
    >>> f = lambda x1, x2: F.log(x1) + x1 * x2 - F.sin(x2)
    >>> value, tangent, steps = tangent_steps(f, (2.0, 5.0), (1.0, 0.0))
    >>> for s in steps:
    ...     print(s.index, s.op, s.args, round(s.primal, 3), round(s.tangent, 3))
    -1 input () 2.0 1.0
    0 input () 5.0 0.0
    1 log (-1,) 0.693 0.5
    2 mul (-1, 0) 10.0 5.0
    3 sin (0,) -0.959 0.0
    4 add (1, 2) 10.693 5.5
    5 sub (4, 3) 11.652 5.5
    """
    inputs = _seed("tangent_steps", primals, tangents, _TracedDual)
    out = f(*inputs)
    value, tangent = _split(out, "tangent_steps")
    roots = [y for y in _outputs(out)[0] if isinstance(y, _TracedDual)]
    leaves, operations = lecture_order(roots, inputs)
    index = {id(x): k - len(leaves) + 1 for k, x in enumerate(leaves)}
    index.update({id(x): k + 1 for k, x in enumerate(operations)})
    steps = [TangentStep(index[id(x)], "input", (), x.primal, x.tangent) for x in leaves]
    for node in operations:
        args = tuple(
            index[id(a)] if isinstance(a, _TracedDual) else _constant(a) for a in node.args
        )
        steps.append(TangentStep(index[id(node)], node.op, args, node.primal, node.tangent))
    return TangentSteps(value, tangent, steps)


def _constant(a: Any) -> float:
    # A plain Dual that f closed over is a constant of this trace.
    return a.primal if isinstance(a, Dual) else a
