"""The rule table against independent oracles: central differences and closed forms."""

import math

import numpy as np
import pytest
from central_differences import central_gradient

from micrograd_edu.rules import MATH, NUMPY, RULES, DomainError, check_domain

# A point inside every rule's domain, per arity.
POINTS = {1: (0.7,), 2: (1.3, 0.6)}


@pytest.mark.parametrize("name", sorted(RULES))
def test_partials_match_central_differences(name):
    rule = RULES[name]
    args = POINTS[rule.arity]
    out = rule.value(MATH, *args)
    numerics = central_gradient(lambda v: rule.value(MATH, *map(float, v)), args)
    for partial, numeric in zip(rule.partials, numerics, strict=True):
        assert partial(MATH, out, *args) == pytest.approx(numeric, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", sorted(RULES))
def test_numpy_namespace_agrees_with_math(name):
    rule = RULES[name]
    args = POINTS[rule.arity]
    arrays = [np.full(3, a) for a in args]
    out = rule.value(NUMPY, *arrays)
    np.testing.assert_allclose(out, rule.value(MATH, *args), rtol=1e-15)
    for partial in rule.partials:
        expected = partial(MATH, rule.value(MATH, *args), *args)
        np.testing.assert_allclose(
            np.broadcast_to(partial(NUMPY, out, *arrays), (3,)), expected, rtol=1e-15
        )


def test_closed_forms_at_known_points():
    assert RULES["sin"].partials[0](MATH, math.sin(5.0), 5.0) == math.cos(5.0)
    assert RULES["log"].partials[0](MATH, math.log(2.0), 2.0) == 0.5
    o = RULES["mul"].value(MATH, 2.0, 5.0)
    assert (
        RULES["mul"].partials[0](MATH, o, 2.0, 5.0),
        RULES["mul"].partials[1](MATH, o, 2.0, 5.0),
    ) == (5.0, 2.0)


def test_relu_and_abs_use_zero_at_the_kink():
    # PyTorch's convention, so that gradients agree with it.
    assert RULES["relu"].partials[0](MATH, 0.0, 0.0) == 0.0
    assert RULES["abs"].partials[0](MATH, 0.0, 0.0) == 0.0


def test_sigmoid_and_exp_are_stable_at_extremes():
    assert MATH.sigmoid(-1000.0) == 0.0
    assert MATH.sigmoid(1000.0) == 1.0
    assert MATH.exp(1000.0) == math.inf
    assert np.all(np.isfinite(NUMPY.sigmoid(np.array([-1000.0, 1000.0]))))


@pytest.mark.parametrize(
    "name, args, words",
    [
        ("log", (0.0,), "log(0.0): log is defined only for positive"),
        ("log", (-1.0,), "log(-1.0)"),
        ("sqrt", (-4.0,), "sqrt(-4.0): sqrt is defined only for non-negative"),
        ("div", (1.0, 0.0), "div(1.0, 0.0): division by zero"),
        ("pow", (-8.0, 1 / 3), "negative base needs an integer exponent"),
        ("pow", (0.0, -1.0), "zero base a non-negative"),
    ],
)
def test_domain_errors_name_operation_and_values(name, args, words):
    with pytest.raises(DomainError, match=words.replace("(", r"\(").replace(")", r"\)")):
        check_domain(RULES[name], MATH, *args)


def test_domain_accepts_valid_inputs():
    check_domain(RULES["pow"], MATH, -2.0, 3.0)
    check_domain(RULES["sqrt"], MATH, 0.0)
    check_domain(RULES["pow"], MATH, 2.0, 0.5, grad=True)


def test_grad_domain_of_pow_in_the_exponent():
    with pytest.raises(DomainError, match="base must be positive"):
        check_domain(RULES["pow"], MATH, -2.0, 2.0, grad=True)


def test_numpy_domain_predicate_is_elementwise():
    bad = RULES["log"].domain(NUMPY, np.array([1.0, 0.0, -2.0]))
    assert bad.tolist() == [False, True, True]
