"""User-defined operations: one fused node with its own gradient rule."""

import numpy as np
import pytest

from micrograd_edu import Function, ShapeError, Tensor, freeze, topological_order

RNG = np.random.default_rng(1)


class Linear(Function):
    """Y = X W + b as one node (the YAAD seed's Linear operator)."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return x @ w + b

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad @ w.T, x.T @ grad, grad.sum(axis=0)


class Scale(Function):
    """Multiply by a plain number, which gets no gradient."""

    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x.data * factor  # a numpy array is fine too

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


def params():
    X, W, b = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 2)), RNG.normal(size=2)
    return [Tensor(a, requires_grad=True) for a in (X, W, b)]


def test_fused_linear_matches_composed_operations():
    fused = params()
    composed = [Tensor(p.data.copy(), requires_grad=True) for p in fused]
    G = RNG.normal(size=(5, 2))
    Linear.apply(*fused).backward(G)
    X, W, b = composed
    (X @ W + b).backward(G)
    for f, c in zip(fused, composed, strict=True):
        np.testing.assert_allclose(f.grad, c.grad)
    np.testing.assert_allclose(fused[0].grad, G @ fused[1].data.T)  # the closed form


def test_one_node_named_after_the_class():
    X, W, b = params()
    y = Linear.apply(X, W, b)
    assert y.op == "Linear" and repr(y.grad_fn) == "<LinearBackward>"
    assert y.parents == (X, W, b)
    assert topological_order(y)[-1] is y and len(topological_order(y)) == 4


def test_non_tensor_arguments_and_needs_input_grad():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 3.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad, [3.0, 3.0])

    class Needs(Function):
        @staticmethod
        def forward(ctx, a, b, flag):
            assert ctx.needs_input_grad == (True, False, False)
            return a.data * b.data

        @staticmethod
        def backward(ctx, grad):
            return [grad, None, None]  # a list works too; None for b gives nothing

    a, b = Tensor([2.0], requires_grad=True), Tensor([5.0])
    Needs.apply(a, b, "flag").sum().backward()
    np.testing.assert_allclose(a.grad, [1.0])


def test_saved_tensors_are_freed_after_backward():
    X, W, b = params()
    y = Linear.apply(X, W, b).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_function_inside_a_frozen_step():
    X, W, b = params()

    def loss(X, W, b):
        return (Linear.apply(X, W, b).tanh() ** 2).mean()

    step = freeze(loss, X, W, b)
    assert "Linear" in step.source
    for _ in range(2):
        X2 = Tensor(RNG.normal(size=(5, 3)), requires_grad=True)
        step(X2, W, b)
        got = [X2.grad, W.grad, b.grad]
        X3, W3, b3 = (Tensor(t.data.copy(), requires_grad=True) for t in (X2, W, b))
        loss(X3, W3, b3).backward()
        for g, t in zip(got, (X3, W3, b3), strict=True):
            np.testing.assert_allclose(g, t.grad)
        W.grad = b.grad = None


def test_a_wrong_gradient_names_its_input_counting_from_one():
    class LinearBadBias(Linear):
        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return grad @ w.T, x.T @ grad, grad.sum(axis=1)  # the bias's sum on the wrong axis

    X, W, b = params()
    y = LinearBadBias.apply(X, W, b)
    message = r"LinearBadBias.backward: the gradient for input 3 of 3 has shape \(5,\), "
    with pytest.raises(ShapeError, match=message + r"but input 3 of 3 has shape \(2,\)"):
        y.sum().backward()

    class LinearFloat32Weights(Linear):
        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return grad @ w.T, (x.T @ grad).data.astype(np.float32), grad.sum(axis=0)

    y = LinearFloat32Weights.apply(*params())
    with pytest.raises(TypeError, match=r"gradient for input 2 of 3 has dtype float32"):
        y.sum().backward()
