"""Expression nodes, their operators (from the rule table), traversal and printing.

A :class:`Symbol` combined with numbers by Python operators and the rules'
methods builds a tree of :class:`Apply` nodes:

>>> x = Symbol("x")
>>> e = 4 * x * (1 - x)
>>> e, size(e), e.evaluate(x=0.5)
(4*x*(1 - x), 7, 1.0)
"""

from __future__ import annotations

import keyword
import numbers
import re
from collections.abc import Callable
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from ...rules import MATH, RULES, Rule, check_domain
from ..graph import topological_order

#: Rules written with Python operators; every other unary rule is a function node.
OPERATORS = {"add": " + ", "sub": " - ", "mul": "*", "div": "/", "pow": "**", "neg": "-"}
FUNCTIONS = tuple(name for name, r in RULES.items() if r.arity == 1 and name not in OPERATORS)
# How tightly each operator binds, for printing with as few parentheses as possible.
_PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4}
_ATOM = 5


class Expr:
    """A symbolic expression. Build one from :class:`Symbol` and Python operators.

    Every unary rule is also a method (``e.sin()``, ``e.exp()``, ...) with the same
    name as on the other engines, so one function serves them all.

    >>> x = Symbol("x")
    >>> 2 - x.sin() / abs(-x)
    2 - sin(x)/abs(-x)
    """

    __slots__ = ()
    args: tuple[Expr, ...]

    @property
    def parents(self) -> tuple[Expr, ...]:
        # The graph protocol's name for the arguments, so that walks over an
        # expression use graph.topological_order like every other engine.
        return self.args

    def __pos__(self) -> Expr:
        return self

    def __eq__(self, other: object) -> bool:
        """Structural equality: same tree (``x + 1 == x + 1``, but ``x + 1 != 1 + x``)."""
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            other = Constant(other)
        if not isinstance(other, Expr):
            return NotImplemented
        return _same(self, other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, _head(self), len(self.args)))

    def evaluate(self, **values: float) -> float:
        """The value at ``values`` (one keyword per symbol), checked against each rule's domain.

        >>> (Symbol("x") ** 2 + 1).evaluate(x=0.5)
        1.25
        """
        results: dict[int, float] = {}
        for node in topological_order(self):
            if isinstance(node, Constant):
                value = float(node.value)
            elif isinstance(node, Symbol):
                value = _variable(values, node.name)
            else:
                rule = RULES[node.op]
                args = [results[id(a)] for a in node.args]
                check_domain(rule, MATH, *args)
                value = rule.value(MATH, *args)
            results[id(node)] = value
        return float(results[id(self)])

    def __str__(self) -> str:
        return _render(self, latex=False)

    __repr__ = __str__

    def latex(self) -> str:
        r"""LaTeX source: ``(4 - 8*x).latex()`` gives ``4 - 8 x``.

        >>> (Symbol("x1") ** 2 / 3).latex()
        '\\frac{x_{1}^{2}}{3}'
        """
        return _render(self, latex=True)

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    # --------------------------- operations: a node named after its rule in RULES
    # A reflected operator has self on the right: 2 - x calls x.__rsub__(2).

    def __add__(self, other: Any) -> Apply:
        return _apply("add", self, other)

    def __radd__(self, other: Any) -> Apply:
        return _apply("add", other, self)

    def __sub__(self, other: Any) -> Apply:
        return _apply("sub", self, other)

    def __rsub__(self, other: Any) -> Apply:
        return _apply("sub", other, self)

    def __mul__(self, other: Any) -> Apply:
        return _apply("mul", self, other)

    def __rmul__(self, other: Any) -> Apply:
        return _apply("mul", other, self)

    def __truediv__(self, other: Any) -> Apply:
        return _apply("div", self, other)

    def __rtruediv__(self, other: Any) -> Apply:
        return _apply("div", other, self)

    def __pow__(self, other: Any) -> Apply:
        return _apply("pow", self, other)

    def __rpow__(self, other: Any) -> Apply:
        return _apply("pow", other, self)

    def __neg__(self) -> Apply:
        return Apply("neg", (self,))

    def __abs__(self) -> Apply:
        return Apply("abs", (self,))

    abs = __abs__

    def exp(self) -> Apply:
        return Apply("exp", (self,))

    def log(self) -> Apply:
        return Apply("log", (self,))

    def log1p(self) -> Apply:
        return Apply("log1p", (self,))

    def sqrt(self) -> Apply:
        return Apply("sqrt", (self,))

    def sin(self) -> Apply:
        return Apply("sin", (self,))

    def cos(self) -> Apply:
        return Apply("cos", (self,))

    def tan(self) -> Apply:
        return Apply("tan", (self,))

    def tanh(self) -> Apply:
        return Apply("tanh", (self,))

    def sigmoid(self) -> Apply:
        return Apply("sigmoid", (self,))

    def relu(self) -> Apply:
        return Apply("relu", (self,))

    def step(self) -> Apply:
        return Apply("step", (self,))

    def sign(self) -> Apply:
        return Apply("sign", (self,))

    @staticmethod
    def _rule(rule: Rule, *args: Any) -> Apply:
        """Any rule of the table, by :func:`micrograd_edu.functions.apply` (a new rule's path)."""
        return _apply(rule.name, *args)


class Constant(Expr):
    """A number. Integral values are kept as ``int`` so coefficients print exactly."""

    __slots__ = ("value",)
    op = "constant"
    args = ()

    def __init__(self, value: float) -> None:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"Constant: value must be a real number, got {type(value).__name__}")
        self.value = _normal(value)


class Symbol(Expr):
    """A variable, named by a Python identifier so that ``evaluate(x=...)`` can set it."""

    __slots__ = ("name",)
    op = "symbol"
    args = ()

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(
                f"Symbol: the name must be a Python identifier such as 'x' or 'x1', got {name!r}"
            )
        self.name = name


class Apply(Expr):
    """An operation of the rule table applied to argument expressions."""

    __slots__ = ("op", "args")

    def __init__(self, op: str, args: tuple[Expr, ...]) -> None:
        self.op, self.args = op, args


def _normal(value: Any) -> int | float:
    """Integral numbers as ``int`` (exact coefficients), everything else as ``float``."""
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _lift(value: Any, op: str) -> Expr:
    if isinstance(value, Expr):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return Constant(value)
    raise TypeError(
        f"symbolic {op}: cannot combine an expression with {type(value).__name__} {value!r}; "
        "use numbers, Symbols or expressions"
    )


def _apply(op: str, *operands: Any) -> Apply:
    return Apply(op, tuple(_lift(a, op) for a in operands))


def _function(name: str) -> Callable[[Any], Apply]:
    def build(x: Any) -> Apply:
        return _apply(name, x)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"The expression ``{name}(x)``."
    return build


#: The namespace whose primitives build nodes: ``RULES["sin"].partials[0](SYMBOLIC, out, x)``
#: is the expression ``cos(x)``.
SYMBOLIC = SimpleNamespace(
    **{name: _function(name) for name in FUNCTIONS},
    # The slope of a**b in a, as the expression the power rule writes: simplify turns the
    # case b = 0 (0 · a**-1) into 0.
    pow_slope=lambda a, b: b * a ** (b - 1),
    # The slope of a**b in b: out · log(a) (a > 0, where the expression is defined).
    pow_log=lambda out, a, b: out * a.log(),
)


# ----------------------------------------------------------------------------- structure


def _head(e: Expr) -> Any:
    return e.value if isinstance(e, Constant) else e.name if isinstance(e, Symbol) else e.op


def _same(a: Expr, b: Expr) -> bool:
    pairs, seen = [(a, b)], set()
    while pairs:
        x, y = pairs.pop()
        if x is y or (id(x), id(y)) in seen:
            continue
        seen.add((id(x), id(y)))
        if type(x) is not type(y) or _head(x) != _head(y) or len(x.args) != len(y.args):
            return False
        pairs.extend(zip(x.args, y.args, strict=True))
    return True


def _variable(values: dict[str, Any], name: str) -> float:
    if name not in values:
        given = ", ".join(sorted(values)) or "none"
        raise ValueError(
            f"evaluate: no value for the variable {name!r} (given: {given}); "
            f"pass it as evaluate({name}=...)"
        )
    value = values[name]
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"evaluate: {name}={value!r} must be a real number")
    return float(value)


def size(expr: Expr) -> int:
    """The number of nodes in the expression *tree* (a shared subtree counts every time).

    >>> x = Symbol("x")
    >>> size(x), size(4 * x * (1 - x))
    (1, 7)
    """
    root = _lift(expr, "size")
    sizes: dict[int, int] = {}
    for node in topological_order(root):
        sizes[id(node)] = 1 + sum(sizes[id(a)] for a in node.args)
    return sizes[id(root)]


# ----------------------------------------------------------------------------- printing

_LATEX_FUNCTIONS = {"sin", "cos", "tan", "tanh", "exp", "log"}  # names LaTeX knows as \sin, ...


def _format_function(op: str, part: str, latex: bool) -> str:
    r"""``op`` applied to its argument's text ``part``.

    In LaTeX a function name is an operator, and TeX puts a thin space between an
    operator and a ``\left(`` group ("exp (x)"): an argument of normal height gets plain
    parentheses, and a tall one (a fraction) ``\!\left(`` to take the space back.
    ``exp`` of a normal argument is ``e^{x}``; ``|x|`` uses ``\vert``, since a bare
    ``|`` would end a Markdown table's cell.

    >>> x = Symbol("x")
    >>> for f in (x.exp(), x.sin(), (1 / x).exp(), abs(x), x.sigmoid()):
    ...     print(f.latex())
    e^{x}
    \sin(x)
    \exp\!\left(\frac{1}{x}\right)
    \left\vert x \right\vert
    \operatorname{sigmoid}(x)
    """
    if not latex:
        return f"{op}({part})"
    if op == "sqrt":
        return rf"\sqrt{{{part}}}"
    if op == "abs":
        return rf"\left\vert {part} \right\vert"
    tall = r"\frac" in part
    if op == "exp" and not tall:
        return f"e^{{{part}}}"
    name = rf"\{op}" if op in _LATEX_FUNCTIONS else rf"\operatorname{{{op}}}"
    return rf"{name}\!\left({part}\right)" if tall else f"{name}({part})"


def _precedence(e: Expr) -> int:
    if isinstance(e, Constant):
        return _PRECEDENCE["neg"] if e.value < 0 else _ATOM
    return _PRECEDENCE.get(e.op, _ATOM)


def _negative(e: Expr) -> bool:
    return e.op == "neg" or (isinstance(e, Constant) and e.value < 0)


def _render(root: Expr, latex: bool) -> str:
    """Text (or LaTeX) of every node from its arguments' text, with minimal parentheses."""
    text: dict[int, str] = {}
    for node in topological_order(root):
        text[id(node)] = _format(node, [text[id(a)] for a in node.args], latex)
    return text[id(root)]


def _format(node: Expr, parts: list[str], latex: bool) -> str:
    def wrap(part: str, needed: bool) -> str:
        if not needed:
            return part
        return rf"\left({part}\right)" if latex else f"({part})"

    if isinstance(node, Constant):
        return str(node.value)
    if isinstance(node, Symbol):
        split = re.fullmatch(r"([A-Za-z]+)_?(\d+)", node.name) if latex else None
        return f"{split[1]}_{{{split[2]}}}" if split else node.name
    op, args = node.op, node.args
    if op in FUNCTIONS:
        return _format_function(op, parts[0], latex)
    if op == "neg":
        a = args[0]
        return "-" + wrap(parts[0], _precedence(a) < _PRECEDENCE["mul"] or parts[0][0] == "-")
    (a, b), (pa, pb), p = args, parts, _PRECEDENCE[op]
    if latex and op == "div":
        return rf"\frac{{{pa}}}{{{pb}}}"
    # ** groups to the right, so its left operand needs parentheses at equal precedence;
    # - and / do not associate, so their right operand does.
    left = wrap(pa, _precedence(a) < p or (op == "pow" and _precedence(a) <= p))
    right = wrap(pb, _precedence(b) < p or (_precedence(b) == p and op in ("sub", "div")))
    right = wrap(right, right[0] == "-")  # x + (-3), x*(-y)
    if latex and op == "pow":
        if a.op == "exp" and left.startswith("e^"):  # (e^{x})^{2}, not a double superscript
            left = wrap(left, True)
        return f"{left}^{{{pb}}}"
    if latex and op == "mul":
        # A plain number before a letter or a bracket reads as a coefficient (4 x, 2 \sin x);
        # before a number (4 4 x reads as 44x), a fraction (3 \frac{2}{x}, a mixed number) or
        # as 1e-05 (1e-05 x reads as 1e - 05x) it would not: those get \cdot.
        coefficient = isinstance(a, Constant) and re.fullmatch(r"-?\d+(\.\d+)?", left)
        ambiguous = isinstance(b, Constant) or right[0].isdigit() or right.startswith(r"\frac")
        return f"{left} {right}" if coefficient and not ambiguous else rf"{left} \cdot {right}"
    return f"{left}{OPERATORS[op]}{right}"


# ----------------------------------------------------------------------------- helpers
# Shared by diff and simplify.


def _is(e: Expr, number: float) -> bool:
    return isinstance(e, Constant) and e.value == number


def _negate(e: Expr) -> Expr:
    if isinstance(e, Constant):
        return Constant(-e.value)
    return e.args[0] if e.op == "neg" else -e
