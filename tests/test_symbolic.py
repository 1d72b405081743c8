"""Symbolic differentiation against central differences, closed forms and the lecture's table."""

import math
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_edu.rules import NUMPY, RULES, DomainError
from micrograd_edu.scalar.numerical import central_difference, gradient
from micrograd_edu.scalar.symbolic import (
    FUNCTIONS,
    OPERATORS,
    SYMBOLIC,
    Apply,
    Constant,
    Symbol,
    coefficients,
    diff,
    factored,
    logistic_map,
    simplify,
    size,
    swell_table,
)

x, y = Symbol("x"), Symbol("y")
x1, x2 = Symbol("x1"), Symbol("x2")


def negate(e):
    return -e  # written as a function: ruff reads -(-x) as a typo for --x


# ----------------------------------------------------------------------------- the table


def test_every_unary_rule_is_a_function_node_method_and_primitive():
    unary = {name for name, rule in RULES.items() if rule.arity == 1} - {"neg"}
    assert set(FUNCTIONS) == unary
    assert {"exp", "log", "sin", "cos", "tan", "tanh", "sigmoid"} <= unary
    for name in FUNCTIONS:
        for node in (getattr(x, name)(), getattr(SYMBOLIC, name)(x)):
            assert isinstance(node, Apply) and node.op == name and node.args == (x,)
            assert str(node) == f"{name}(x)"


# Points inside each function's domain and away from kinks.
POINTS = {"log": 1.7, "sqrt": 1.7, "relu": 0.6, "abs": -0.6, "step": 0.6, "sign": -0.6}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_derivative_of_each_function_matches_central_differences(name):
    a = POINTS.get(name, 0.4)
    expr = getattr(x, name)()
    d = diff(expr, x).evaluate(x=a)
    assert d == pytest.approx(central_difference(lambda t: expr.evaluate(x=t), a), abs=1e-8)
    assert expr.evaluate(x=a) == pytest.approx(RULES[name].value(NUMPY, np.float64(a)))


def test_lecture_fact_partials_at_2_5():
    f = x1.log() + x1 * x2 - x2.sin()
    d1, d2 = diff(f, x1).evaluate(x1=2.0, x2=5.0), diff(f, x2).evaluate(x1=2.0, x2=5.0)
    assert d1 == pytest.approx(5.5, abs=1e-12)
    assert d2 == pytest.approx(2.0 - math.cos(5.0), abs=1e-12)
    # The course corrects the slides' sign slip: 2 - cos 5 is about 1.716, not 2.959.
    assert d2 == pytest.approx(1.716, abs=1e-3)
    g, _ = gradient(lambda a, b: f.evaluate(x1=a, x2=b), [2.0, 5.0])
    np.testing.assert_allclose([d1, d2], g, atol=1e-8)
    assert str(diff(f, x2)) == "x1 - cos(x2)"


def test_closed_forms():
    assert str(simplify(diff(x**3, x))) == "3*x**2"
    assert str(diff(x.cos(), x)) == "-sin(x)"
    # x**x has the derivative x**x (log x + 1): the exponent's partial uses log.
    d = diff(x**x, x)
    assert d.evaluate(x=1.5) == pytest.approx(1.5**1.5 * (math.log(1.5) + 1), rel=1e-14)
    assert diff(x.exp() * y, y) == x.exp()
    assert diff(Constant(3), x) == 0 and diff(y.sin(), x) == 0


def test_numbers_on_either_side_of_every_operator():
    pairs = [(2 + x, x + 2, 5.0, 5.0), (2 - x, x - 2, -1.0, 1.0), (2 * x, x * 2, 6.0, 6.0)]
    pairs += [(2 / x, x / 2, 2 / 3, 1.5), (2**x, x**2, 8.0, 9.0)]
    for left, right, lv, rv in pairs:
        assert (left.evaluate(x=3.0), right.evaluate(x=3.0)) == pytest.approx((lv, rv))
    assert (-x).evaluate(x=3.0) == -3.0 and (+x) is x and abs(x).evaluate(x=-3.0) == 3.0


def test_diff_records_steps():
    steps = []
    d = diff((x * x).sin(), x, steps)
    assert [s.rule for s in steps] == ["mul", "sin"]
    assert steps[-1].derivative is d and steps[-1].expression == (x * x).sin()
    assert str(steps[0]) == "d/dx [x*x] = x + x    (mul rule, partials: x, x)"


def test_deep_expressions_need_no_recursion():
    e = x
    for _ in range(5000):
        e = e + x
    assert size(e) == 10001
    assert diff(e, x).evaluate(x=0.0) == 5001.0
    assert len(str(e)) > 5000 and simplify(e) == 5001 * x


# ----------------------------------------------------------------------------- printing


@pytest.mark.parametrize(
    "expr, text",
    [
        (4 - 8 * x, "4 - 8*x"),
        (x**2, "x**2"),
        (x.sin(), "sin(x)"),
        (-(x + 1), "-(x + 1)"),
        (-x * y, "-x*y"),
        (-(x * y), "-x*y"),
        ((-x) ** 2, "(-x)**2"),
        (-(x**2), "-x**2"),
        (x - (y - 1), "x - (y - 1)"),
        ((x - y) - 1, "x - y - 1"),
        (x / (y * 2), "x/(y*2)"),
        (x * (y / 2), "x*y/2"),
        (x ** (y**2), "x**y**2"),
        ((x**y) ** 2, "(x**y)**2"),
        (x * -3, "x*(-3)"),
        (x + -3, "x + (-3)"),
        (negate(-x), "-(-x)"),
        (Constant(-2) ** x, "(-2)**x"),
        ((x + 1) * (x - 1), "(x + 1)*(x - 1)"),
        (x * 0.5, "x*0.5"),
    ],
)
def test_str_uses_minimal_parentheses(expr, text):
    assert str(expr) == repr(expr) == text


@pytest.mark.parametrize(
    "expr, tex",
    [
        (4 - 8 * x, "4 - 8 x"),
        (x1**2 / 3, r"\frac{x_{1}^{2}}{3}"),
        (x.sin() ** 2, r"\sin(x)^{2}"),
        (x.sqrt() * abs(y), r"\sqrt{x} \cdot \left\vert y \right\vert"),
        (x.sigmoid(), r"\operatorname{sigmoid}(x)"),
        # exp of a normal argument is e^{...}; wrapped where it is a power's base
        (x.exp(), "e^{x}"),
        (x.exp() ** 2, r"\left(e^{x}\right)^{2}"),
        (2 * (x * y).exp(), r"2 e^{x \cdot y}"),
        # a tall argument: \left( ... \right), with \! against the operator's thin space
        ((1 / x).exp(), r"\exp\!\left(\frac{1}{x}\right)"),
        ((x / 2).log(), r"\log\!\left(\frac{x}{2}\right)"),
        (abs(x / 2), r"\left\vert \frac{x}{2} \right\vert"),
        (-(x + 1), r"-\left(x + 1\right)"),
        # Between numbers, juxtaposition would read as one number or a mixed fraction.
        (4 * (4 * x), r"4 \cdot 4 x"),
        (Constant(4) * 4 * x, r"4 \cdot 4 \cdot x"),
        (2 * Constant(3) ** x, r"2 \cdot 3^{x}"),
        (3 * (2 / x), r"3 \cdot \frac{2}{x}"),
        (Constant(1e-05) * x, r"1e-05 \cdot x"),
        (Constant(-2) * x.sin(), r"-2 \sin(x)"),
        (0.5 * (x + 1), r"0.5 \left(x + 1\right)"),
    ],
)
def test_latex(expr, tex):
    assert expr.latex() == tex
    assert expr._repr_latex_() == f"${tex}$"
    _assert_renders(expr._repr_latex_())


def _assert_renders(tex: str) -> None:
    """An independent LaTeX parser (matplotlib's mathtext) accepts ``tex``."""
    from matplotlib.mathtext import MathTextParser

    MathTextParser("path").parse(tex)


# ----------------------------------------------------------------------------- simplify


@pytest.mark.parametrize(
    "expr, text",
    [
        (x + 0, "x"),
        (0 + x, "x"),
        (x * 1, "x"),
        (1 * x, "x"),
        (x * 0, "0"),
        (x**1, "x"),
        (x**0, "1"),
        (x - x, "0"),
        (negate(-x), "x"),
        (x / 1, "x"),
        (x.sin() - x.sin(), "0"),
        (x.sin() / x.sin(), "1"),
        (x.sin() * 0 + x.cos() * 1, "cos(x)"),
        (3 * x.sin() * 2, "6*sin(x)"),
        (x.sin() * (-2), "-2*sin(x)"),
        (x.exp() + -(y.log()), "exp(x) - log(y)"),
        (x.sin() + (-3), "sin(x) - 3"),
        (x.sin() - (-3), "sin(x) + 3"),
        (-y.sin() + x.exp(), "exp(x) - sin(y)"),
        (x.sin() * (-y.cos()), "-sin(x)*cos(y)"),
        (negate(-y.sin()) * negate(x.cos()), "-sin(y)*cos(x)"),
        (Constant(2) ** -1, "0.5"),
        (Constant(2) ** 0.5, str(2**0.5)),
        (x**2.5, "x**2.5"),
        (Constant(2) + 3 * 4 - 2**3, "6"),
        (Constant(0).cos() + x.sin(), "1 + sin(x)"),  # exact folds only
        (Constant(2).sin(), "sin(2)"),
        (Constant(7) / 2, "3.5"),
        ((x + 1) ** 3, "1 + 3*x + 3*x**2 + x**3"),
        ((x + 1) * (x - 1) - x * x, "-1"),
        ((2 * x - 1) / 2, "-0.5 + x"),
        ((x * x).sin() + (y - 2) * (y + 2), "sin(x**2) + (-4 + y**2)"),
        # one fraction bar: (u/v)/w is u/(v*w), and a repeated factor a power
        (-(x / y) / y, "-x/y**2"),
        ((x.sin() / 2) / 3, "sin(x)/6"),
        (x.sin() * x.sin(), "sin(x)**2"),
        (-x.tan() * -x.tan(), "tan(x)**2"),
        (x.exp() / -(y.sin() / x.cos()), "-exp(x)/(sin(y)/cos(x))"),
    ],
)
def test_simplify(expr, text):
    assert str(simplify(expr)) == text


def test_the_quotient_rules_partial_prints_with_one_fraction_bar():
    a, b = Symbol("a"), Symbol("b")
    d = diff(a / b, b)
    assert simplify(d).latex() == r"-\frac{a}{b^{2}}"
    at = {"a": 1.3, "b": 0.6}
    assert simplify(d).evaluate(**at) == pytest.approx(-1.3 / 0.36, rel=1e-14)


def test_simplify_keeps_values_and_shrinks():
    e = (x + 0) * 1 * (x - 0) + 0 * x.exp() + x / 1 - x
    assert simplify(e) == x**2
    assert size(simplify(e)) < size(e)


def test_coefficients():
    assert coefficients((1 - 2 * x) ** 2, x) == [1, -4, 4]
    assert coefficients(Constant(5), x) == [5]
    assert coefficients(x - x, x) == [0]
    assert coefficients(x / 4, x) == [0, 0.25]


# ----------------------------------------------------------------------------- the lecture's table

LECTURE = {
    2: [4, -8],
    3: [16 * c for c in (1, -10, 24, -16)],
    4: [64 * c for c in (1, -42, 504, -2640, 7040, -9984, 7168, -2048)],
}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_logistic_map_derivatives_match_the_lecture(n):
    d = diff(logistic_map(n, x), x)
    assert coefficients(d, x) == LECTURE[n]
    assert all(type(c) is int for c in coefficients(d, x))


def test_logistic_map_forms_as_the_lecture_prints_them():
    d = [None] + [diff(logistic_map(n, x), x) for n in range(1, 5)]
    assert str(d[1]) == "1"
    assert str(d[2]) == "(1 - x)*4 - 4*x"  # the lecture's 4(1 - x) - 4x
    assert str(simplify(d[2])) == "4 - 8*x"
    assert factored(d[3], x) == "16*(1 - 10*x + 24*x**2 - 16*x**3)"
    assert factored(d[4], x) == (
        "64*(1 - 42*x + 504*x**2 - 2640*x**3 + 7040*x**4 - 9984*x**5 + 7168*x**6 - 2048*x**7)"
    )
    assert factored(d[3], x, latex=True) == r"16\left(1 - 10 x + 24 x^{2} - 16 x^{3}\right)"


@pytest.mark.parametrize("n", range(1, 8))
def test_logistic_map_derivative_against_numpy_polynomials(n):
    # Independent oracle: iterate the map on numpy polynomials and differentiate those.
    P = np.polynomial.Polynomial
    poly = P([0, 1])
    for _ in range(n - 1):
        poly = 4 * poly * (1 - poly)
    d = diff(logistic_map(n, x), x)
    np.testing.assert_allclose(
        np.array(coefficients(d, x), dtype=float), poly.deriv().coef, rtol=1e-12
    )
    # Forward mode by hand: l' obeys l'_{k+1} = 4 (1 - 2 l_k) l'_k.
    value, slope = 0.3, 1.0
    for _ in range(n - 1):
        value, slope = 4 * value * (1 - value), 4 * (1 - 2 * value) * slope
    assert d.evaluate(x=0.3) == pytest.approx(slope, rel=1e-12)
    if n <= 4:  # past that, the expanded form cancels catastrophically in floating point
        assert simplify(d).evaluate(x=0.3) == pytest.approx(slope, rel=1e-9)


def _function_calls(f, *args):
    """How many Python and builtin functions ``f(*args)`` calls: work counted, not timed."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event in ("call", "c_call")

    sys.setprofile(profile)
    try:
        f(*args)
    finally:
        sys.setprofile(None)
    return count


def test_simplifying_an_expanded_polynomial_takes_work_linear_in_its_size():
    # The expanded form is a long sum of c*x**k terms: re-expanding each prefix of the sum
    # and each x**k by repeated multiplication made this quadratic to cubic in the degree.
    expanded = [simplify(diff(logistic_map(n, x), x)) for n in (7, 8)]
    assert [simplify(s) == s for s in expanded] == [True, True]
    growth = size(expanded[1]) / size(expanded[0])  # about 2: the degree doubles
    for work in (simplify, lambda e: coefficients(e, x)):
        small, large = (_function_calls(work, s) for s in expanded)
        assert large / small < 1.25 * growth


def test_expression_swell_grows_exponentially():
    rows = swell_table(10)
    assert [r.n for r in rows] == list(range(1, 11))
    raw = [r.derivative for r in rows]
    # Each iteration at least doubles the raw derivative ...
    assert all(b >= 2 * a for a, b in zip(raw[1:], raw[2:], strict=False))
    # ... and faster than the expression itself or the simplified form.
    assert all(r.derivative > r.expression for r in rows[1:])
    swell = [r.derivative / r.simplified for r in rows[1:]]
    assert all(b > a for a, b in zip(swell, swell[1:], strict=False))
    assert swell[-1] > 5
    # Sizes counted independently: by the length of the printed expression.
    assert rows[3].derivative == size(diff(logistic_map(4, x), x))
    assert len(str(diff(logistic_map(5, x), x))) > 2 * len(str(diff(logistic_map(4, x), x)))


def test_size_counts_every_occurrence_of_a_shared_subtree():
    e = x + 1
    assert size(x) == 1 and size(3) == 1
    assert size(e) == 3 and size(e * e) == 7
    assert size(x.sin() + 1) == 4


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("name", ["", "1x", "a b", "x-1", "lambda", 3, None])
def test_symbol_names_must_be_identifiers(name):
    with pytest.raises(ValueError, match="Symbol: the name must be a Python identifier"):
        Symbol(name)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: x + "a", "symbolic add: cannot combine an expression with str 'a'"),
        (lambda: "a" * x, "symbolic mul: .* with str"),
        (lambda: x**None, "symbolic pow: .* NoneType"),
        (lambda: [1] / x, "symbolic div: .* list"),
        (lambda: x - True, "symbolic sub: .* bool"),
        (lambda: SYMBOLIC.sin("x"), "symbolic sin: .* str"),
        (lambda: Constant("2"), "Constant: value must be a real number, got str"),
        (lambda: diff(x + 1, x + 1), "diff: can only differentiate with respect to a Symbol"),
        (lambda: diff(x, "x"), "Symbol, got str 'x'"),
        (lambda: coefficients(x, "x"), "coefficients: var must be a Symbol"),
        (lambda: x.evaluate(x="1"), "evaluate: x='1' must be a real number"),
    ],
)
def test_type_errors_name_operation_and_type(make, words):
    with pytest.raises(TypeError, match=words):
        make()


@pytest.mark.parametrize(
    "make, error, words",
    [
        (
            lambda: simplify(1 / Constant(0)),
            DomainError,
            r"simplify: div\(1, 0\): division by zero",
        ),
        (lambda: simplify(x / 0), DomainError, "division by zero"),
        (lambda: simplify(Constant(0).log()), DomainError, r"log\(0\): log is defined only"),
        (lambda: simplify(Constant(-4).sqrt()), DomainError, r"sqrt\(-4\)"),
        (lambda: x.log().evaluate(x=-1.0), DomainError, r"log\(-1.0\)"),
        (lambda: (1 / x).evaluate(x=0), DomainError, r"div\(1.0, 0.0\)"),
        (lambda: (x + y).evaluate(x=1.0), ValueError, "no value for the variable 'y' .*given: x"),
        (lambda: coefficients(x.sin(), x), ValueError, r"sin\(x\) is not a polynomial"),
        (lambda: coefficients(y**2, x), ValueError, "a polynomial in y, not in x"),
        (lambda: coefficients(x * y, x), ValueError, "not a polynomial in one variable"),
        (lambda: logistic_map(0, x), ValueError, "logistic_map: n must be an integer >= 1"),
    ],
)
def test_value_errors_are_clear(make, error, words):
    with pytest.raises(error, match=words):
        make()


# ----------------------------------------------------------------------------- properties

# relu, abs, step and sign have kinks where central differences straddle two slopes.
KINKED = {"relu", "abs", "step", "sign"}
assert KINKED <= set(FUNCTIONS)


def _unary(name, e):
    # Keep every argument in its domain (log, sqrt) and bounded (tan's poles, exp's overflow).
    bounded = e.tanh()
    return getattr(1 + bounded * bounded if RULES[name].domain else bounded, name)()


def _binary(op, a, b):
    if op == "div":
        return a / (1 + b * b)
    if op == "pow":
        return (1 + a * a) ** b.tanh()
    return {"add": a + b, "sub": a - b, "mul": a * b}[op]


def expressions(functions):
    leaves = st.one_of(
        st.just(x),
        st.just(y),
        st.integers(-3, 3).map(Constant),
        st.floats(-2, 2, allow_nan=False).map(Constant),
    )
    binary = [op for op in OPERATORS if RULES[op].arity == 2]

    def extend(children):
        return st.one_of(
            st.tuples(st.sampled_from(binary), children, children).map(lambda t: _binary(*t)),
            st.tuples(st.sampled_from(functions), children).map(lambda t: _unary(*t)),
            children.map(lambda e: -e),
            # Exponent 0 is left out: the rule's b*a**(b - 1) is undefined at a = 0.
            st.tuples(children, st.integers(1, 3)).map(lambda t: t[0] ** t[1]),
        )

    return st.recursive(leaves, extend, max_leaves=8)


SMOOTH = [f for f in FUNCTIONS if f not in KINKED]


@settings(max_examples=100, deadline=None)
@given(expressions(SMOOTH), st.floats(-1.5, 1.5))
def test_diff_agrees_with_central_differences(e, a):
    exact = diff(e, x).evaluate(x=a, y=0.7)
    numeric = central_difference(lambda t: e.evaluate(x=t, y=0.7), a)
    assert exact == pytest.approx(numeric, rel=1e-5, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(expressions(list(FUNCTIONS)), st.floats(-1.5, 1.5))
def test_simplify_keeps_the_value(e, a):
    value = e.evaluate(x=a, y=0.7)
    assert simplify(e).evaluate(x=a, y=0.7) == pytest.approx(value, rel=1e-9, abs=1e-9)
    assert size(simplify(e)) <= max(size(e), 1) * 4  # collecting terms must not swell


@settings(max_examples=100, deadline=None)
@given(expressions(list(FUNCTIONS)))
def test_latex_is_well_formed_and_never_runs_numbers_together(e):
    shown = e._repr_latex_()
    assert shown.startswith("$") and shown.endswith("$")
    _assert_renders(shown)  # balanced braces, \left and \right in pairs, known commands
    assert not re.search(r"\d (\d|\\frac)", shown), shown
    assert "|" not in shown  # it would end a Markdown table's cell


def test_with_sharing_the_function_and_its_derivative_stay_linear():
    # Counted independently of swell_table: distinct objects reachable through .args.
    def distinct(expr):
        seen, stack = set(), [expr]
        while stack:
            node = stack.pop()
            if id(node) not in seen:
                seen.add(id(node))
                stack.extend(node.args)
        return len(seen)

    rows = swell_table(10)
    for r in rows:
        l_n = logistic_map(r.n, x)
        assert r.expression_graph == distinct(l_n)
        assert r.derivative_graph == distinct(diff(l_n, x))
    # five new nodes per step for l_n, at most ten for its derivative: linear
    assert [r.expression_graph for r in rows] == [1] + [1 + 5 * (n - 1) for n in range(2, 11)]
    assert all(
        b - a <= 10
        for a, b in zip(
            [r.derivative_graph for r in rows], [r.derivative_graph for r in rows][1:], strict=False
        )
    )
    # as trees the derivative is only a constant factor (about 9 at n = 10) above l_n
    assert rows[-1].expression == 3067 and rows[-1].derivative == 26625
    assert 8 < rows[-1].derivative / rows[-1].expression < 9


def test_the_derivative_table_covers_every_rule_and_agrees_with_central_differences():
    from micrograd_edu.rules import RULES
    from micrograd_edu.scalar.numerical import central_difference
    from micrograd_edu.scalar.symbolic import FUNCTIONS, derivative_table, rule_rows

    rows = rule_rows()
    names = [r.name for r in rows]
    assert names[:4] == ["constant", "x", "cx", "power"]
    assert set(FUNCTIONS) | {"add", "sub", "mul", "div", "pow"} <= set(names)
    at = {"x": 0.7, "a": 1.3, "b": 0.6, "c": 1.7, "n": 2.5}
    for row in rows:
        assert len(row.partials) == len(row.variables)
        for var, partial in zip(row.variables, row.partials, strict=True):
            numeric = central_difference(
                lambda t, e=row.expression, v=var.name: e.evaluate(**{**at, v: t}),
                at[var.name],
                1e-6,
            )
            assert abs(partial.evaluate(**at) - numeric) < 1e-7, row.name
    table = derivative_table()
    assert table.count("\n|") == len(rows) + 3  # a header line and a rule line per table
    assert "$n \\cdot x^{n - 1}$" in table and all(name in RULES for name in FUNCTIONS)
