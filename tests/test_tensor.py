"""Tensor gradients against closed forms and central differences computed here."""

import numpy as np
import pytest

from micrograd_edu import Tensor, tensor, unbroadcast
from micrograd_edu.tensor import concatenate, cross_entropy, mse_loss, stack

RNG = np.random.default_rng(0)


def numeric_grad(f, x, h=1e-6):
    """Central differences of the scalar function f at the array x."""
    x = np.array(x, dtype=float)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (f(up) - f(down)) / (2 * h)
    return grad


def leaf(a):
    return Tensor(a, requires_grad=True)


def test_quadratic_form_closed_form():
    # y = x^T A x + b.x + c  =>  grad = (A + A^T) x + b  (the YAAD seed's example)
    A, b, c, x0 = RNG.normal(size=(4, 4)), RNG.normal(size=4), 1.5, RNG.normal(size=4)
    x = leaf(x0)
    y = x @ Tensor(A) @ x + Tensor(b).dot(x) + c
    y.backward()
    np.testing.assert_allclose(x.grad, (A + A.T) @ x0 + b, rtol=1e-12)
    np.testing.assert_allclose(y.item(), x0 @ A @ x0 + b @ x0 + c)


def test_trace_of_products_closed_forms():
    a, b, c = RNG.normal(size=(3, 5)), RNG.normal(size=(5, 4)), RNG.normal(size=(4, 3))
    x1, x2 = leaf(a), leaf(b @ c)
    (x1 @ x2).trace().backward()
    np.testing.assert_allclose(x1.grad, (b @ c).T)
    np.testing.assert_allclose(x2.grad, a.T)
    # tr(x1 x2 x3): d/dx1 = (x2 x3)^T, d/dx2 = x1^T x3^T, d/dx3 = (x1 x2)^T
    x1, x2, x3 = leaf(a), leaf(b), leaf(c)
    (x1 @ x2 @ x3).trace().backward()
    np.testing.assert_allclose(x1.grad, (b @ c).T)
    np.testing.assert_allclose(x2.grad, a.T @ c.T)
    np.testing.assert_allclose(x3.grad, (a @ b).T)


@pytest.mark.parametrize("batch", [1, 5])
def test_linear_layer_backprop(batch):
    X0, W0, b0 = RNG.normal(size=(batch, 3)), RNG.normal(size=(3, 2)), RNG.normal(size=2)
    G = RNG.normal(size=(batch, 2))  # dL/dY, given as the backward gradient
    X, W, b = leaf(X0), leaf(W0), leaf(b0)
    Y = X @ W + b
    Y.backward(G)
    np.testing.assert_allclose(X.grad, G @ W0.T)
    np.testing.assert_allclose(W.grad, X0.T @ G)
    np.testing.assert_allclose(b.grad, G.sum(axis=0))


@pytest.mark.parametrize(
    "sa, sb, op",
    [
        ((3, 4), (4,), "add"),
        ((3, 1), (1, 4), "mul"),
        ((1,), (3, 4), "sub"),
        ((), (3, 4), "mul"),
        ((3, 4), (), "div"),
    ],
)
def test_broadcast_gradients_have_input_shapes(sa, sb, op):
    a0, b0 = RNG.uniform(1, 2, size=sa), RNG.uniform(1, 2, size=sb)
    fn = {
        "add": lambda x, y: x + y,
        "mul": lambda x, y: x * y,
        "sub": lambda x, y: x - y,
        "div": lambda x, y: x / y,
    }[op]
    w = RNG.normal(size=np.broadcast_shapes(sa, sb))
    a, b = leaf(a0), leaf(b0)
    (fn(a, b) * Tensor(w)).sum().backward()
    assert a.grad.shape == sa and b.grad.shape == sb
    np.testing.assert_allclose(a.grad, numeric_grad(lambda v: (fn(v, b0) * w).sum(), a0), 1e-6)
    np.testing.assert_allclose(b.grad, numeric_grad(lambda v: (fn(a0, v) * w).sum(), b0), 1e-6)


def test_python_numbers_on_either_side():
    x = leaf([1.0, 2.0])
    y = (2 * x + 1 - x / 4 + 3 / x - 1 * x**2 + 2**x).sum()
    y.backward()
    x0 = np.array([1.0, 2.0])
    expected = 2 - 0.25 - 3 / x0**2 - 2 * x0 + np.log(2) * 2**x0
    np.testing.assert_allclose(x.grad, expected)


@pytest.mark.parametrize("name", ["exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "sqrt"])
def test_unary_methods_match_central_differences(name):
    x0 = RNG.uniform(0.2, 1.2, size=(2, 3))
    x = leaf(x0)
    getattr(x, name)().sum().backward()
    f = getattr(np, name, None) or (lambda v: 1 / (1 + np.exp(-v)))
    np.testing.assert_allclose(x.grad, numeric_grad(lambda v: f(v).sum(), x0), rtol=1e-6)


def test_relu_and_abs():
    x = leaf([-2.0, 3.0])
    (x.relu() + x.abs()).sum().backward()
    np.testing.assert_allclose(x.grad, [0.0 - 1.0, 1.0 + 1.0])


def test_unbroadcast_is_public():
    np.testing.assert_allclose(unbroadcast(np.ones((2, 3)), (1, 3)), [[2.0, 2.0, 2.0]])


def test_repr_and_grad_fn():
    x = tensor([[1.0, 2.0]], requires_grad=True)
    assert repr(x) == "tensor([[1., 2.]], requires_grad=True)"
    y = x * 2
    assert repr(y) == "tensor([[2., 4.]], grad_fn=<MulBackward>)"
    assert x.is_leaf and x.grad_fn is None and not y.is_leaf
    assert y.op == "mul" and y.parents[0] is x
    assert repr(Tensor(0.5)) == "tensor(0.5000)"


def test_retain_grad_and_accumulation():
    x = leaf([1.0, 2.0])
    h = x * 3
    h.retain_grad()
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad, 2 * 3 * np.array([1.0, 2.0]))
    np.testing.assert_allclose(x.grad, 18 * np.array([1.0, 2.0]))
    (x * 1).sum().backward()  # gradients accumulate into leaves
    np.testing.assert_allclose(x.grad, 18 * np.array([1.0, 2.0]) + 1)


def test_shared_gradient_arrays_are_not_aliased():
    a, b = leaf([1.0]), leaf([2.0])
    (a + b).sum().backward()
    a.grad += 5
    assert b.grad[0] == 1.0


def test_reshape_transpose_sum_mean_max():
    x0 = RNG.normal(size=(2, 3, 4))
    x = leaf(x0)
    y = x.reshape(6, 4).T.sum(axis=1).mean() + x.max(axis=(0, 2), keepdims=True).sum()
    y.backward()

    def f(v):
        return v.reshape(6, 4).T.sum(axis=1).mean() + v.max(axis=(0, 2), keepdims=True).sum()

    np.testing.assert_allclose(x.grad, numeric_grad(f, x0), atol=1e-6)


@pytest.mark.parametrize(
    "sa, sb",
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((4, 2, 3), (3, 5)), ((2, 3), (4, 3, 2))],
)
def test_matmul_all_numpy_cases(sa, sb):
    a0, b0 = RNG.normal(size=sa), RNG.normal(size=sb)
    w = RNG.normal(size=np.shape(a0 @ b0))
    a, b = leaf(a0), leaf(b0)
    ((a @ b) * Tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad, numeric_grad(lambda v: ((v @ b0) * w).sum(), a0), 1e-6)
    np.testing.assert_allclose(b.grad, numeric_grad(lambda v: ((a0 @ v) * w).sum(), b0), 1e-6)


def test_indexing_scatters_repeated_indices():
    x = leaf([1.0, 2.0, 3.0])
    (x[[0, 0, 2]].sum() + x[1:].sum()).backward()
    np.testing.assert_allclose(x.grad, [2.0, 1.0, 2.0])


def test_concatenate_and_stack():
    a, b = leaf([1.0, 2.0]), leaf([3.0])
    (concatenate([a, b]) * Tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(a.grad, [1.0, 2.0])
    np.testing.assert_allclose(b.grad, [3.0])
    c, d = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (stack([c, d], axis=1) * Tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    np.testing.assert_allclose(c.grad, [1.0, 3.0])
    np.testing.assert_allclose(d.grad, [2.0, 4.0])


def test_softmax_log_softmax_are_stable_and_correct():
    z0 = np.array([[1000.0, 1001.0, 999.0], [0.1, 0.2, -0.3]])
    z = leaf(z0)
    p = z.softmax(axis=1)
    assert np.all(np.isfinite(p.data))
    np.testing.assert_allclose(p.data.sum(axis=1), 1.0)
    w = RNG.normal(size=z0.shape)

    def f(v):
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return (np.log(e / e.sum(axis=1, keepdims=True)) * w).sum()

    (z.log_softmax(axis=1) * Tensor(w)).sum().backward()
    np.testing.assert_allclose(z.grad, numeric_grad(f, z0), atol=1e-5)


def test_cross_entropy_gradient_is_softmax_minus_one_hot():
    logits0, targets = RNG.normal(size=(4, 3)), np.array([0, 2, 1, 2])
    logits = leaf(logits0)
    loss = cross_entropy(logits, targets)
    loss.backward()
    p = np.exp(logits0) / np.exp(logits0).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(loss.item(), -np.log(p[np.arange(4), targets]).mean())
    np.testing.assert_allclose(logits.grad, (p - np.eye(3)[targets]) / 4)


def test_mse_loss():
    p = leaf([1.0, 2.0, 4.0])
    mse_loss(p, Tensor([1.0, 1.0, 1.0])).backward()
    np.testing.assert_allclose(p.grad, 2 * np.array([0.0, 1.0, 3.0]) / 3)


def test_float32_is_kept():
    x = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    y = (x * 2.5 + 1).sum()
    assert y.dtype == np.float32
    y.backward()
    assert x.grad.dtype == np.float32
