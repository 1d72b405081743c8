"""Tensor gradients against closed forms and central differences computed here."""

import warnings

import numpy as np
import pytest
from central_differences import central_gradient

from micrograd_edu import Tensor, tensor, unbroadcast
from micrograd_edu.tensor import concatenate, cross_entropy, mse_loss, stack

RNG = np.random.default_rng(0)


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
    np.testing.assert_allclose(a.grad, central_gradient(lambda v: (fn(v, b0) * w).sum(), a0), 1e-6)
    np.testing.assert_allclose(b.grad, central_gradient(lambda v: (fn(a0, v) * w).sum(), b0), 1e-6)


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
    np.testing.assert_allclose(x.grad, central_gradient(lambda v: f(v).sum(), x0), rtol=1e-6)


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
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(Tensor([np.inf, np.nan, 1.0])).replace(" ", "") == "tensor([inf,nan,1.])"


def test_retain_grad_and_accumulation():
    x = leaf([1.0, 2.0])
    h = x * 3
    h.retain_grad()
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad, 2 * 3 * np.array([1.0, 2.0]))
    np.testing.assert_allclose(x.grad, 18 * np.array([1.0, 2.0]))
    (x * 1).sum().backward()  # gradients accumulate into leaves
    np.testing.assert_allclose(x.grad, 18 * np.array([1.0, 2.0]) + 1)


def test_a_node_waits_for_all_its_consumers():
    # backward visits recorded tensors newest first; here `a` feeds the output
    # directly and through a longer path made later (b, c), and `u`, made
    # after `a`, is reached only through c. A node processed before all its
    # gradient arrived would give a wrong sum: compare with central differences.
    x0 = RNG.normal(size=3)

    def f(x):
        a = x * 2.0
        u = (x * 0.5).exp()
        b = a.tanh()
        c = b * a + u
        return (c * a + a).sum()

    x = leaf(x0)
    f(x).backward()
    expected = central_gradient(lambda v: f(Tensor(v)).item(), x0)
    np.testing.assert_allclose(x.grad, expected, rtol=1e-6)


def test_shared_gradient_arrays_are_not_aliased():
    a, b = leaf([1.0]), leaf([2.0])
    (a + b).sum().backward()
    a.grad += 5
    assert b.grad[0] == 1.0


def test_reshape_transpose_sum_mean_max():
    x0 = RNG.normal(size=(2, 3, 4))
    x = leaf(x0)
    y = x.reshape(6, 4).T.sum(axis=1).mean() + x.amax(axis=(0, 2), keepdims=True).sum()
    y.backward()

    def f(v):
        return v.reshape(6, 4).T.sum(axis=1).mean() + v.max(axis=(0, 2), keepdims=True).sum()

    np.testing.assert_allclose(x.grad, central_gradient(f, x0), atol=1e-6)


@pytest.mark.parametrize(
    "sa, sb",
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((4, 2, 3), (3, 5)), ((2, 3), (4, 3, 2))],
)
def test_matmul_all_numpy_cases(sa, sb):
    a0, b0 = RNG.normal(size=sa), RNG.normal(size=sb)
    w = RNG.normal(size=np.shape(a0 @ b0))
    a, b = leaf(a0), leaf(b0)
    ((a @ b) * Tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad, central_gradient(lambda v: ((v @ b0) * w).sum(), a0), 1e-6)
    np.testing.assert_allclose(b.grad, central_gradient(lambda v: ((a0 @ v) * w).sum(), b0), 1e-6)


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
    np.testing.assert_allclose(z.grad, central_gradient(f, z0), atol=1e-5)


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


def test_mse_loss_one_node_gives_both_gradients():
    # mse_loss is one fused node: its gradients for the prediction and for a
    # target that requires grad match central differences, and its float32
    # prediction keeps float32 against a float64 target.
    p0, t0 = RNG.normal(size=(4, 2)), RNG.normal(size=(4, 2))
    p, t = leaf(p0), leaf(t0)
    loss = mse_loss(p, t)
    assert loss.op == "mse_loss" and loss.parents == (p, t)
    loss.backward()
    np.testing.assert_allclose(p.grad, central_gradient(lambda a: np.mean((a - t0) ** 2), p0))
    np.testing.assert_allclose(t.grad, central_gradient(lambda b: np.mean((p0 - b) ** 2), t0))
    p32 = Tensor(p0.astype(np.float32), requires_grad=True)
    mse_loss(p32, t0).backward()
    assert p32.grad.dtype == np.float32
    np.testing.assert_allclose(p32.grad, 2 * (p0 - t0) / p0.size, rtol=1e-5)


def test_float32_is_kept():
    x = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    y = (x * 2.5 + 1).sum()
    assert y.dtype == np.float32
    y.backward()
    assert x.grad.dtype == np.float32


def test_transpose_swaps_like_torch_and_permute_reorders():
    x0 = RNG.normal(size=(2, 3, 4))
    x = leaf(x0)
    assert x.transpose(0, 1).shape == (3, 2, 4)
    assert leaf(np.ones((2, 3))).transpose(0, 1).shape == (3, 2)
    assert x.permute(2, 0, 1).shape == (4, 2, 3) and x.T.shape == (4, 3, 2)
    w = RNG.normal(size=(4, 2, 3))
    (x.permute(2, 0, 1) * Tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad, np.transpose(w, (1, 2, 0)))


def test_basic_and_fancy_indexing_against_central_differences():
    x0 = RNG.normal(size=(3, 4))
    x = leaf(x0)
    w1, w2 = RNG.normal(size=(2, 2)), RNG.normal(size=3)
    mask = x0 > 0
    y = (x[1:, ::2] * Tensor(w1)).sum() + (x[[0, 2, 0], [1, 1, 1]] * Tensor(w2)).sum()
    y = y + x[Tensor(mask)].sum() + x[..., None][2, 3, 0]
    y.backward()

    def f(v):
        return (
            (v[1:, ::2] * w1).sum() + (v[[0, 2, 0], [1, 1, 1]] * w2).sum() + v[mask].sum() + v[2, 3]
        )

    np.testing.assert_allclose(x.grad, central_gradient(f, x0), atol=1e-7)


def test_small_api_like_torch():
    x = Tensor([[1.0, -2.0, 3.0]], requires_grad=True)
    assert x.size() == (1, 3) and x.size(1) == 3 and x.numel() == 3 and len(x) == 1
    assert x.ndim == 2 and x.dtype == np.float64
    assert abs(x).tolist() == [[1.0, 2.0, 3.0]]
    assert x.argmax(dim=1).data.tolist() == [2]
    assert ((x > 0) == Tensor([[True, False, True]])).data.all()
    assert x.sum().item() == 2.0 and float(x.sum()) == 2.0
    d = x.detach()
    assert not d.requires_grad and d.numpy() is x.detach().numpy()
    with pytest.raises(RuntimeError, match=r"numpy\(\): this tensor requires grad"):
        x.numpy()  # as in PyTorch
    y = x * 2
    assert y.grad_fn.next_functions == (None, None)  # two leaves: x and the constant 2
    assert Tensor([1, 2]).dtype == np.float64  # Python numbers become float64
    assert Tensor(np.array([1, 2])).dtype == np.int64  # numpy arrays keep theirs
    assert Tensor([1, 2], dtype=np.float32).dtype == np.float32


def test_grad_fn_names():
    x = leaf(np.ones((2, 2)))
    assert repr((x @ x).grad_fn) == "<MatmulBackward>"
    assert repr(x.log_softmax(-1).grad_fn) == "<LogSoftmaxBackward>"
    assert (x * 2).sum().grad_fn.next_functions[0].name() == "MulBackward"


FLOAT32_OPS = {
    "elementwise": lambda x: ((x * 2 - 1) / 3) ** 2 + x.exp().log() + x.sigmoid() + x.relu(),
    "matmul": lambda x: x @ x.T,
    "reductions": lambda x: x.sum(axis=0) + x.mean(axis=0) + x.amax(axis=0),
    "shapes": lambda x: x.reshape(-1)[[0, 1, 1]],
    "softmax": lambda x: x.softmax(axis=1) + x.log_softmax(axis=1),
    "join": lambda x: concatenate([x, x]) + stack([x, x]).sum(axis=0).sum(axis=0),
    "trace": lambda x: (x @ x.T).trace(),
    "cross_entropy": lambda x: cross_entropy(x, np.array([0, 1])),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_OPS))
def test_float32_gradients_come_out_float32_without_casting(name):
    x = Tensor(RNG.uniform(0.5, 1.5, size=(2, 2)).astype(np.float32), requires_grad=True)
    y = FLOAT32_OPS[name](x)
    assert y.dtype == np.float32
    seen = set()
    stack_ = [y]
    while stack_:  # every recorded node's vjp, called directly (backward would cast)
        node = stack_.pop()
        if node._fn is None or id(node) in seen:
            continue
        seen.add(id(node))
        xs, needs, static = node._saved
        grads = node._fn.vjp(np.ones_like(node.data), node.data, xs, needs, *static)
        for parent, g in zip(node.parents, grads, strict=True):
            if g is not None:
                assert g.dtype == np.float32, (node.op, g.dtype)
            stack_.append(parent)
