"""Elementary functions written once, evaluated by every engine.

For each one-argument rule in :data:`~micrograd_edu.rules.RULES` this module
has a function of the same name (``exp``, ``log``, ``sin``, ...). It hands its
argument to the method of that name when there is one (``Value``, ``Dual``,
the symbolic ``Expr`` and ``Tensor`` all use the rules' names), and evaluates
plain numbers with the ``MATH`` primitives. So a function of the lecture is
written once and every engine runs it:

>>> from micrograd_edu import functions as F
>>> f = lambda x1, x2: F.log(x1) + x1 * x2 - F.sin(x2)
>>> round(f(2.0, 5.0), 3)
11.652

The module also names the Python operators each rule is offered under
(:data:`OPERATOR_NAMES`), and :func:`attach_rules` gives an engine's class one
method per rule from that table, so adding a rule adds the operation everywhere.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from .rules import MATH, RULES, DomainError, Rule, check_domain

__all__ = ["OPERATOR_NAMES", "as_float", "attach_rules", "evaluate", "method_names"]

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


def attach_rules(
    cls: type,
    unary: Callable[[Rule], Callable[..., Any]],
    binary: Callable[[Rule, bool], Callable[..., Any]],
) -> type:
    """Give ``cls`` one method per rule of the table.

    ``unary(rule)`` returns the method ``self -> result``; ``binary(rule,
    reflected)`` returns ``(self, other) -> result``, where ``reflected`` means
    ``self`` is the *right* operand (``2 - x`` calls ``x.__rsub__(2)``).
    """
    for rule in RULES.values():
        names = method_names(rule)
        if rule.arity == 1:
            method = _named(unary(rule), cls, names[0], rule)
            for name in names:
                setattr(cls, name, method)
        else:
            for name, reflected in zip(names, (False, True), strict=True):
                setattr(cls, name, _named(binary(rule, reflected), cls, name, rule))
    return cls


def _named(method: Callable[..., Any], cls: type, name: str, rule: Rule) -> Callable[..., Any]:
    # So that help(Value.sin) and tracebacks say what the generated method is.
    method.__name__, method.__qualname__ = name, f"{cls.__name__}.{name}"
    method.__doc__ = f"The rule {rule.name!r} of micrograd_edu.rules.RULES."
    return method


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


def _function(rule: Rule) -> Callable[[Any], Any]:
    method = method_names(rule)[0]

    def function(x: Any) -> Any:
        bound = getattr(x, method, None)
        if bound is not None:
            return bound()
        if isinstance(x, numbers.Real):
            x = float(x)
            check_domain(rule, MATH, x)  # only the value: no derivative is needed here
            return rule.value(MATH, x)
        raise TypeError(
            f"{rule.name}: expected a number or an object with a .{method}() method "
            f"(Value, Dual, Expr, Tensor), got {type(x).__name__} {x!r}"
        )

    function.__name__ = function.__qualname__ = rule.name
    function.__doc__ = (
        f"{rule.name}(x): ``x.{method}()`` for an engine's number, "
        f"the float {rule.name} for a plain number (domain-checked)."
    )
    return function


for _rule in RULES.values():
    if _rule.arity == 1:
        globals()[_rule.name] = _function(_rule)
        __all__.append(_rule.name)
del _rule
