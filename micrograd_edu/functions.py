"""Elementary functions written once, evaluated by every engine.

For each one-argument rule in :data:`~micrograd_edu.rules.RULES` this module has a
function of the same name (``exp``, ``log``, ``sin``, ...), and :func:`apply`
evaluates any rule, of any arity. The functions hand their argument to its method of
that name when it has one (``Value``, ``Dual``, the symbolic ``Expr``, ``Tensor``, or
a notebook's own dual number); :func:`apply` hands it to its engine; a plain number
is evaluated with the ``MATH`` primitives. So a function of the lecture is written
once and every engine runs it:

>>> from micrograd_edu import functions as F
>>> f = lambda x1, x2: F.log(x1) + x1 * x2 - F.sin(x2)
>>> round(f(2.0, 5.0), 3)
11.652

The module also names the Python operators and methods each rule is offered under
(:func:`method_names`): every engine writes out one method per name, and
``tests/test_functions.py`` checks that none is missing.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .rules import MATH, RULES, DomainError, Rule, check_domain

__all__ = [
    "OPERATOR_NAMES",
    "apply",
    "as_float",
    "evaluate",
    "method_names",
    "exp",
    "log",
    "log1p",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "abs",
    "sqrt",
    "step",
    "sign",
    "neg",
]

#: The names under which a rule is offered when they differ from the rule's name:
#: binary rules as (operator, reflected operator), ``neg`` as ``-x``, ``abs`` also as ``abs(x)``.
OPERATOR_NAMES: dict[str, tuple[str, ...]] = {
    "add": ("__add__", "__radd__"),
    "sub": ("__sub__", "__rsub__"),
    "mul": ("__mul__", "__rmul__"),
    "div": ("__truediv__", "__rtruediv__"),
    "pow": ("__pow__", "__rpow__"),
    "neg": ("__neg__",),
    "abs": ("abs", "__abs__"),
}


def method_names(rule: Rule) -> tuple[str, ...]:
    """The method names an engine gives ``rule``: for a binary rule, the operator
    and its reflected form (a new binary rule ``name`` becomes ``x.name(y)`` and
    ``x.rname(y)``); for a unary rule, the method first, then any operator.

    >>> method_names(RULES["mul"]), method_names(RULES["sin"])
    (('__mul__', '__rmul__'), ('sin',))
    """
    if rule.name in OPERATOR_NAMES:
        return OPERATOR_NAMES[rule.name]
    return (rule.name, "r" + rule.name) if rule.arity == 2 else (rule.name,)


def apply(name: str, *args: Any) -> Any:
    """The rule ``name`` of :data:`~micrograd_edu.rules.RULES` applied to ``args``: by
    the engine of the first argument that belongs to one (its ``_rule`` hook), or on
    plain numbers with the ``MATH`` primitives (domain-checked). This is how a rule
    reaches every engine before any of them has a method for it.

    >>> from micrograd_edu import Value
    >>> x = Value(0.5)
    >>> y = apply("mul", x, apply("sin", x))
    >>> y.op, round(y.data, 4), apply("add", 2.0, 3)
    ('mul', 0.2397, 5.0)
    """
    rule = RULES.get(name)
    if rule is None:
        raise KeyError(f"apply: no rule {name!r} in RULES (its rules: {', '.join(RULES)})")
    if len(args) != rule.arity:
        raise TypeError(f"apply: {name} takes {rule.arity} argument(s), got {len(args)}")
    for x in args:
        engine = getattr(type(x), "_rule", None)
        if engine is not None:
            return engine(rule, *args)
    xs = []
    for x in args:
        if not isinstance(x, numbers.Real) or isinstance(x, bool):
            raise TypeError(
                f"{name}: expected a number or an engine's number (Value, Dual, Expr, "
                f"Tensor), got {type(x).__name__} {x!r}"
            )
        xs.append(float(x))
    check_domain(rule, MATH, *xs)  # only the value: no derivative is needed here
    return rule.value(MATH, *xs)


def _call(name: str, x: Any) -> Any:
    method = getattr(x, method_names(RULES[name])[0], None)
    return method() if method is not None else apply(name, x)


# The functions of the lecture, one per one-argument rule.


def exp(x: Any) -> Any:
    """e to the power x."""
    return _call("exp", x)


def log(x: Any) -> Any:
    """The natural logarithm (x > 0)."""
    return _call("log", x)


def log1p(x: Any) -> Any:
    """log(1 + x), accurate for small x (x > -1)."""
    return _call("log1p", x)


def sin(x: Any) -> Any:
    """The sine (radians)."""
    return _call("sin", x)


def cos(x: Any) -> Any:
    """The cosine (radians)."""
    return _call("cos", x)


def tan(x: Any) -> Any:
    """The tangent (radians)."""
    return _call("tan", x)


def tanh(x: Any) -> Any:
    """The hyperbolic tangent."""
    return _call("tanh", x)


def sigmoid(x: Any) -> Any:
    """1 / (1 + e to the -x)."""
    return _call("sigmoid", x)


def relu(x: Any) -> Any:
    """max(x, 0)."""
    return _call("relu", x)


def abs(x: Any) -> Any:  # noqa: A001  (the rule's name)
    """|x|."""
    return _call("abs", x)


def sqrt(x: Any) -> Any:
    """The square root (x >= 0)."""
    return _call("sqrt", x)


def step(x: Any) -> Any:
    """1 where x > 0, else 0 (relu's slope)."""
    return _call("step", x)


def sign(x: Any) -> Any:
    """-1, 0 or 1 (abs's slope)."""
    return _call("sign", x)


def neg(x: Any) -> Any:
    """-x."""
    return _call("neg", x)


def as_float(x: Any, op: str, engine: str = "") -> float:
    """``x`` as a float, or a ``TypeError`` naming the operation and what it got
    (``engine``: the other kind of operand the operation accepts, if any).

    >>> as_float("a", "mul", "Value")
    Traceback (most recent call last):
    ...
    TypeError: mul: expected a Python number (int or float) or a Value, got str 'a'
    """
    if isinstance(x, numbers.Real):
        return float(x)
    raise TypeError(
        f"{op}: expected a Python number (int or float)"
        + (f" or a {engine}" if engine else "")
        + f", got {type(x).__name__} {x!r}"
    )


def evaluate(
    rule: Rule, xs: tuple[float, ...], constant_last: bool = False
) -> tuple[float, tuple[float, ...]]:
    """``rule`` at the floats ``xs``: its value and its partial derivatives.

    Raises :class:`~micrograd_edu.rules.DomainError` naming the operation and
    the values when they are outside the rule's domain, or outside the domain of
    the derivative in the last argument. With ``constant_last`` that argument
    is a plain number, so that derivative is not needed: it is returned as
    ``nan`` instead of raising (this is what lets ``(-2.0) ** 2`` be
    differentiated in the base).

    >>> evaluate(RULES["pow"], (-2.0, 2.0), constant_last=True)
    (4.0, (-4.0, nan))
    >>> evaluate(RULES["log"], (0.0,))
    Traceback (most recent call last):
    ...
    micrograd_edu.rules.DomainError: log(0.0): log is defined only for positive inputs
    """
    check_domain(rule, MATH, *xs)
    partials = rule.partials
    undefined_last = rule.grad_domain is not None and rule.grad_domain(MATH, *xs)
    if undefined_last:
        if not constant_last:
            check_domain(rule, MATH, *xs, grad=True)
        partials = partials[:-1]
    # What the table does not foresee (overflow, 0.0 ** -0.5 in pow's derivative)
    # still becomes a DomainError naming the operation and the values.
    where = ""
    try:
        out = rule.value(MATH, *xs)
        where = "its derivative: "
        local = tuple(partial(MATH, out, *xs) for partial in partials)
    except ArithmeticError as error:
        shown = ", ".join(repr(x) for x in xs)
        raise DomainError(f"{rule.name}({shown}): {where}{error}") from error
    return out, (local + (math.nan,)) if undefined_last else local
