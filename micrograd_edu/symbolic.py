"""Symbolic differentiation: expression trees, ``diff`` by the rule table, ``simplify``.

An expression is a tree of nodes: constants, symbols, arithmetic and one
function node for each unary rule of :data:`~micrograd_edu.rules.RULES`.
:func:`diff` walks the tree and, at every node, asks the rule table for the
node's partial derivatives, evaluated in the :data:`SYMBOLIC` namespace whose
primitives *build* nodes instead of computing numbers. Multiplying each partial
by the derivative of its argument and adding the terms is the chain rule.

>>> x = Symbol("x")
>>> d = diff(x * x.sin(), x)
>>> d
sin(x) + x*cos(x)
>>> d.evaluate(x=0.0)
0.0

Automatic differentiation does the same, but applies the chain rule to
*numbers*: symbolic rules at the level of elementary operations only. Applied
to whole expressions, the rules make trees that grow exponentially: the
*expression swell* that :func:`swell_table` measures on the logistic map.

>>> simplify(diff(logistic_map(2, x), x))
4 - 8*x
>>> factored(diff(logistic_map(3, x), x), x)
'16*(1 - 10*x + 24*x**2 - 16*x**3)'
"""

from __future__ import annotations

import keyword
import math
import numbers
import re
from collections.abc import Callable
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, NamedTuple

from .rules import MATH, RULES, DomainError, check_domain

__all__ = [
    "Expr",
    "Constant",
    "Symbol",
    "Apply",
    "SYMBOLIC",
    "FUNCTIONS",
    "diff",
    "Step",
    "simplify",
    "size",
    "coefficients",
    "factored",
    "logistic_map",
    "swell_table",
    "SwellRow",
]

#: Rules written with Python operators; every other unary rule is a function node.
OPERATORS = {"add": " + ", "sub": " - ", "mul": "*", "div": "/", "pow": "**", "neg": "-"}
FUNCTIONS = tuple(name for name, r in RULES.items() if r.arity == 1 and name not in OPERATORS)
# How tightly each operator binds, for printing with as few parentheses as possible.
_PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4}
_ATOM = 5
#: Powers past this degree are not expanded: (x + 1)**10**6 would take too long.
MAX_DEGREE = 1000


class Expr:
    """A symbolic expression. Build one from :class:`Symbol` and Python operators.

    Every unary rule is also a method (``e.sin()``, ``e.exp()``, ...) with the same
    name as on the other engines, so one function serves them all.
    """

    __slots__ = ()
    args: tuple[Expr, ...]

    def __neg__(self) -> Expr:
        return Apply("neg", (self,))

    def __pos__(self) -> Expr:
        return self

    def __abs__(self) -> Expr:
        return Apply("abs", (self,))

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
        for node in _postorder(self):
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


def _operator(op: str, reflected: bool) -> Callable[[Expr, Any], Apply]:
    if reflected:
        return lambda self, other: _apply(op, other, self)  # 2 - x: self is the right operand
    return lambda self, other: _apply(op, self, other)


for _op, _dunder in [
    ("add", "add"),
    ("sub", "sub"),
    ("mul", "mul"),
    ("div", "truediv"),
    ("pow", "pow"),
]:
    setattr(Expr, f"__{_dunder}__", _operator(_op, reflected=False))
    setattr(Expr, f"__r{_dunder}__", _operator(_op, reflected=True))

# The unary rules become methods and the primitives of the symbolic namespace:
# generated from the table, so a new rule needs no edit here.
for _name in FUNCTIONS:
    setattr(Expr, _name, _function(_name))

#: The namespace whose primitives build nodes: ``RULES["sin"].partials[0](SYMBOLIC, out, x)``
#: is the expression ``cos(x)``.
SYMBOLIC = SimpleNamespace(**{name: _function(name) for name in FUNCTIONS})


# ----------------------------------------------------------------------------- traversal


def _postorder(root: Expr) -> list[Expr]:
    """Each distinct node once, arguments before the node (iterative: deep trees are fine)."""
    order: list[Expr] = []
    seen: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args))
    return order


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
    for node in _postorder(root):
        sizes[id(node)] = 1 + sum(sizes[id(a)] for a in node.args)
    return sizes[id(root)]


# ----------------------------------------------------------------------------- printing

_LATEX_FUNCTIONS = {"sin", "cos", "tan", "tanh", "exp", "log"}  # names LaTeX knows as \sin, ...


def _precedence(e: Expr) -> int:
    if isinstance(e, Constant):
        return _PRECEDENCE["neg"] if e.value < 0 else _ATOM
    return _PRECEDENCE.get(e.op, _ATOM)


def _negative(e: Expr) -> bool:
    return e.op == "neg" or (isinstance(e, Constant) and e.value < 0)


def _render(root: Expr, latex: bool) -> str:
    """Text (or LaTeX) of every node from its arguments' text, with minimal parentheses."""
    text: dict[int, str] = {}
    for node in _postorder(root):
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
        if not latex:
            return f"{op}({parts[0]})"
        if op == "sqrt":
            return rf"\sqrt{{{parts[0]}}}"
        if op == "abs":
            return rf"\left|{parts[0]}\right|"
        name = rf"\{op}" if op in _LATEX_FUNCTIONS else rf"\operatorname{{{op}}}"
        return rf"{name}\left({parts[0]}\right)"
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
        return f"{left}^{{{pb}}}"
    if latex and op == "mul":
        juxtapose = isinstance(a, Constant) and not isinstance(b, Constant)
        return f"{left} {right}" if juxtapose else rf"{left} \cdot {right}"
    return f"{left}{OPERATORS[op]}{right}"


# ----------------------------------------------------------------------------- diff


class Step(NamedTuple):
    """One node differentiated by :func:`diff`: which rule, its partials, the result."""

    variable: str
    expression: Expr
    rule: str
    partials: tuple[Expr, ...]
    derivative: Expr

    def __str__(self) -> str:
        shown = ", ".join(str(p) for p in self.partials)
        return (
            f"d/d{self.variable} [{self.expression}] = {self.derivative}"
            f"    ({self.rule} rule, partials: {shown})"
        )


def _is(e: Expr, number: float) -> bool:
    return isinstance(e, Constant) and e.value == number


def _times(a: Expr, b: Expr) -> Expr:
    """``a*b``, written as a human would when a factor is 1 or -1 or negated."""
    if _is(a, 1) or _is(b, 1):
        return b if _is(a, 1) else a
    if _is(a, -1) or _is(b, -1):
        return _negate(b if _is(a, -1) else a)
    if b.op == "neg":  # a*(-c) is written -(a*c), so that the sum subtracts it
        return -(a * b.args[0])
    return a * b


def _negate(e: Expr) -> Expr:
    if isinstance(e, Constant):
        return Constant(-e.value)
    return e.args[0] if e.op == "neg" else -e


def diff(expr: Expr, var: Symbol, steps: list[Step] | None = None) -> Expr:
    """The derivative of ``expr`` with respect to ``var``, built by the rule table.

    Nothing is simplified beyond skipping arguments that do not depend on ``var``
    and multiplications by exactly 1 or -1, so the result shows the expression swell;
    pass it to :func:`simplify`. Give a list as ``steps`` to record each rule used.

    >>> x, y = Symbol("x"), Symbol("y")
    >>> diff(x.log() + x * y - y.sin(), y)
    x - cos(y)
    >>> steps = []
    >>> _ = diff((x * x).sin(), x, steps)
    >>> print(steps[-1])
    d/dx [sin(x*x)] = cos(x*x)*(x + x)    (sin rule, partials: cos(x*x))
    """
    if not isinstance(var, Symbol):
        raise TypeError(
            f"diff: can only differentiate with respect to a Symbol, got {type(var).__name__} "
            f"{var!r}; create one with Symbol('x')"
        )
    root = _lift(expr, "diff")
    derivative: dict[int, Expr] = {}
    for node in _postorder(root):
        if isinstance(node, (Constant, Symbol)):
            derivative[id(node)] = Constant(1 if node == var else 0)
            continue
        rule = RULES[node.op]
        partials, terms = [], []
        for partial, arg in zip(rule.partials, node.args, strict=True):
            d_arg = derivative[id(arg)]
            if _is(d_arg, 0):  # the argument does not depend on var
                continue
            # The rule's partial, evaluated in SYMBOLIC, is an expression; chain rule: times d_arg.
            local = _lift(partial(SYMBOLIC, node, *node.args), rule.name)
            partials.append(local)
            terms.append(_times(local, d_arg))
        total = terms[0] if terms else Constant(0)
        for term in terms[1:]:  # a negated term is subtracted: 4*(1 - x) - 4*x
            total = total - term.args[0] if term.op == "neg" else total + term
        derivative[id(node)] = total
        if steps is not None and terms:
            steps.append(Step(var.name, node, rule.name, tuple(partials), total))
    return derivative[id(root)]


# ----------------------------------------------------------------------------- simplify

# A polynomial in at most one variable: (name or None for a constant, coefficients in
# ascending powers). Exact arithmetic (int, Fraction) where the input is exact.
_Poly = tuple[str | None, list]


def _trim(cs: list) -> list:
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
    return cs


def _padded(p: list, n: int) -> list:
    return p + [0] * (n - len(p))


def _poly_mul(p: list, q: list) -> list:
    out = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return _trim(out)


def _exact(a: Any, b: Any) -> Any:
    """a / b, exact for integers and fractions."""
    if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)):
        return Fraction(a) / b
    return a / b


def _domain_check(node: Expr, values: list) -> None:
    rule = RULES[node.op]
    if rule.domain is not None and rule.domain(MATH, *values):
        shown = ", ".join(str(_normal(v)) for v in values)
        raise DomainError(f"simplify: {rule.name}({shown}): {rule.domain_message}")


def _polynomial(node: Expr, polys: list[_Poly | None]) -> _Poly | None:
    """``node`` as a polynomial if its arguments are polynomials in the same variable."""
    if isinstance(node, Constant):
        return None, [node.value]
    if isinstance(node, Symbol):
        return node.name, [0, 1]
    if any(p is None for p in polys):
        return None
    names = {p[0] for p in polys} - {None}
    if len(names) > 1:
        return None
    name = names.pop() if names else None
    cs = [p[1] for p in polys]
    constant = all(len(c) == 1 for c in cs)
    if constant:
        _domain_check(node, [c[0] for c in cs])
    op = node.op
    if op in ("add", "sub"):
        n = max(len(c) for c in cs)
        sign = 1 if op == "add" else -1
        return name, _trim(
            [a + sign * b for a, b in zip(*(_padded(c, n) for c in cs), strict=True)]
        )
    if op == "neg":
        return name, [-a for a in cs[0]]
    if op == "mul":
        return name, _poly_mul(*cs)
    if op == "div" and len(cs[1]) == 1:
        if cs[1][0] == 0:  # x/0: the polynomial is not constant, so the check above missed it
            _domain_check(node, [1, 0])
        return name, [_exact(a, cs[1][0]) for a in cs[0]]
    if op == "pow" and len(cs[1]) == 1:
        base, k = cs[0], cs[1][0]
        if len(base) == 1:  # a number to a number: exact for exact inputs, else a float
            b0 = base[0]
            if isinstance(k, int) and abs(k) <= MAX_DEGREE:
                exact = isinstance(b0, (int, Fraction)) and k < 0
                return name, [Fraction(b0) ** k if exact else b0**k]
            return name, [float(b0) ** float(k)]
        if isinstance(k, int) and 0 <= k and (len(base) - 1) * k <= MAX_DEGREE:
            out = [1]
            for _ in range(k):
                out = _poly_mul(out, base)
            return name, out
        return None
    if op in FUNCTIONS and constant:
        value = RULES[op].value(MATH, float(cs[0][0]))
        # Fold only exact results (cos 0 = 1, relu(-2) = 0): sin(1) stays readable as sin(1).
        return (name, [int(value)]) if float(value).is_integer() else None
    return None


def _from_poly(var: str | None, cs: list) -> Expr:
    """The canonical form: terms in ascending powers, ``1 - 10*x + 24*x**2``."""
    if var is None or all(c == 0 for c in cs[1:]):
        return Constant(cs[0])
    x, result = Symbol(var), None
    for k, c in enumerate(cs):
        c = _normal(c)
        if c == 0:
            continue
        power = Constant(1) if k == 0 else x if k == 1 else x ** Constant(k)
        magnitude = Constant(abs(c)) if k == 0 else power if abs(c) == 1 else abs(c) * power
        if result is None:
            result = -magnitude if c < 0 else magnitude
        else:
            result = result - magnitude if c < 0 else result + magnitude
    return result


def _rewrite(op: str, a: Expr, b: Expr | None = None) -> Expr:
    """Identities on already simplified arguments (x + 0, x*1, x - x, -(-x), x**1, ...)."""
    if op == "neg":
        return _negate(a)
    if op in FUNCTIONS:
        return Apply(op, (a,))
    if op == "add":
        if _is(a, 0) or _is(b, 0):
            return b if _is(a, 0) else a
        if _negative(b):
            return _rewrite("sub", a, _negate(b))
        return b - _negate(a) if a.op == "neg" else a + b
    if op == "sub":
        if _is(b, 0) or _is(a, 0):
            return a if _is(b, 0) else _negate(b)
        if a == b:
            return Constant(0)
        return a + _negate(b) if _negative(b) else a - b
    if op == "mul":
        if _is(a, 0) or _is(b, 0):
            return Constant(0)
        if isinstance(b, Constant):  # constants first: 3*sin(x)
            a, b = b, a
        if isinstance(a, Constant) and b.op == "mul" and isinstance(b.args[0], Constant):
            return _rewrite("mul", Constant(a.value * b.args[0].value), b.args[1])  # 2*(3*y)
        if _is(a, 1) or _is(a, -1):
            return b if _is(a, 1) else _negate(b)
        if a.op == "neg" or b.op == "neg":  # pull the sign out: -(x*y)
            strip = lambda e: e.args[0] if e.op == "neg" else e
            product = strip(a) * strip(b)
            return product if a.op == b.op == "neg" else -product
        return a * b
    if op == "div":
        if _is(b, 1) or _is(a, 0):
            return a
        if a == b:
            return Constant(1)
        return a / b
    # pow
    if _is(b, 0) or _is(a, 1):
        return Constant(1)
    return a if _is(b, 1) else a**b


def _simplified(expr: Any) -> tuple[Expr, _Poly | None]:
    root = _lift(expr, "simplify")
    done: dict[int, tuple[Expr, _Poly | None]] = {}
    for node in _postorder(root):
        args = [done[id(a)] for a in node.args]
        poly = _polynomial(node, [p for _, p in args])
        if poly is not None:
            done[id(node)] = _from_poly(*poly), poly
        else:
            simple = [e for e, _ in args]
            result = _rewrite(node.op, *simple)
            # An identity may leave a leaf (0*exp(x) is 0), which is a polynomial again.
            leaf = isinstance(result, (Constant, Symbol))
            done[id(node)] = result, _polynomial(result, []) if leaf else None
    return done[id(root)]


def simplify(expr: Expr) -> Expr:
    """Fold constants, apply identities and expand polynomials in one variable.

    >>> x = Symbol("x")
    >>> simplify((x + 1) * (x - 1) + 0 * x.sin())
    -1 + x**2
    >>> simplify(x.exp() * 1 + 0 * x.sin() - (-(-x.log())) ** 1)
    exp(x) - log(x)
    """
    return _simplified(expr)[0]


def coefficients(expr: Expr, var: Symbol) -> list[int | float]:
    """The coefficients of a polynomial in ``var``, constant term first.

    >>> x = Symbol("x")
    >>> coefficients((1 - 2 * x) ** 2, x)
    [1, -4, 4]
    """
    if not isinstance(var, Symbol):
        raise TypeError(f"coefficients: var must be a Symbol, got {type(var).__name__} {var!r}")
    _, poly = _simplified(expr)
    if poly is None:
        raise ValueError(f"coefficients: {expr} is not a polynomial in one variable")
    if poly[0] not in (None, var.name):
        raise ValueError(f"coefficients: {expr} is a polynomial in {poly[0]}, not in {var.name}")
    return [_normal(c) for c in poly[1]]


def factored(expr: Expr, var: Symbol, latex: bool = False) -> str:
    """A polynomial with integer coefficients, with their common factor taken out.

    >>> x = Symbol("x")
    >>> factored(16 - 160 * x, x), factored(3 + x, x), factored(6 * x**2 - 4, x, latex=True)
    ('16*(1 - 10*x)', '3 + x', '-2\\\\left(2 - 3 x^{2}\\\\right)')
    """
    cs = coefficients(expr, var)
    content = math.gcd(*cs) if all(isinstance(c, int) for c in cs) else 1
    if content and next(c for c in cs if c) < 0:
        content = -content  # so that the first term inside the parentheses is positive
    if content in (0, 1):
        return _render(_from_poly(var.name, cs), latex)
    inner = _render(_from_poly(var.name, [c // content for c in cs]), latex)
    return rf"{content}\left({inner}\right)" if latex else f"{content}*({inner})"


# ----------------------------------------------------------------------------- swell


def logistic_map(n: int, x: Expr) -> Expr:
    """``l_n`` of the logistic map ``l_1 = x``, ``l_{k+1} = 4 l_k (1 - l_k)``.

    >>> logistic_map(2, Symbol("x"))
    4*x*(1 - x)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"logistic_map: n must be an integer >= 1, got {n!r}")
    term = _lift(x, "logistic_map")
    for _ in range(n - 1):
        term = 4 * term * (1 - term)
    return term


class SwellRow(NamedTuple):
    """Tree sizes for one ``n``: ``l_n``, its raw derivative, the simplified derivative."""

    n: int
    expression: int
    derivative: int
    simplified: int


def swell_table(n_max: int) -> list[SwellRow]:
    """Expression swell on the logistic map, for ``n = 1 .. n_max``.

    >>> [row.derivative for row in swell_table(4)]
    [1, 9, 41, 129]
    """
    x = Symbol("x")
    rows = []
    for n in range(1, n_max + 1):
        expression = logistic_map(n, x)
        derivative = diff(expression, x)
        rows.append(SwellRow(n, size(expression), size(derivative), size(simplify(derivative))))
    return rows
