"""Reverse mode's Jacobian (jacobian_reverse): one backward sweep per output, against
closed forms, forward mode and central differences on random functions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_edu import functions as F
from micrograd_edu import jacobian_forward, jacobian_reverse
from micrograd_edu.scalar.numerical import jacobian


def three_outputs(x, y, z):
    return [x * y * z, F.exp(x) + z, F.sin(y)]


def test_rows_match_the_closed_form_one_sweep_per_output():
    xs = [0.3, -1.2, 2.0]
    J, passes, multiply_adds = jacobian_reverse(three_outputs, xs)
    x, y, z = xs
    expected = np.array([[y * z, x * z, x * y], [math.exp(x), 0.0, 1.0], [0.0, math.cos(y), 0.0]])
    np.testing.assert_allclose(J, expected, rtol=1e-14)
    # one sweep per output; x*y*z has 2 multiplies, exp(x)+z an exp and an add, sin(y) one sin
    assert passes == 3 and multiply_adds == 4 + 3 + 1


def test_a_scalar_function_costs_one_sweep_whatever_its_inputs():
    for n in (1, 4, 32):
        point = np.linspace(-1, 1, n).tolist()
        grad, passes, _ = jacobian_reverse(lambda *xs: sum(F.sin(x) * x for x in xs), point)
        assert passes == 1 and grad.shape == (n,)
        np.testing.assert_allclose(grad, [math.sin(p) + p * math.cos(p) for p in point])


def test_an_output_that_ignores_the_inputs_has_a_zero_row():
    J, passes, _ = jacobian_reverse(lambda x, y: [x * y, 3.0], [2.0, 5.0])
    np.testing.assert_array_equal(J, [[5.0, 2.0], [0.0, 0.0]])
    assert passes == 2


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-2, 2), min_size=2, max_size=4),
    st.integers(1, 4),
)
def test_agrees_with_forward_mode_and_central_differences(xs, m):
    def f(*v):
        return [F.tanh(v[k % len(v)] * v[(k + 1) % len(v)]) + F.sin(v[0]) * k for k in range(m)]

    J, passes, _ = jacobian_reverse(f, xs)
    forward, forward_passes = jacobian_forward(f, xs)
    assert passes == m and forward_passes == len(xs)
    np.testing.assert_allclose(J, forward, rtol=1e-12, atol=1e-14)
    numerical = jacobian(lambda *v: f(*v), xs).jacobian
    np.testing.assert_allclose(J, np.reshape(numerical, J.shape), rtol=1e-6, atol=1e-8)


def test_needs_a_sequence():
    with pytest.raises(TypeError, match=r"jacobian_reverse: xs must be a sequence"):
        jacobian_reverse(F.sin, 1.0)
