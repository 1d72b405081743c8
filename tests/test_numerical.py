"""Finite differences against closed forms; gradcheck against small duck-typed engines."""

import math

import numpy as np
import pytest

from micrograd_edu.scalar.numerical import (
    EPS,
    backward_difference,
    central_difference,
    forward_difference,
    gradcheck,
    gradient,
    jacobian,
    loglog_slope,
    step_size_study,
)


def lecture_f(x1, x2):
    return math.log(x1) + x1 * x2 - math.sin(x2)


# ----------------------------------------------------------------------------- differences


@pytest.mark.parametrize(
    "f, df, x",
    [
        (math.sin, math.cos, 1.0),
        (math.exp, math.exp, -2.0),
        (math.log, lambda t: 1 / t, 300.0),
        (lambda t: t**3, lambda t: 3 * t * t, -7.5),
    ],
)
def test_differences_match_closed_forms(f, df, x):
    scale = max(1.0, abs(df(x)))
    assert forward_difference(f, x) == pytest.approx(df(x), abs=1e-6 * scale)
    assert backward_difference(f, x) == pytest.approx(df(x), abs=1e-6 * scale)
    assert central_difference(f, x) == pytest.approx(df(x), abs=1e-9 * scale)


def test_one_sided_differences_err_on_opposite_sides_of_a_convex_function():
    # exp is convex: the forward slope overestimates, the backward one underestimates.
    h = 1e-3
    assert backward_difference(math.exp, 0.0, h) < 1.0 < forward_difference(math.exp, 0.0, h)


def test_central_error_is_second_order_and_forward_first_order():
    # Halving h divides the truncation error by about 2 (forward) and 4 (central).
    def errors(h):
        return (
            abs(forward_difference(math.exp, 0.0, h) - 1.0),
            abs(central_difference(math.exp, 0.0, h) - 1.0),
        )

    (f1, c1), (f2, c2) = errors(1e-2), errors(5e-3)
    assert f1 / f2 == pytest.approx(2.0, rel=0.02)
    assert c1 / c2 == pytest.approx(4.0, rel=0.02)


def test_default_step_scales_with_x():
    # At x = 1e8 a step of cbrt(eps) would vanish below the spacing of floats;
    # the scaled default still recovers d/dx x**2 = 2e8.
    assert central_difference(lambda t: t * t, 1e8) == pytest.approx(2e8, rel=1e-6)


# ----------------------------------------------------------------------------- gradient, jacobian


def test_lecture_fact_gradient_at_2_5():
    g, evaluations = gradient(lecture_f, [2.0, 5.0])
    assert g[0] == pytest.approx(5.5, abs=1e-6)
    assert g[1] == pytest.approx(2.0 - math.cos(5.0), abs=1e-6)
    assert g[1] == pytest.approx(1.716, abs=1e-3)
    assert evaluations == 4


def test_gradient_costs_two_evaluations_per_input():
    calls = []

    def f(*xs):
        calls.append(xs)
        return sum(x * x for x in xs)

    for n in (1, 3, 10):
        calls.clear()
        g, evaluations = gradient(f, list(range(1, n + 1)))
        assert evaluations == len(calls) == 2 * n
        np.testing.assert_allclose(g, 2 * np.arange(1, n + 1), rtol=1e-8)


def test_jacobian_of_polar_to_cartesian():
    def polar(r, theta):
        return np.array([r * math.cos(theta), r * math.sin(theta)])

    r, t = 2.0, 0.7
    J, evaluations = jacobian(polar, [r, t])
    exact = [[math.cos(t), -r * math.sin(t)], [math.sin(t), r * math.cos(t)]]
    np.testing.assert_allclose(J, exact, atol=1e-9)
    assert J.shape == (2, 2) and evaluations == 4


def test_jacobian_of_scalar_function_is_one_row():
    J, _ = jacobian(lecture_f, [2.0, 5.0])
    assert J.shape == (1, 2)
    np.testing.assert_allclose(J[0], gradient(lecture_f, [2.0, 5.0]).gradient)


def test_explicit_step_is_used():
    g, _ = gradient(lambda x: x**3, [1.0], h=0.1)
    assert g[0] == pytest.approx(3.0 + 0.01)  # (x+h)^3 - (x-h)^3 / 2h = 3x^2 + h^2


# ----------------------------------------------------------------------------- step size study


@pytest.mark.parametrize("f, x, exact", [(math.sin, 1.0, math.cos(1.0)), (math.exp, 1.0, math.e)])
def test_step_size_study_finds_the_bottoms_of_the_v(f, x, exact):
    hs = np.logspace(-16, 0, 321)
    study = step_size_study(f, x, hs, exact)
    assert math.sqrt(EPS) / 10 < study.best_forward_h < math.sqrt(EPS) * 10
    assert EPS ** (1 / 3) / 10 < study.best_central_h < EPS ** (1 / 3) * 10
    # Central differences reach a far smaller error than forward ones.
    assert study.central_errors.min() < study.forward_errors.min() / 100


@pytest.mark.parametrize("f, x, exact", [(math.sin, 1.0, math.cos(1.0)), (math.exp, 1.0, math.e)])
def test_step_size_study_slopes(f, x, exact):
    hs = np.logspace(-16, 0, 321)
    s = step_size_study(f, x, hs, exact)
    # Truncation: error ~ h (forward) and ~ h^2 (central) for large h.
    assert loglog_slope(hs, s.forward_errors, 1e-5, 1e-2) == pytest.approx(1.0, abs=0.1)
    assert loglog_slope(hs, s.central_errors, 1e-3, 1e-1) == pytest.approx(2.0, abs=0.1)
    # Rounding: error ~ eps / h for small h, whatever the formula.
    assert loglog_slope(hs, s.forward_errors, 1e-15, 1e-10) == pytest.approx(-1.0, abs=0.25)
    assert loglog_slope(hs, s.central_errors, 1e-15, 1e-8) == pytest.approx(-1.0, abs=0.25)


def test_rounding_error_has_the_size_eps_over_h():
    hs = np.logspace(-15, -12, 31)
    s = step_size_study(math.exp, 1.0, hs, math.e)
    ratio = s.forward_errors * hs / (EPS * math.e)
    assert 0.01 < np.median(ratio) < 10


# ----------------------------------------------------------------------------- gradcheck


class Scalar:
    """A tiny reverse-mode scalar, standing in for the package's Value (duck typing)."""

    cos_sign = 1.0  # the derivative of sin is cos_sign * cos

    def __init__(self, data, parents=()):
        self.data, self.grad, self.parents = float(data), None, parents

    def _lift(self, other):
        return other if isinstance(other, Scalar) else type(self)(other)

    def __add__(self, other):
        other = self._lift(other)
        return type(self)(self.data + other.data, ((self, 1.0), (other, 1.0)))

    def __mul__(self, other):
        other = self._lift(other)
        return type(self)(self.data * other.data, ((self, other.data), (other, self.data)))

    def sin(self):
        return type(self)(math.sin(self.data), ((self, self.cos_sign * math.cos(self.data)),))

    def log(self):
        return type(self)(math.log(self.data), ((self, 1.0 / self.data),))

    def backward(self):
        # Without a topological order: fine for the trees used here, where no node is shared.
        stack = [(self, 1.0)]
        while stack:
            node, g = stack.pop()
            node.grad = (node.grad or 0.0) + g
            stack.extend((parent, g * local) for parent, local in node.parents)


class WrongScalar(Scalar):
    cos_sign = -1.0  # the classic sign slip: d sin = -cos


class Vec:
    """A tiny reverse-mode array, standing in for the package's Tensor."""

    def __init__(self, data, requires_grad=False, backward_fn=None):
        self.data = np.asarray(data, dtype=float)
        self.requires_grad, self.grad, self._backward = requires_grad, None, backward_fn

    def affine_tanh(self, W):
        out = np.tanh(W @ self.data)
        return Vec(out, backward_fn=lambda g: self.backward(W.T @ (g * (1 - out**2))))

    def sum(self):
        return Vec(
            self.data.sum(), backward_fn=lambda g: self.backward(g * np.ones_like(self.data))
        )

    def backward(self, g=None):
        g = np.ones_like(self.data) if g is None else np.asarray(g)
        assert g.shape == self.data.shape, "the cotangent must have the output's shape"
        if self._backward is not None:
            self._backward(g)
        elif self.requires_grad:
            self.grad = g if self.grad is None else self.grad + g


def lecture_graph(x1, x2):
    return x1.log() + x1 * x2 + (x2.sin() * -1.0)


def test_gradcheck_passes_a_correct_scalar_engine():
    result = gradcheck(lecture_graph, Scalar(2.0), Scalar(5.0))
    assert result and result.passed
    assert result.evaluations == 4
    assert "gradcheck passed" in repr(result)


def test_gradcheck_catches_a_wrong_derivative_and_names_the_element():
    result = gradcheck(lecture_graph, WrongScalar(2.0), WrongScalar(5.0))
    assert not result
    assert result.input == 1 and result.index == ()
    assert result.analytic == pytest.approx(2.0 + math.cos(5.0))
    assert result.numeric == pytest.approx(2.0 - math.cos(5.0), abs=1e-8)
    assert result.error == pytest.approx(2 * abs(math.cos(5.0)), rel=1e-6)
    # the text counts inputs from 1, as Function's errors do: x2 is input 2 of 2
    assert repr(result).startswith("gradcheck FAILED: worst element input 2 of 2: analytic 2.28")


def test_gradcheck_leaves_the_callers_leaves_alone():
    x1, x2 = Scalar(2.0), Scalar(5.0)
    gradcheck(lecture_graph, x1, x2)
    assert x1.grad is None and x2.grad is None


def test_gradcheck_array_engine_scalar_output():
    W = np.random.default_rng(1).standard_normal((3, 4))
    x = Vec(np.linspace(-1, 1, 4), requires_grad=True)
    result = gradcheck(lambda v: v.affine_tanh(W).sum(), x)
    assert result, result
    assert len(result.index) == 1 and 0 <= result.index[0] < 4
    assert result.evaluations == 8


def test_gradcheck_array_engine_vector_output_uses_a_random_cotangent():
    W = np.random.default_rng(2).standard_normal((3, 4))
    x = Vec(np.linspace(-1, 1, 4), requires_grad=True)
    assert gradcheck(lambda v: v.affine_tanh(W), x, seed=5)
    # A backward pass that forgets the tanh' factor must be caught, for any seed.
    wrong = lambda v: Vec(np.tanh(W @ v.data), backward_fn=lambda g: v.backward(W.T @ g))
    for seed in range(3):
        result = gradcheck(wrong, x, seed=seed)
        assert not result and result.input == 0


def test_gradcheck_builds_tensor_leaves_that_require_grad():
    # The fake tensor, like a real one, accumulates no gradient without requires_grad=True ...
    data = np.array([[0.5, -0.2], [0.1, 0.3]])
    plain = Vec(data)
    plain.affine_tanh(np.eye(2)).sum().backward()
    assert plain.grad is None
    # ... so gradcheck passing on a 2-D input shows it built its leaves with the flag.
    result = gradcheck(lambda v: v.affine_tanh(np.eye(2)).sum(), Vec(data, requires_grad=True))
    assert result and len(result.index) == 2


def test_gradcheck_with_a_gradient_function():
    grad = lambda x1, x2: (1 / x1 + x2, x1 - math.cos(x2))
    assert gradcheck(lecture_f, 2.0, 5.0, grad_fn=grad)
    wrong = lambda x1, x2: (1 / x1 + x2, x1 + math.cos(x2))
    result = gradcheck(lecture_f, 2.0, 5.0, grad_fn=wrong)
    assert not result and result.input == 1


def test_gradcheck_with_a_gradient_function_of_an_array():
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    f = lambda x: 0.5 * x @ A @ x
    x = np.array([[0.3], [-0.4]]).reshape(2)
    assert gradcheck(f, x, grad_fn=lambda x: A @ x)
    assert gradcheck(lambda v: sum(t * t for t in v), [1.0, 2.0], grad_fn=lambda v: 2 * v)
    result = gradcheck(f, x, grad_fn=lambda x: A.T @ x * 1.01)
    assert not result and result.index in {(0,), (1,)}
    assert f" at [{result.index[0]}]: analytic" in repr(result)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: central_difference(3.0, 1.0), TypeError, "central_difference: f must be a funct"),
        (lambda: forward_difference(math.sin, 1.0, 0.0), ValueError, "h=0.0"),
        (lambda: backward_difference(math.sin, 1.0, -1e-3), ValueError, "h=-0.001"),
        (lambda: central_difference(math.sin, 1.0, math.nan), ValueError, "finite positive"),
        (lambda: central_difference(math.sin, 1.0, math.inf), ValueError, "h=inf"),
        (lambda: central_difference(math.sin, "1"), TypeError, "x must be a real number"),
        (lambda: central_difference(math.sin, math.inf), ValueError, "x must be finite"),
        (lambda: gradient(lecture_f, []), ValueError, "gradient: xs must be a non-empty"),
        (lambda: jacobian(lecture_f, []), ValueError, "jacobian: xs must be a non-empty"),
        (lambda: gradient(None, [1.0]), TypeError, "gradient: f must be a function"),
        (lambda: gradient(lambda a: [a, a], [1.0]), ValueError, "use jacobian()"),
        (lambda: step_size_study(math.sin, 1.0, [], 1.0), ValueError, "hs must be a non-empty"),
        (lambda: step_size_study(math.sin, 1.0, [1e-3, -1], 1.0), ValueError, "finite positive"),
        (lambda: step_size_study(math.sin, 1.0, [1e-3], "1"), TypeError, "exact must be a real"),
        (lambda: forward_difference(lambda t: [t, t], 1.0), ValueError, "returned 2 values"),
        (lambda: loglog_slope([1.0], [1.0], 1e-3, 1e-1), ValueError, "at least two"),
        (lambda: gradcheck(math.sin), ValueError, "gradcheck: give at least one input"),
        (lambda: gradcheck(math.sin, 1.0), TypeError, "input 1 of 1 is a float, not an engine"),
        (
            lambda: gradcheck(np.sum, np.ones(2)),
            TypeError,
            "input 1 of 1 is a ndarray, not an engine",
        ),
        (lambda: gradcheck(2, Scalar(1.0)), TypeError, "gradcheck: f must be a function"),
        (
            lambda: gradcheck(lambda v: 3.0, Scalar(1.0)),
            TypeError,
            "<lambda> returned a float, not a node with .data and .backward",
        ),
        (
            lambda: gradcheck(lecture_f, 2.0, 5.0, grad_fn=lambda a, b: (1.0,)),
            ValueError,
            "grad_fn returned 1 gradients for 2 inputs",
        ),
        (
            lambda: gradcheck(np.sum, np.ones(3), grad_fn=lambda x: np.ones(2)),
            ValueError,
            "input 1 of 1 has shape (2,) but the input has shape (3,)",
        ),
        (
            lambda: gradcheck(np.cos, np.ones(3), grad_fn=lambda x: -np.sin(x)),
            ValueError,
            "with grad_fn= f must return a scalar",
        ),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_non_finite_value_names_function_value_and_point():
    def blows_up(x):
        return 1.0 / x if x > 0 else math.inf

    with pytest.raises(ValueError, match=r"central_difference: blows_up\(-.*\) returned inf"):
        central_difference(blows_up, 0.0, 1e-3)
    with pytest.raises(ValueError, match="returned nan"):
        gradient(lambda a, b: math.nan, [1.0, 2.0])


def test_non_numeric_value_names_function_and_type():
    def words(x):
        return "seven"

    with pytest.raises(TypeError, match=r"forward_difference: words\(1.0.*'seven' \(str\)"):
        forward_difference(words, 1.0)
    with pytest.raises(TypeError, match=r"jacobian: .* returned None \(NoneType\)"):
        jacobian(lambda a: None, [1.0])
