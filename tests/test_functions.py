"""functions: one function per unary rule, dispatching to each engine's method."""

import math

import pytest

from micrograd_edu import DomainError, Dual, Tensor, Value
from micrograd_edu import functions as F
from micrograd_edu.functions import OPERATOR_NAMES, method_names
from micrograd_edu.rules import MATH, RULES
from micrograd_edu.scalar.symbolic import Constant

UNARY = [name for name, rule in RULES.items() if rule.arity == 1]


def test_one_function_per_unary_rule():
    for name in UNARY:
        assert callable(getattr(F, name)) and name in F.__all__


@pytest.mark.parametrize(
    "name, at, expected",
    [
        ("exp", 1.0, math.e),
        ("log", math.e, 1.0),
        ("sin", 0.5, math.sin(0.5)),
        ("cos", 0.5, math.cos(0.5)),
        ("tan", 0.5, math.tan(0.5)),
        ("tanh", 0.5, math.tanh(0.5)),
        ("sigmoid", 0.0, 0.5),
        ("relu", -2.0, 0.0),
        ("abs", -2, 2.0),
        ("sqrt", 0.0, 0.0),  # a plain number needs no derivative, so sqrt(0) is fine
        ("step", 3.0, 1.0),
        ("sign", -3.0, -1.0),
        ("neg", 3, -3),
    ],
)
def test_plain_numbers(name, at, expected):
    assert getattr(F, name)(at) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("name", [n for n in UNARY if n != "neg"])
def test_engine_numbers_use_their_method(name):
    v = getattr(F, name)(Value(0.7))
    d = getattr(F, name)(Dual(0.7, 1.0))
    assert isinstance(v, Value) and v.op == name
    assert isinstance(d, Dual) and d.primal == pytest.approx(v.data, rel=1e-15)


def test_the_same_function_runs_on_every_engine():
    def f(x1, x2):
        return F.log(x1) + x1 * x2 - F.sin(x2)

    x1, x2 = Value(2.0), Value(5.0)
    y = f(x1, x2)
    y.backward()
    assert f(2.0, 5.0) == pytest.approx(y.data, rel=1e-15)
    assert f(Dual(2.0, 1.0), Dual(5.0)).tangent == pytest.approx(x1.grad, rel=1e-15)


def test_operator_names():
    assert method_names(RULES["div"]) == ("__truediv__", "__rtruediv__")
    assert method_names(RULES["neg"]) == ("__neg__",)
    assert set(OPERATOR_NAMES) <= set(RULES)


# Each engine's number made from a float, and read back as one.
ENGINES = {
    "Value": (Value, lambda v: v.data),
    "Dual": (Dual, lambda d: d.primal),
    "Expr": (Constant, lambda e: e.evaluate()),
    "Tensor": (Tensor, lambda t: float(t.data)),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", RULES)
def test_every_engine_offers_every_rule_under_the_same_names(engine, name):
    # attach_rules gives all four engines their operators and methods: each one,
    # reflected operators included, computes the table's value.
    make, read = ENGINES[engine]
    rule, a, b = RULES[name], 0.6, 1.3
    names = method_names(rule)
    if rule.arity == 1:
        for method in names:
            assert read(getattr(make(a), method)()) == pytest.approx(rule.value(MATH, a))
    else:
        expected = rule.value(MATH, a, b)
        assert read(getattr(make(a), names[0])(b)) == pytest.approx(expected)
        assert read(getattr(make(b), names[1])(a)) == pytest.approx(expected)  # a - x: x right


def test_domain_error_on_plain_numbers():
    with pytest.raises(DomainError, match=r"log\(-1.0\)"):
        F.log(-1)
    with pytest.raises(DomainError, match=r"sqrt\(-2.0\)"):
        F.sqrt(-2.0)


def test_type_error_names_function_and_type():
    with pytest.raises(TypeError, match=r"sin: expected a number .* got str 'x'"):
        F.sin("x")


@pytest.mark.parametrize("engine", ENGINES)
def test_every_operator_is_written_out_in_its_engine(engine):
    # Not generated and attached from elsewhere: each name is a `def` in the engine's
    # own package (an alias such as abs = __abs__ shows the def it names).
    import inspect

    cls = ENGINES[engine][0]
    for rule in RULES.values():
        for name in method_names(rule):
            method = getattr(cls, name)
            assert inspect.getsource(method).lstrip().startswith("def "), (engine, name)
            assert method.__module__.rsplit(".", 1)[0] in (
                "micrograd_edu.scalar",
                "micrograd_edu.scalar.symbolic",
                "micrograd_edu.tensor",
            ), (engine, name, method.__module__)
    assert inspect.getsource(cls.__mul__).lstrip().startswith("def __mul__(")
