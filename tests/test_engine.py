"""The scalar reverse-mode engine against closed forms and central differences."""

import gc
import math

import pytest
from central_differences import central_gradient

from micrograd_edu import DomainError, Value
from micrograd_edu import functions as F
from micrograd_edu.scalar.graph import topological_order
from micrograd_edu.scalar.value import adjoint_steps


def lecture_f(x1, x2):
    return F.log(x1) + x1 * x2 - F.sin(x2)


def test_lecture_example_matches_closed_form():
    x1, x2 = Value(2.0, label="x1"), Value(5.0, label="x2")
    y = lecture_f(x1, x2)
    y.backward()
    assert round(y.data, 3) == 11.652
    assert y.data == pytest.approx(math.log(2) + 10 - math.sin(5), abs=1e-12)
    assert x1.grad == pytest.approx(1 / 2 + 5, abs=1e-12)
    assert x2.grad == pytest.approx(2 - math.cos(5), abs=1e-12)
    assert round(x2.grad, 3) == 1.716


def test_sum_times_product_gradient():
    a, b, c, d = (Value(v) for v in (0.0, 1.0, 2.0, 3.0))
    e = (a + b) * c + d
    e.backward()
    assert (a.grad, b.grad, c.grad, d.grad) == (2.0, 2.0, 1.0, 1.0)


def test_node_used_twice_accumulates():
    x = Value(3.0)
    y = x * x + x  # x reaches y along three edges
    y.backward()
    assert x.grad == 2 * 3.0 + 1


def test_graph_protocol_and_constants():
    x = Value(2.0, label="x")
    y = 3 * x
    assert y.op == "mul" and y.label == "" and x.op == "" and x.label == "x"
    const = y.parents[0]
    assert const.op == "const" and const.data == 3.0 and const.parents == ()
    assert isinstance(y.parents, tuple)
    assert topological_order(y)[-1] is y


@pytest.mark.parametrize(
    "expression, derivative",
    [
        (lambda x: 2 + x, lambda x: 1.0),
        (lambda x: x + 2, lambda x: 1.0),
        (lambda x: 2 - x, lambda x: -1.0),
        (lambda x: x - 2, lambda x: 1.0),
        (lambda x: 2 * x, lambda x: 2.0),
        (lambda x: x * 2, lambda x: 2.0),
        (lambda x: 2 / x, lambda x: -2 / x**2),
        (lambda x: x / 2, lambda x: 0.5),
        (lambda x: 2**x, lambda x: 2**x * math.log(2)),
        (lambda x: x**3, lambda x: 3 * x**2),
        (lambda x: x**-1.5, lambda x: -1.5 * x**-2.5),
        (lambda x: x**x, lambda x: x**x * (math.log(x) + 1)),
        (lambda x: -x, lambda x: -1.0),
        (lambda x: abs(x), lambda x: 1.0),
    ],
)
def test_operators_with_numbers_on_either_side(expression, derivative):
    x = Value(1.7)
    y = expression(x)
    y.backward()
    assert y.data == pytest.approx(expression(1.7), rel=1e-12)
    assert x.grad == pytest.approx(derivative(1.7), rel=1e-12)


@pytest.mark.parametrize(
    "name", ["exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "abs", "sqrt"]
)
@pytest.mark.parametrize("at", [0.4, 1.3])
def test_unary_methods_match_central_differences(name, at):
    x = Value(at)
    y = getattr(x, name)()
    y.backward()
    assert y.data == pytest.approx(getattr(F, name)(at), rel=1e-15)
    assert x.grad == pytest.approx(
        central_gradient(lambda v: getattr(F, name)(float(v)), at), rel=1e-7
    )


def test_negative_base_with_constant_exponent_is_differentiable():
    x = Value(-2.0)
    y = x**2
    y.backward()
    assert (y.data, x.grad) == (4.0, -4.0)
    # the constant exponent is never differentiated: its adjoint is undefined (nan)
    assert math.isnan(y.local[1])
    zero = Value(0.0)
    (zero**2 + 0.0).backward()  # e.g. the weight decay of a bias that starts at 0
    assert zero.grad == 0.0


def test_backward_accumulates_into_leaves_and_zero_grad_resets():
    x = Value(3.0)
    y = x * x
    y.backward()
    y.backward()  # leaves add up, as in PyTorch; inner nodes start afresh
    assert x.grad == 12.0 and y.grad == 1.0
    y.zero_grad()
    assert x.grad == 0.0 and y.grad == 0.0
    y.backward()
    assert x.grad == 6.0


def test_shared_subgraph_is_reset_between_backward_calls():
    x = Value(2.0)
    h = x * 3.0
    y, z = h * h, h + 1.0
    y.backward()
    x.zero_grad()
    z.backward()  # h.grad must not keep y's adjoint
    assert x.grad == 3.0


def test_million_node_chain():
    gc.disable()  # only to build the chain quickly; backward itself is what is tested
    try:
        x = y = Value(1.0)
        for _ in range(1_000_000):
            y = -y
    finally:
        gc.enable()
    y.backward()
    assert x.grad == 1.0 and y.data == 1.0


def test_adjoint_steps_run_in_the_lectures_order():
    x1, x2 = Value(2.0, label="x1"), Value(5.0, label="x2")
    y = lecture_f(x1, x2)
    steps = adjoint_steps(y)
    assert [s.child.op for s in steps] == ["sub"] * 2 + ["add"] * 2 + ["sin", "mul", "mul", "log"]
    sin_step = steps[4]
    assert sin_step.parent is x2 and sin_step.local == pytest.approx(math.cos(5.0))
    assert sin_step.contribution == pytest.approx(-math.cos(5.0))
    for s in steps:
        assert s.contribution == pytest.approx(s.local * s.child.grad)
    # the last additions into each input are its gradient
    last = {id(s.parent): s.parent_grad for s in steps}
    assert last[id(x1)] == pytest.approx(5.5) and last[id(x2)] == pytest.approx(2 - math.cos(5))
    # same gradients as plain backward (which walks creation order)
    grads = (x1.grad, x2.grad)
    x1.grad = x2.grad = 0.0
    y.backward()
    assert (x1.grad, x2.grad) == pytest.approx(grads, rel=1e-15)


# --- bad input: each error names the operation and the offending value ---------


def test_value_of_a_string_names_the_type():
    with pytest.raises(TypeError, match=r"Value: .*str 'a'"):
        Value("a")
    with pytest.raises(TypeError, match=r"Value: .*Value"):
        Value(Value(1.0))


def test_operator_with_a_string_names_the_operation():
    with pytest.raises(TypeError, match=r"add: .*str"):
        Value(1.0) + "a"
    with pytest.raises(TypeError, match=r"mul: .*list"):
        [1.0] * Value(2.0)


@pytest.mark.parametrize("at", [0.0, -1.0])
def test_log_of_non_positive(at):
    with pytest.raises(DomainError, match=rf"log\({at}\): log is defined only for positive"):
        Value(at).log()


def test_negative_base_to_a_value_exponent():
    with pytest.raises(DomainError, match=r"pow\(-2.0, 2.0\): .*base must be positive"):
        Value(-2.0) ** Value(2.0)
    with pytest.raises(DomainError, match=r"pow\(-2.0, 0.5\)"):
        (-2.0) ** Value(0.5)
    with pytest.raises(DomainError, match=r"pow\(-8.0, 0.3333"):
        Value(-8.0) ** (1 / 3)  # would be a complex number


@pytest.mark.parametrize(
    "divide", [lambda: Value(1.0) / 0, lambda: Value(1.0) / Value(0.0), lambda: 1 / Value(0.0)]
)
def test_division_by_zero(divide):
    with pytest.raises(DomainError, match=r"div\(1.0, 0.0\): division by zero"):
        divide()


def test_sqrt_outside_its_domain():
    with pytest.raises(DomainError, match=r"sqrt\(-1.0\): sqrt is defined only for non-negative"):
        Value(-1.0).sqrt()
    with pytest.raises(DomainError, match=r"sqrt\(0.0\): the derivative .* infinite"):
        Value(0.0).sqrt()


def test_errors_the_table_does_not_foresee_still_name_the_values():
    with pytest.raises(DomainError, match=r"pow\(10.0, 400.0\): .*range"):
        Value(10.0) ** 400
    # the value 0 ** 0.5 = 0 exists; its derivative 0.5 * 0 ** -0.5 does not
    with pytest.raises(DomainError, match=r"pow\(0.0, 0.5\): its derivative: "):
        Value(0.0) ** 0.5


def test_torch_agrees_on_a_few_expressions():
    torch = pytest.importorskip("torch")
    expressions = [
        lambda a, b: (a * b + a.exp()).tanh() - b / a,
        lambda a, b: (a**2 + b**2).sqrt() * a.sigmoid(),
        lambda a, b: (a - b).relu() + (a * 3.0).sin() * b.cos() + a.abs(),
        lambda a, b: (a * a + 1).log() ** b,
    ]
    for expr in expressions:
        a, b = Value(0.7), Value(-1.3)
        y = expr(a, b)
        y.backward()
        ta = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
        tb = torch.tensor(-1.3, dtype=torch.float64, requires_grad=True)
        ty = expr(ta, tb)
        ty.backward()
        assert y.data == pytest.approx(ty.item(), rel=1e-12)
        assert (a.grad, b.grad) == pytest.approx((ta.grad.item(), tb.grad.item()), rel=1e-12)


def test_a_new_rule_reaches_every_engine_through_functions_apply(monkeypatch):
    # rules.py's documented path: one entry in RULES, evaluated at once by every engine
    from micrograd_edu import Dual, Tensor, diff
    from micrograd_edu.rules import RULES, Rule
    from micrograd_edu.scalar.symbolic import Symbol

    square = Rule("square", lambda ns, x: x * x, (lambda ns, o, x: 2.0 * x,))
    hypot = Rule(
        "hypot",
        lambda ns, a, b: ns.sqrt(a * a + b * b),
        (lambda ns, o, a, b: a / o, lambda ns, o, a, b: b / o),
    )
    monkeypatch.setitem(RULES, "square", square)
    monkeypatch.setitem(RULES, "hypot", hypot)
    x, y = Value(3.0), Value(4.0)
    z = F.apply("square", x) + F.apply("hypot", x, y) + F.apply("hypot", 0.0, y)
    z.backward()
    assert z.data == 9.0 + 5.0 + 4.0
    assert (x.grad, y.grad) == pytest.approx((6.0 + 3 / 5, 4 / 5 + 1.0))
    assert F.apply("square", Dual(3.0, 1.0)).tangent == 6.0
    t = Tensor([3.0, 0.0], requires_grad=True)
    F.apply("hypot", t, Tensor([4.0, 2.0])).sum().backward()
    assert t.grad.tolist() == pytest.approx([3 / 5, 0.0])
    s = Symbol("s")
    assert diff(F.apply("square", s), s).evaluate(s=1.5) == 3.0
    assert F.apply("hypot", 3, 4.0) == 5.0
