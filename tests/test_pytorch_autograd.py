"""autograd.grad, create_graph, hooks, the modes and PyTorch's documented semantics (issue 14),
against central differences and closed forms, and PyTorch where it is installed."""

import numpy as np
import pytest
from central_differences import central_gradient

import micrograd_edu.torchlike as T
from micrograd_edu import nn
from micrograd_edu.tensor.backward import grad


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def f_numpy(x):
    return np.sum(np.tanh(x) ** 2 * x[::-1]) + np.prod(x[:2])


def f_tensor(x):
    return (x.tanh() ** 2 * x.flip(0)).sum() + x[:2].prod()


X = np.array([0.3, -0.8, 1.1, 0.5])
V = np.array([1.0, -2.0, 0.5, 0.25])


def test_a_hessian_vector_product_by_create_graph():
    x = T.tensor(X, requires_grad=True)
    (g,) = grad(f_tensor(x), x, create_graph=True)
    np.testing.assert_allclose(g.data, central_gradient(f_numpy, X), atol=1e-8)
    (g * T.tensor(V)).sum().backward()

    def directional(x):
        return central_gradient(f_numpy, x, h=1e-5) @ V

    np.testing.assert_allclose(x.grad.data, central_gradient(directional, X, h=1e-4), atol=1e-5)
    if torch := _torch():
        tx = torch.tensor(X, requires_grad=True)
        (tg,) = torch.autograd.grad(f_tensor(tx), tx, create_graph=True)
        (tg * torch.tensor(V)).sum().backward()
        np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)


def test_backward_with_create_graph_then_a_gradient_penalty():
    w = T.tensor([0.5, -1.5], requires_grad=True)
    x = T.tensor([2.0, 3.0], requires_grad=True)
    (w * x * x).sum().backward(create_graph=True)  # x.grad = 2 w x, recorded
    penalty = (x.grad**2).sum()  # 4 Σ w² x²
    w.grad = None
    penalty.backward()
    np.testing.assert_allclose(w.grad.data, 8 * w.data * x.data**2)


def test_grad_takes_grad_outputs_allow_unused_and_leaves_grad_alone():
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([3.0], requires_grad=True)
    y = a * 3
    (ga,) = grad(y, a, grad_outputs=T.tensor([1.0, 10.0]), retain_graph=True)
    assert ga.tolist() == [3.0, 30.0] and a.grad is None
    with pytest.raises(RuntimeError, match="allow_unused"):
        grad(y.sum(), [a, b], retain_graph=True)
    assert grad(y.sum(), [a, b], allow_unused=True)[1] is None


def test_hooks_see_and_replace_the_gradient_and_can_be_removed():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.tolist()) or g * 2)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]] and x.grad.tolist() == [6.0, 6.0]
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    h = x * 1
    h.register_hook(lambda g: g * 0)
    (h * 5).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]  # the hook on h zeroed what reached x


def test_set_grad_enabled_and_bare_no_grad():
    w = T.tensor([1.0], requires_grad=True)
    with T.set_grad_enabled(False):
        assert not (w * 2).requires_grad
    with T.set_grad_enabled(True):
        assert (w * 2).requires_grad

    @T.no_grad
    def step():
        return w * 2

    assert not step().requires_grad and T.is_grad_enabled()


def test_inference_mode_follows_pytorchs_rule():
    w = T.tensor([2.0], requires_grad=True)
    with T.inference_mode():
        inf = T.tensor([3.0]) * 1
        with T.enable_grad():
            assert not (w * 2).requires_grad  # enable_grad does not reach inside
            assert not T.is_grad_enabled()
    assert (inf + w).requires_grad  # add does not save its inputs: allowed
    with pytest.raises(RuntimeError, match="inference"):
        inf * w  # mul saves inf for backward
    with pytest.raises(RuntimeError, match="inference"):
        inf.add_(1.0)  # no in-place change of an inference tensor outside
    if torch := _torch():
        tw = torch.tensor([2.0], requires_grad=True)
        with torch.inference_mode():
            tinf = torch.tensor([3.0]) * 1
        assert (tinf + tw).requires_grad
        with pytest.raises(RuntimeError):
            tinf * tw


@pytest.mark.parametrize("method", ["sum", "mean", "amax", "amin", "prod", "logsumexp"])
@pytest.mark.parametrize("dim", [0, -1])
def test_reductions_of_a_0d_tensor_accept_dim_0_and_minus_1(method, dim):
    x = T.tensor(2.5, requires_grad=True)
    y = getattr(x, method)(dim=dim)
    assert y.shape == ()
    y.backward()
    assert x.grad.item() == pytest.approx(1.0)
    if torch := _torch():
        assert getattr(torch.tensor(2.5), method)(dim=dim).shape == ()


def test_the_mean_of_nothing_is_nan():
    assert np.isnan(T.zeros(0).mean().item())
    if torch := _torch():
        assert torch.zeros(0).mean().isnan()


def test_float32_with_float64_follows_numpy_promotion_as_documented():
    # Kept on purpose (README, Tensor paragraph): numpy promotes, PyTorch keeps the
    # tensor's float32 when the float64 operand is a 0-d tensor or a number.
    a, b = T.ones(2, dtype=T.float32), T.ones(2)
    assert (a + b).dtype == np.float64
    assert (a * 2.0).dtype == np.float32  # a Python number takes the tensor's dtype


def test_a_tied_weight_keeps_both_names_in_state_dict():
    enc, dec = nn.Linear(3, 2, seed=0), nn.Linear(2, 3, seed=1)
    net = nn.Sequential(enc, dec)
    dec.weight = nn.Parameter(enc.weight.data.T.copy())
    net[1].weight = net[0].weight  # tie
    state = net.state_dict()
    assert {"0.weight", "1.weight"} <= set(state)
    assert len(list(net.parameters())) == 3  # listed once, as in PyTorch
    if torch := _torch():
        tnet = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 3))
        tnet[1].weight = tnet[0].weight
        assert {"0.weight", "1.weight"} <= set(tnet.state_dict())
        assert len(list(tnet.parameters())) == 3
