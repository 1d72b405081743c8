"""One table of elementary derivative rules, shared by every engine.

Each elementary operation is written once: its value and the partial derivative
with respect to each argument, in terms of a small *namespace* of primitives
(``sin``, ``cos``, ``exp``, ``log``, ...) plus Python's arithmetic operators.
The engines differ only in the namespace they pass in:

* ``MATH`` (floats, via :mod:`math`) serves the scalar ``Value`` and ``Dual``;
* ``NUMPY`` (arrays) serves ``Tensor``;
* the symbolic namespace in :mod:`micrograd_edu.scalar.symbolic` *builds* the
  derivative expression, which is how ``symbolic.diff`` works.

That is the lesson of the course in one file: automatic differentiation is
symbolic differentiation at the level of elementary operations, plus the chain
rule applied to numbers.

>>> rule = RULES["sin"]
>>> rule.value(MATH, 0.0)
0.0
>>> rule.partials[0](MATH, 1.0, 0.0)   # d sin(x)/dx at x = 0, given out = sin 0
1.0

A partial is called as ``partial(ns, out, *args)`` where ``out`` is the
operation's value: several derivatives are cheapest in terms of it
(``exp' = out``, ``tanh' = 1 - out**2``).

Adding an operation is one entry in :data:`RULES`. From then on every engine
evaluates it through one path, :func:`micrograd_edu.functions.apply`
(``F.apply("hypot", x, y)``), which hands it to the engine of its arguments (the
``_rule`` hook of ``Value``, ``Dual``, the symbolic ``Expr`` and ``Tensor``, each
the same code their operators run); ``symbolic.diff`` differentiates it at once.
Each engine also writes its operators and methods out (``def __mul__`` in
``Value``'s class is where a reader looks), each one line that reads its rule from
this table: to offer the new operation as ``x.hypot(y)``, add that line to each
engine, under the names :func:`micrograd_edu.functions.method_names` gives;
``tests/test_functions.py`` names every engine that lacks one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = ["Rule", "RULES", "MATH", "NUMPY", "DomainError", "check_domain"]


class DomainError(ValueError):
    """An elementary operation was applied outside its domain (log of -1, ...)."""


@dataclass(frozen=True)
class Rule:
    """An elementary operation: its value and its partial derivatives.

    ``value(ns, *args)`` computes the result; ``partials[i](ns, out, *args)``
    is the derivative of the result with respect to ``args[i]``.
    ``domain(ns, *args)`` is truthy (elementwise for arrays) where the value
    is undefined and ``domain_message`` says why; ``grad_domain`` does the
    same for the derivative with respect to the *last* argument only, for
    ``pow`` whose derivative in the exponent needs ``log`` of the base.
    """

    name: str
    value: Callable[..., Any]
    partials: tuple[Callable[..., Any], ...]
    domain: Callable[..., Any] | None = None
    domain_message: str = ""
    grad_domain: Callable[..., Any] | None = None
    grad_domain_message: str = ""

    @property
    def arity(self) -> int:
        return len(self.partials)

    def domain_test(self, grad: bool = False) -> tuple[Callable[..., Any] | None, str]:
        """The predicate and message for the value's domain, or with ``grad`` the
        derivative's (what :func:`check_domain` and the tensor engine's array check use)."""
        if grad:
            return self.grad_domain, self.grad_domain_message
        return self.domain, self.domain_message


def _float_sigmoid(x: float) -> float:
    # Two branches so that exp never overflows: exp(-x) for x >= 0, exp(x) otherwise.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _float_exp(x: float) -> float:
    # math.exp raises OverflowError past ~709; IEEE arithmetic (and numpy) give inf.
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _numpy_sigmoid(x: np.ndarray) -> np.ndarray:
    # Same stable split as the float version, elementwise.
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))


# d(a**b)/da = b·a**(b-1), except that a**0 is the constant 1 whatever a is: its slope is 0,
# also at a = 0 where b·a**(b-1) would be 0·∞ (PyTorch and the mathematics agree).
def _float_pow_slope(a: float, b: float) -> float:
    return 0.0 if b == 0 else b * a ** (b - 1)


def _numpy_pow_slope(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b == 0, 0.0, b * a ** (b - 1))


# d(a**b)/db = a**b · log(a), except that 0**b is 0 for every b > 0 (and 1 at b = 0): its
# slope in b is 0 there, where out · log(a) would be 0 · (-∞) (PyTorch agrees).
def _float_pow_log(out: float, a: float, b: float) -> float:
    return 0.0 if a == 0 and b >= 0 else out * math.log(a)


def _numpy_pow_log(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((a == 0) & (b >= 0), 0.0, out * np.log(a))


#: Primitives on Python floats.
MATH = SimpleNamespace(
    sin=math.sin,
    cos=math.cos,
    tan=math.tan,
    exp=_float_exp,
    log=math.log,
    sqrt=math.sqrt,
    tanh=math.tanh,
    sigmoid=_float_sigmoid,
    relu=lambda x: x if x > 0.0 else 0.0,
    abs=abs,
    sign=lambda x: (x > 0) - (x < 0) + 0.0,
    step=lambda x: 1.0 if x > 0.0 else 0.0,
    floor=math.floor,
    log1p=math.log1p,
    pow_slope=_float_pow_slope,
    pow_log=_float_pow_log,
)

#: Primitives on numpy arrays (elementwise).
NUMPY = SimpleNamespace(
    sin=np.sin,
    cos=np.cos,
    tan=np.tan,
    exp=np.exp,
    log=np.log,
    sqrt=np.sqrt,
    tanh=np.tanh,
    sigmoid=_numpy_sigmoid,
    relu=lambda x: np.maximum(x, 0),
    abs=np.abs,
    sign=lambda x: np.nan_to_num(np.sign(x)),  # sign(nan) is 0, as in PyTorch
    step=lambda x: (x > 0).astype(x.dtype if hasattr(x, "dtype") else float),
    floor=np.floor,
    log1p=np.log1p,
    pow_slope=_numpy_pow_slope,
    pow_log=_numpy_pow_log,
)


def _zero(ns, out, x):
    # A constant: no engine ties it to x (PyTorch's sign and step send no gradient back).
    return 0.0


def _rule(name, value, *partials, **domain) -> Rule:
    return Rule(name, value, partials, **domain)


RULES: dict[str, Rule] = {
    r.name: r
    for r in [
        # arithmetic
        _rule("add", lambda ns, a, b: a + b, lambda ns, o, a, b: 1.0, lambda ns, o, a, b: 1.0),
        _rule("sub", lambda ns, a, b: a - b, lambda ns, o, a, b: 1.0, lambda ns, o, a, b: -1.0),
        _rule("mul", lambda ns, a, b: a * b, lambda ns, o, a, b: b, lambda ns, o, a, b: a),
        _rule(
            "div",
            lambda ns, a, b: a / b,
            lambda ns, o, a, b: 1.0 / b,
            lambda ns, o, a, b: -o / b,
            domain=lambda ns, a, b: b == 0,
            domain_message="division by zero: the divisor must be non-zero",
        ),
        _rule("neg", lambda ns, a: -a, lambda ns, o, a: -1.0),
        _rule(
            "pow",
            lambda ns, a, b: a**b,
            lambda ns, o, a, b: ns.pow_slope(a, b),
            lambda ns, o, a, b: ns.pow_log(o, a, b),
            domain=lambda ns, a, b: ((a < 0) & (b != ns.floor(b))) | ((a == 0) & (b < 0)),
            domain_message=(
                "a negative base needs an integer exponent, and a zero base a non-negative one"
            ),
            grad_domain=lambda ns, a, b: a <= 0,
            grad_domain_message=(
                "the derivative of a**b with respect to b is a**b * log(a), "
                "so the base must be positive when the exponent is differentiated; "
                "use a plain number as the exponent if it is a constant"
            ),
        ),
        # elementary functions
        _rule("exp", lambda ns, x: ns.exp(x), lambda ns, o, x: o),
        _rule(
            "log",
            lambda ns, x: ns.log(x),
            lambda ns, o, x: 1.0 / x,
            domain=lambda ns, x: x <= 0,
            domain_message="log is defined only for positive inputs",
        ),
        _rule(
            "log1p",
            lambda ns, x: ns.log1p(x),
            lambda ns, o, x: 1.0 / (1.0 + x),
            domain=lambda ns, x: x <= -1,
            domain_message="log1p(x) = log(1 + x) is defined only for x > -1",
        ),
        _rule("sin", lambda ns, x: ns.sin(x), lambda ns, o, x: ns.cos(x)),
        _rule("cos", lambda ns, x: ns.cos(x), lambda ns, o, x: -ns.sin(x)),
        _rule("tan", lambda ns, x: ns.tan(x), lambda ns, o, x: 1.0 + o * o),
        _rule("tanh", lambda ns, x: ns.tanh(x), lambda ns, o, x: 1.0 - o * o),
        _rule("sigmoid", lambda ns, x: ns.sigmoid(x), lambda ns, o, x: o * (1.0 - o)),
        _rule("relu", lambda ns, x: ns.relu(x), lambda ns, o, x: ns.step(x)),
        _rule("abs", lambda ns, x: ns.abs(x), lambda ns, o, x: ns.sign(x)),
        _rule(
            "sqrt",
            lambda ns, x: ns.sqrt(x),
            lambda ns, o, x: 0.5 / o,
            domain=lambda ns, x: x < 0,
            domain_message="sqrt is defined only for non-negative inputs",
            grad_domain=lambda ns, x: x == 0,
            grad_domain_message="the derivative of sqrt(x) is 1/(2 sqrt(x)), infinite at x = 0",
        ),
        # piecewise-constant helpers: derivatives of relu and abs, derivative zero
        _rule("step", lambda ns, x: ns.step(x), _zero),
        _rule("sign", lambda ns, x: ns.sign(x), _zero),
    ]
}


def check_domain(rule: Rule, ns: SimpleNamespace, *args: Any, grad: bool = False) -> None:
    """Raise :class:`DomainError` naming the operation and the values if ``args``
    are outside ``rule``'s domain (or, with ``grad=True``, outside the domain of
    the derivative with respect to the last argument). Scalars only; the tensor
    engine checks arrays elementwise with the same predicates.

    >>> check_domain(RULES["log"], MATH, -1.0)
    Traceback (most recent call last):
    ...
    micrograd_edu.rules.DomainError: log(-1.0): log is defined only for positive inputs
    """
    test, message = rule.domain_test(grad)
    if test is not None and test(ns, *args):
        shown = ", ".join(repr(a) for a in args)
        raise DomainError(f"{rule.name}({shown}): {message}")
