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


def _pair(values):
    """The same leaf in both engines (PyTorch's only where it is installed)."""
    ours = T.tensor(values, requires_grad=True)
    torch = _torch()
    theirs = None if torch is None else torch.tensor(values, requires_grad=True)
    return ours, theirs


# clamp(x, low, high) = min(max(x, low), high) with tensor bounds: away from ties the
# gradient is the derivative (central differences); at ties it is PyTorch's choice.
CLAMP_X = np.array([[1.0, 5.0, 3.1, 2.2, 4.0, -0.5]])
CLAMP_LOW = np.array([[2.05], [2.5]])  # broadcasts to (2, 6)
CLAMP_HIGH = np.array([2.3, 2.1, 3.5, 1.5, 4.5, 0.3])


def test_clamp_with_tensor_bounds_broadcasts_and_sends_each_entry_its_gradient():
    weights = np.arange(1.0, 13.0).reshape(2, 6)
    far = np.full((1, 6), 1e9)  # a bound that is not there

    def f_numpy(x, low, high):
        return np.sum(np.minimum(np.maximum(x, low), high) * weights)

    for lo, hi in ((CLAMP_LOW, None), (None, CLAMP_HIGH), (CLAMP_LOW + 0.25, CLAMP_HIGH + 1.0)):
        x = T.tensor(CLAMP_X, requires_grad=True)
        low = None if lo is None else T.tensor(lo, requires_grad=True)
        high = None if hi is None else T.tensor(hi, requires_grad=True)
        (x.clamp(min=low, max=high) * T.tensor(weights)).sum().backward()
        point = [CLAMP_X, -far if lo is None else lo, far if hi is None else hi]
        for i, t in enumerate((x, low, high)):
            if t is not None:  # no ties here: the derivative exists

                def f(v, i=i, point=point):
                    return f_numpy(*point[:i], v, *point[i + 1 :])

                np.testing.assert_allclose(t.grad.data, central_gradient(f, point[i]), atol=1e-6)


#: PyTorch 2.13's defect: with two tensor bounds whose shapes broadcast with the input's to
#: different shapes, clamp computes but its backward raises from an in-place logical_and_ in
#: its own derivative formula. The program is valid (the same clamp with the bounds expanded
#: to the result's shape differentiates), so torchlike computes it; the torchlike fuzzer
#: lists such programs as PyTorch's defect (test_torchlike_fuzz.PYTORCH_DEFECTS).
CLAMP_DEFECT = "doesn't match the broadcast shape"


def _clamp_second_order(lib, x, low, high, weights):
    """First derivatives (with a graph) and a Hessian-vector product of a clamp's sum."""
    out = (x.clamp(min=low, max=high).sigmoid() * weights).sum()
    first = lib.autograd.grad(out, [x, low, high], create_graph=True)
    s = sum((g * g).sum() for g in first)
    return first, lib.autograd.grad(s, [x, low, high], allow_unused=True)


@pytest.mark.parametrize(
    "shapes", [((3, 4), (3, 1), (1, 3, 4)), ((1, 4), (3, 1), (1, 4)), ((1, 6), (2, 1), (6,))]
)
def test_clamp_with_bounds_broadcasting_apart_computes_where_pytorch_raises(shapes):
    rng = np.random.default_rng(5)
    arrays = [rng.uniform(-1.5, 1.5, s) for s in shapes]
    arrays[1] -= 0.5
    arrays[2] += 0.5
    full = np.broadcast_shapes(*shapes)
    weights = rng.uniform(-1, 1, full)
    x, low, high = (T.tensor(a, requires_grad=True) for a in arrays)
    first, second = _clamp_second_order(T, x, low, high, T.tensor(weights))

    def f(i, v):  # the sum as a function of input i, in numpy
        point = [*arrays[:i], v, *arrays[i + 1 :]]
        clamped = np.minimum(np.maximum(point[0], point[1]), point[2])
        return np.sum(weights / (1 + np.exp(-clamped)))

    for i, g in enumerate(first):
        np.testing.assert_allclose(g.data, central_gradient(lambda v, i=i: f(i, v), arrays[i]))
    if (torch := _torch()) is None:
        return
    tx, tlow, thigh = (torch.tensor(a, requires_grad=True) for a in arrays)
    with pytest.raises(RuntimeError, match=CLAMP_DEFECT):  # still PyTorch's defect?
        _clamp_second_order(torch, tx, tlow, thigh, torch.tensor(weights))
    # PyTorch with the bounds expanded to the result's shape: the same function.
    expanded = (tlow.expand(full), thigh.expand(full))
    out = (tx.clamp(*expanded).sigmoid() * torch.tensor(weights)).sum()
    t_first = torch.autograd.grad(out, [tx, tlow, thigh], create_graph=True)
    t_second = torch.autograd.grad(sum((g * g).sum() for g in t_first), [tx, tlow, thigh])
    for mine, theirs in zip(first + tuple(second), t_first + t_second, strict=True):
        np.testing.assert_allclose(mine.data, theirs.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_clamp_ties_and_crossed_bounds_follow_pytorch():
    # x on a bound goes to x; low == high above x sends nothing; high below low wins.
    x, tx = _pair([1.0, 5.0, 3.0, 2.0, 4.0, 2.0])
    low, tlow = _pair([2.0, 2.0, 3.0, 2.0, 5.0, 2.0])
    high, thigh = _pair([2.0, 2.0, 3.0, 1.5, 4.5, 3.0])
    x.clamp(min=low, max=high).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    assert low.grad.tolist() == [0.0] * 6
    assert high.grad.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    if tx is not None:
        tx.clamp(min=tlow, max=thigh).sum().backward()
        for ours, theirs in ((x, tx), (low, tlow), (high, thigh)):
            np.testing.assert_array_equal(ours.grad.data, theirs.grad.numpy())


def _off_path_program(x, y):
    far = (y * y).sum()  # reaches y only
    return far + (x * 3.0).sum(), far


@pytest.mark.parametrize("call", ["grad", "backward(inputs=)"])
def test_only_what_leads_to_the_requested_inputs_runs(call):
    # As in PyTorch: a hook off the path to the inputs does not fire, and neither does
    # a hook on a leaf that was not asked for; retained gradients on the path are kept.
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = T.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    loss, far = _off_path_program(x, y)
    far.register_hook(lambda g: seen.append("far"))
    y.register_hook(lambda g: seen.append("y"))
    inner = x * 1.0
    inner.retain_grad()
    loss = loss + inner.sum()
    if call == "grad":
        (gx,) = grad(loss, [x])
        np.testing.assert_array_equal(gx.data, [4.0, 4.0])
        assert x.grad is None
    else:
        loss.backward(inputs=[x])
        np.testing.assert_array_equal(x.grad.data, [4.0, 4.0])
    assert seen == [] and y.grad is None
    np.testing.assert_array_equal(inner.grad.data, [1.0, 1.0])
    far.backward()  # what did not run kept its saved values
    np.testing.assert_array_equal(y.grad.data, [6.0, 8.0])
    assert seen == ["far", "y"]


CONSTANT_SLOPES = {  # ours, PyTorch's (which has no step)
    "sign and step": (lambda t: (t.sign() + t.step()).sum(), lambda t: (t.sign() * 2).sum()),
    "a power 0": (lambda t: (t**0).sum(), lambda t: (t**0).sum()),
    "the product of a 0-d tensor": (lambda t: t[0].prod(0), lambda t: t[0].prod(0)),
}


@pytest.mark.parametrize("name", CONSTANT_SLOPES)
def test_a_constant_derivative_is_tied_to_nothing(name):
    # Even under create_graph such a gradient records nothing, as in PyTorch, so no later
    # pass reaches x through it (and no hook on x fires).
    ours, theirs = CONSTANT_SLOPES[name]
    x, tx = _pair([0.5, -2.0])
    (g,) = grad(ours(x), x, create_graph=True)
    assert not g.requires_grad
    if tx is not None:
        (tg,) = _torch().autograd.grad(theirs(tx), tx, create_graph=True)
        assert not tg.requires_grad


def _leaky_relu_hessian_with_hook(lib, x):
    """A Hessian-vector product through leaky_relu, with a hook on x that shifts what it
    sees: the second pass reaches x only through leaky_relu's backward (with zeros)."""
    seen = []
    x.register_hook(lambda g: seen.append(g.detach().clone()) or g * -1.0 - 0.5)
    out = lib.nn.functional.leaky_relu(x, 0.2).sum()
    (g,) = lib.autograd.grad(out, [x], create_graph=True)
    (h,) = lib.autograd.grad((g * g).sum(), [x])
    return [s.tolist() for s in seen], g.tolist(), h.tolist()


def test_leaky_relus_second_derivative_reaches_its_input_with_zeros():
    seen, g, h = _leaky_relu_hessian_with_hook(T, T.tensor([0.84, -0.3], requires_grad=True))
    # The hook sees the slopes 1 and 0.2 and returns -slope - 0.5; in the second pass it sees
    # the zeros leaky_relu's backward sends x (PyTorch's ``self: zeros_like(grad)``).
    assert seen == [[1.0, 0.2], [0.0, 0.0]]
    assert g == pytest.approx([-1.5, -0.7]) and h == [-0.5, -0.5]
    if torch := _torch():
        x = torch.tensor([0.84, -0.3], dtype=torch.float64, requires_grad=True)
        assert (seen, g, h) == _leaky_relu_hessian_with_hook(torch, x)


#: PyTorch 2.13's defect: var/std over ``dim=[]`` or ``dim=()`` reduce every dim, as documented,
#: but their backward counts one entry, so the gradient is inf (and nan where multiplied by 0).
#: torchlike gives the gradient of the same function, var() over every dim; the torchlike fuzzer
#: lists such programs as PyTorch's defect (test_torchlike_fuzz.PYTORCH_DEFECTS).
@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dim", [[], ()])
def test_var_over_no_dims_has_the_gradient_of_var_over_every_dim(name, dim):
    values = np.array([[-0.65, 0.16, -0.21, 0.91], [0.3, -1.2, 0.05, 0.4]])
    x = T.tensor(values, requires_grad=True)
    out = getattr(x, name)(dim=dim)
    out.backward()
    spread = getattr(np, name)
    assert out.item() == pytest.approx(spread(values, ddof=1))
    want = central_gradient(lambda a: spread(a, ddof=1), values)
    np.testing.assert_allclose(x.grad.data, want, atol=1e-8)
    if torch := _torch():
        tx = torch.tensor(values, requires_grad=True)
        getattr(tx, name)(dim=dim).backward()
        assert torch.isinf(tx.grad).all(), "PyTorch's defect is gone: drop it from the fuzzer"
        tx.grad = None
        getattr(tx, name)().backward()
        np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)
