"""Property tests: random broadcast shapes against central differences, PyTorch as an
optional extra oracle, the graph protocol, and no memory growth over many steps."""

import gc
import tracemalloc

import numpy as np
import pytest
from central_differences import central_gradient
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_edu import Tensor, topological_order
from micrograd_edu.tensor import cross_entropy, mse_loss

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}


@st.composite
def broadcast_pair(draw):
    """A result shape and two input shapes that broadcast to it: each input drops
    some leading axes and turns some axes into 1."""
    result = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))

    def operand():
        dropped = draw(st.integers(0, len(result)))
        return tuple(1 if draw(st.booleans()) else n for n in result[dropped:])

    return operand(), operand()


@settings(max_examples=40, deadline=None)
@given(broadcast_pair(), st.sampled_from(sorted(BINARY)), st.integers(0, 2**31))
def test_broadcast_gradients_match_central_differences(shapes, name, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes
    a0, b0 = rng.uniform(0.5, 2.0, size=sa), rng.uniform(0.5, 2.0, size=sb)
    fn = BINARY[name]
    w = rng.normal(size=np.broadcast_shapes(sa, sb))
    a, b = Tensor(a0, requires_grad=True), Tensor(b0, requires_grad=True)
    (fn(a, b) * Tensor(w)).sum().backward()
    assert a.grad.shape == sa and b.grad.shape == sb
    np.testing.assert_allclose(
        a.grad, central_gradient(lambda v: (fn(v, b0) * w).sum(), a0), 1e-5, 1e-7
    )
    np.testing.assert_allclose(
        b.grad, central_gradient(lambda v: (fn(a0, v) * w).sum(), b0), 1e-5, 1e-7
    )


@st.composite
def reduction_case(draw):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    axes = draw(st.sets(st.integers(0, len(shape) - 1)))
    axis = None if not axes else (sorted(axes)[0] - len(shape) if len(axes) == 1 else tuple(axes))
    return shape, axis, draw(st.booleans()), draw(st.sampled_from(["sum", "mean", "amax"]))


@settings(max_examples=40, deadline=None)
@given(reduction_case(), st.integers(0, 2**31))
def test_reductions_match_central_differences(case, seed):
    shape, axis, keepdims, name = case
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=shape)  # distinct entries: max has no ties
    out_shape = getattr(np, name)(x0, axis=axis, keepdims=keepdims).shape
    w = rng.normal(size=out_shape)
    x = Tensor(x0, requires_grad=True)
    (getattr(x, name)(axis=axis, keepdims=keepdims) * Tensor(w)).sum().backward()

    def f(v):
        return (getattr(np, name)(v, axis=axis, keepdims=keepdims) * w).sum()

    np.testing.assert_allclose(x.grad, central_gradient(f, x0), rtol=1e-5, atol=1e-7)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(1, 3), min_size=0, max_size=2),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 3),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**31),
)
def test_matmul_shapes_match_central_differences(batch, n, k, m, vec_left, vec_right, seed):
    rng = np.random.default_rng(seed)
    sa = (k,) if vec_left else (*batch, n, k)
    sb = (k,) if vec_right else (k, m)
    a0, b0 = rng.normal(size=sa), rng.normal(size=sb)
    w = rng.normal(size=np.shape(a0 @ b0))
    a, b = Tensor(a0, requires_grad=True), Tensor(b0, requires_grad=True)
    ((a @ b) * Tensor(w)).sum().backward()
    np.testing.assert_allclose(
        a.grad, central_gradient(lambda v: ((v @ b0) * w).sum(), a0), 1e-5, 1e-8
    )
    np.testing.assert_allclose(
        b.grad, central_gradient(lambda v: ((a0 @ v) * w).sum(), b0), 1e-5, 1e-8
    )


def test_graph_protocol_for_diagrams():
    x = Tensor([1.0, 2.0], requires_grad=True, label="x")
    y = (x * 2).sum()
    y.label = "y"
    order = topological_order(y)
    assert order[0] is x and order[-1] is y
    assert [n.op for n in order] == ["", "", "mul", "sum"]  # the constant 2 is a node too
    y.backward()
    assert x.grad is not None and x.label == "x" and y.data.shape == ()


def test_torch_agrees_on_a_classifier():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    X, targets = rng.normal(size=(7, 4)), rng.integers(0, 3, size=7)
    W1, b1, W2 = rng.normal(size=(4, 5)), rng.normal(size=5), rng.normal(size=(5, 3))

    def model(lib_X, p, relu, ce, largest):
        h = relu(lib_X @ p[0] + p[1])
        logits = h @ p[2]
        extra = (logits.softmax(1)[:, 0] * largest(logits)[:, 0]).mean()
        return ce(logits) + extra + (p[0][1:3, ::2] ** 2).sum() + logits.log_softmax(1).mean()

    ours = [Tensor(a, requires_grad=True) for a in (W1, b1, W2)]
    value = model(
        Tensor(X),
        ours,
        lambda t: t.tanh(),
        lambda z: cross_entropy(z, targets),
        lambda z: z.amax(axis=1, keepdims=True),
    )
    value.backward()
    theirs = [torch.tensor(a, requires_grad=True) for a in (W1, b1, W2)]

    def torch_ce(z):
        return torch.nn.functional.cross_entropy(z, torch.tensor(targets))

    expected = model(
        torch.tensor(X), theirs, torch.tanh, torch_ce, lambda z: z.amax(1, keepdim=True)
    )
    expected.backward()
    assert value.item() == pytest.approx(expected.item(), rel=1e-12)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.grad, b.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_torch_agrees_on_mse_and_matmul_cases():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    a0, b0, v0 = rng.normal(size=(3, 2, 4)), rng.normal(size=(4, 5)), rng.normal(size=4)
    target = rng.normal(size=(3, 2, 5))
    ours = [Tensor(x, requires_grad=True) for x in (a0, b0, v0)]
    theirs = [torch.tensor(x, requires_grad=True) for x in (a0, b0, v0)]
    (mse_loss(ours[0] @ ours[1], Tensor(target)) + (ours[0] @ ours[2]).sum()).backward()
    F = torch.nn.functional
    (
        F.mse_loss(theirs[0] @ theirs[1], torch.tensor(target)) + (theirs[0] @ theirs[2]).sum()
    ).backward()
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.grad, b.grad.numpy(), rtol=1e-12)


def test_no_memory_growth_over_ten_thousand_steps():
    rng = np.random.default_rng(5)
    x, y = Tensor(rng.normal(size=(8, 2))), Tensor(rng.normal(size=(8, 1)))
    W1 = Tensor(rng.normal(size=(2, 4)), requires_grad=True)
    W2 = Tensor(rng.normal(size=(4, 1)), requires_grad=True)

    def step():
        loss = mse_loss((x @ W1).tanh() @ W2, y)
        loss.backward()
        for p in (W1, W2):
            p.data -= 0.01 * p.grad
            p.grad = None

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(10_000):
            step()
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert growth < 50_000, f"memory grew by {growth} bytes over 10,000 steps"
