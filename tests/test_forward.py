"""Forward mode (Dual, jvp, jacobian_forward, tangent_steps) against closed forms."""

import math

import numpy as np
import pytest

from micrograd_edu import DomainError, Dual, jacobian_forward, jvp
from micrograd_edu import functions as F
from micrograd_edu.rules import RULES
from micrograd_edu.scalar.dual import TangentStep, tangent_steps


def lecture_f(x1, x2):
    return F.log(x1) + x1 * x2 - F.sin(x2)


def test_lecture_example_matches_closed_form():
    value, d1 = jvp(lecture_f, (2.0, 5.0), (1.0, 0.0))
    _, d2 = jvp(lecture_f, (2.0, 5.0), (0.0, 1.0))
    assert value == pytest.approx(math.log(2) + 10 - math.sin(5), abs=1e-12)
    assert round(value, 3) == 11.652
    assert d1 == pytest.approx(5.5, abs=1e-12)
    assert d2 == pytest.approx(2 - math.cos(5), abs=1e-12)


def test_sum_times_product_gradient():
    _, de_da = jvp(lambda a, b, c, d: (a + b) * c + d, (0.0, 1.0, 2.0, 3.0), (1.0, 0, 0, 0))
    assert de_da == 2.0


@pytest.mark.parametrize("name", [n for n, r in RULES.items() if r.arity == 1])
def test_every_unary_rule_is_a_method_matching_central_differences(name):
    at, h = 0.6, 1e-6
    y = getattr(Dual(at, 1.0), "__neg__" if name == "neg" else name)()
    g = getattr(F, name)
    assert y.primal == pytest.approx(g(at), rel=1e-15)
    assert y.tangent == pytest.approx((g(at + h) - g(at - h)) / (2 * h), rel=1e-7, abs=1e-9)


@pytest.mark.parametrize(
    "expression, derivative",
    [
        (lambda x: 2 + x, 1.0),
        (lambda x: x - 2, 1.0),
        (lambda x: 2 - x, -1.0),
        (lambda x: 3 * x, 3.0),
        (lambda x: 2 / x, -2 / 1.5**2),
        (lambda x: x / 2, 0.5),
        (lambda x: x**3, 3 * 1.5**2),
        (lambda x: 2**x, 2**1.5 * math.log(2)),
        (lambda x: x**x, 1.5**1.5 * (math.log(1.5) + 1)),
        (lambda x: abs(-x), 1.0),
    ],
)
def test_operators_with_numbers_on_either_side(expression, derivative):
    y = expression(Dual(1.5, 1.0))
    assert y.primal == pytest.approx(expression(1.5), rel=1e-15)
    assert y.tangent == pytest.approx(derivative, rel=1e-12)


def test_negative_base_with_constant_exponent():
    y = Dual(-2.0, 1.0) ** 2
    assert (y.primal, y.tangent) == (4.0, -4.0)


def test_vector_valued_jvp_and_jacobian_uses_one_pass_per_input():
    def f(x, y, z):
        return [x * y * z, F.exp(x) + z, F.sin(y)]

    xs = [0.3, -1.2, 2.0]
    J, passes = jacobian_forward(f, xs)
    x, y, z = xs
    expected = np.array([[y * z, x * z, x * y], [math.exp(x), 0.0, 1.0], [0.0, math.cos(y), 0.0]])
    np.testing.assert_allclose(J, expected, rtol=1e-14)
    assert passes == 3
    value, tangent = jvp(f, xs, (1.0, 1.0, 1.0))
    assert value == pytest.approx((x * y * z, math.exp(x) + z, math.sin(y)))
    np.testing.assert_allclose(tangent, expected.sum(axis=1), rtol=1e-14)


def test_scalar_jacobian_is_the_gradient():
    J, passes = jacobian_forward(lecture_f, [2.0, 5.0])
    assert J.shape == (2,) and passes == 2
    np.testing.assert_allclose(J, [5.5, 2 - math.cos(5)], rtol=1e-14)


def test_output_that_ignores_the_inputs_has_zero_tangent():
    assert jvp(lambda x: 3.0, (1.0,), (1.0,)) == (3.0, 0.0)


def test_tangent_steps_reproduce_the_lecture_table():
    value, tangent, steps = tangent_steps(lecture_f, (2.0, 5.0), (1.0, 0.0))
    assert value == pytest.approx(11.652, abs=5e-4) and tangent == pytest.approx(5.5)
    assert [s.index for s in steps] == [-1, 0, 1, 2, 3, 4, 5]
    assert [s.op for s in steps] == ["input", "input", "log", "mul", "sin", "add", "sub"]
    assert [s.args for s in steps] == [(), (), (-1,), (-1, 0), (0,), (1, 2), (4, 3)]
    primals = [2.0, 5.0, math.log(2), 10.0, math.sin(5), math.log(2) + 10, 11.652]
    assert [s.primal for s in steps] == pytest.approx(primals, abs=5e-4)
    assert round(steps[4].primal, 3) == -0.959  # the slide's +0.959 is a sign slip
    assert [s.tangent for s in steps] == pytest.approx([1, 0, 0.5, 5, 0, 5.5, 5.5], abs=1e-12)
    assert isinstance(steps[0], TangentStep)


def test_tangent_steps_record_constants_as_floats():
    _, _, steps = tangent_steps(lambda x: 2 * x + 1, (3.0,), (1.0,))
    assert [(s.index, s.op, s.args) for s in steps] == [
        (0, "input", ()),
        (1, "mul", (2.0, 0)),
        (2, "add", (1, 1.0)),
    ]
    assert all(isinstance(a, float) for a in steps[1].args[:1] + steps[2].args[1:])


# --- bad input -----------------------------------------------------------------


def test_dual_of_a_string_names_the_type():
    with pytest.raises(TypeError, match=r"Dual: .*str 'a'"):
        Dual("a")
    with pytest.raises(TypeError, match=r"mul: .*str"):
        Dual(1.0) * "x"


def test_domain_errors_name_the_operation_and_values():
    with pytest.raises(DomainError, match=r"log\(-1.0\): log is defined only for positive"):
        Dual(-1.0, 1.0).log()
    with pytest.raises(DomainError, match=r"div\(1.0, 0.0\): division by zero"):
        1 / Dual(0.0, 1.0)
    with pytest.raises(DomainError, match=r"sqrt\(-4.0\)"):
        Dual(-4.0).sqrt()
    with pytest.raises(DomainError, match=r"pow\(-2.0, 3.0\): .*base must be positive"):
        Dual(-2.0) ** Dual(3.0, 1.0)


def test_mismatched_primals_and_tangents():
    with pytest.raises(ValueError, match=r"jvp: 2 primals but 1 tangents"):
        jvp(lecture_f, (2.0, 5.0), (1.0,))


def test_jacobian_needs_a_sequence():
    with pytest.raises(TypeError, match=r"jacobian_forward: xs must be a sequence"):
        jacobian_forward(F.sin, 1.0)


def test_jvp_rejects_a_result_that_is_not_a_number():
    with pytest.raises(TypeError, match=r"jvp: f returned str"):
        jvp(lambda x: "oops", (1.0,), (1.0,))
