"""Random expressions built from the rules' operations: reverse mode (Value),
forward mode (Dual) and a central difference computed here must agree."""

import math

import pytest
from central_differences import central_gradient
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd_edu import Dual, Value
from micrograd_edu import functions as F

# Each operation reads one or two earlier values and keeps its arguments inside
# the rules' domains (positive logs, non-zero divisors, positive Value bases)
# and its results bounded, so every random program is differentiable.
OPERATIONS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "rsub": lambda a, b: 1.5 - a,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 1),
    "rdiv": lambda a, b: 2 / (a * a + 0.5),
    "pow": lambda a, b: (a * a + 1) ** F.sin(b),
    "powc": lambda a, b: a**3,
    "rpow": lambda a, b: 2 ** F.tanh(a),
    "neg": lambda a, b: -a,
    "exp": lambda a, b: F.exp(F.sin(a)),
    "log": lambda a, b: F.log(a * a + 1),
    "sin": lambda a, b: F.sin(a),
    "cos": lambda a, b: F.cos(a),
    "tan": lambda a, b: F.tan(F.sin(a)),
    "tanh": lambda a, b: F.tanh(a),
    "sigmoid": lambda a, b: F.sigmoid(a),
    "sqrt": lambda a, b: F.sqrt(a * a + 0.25),
    "relu": lambda a, b: F.relu(a),
    "abs": lambda a, b: F.abs(a),
}
KINKS = {"relu", "abs"}  # not differentiable at 0

programs = st.lists(
    st.tuples(st.sampled_from(sorted(OPERATIONS)), st.integers(0, 99), st.integers(0, 99)),
    min_size=1,
    max_size=8,
)
inputs = st.floats(-1.5, 1.5, allow_nan=False)


def run(program, x, y, kink_args=None):
    values = [x, y]
    for name, i, j in program:
        a, b = values[i % len(values)], values[j % len(values)]
        if kink_args is not None and name in KINKS:
            kink_args.append(a)
        values.append(OPERATIONS[name](a, b))
    return values[-1] + 0.0 * x  # make sure the result depends on the inputs


@settings(max_examples=150, deadline=None)
@given(programs, inputs, inputs)
def test_reverse_forward_and_central_differences_agree(program, x, y):
    kink_args = []
    value = run(program, x, y, kink_args)
    assume(all(abs(a) > 1e-3 for a in kink_args))
    assume(abs(value) < 1e6)

    vx, vy = Value(x), Value(y)
    out = run(program, vx, vy)
    out.backward()
    forward = (
        run(program, Dual(x, 1.0), Dual(y, 0.0)).tangent,
        run(program, Dual(x, 0.0), Dual(y, 1.0)).tangent,
    )
    reverse = (vx.grad, vy.grad)

    assert out.data == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert reverse == pytest.approx(forward, rel=1e-9, abs=1e-12)
    # central difference: error about h**2 * f''' + eps * |f| / h
    scale = 1 + abs(value) + max(abs(g) for g in reverse)
    numeric = central_gradient(lambda v: run(program, *map(float, v)), [x, y])
    for g, n in zip(reverse, numeric, strict=True):
        assert math.isclose(g, n, rel_tol=1e-5, abs_tol=1e-5 * scale)
