"""The API a PyTorch user reaches for first, tested against PyTorch (float64) and, where it
is not installed, against central differences of the forward values.

Each case is one expression written once and evaluated twice: with ``T`` bound to
``micrograd_edu.torchlike`` and to ``torch``. Values, dtypes' kinds, shapes and the
gradients of a weighted sum of the result must agree.
"""

import numpy as np
import pytest
from central_differences import central_gradient

import micrograd_edu.torchlike as ours

X = np.sin(np.arange(12.0) * 1.3).reshape(3, 4) + 0.05  # distinct values, no ties
Y = np.cos(np.arange(12.0) * 0.7).reshape(3, 4)

DIFFERENTIABLE = [
    # shapes
    "x.view(4, 3)",
    "x.view(-1)",
    "x.flatten()",
    "x.unsqueeze(0).squeeze(0)",
    "x.unsqueeze(-1)",
    "x[:1].expand(5, 4)",
    "x.repeat(2, 1)",
    "x.split(2, dim=1)[1]",
    "x.split([1, 3], dim=1)[1]",
    "x.chunk(2, dim=0)[0]",
    "x.flip(0)",
    "x.flip(-1, 0)",
    "T.cat([x, y], dim=1)",
    "T.cat([x, y])",
    "T.stack([x, y], dim=-1)",
    "T.matmul(x, y.T)",
    "x.transpose(0, 1)",
    "x.permute(1, 0)",
    "x.reshape(2, 6)",
    "x[1]",
    "x[:, [0, 2]]",
    # maths
    "x.min()",
    "x.amin(dim=1)",
    "x.min(dim=1).values",
    "x.max(dim=0).values",
    "x.max(dim=0, keepdim=True)[0]",
    "T.clamp(x, -0.5, 0.5)",
    "x.clamp(min=0.1)",
    "T.maximum(x, y)",
    "T.minimum(x, y)",
    "T.where(x > 0, x, y)",
    "x.square()",
    "T.log1p(x.abs())",
    "x.var()",
    "x.var(dim=1)",
    "x.var(dim=0, unbiased=False)",
    "x.std(dim=1, keepdim=True)",
    "x.norm()",
    "x.norm(dim=1)",
    "x.prod(dim=1)",
    "x.prod()",
    "x.cumsum(dim=1)",
    "T.logsumexp(x, dim=1)",
    "x.logsumexp(dim=0, keepdim=True)",
    "x.softmax(dim=1)",
    "x.log_softmax(dim=-1)",
    "x.sum(dim=1, keepdim=True)",
    "x.mean(dim=(0, 1))",
    "x.exp().log()",
    "(x * y).sum(dim=-1)",
    "x.float().double()",
    "x.to(T.float64)",
    # losses
    "T.nn.functional.mse_loss(x, y)",
    "T.nn.functional.mse_loss(x, y, reduction='sum')",
    "T.nn.functional.cross_entropy(x, T.tensor([0, 3, 1]))",
    "T.nn.functional.cross_entropy(x * y, T.tensor([2, 2, 0]))",
    "T.nn.functional.cross_entropy(x, T.tensor([0, 3, 0]), "
    "weight=T.tensor([0.5, 1, 2, 3.0], dtype=T.float64))",
    "T.nn.CrossEntropyLoss(weight=T.tensor([2, 1, 1, 0.5], dtype=T.float64), "
    "reduction='sum')(x, T.tensor([0, 3, 3]))",
    "T.nn.CrossEntropyLoss(T.tensor([1, 2, 0.1, 1], dtype=T.float64), "
    "reduction='none')(x, T.tensor([1, 3, 0]))",
    "T.nn.functional.linear(x, y[:2], y[2, :2])",
    "T.nn.functional.leaky_relu(x, 0.2)",
    "T.nn.functional.relu(x - y)",
    "T.nn.functional.softmax(x, dim=0)",
    "T.sigmoid(x).tanh()",
]

VALUES_ONLY = [
    "x.argmin()",
    "x.argmin(dim=1)",
    "x.argmax(dim=0, keepdim=True)",
    "(x > 0).any()",
    "(x > 0).all(dim=1)",
    "(x > 0).any(dim=0)",
    "x.max(dim=1).indices",
    "T.zeros(2, 3)",
    "T.ones((2,))",
    "T.full((2, 2), 7.0)",
    "T.eye(3)",
    "T.eye(2, 3)",
    "T.arange(5)",
    "T.arange(1, 2, 0.25)",
    "T.linspace(0, 1, 5)",
    "T.zeros_like(x)",
    "T.ones_like(x)",
    "T.full_like(x, 2.5)",
    "T.tensor([0, 2, 1])",
    "T.tensor([[1, 2], [3, 4]]) * 2",
    "x[T.tensor([0, 2, 1])]",
    "T.tensor([True, False])",
    "x.float().dtype == T.float32",
    "x.long()",
    "x.to(T.int64)",
]


def _torch():
    return pytest.importorskip("torch")


def _inputs(T, grad):
    kind = {} if T is ours else {"dtype": T.float64}
    return (T.tensor(X, requires_grad=grad, **kind), T.tensor(Y, requires_grad=grad, **kind))


def _evaluate(T, expr, grad=True):
    x, y = _inputs(T, grad)
    out = eval(expr, {"T": T, "x": x, "y": y})
    return x, y, out


def _weights(shape):
    return np.cos(np.arange(int(np.prod(shape))) * 0.9).reshape(shape) + 1.5


@pytest.mark.parametrize("expr", DIFFERENTIABLE)
def test_values_and_gradients_agree_with_pytorch(expr):
    torch = _torch()
    x, y, out = _evaluate(ours, expr)
    tx, ty, tout = _evaluate(torch, expr)
    assert out.shape == tuple(tout.shape)
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    w = _weights(out.shape)
    (out * ours.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    for mine, theirs in ((x, tx), (y, ty)):
        if theirs.grad is None:
            assert mine.grad is None or not mine.grad.data.any()
        else:
            np.testing.assert_allclose(mine.grad.data, theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("expr", [e for e in DIFFERENTIABLE if ".float()" not in e])
def test_gradients_agree_with_central_differences(expr):
    x, y, out = _evaluate(ours, expr)
    w = _weights(out.shape)
    (out * ours.tensor(w)).sum().backward()

    def value(a, b):
        with ours.no_grad():
            result = eval(expr, {"T": ours, "x": ours.tensor(a), "y": ours.tensor(b)})
        return float((result.data * w).sum())

    expected_x = central_gradient(lambda a: value(a, Y), X)
    expected_y = central_gradient(lambda b: value(X, b), Y)
    got_y = np.zeros_like(Y) if y.grad is None else y.grad.data
    np.testing.assert_allclose(x.grad.data, expected_x, atol=1e-6)
    np.testing.assert_allclose(got_y, expected_y, atol=1e-6)


@pytest.mark.parametrize("expr", VALUES_ONLY)
def test_values_agree_with_pytorch(expr):
    torch = _torch()
    torch.set_default_dtype(torch.float64)
    try:
        theirs = _evaluate(torch, expr, grad=False)[2]
    finally:
        torch.set_default_dtype(torch.float32)
    mine = _evaluate(ours, expr, grad=False)[2]
    if isinstance(theirs, bool):
        assert mine is theirs
        return
    theirs = theirs.numpy()
    assert mine.shape == theirs.shape
    assert mine.dtype.kind == theirs.dtype.kind
    np.testing.assert_allclose(mine.data, theirs, rtol=1e-12)


def test_tolist_item_and_iteration_agree_with_pytorch():
    torch = _torch()
    for T in (ours, torch):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64)
        assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert [row.tolist() for row in x] == [[1.0, 2.0], [3.0, 4.0]]
        assert x[1, 0].item() == 3.0 and len(x) == 2


def test_from_numpy_shares_memory_and_manual_seed_repeats():
    a = np.zeros(3)
    t = ours.from_numpy(a)
    a[0] = 5.0
    assert t[0].item() == 5.0
    ours.manual_seed(3)
    first = ours.randn(4).tolist() + ours.rand(2).tolist()
    ours.manual_seed(3)
    assert ours.randn(4).tolist() + ours.rand(2).tolist() == first
    assert ours.randn_like(ours.zeros(2, 3)).shape == (2, 3)
    assert ours.rand_like(ours.zeros(5)).data.min() >= 0


def _second(T, expr, grad):
    """The gradient of v·∇(w·f) with respect to (x, y): a Hessian-vector product."""
    x, y, out = _evaluate(T, expr)
    s = (out * T.tensor(_weights(tuple(out.shape)))).sum()
    gx, gy = grad(s, [x, y], create_graph=True, allow_unused=True)
    h = sum((g * T.tensor(_weights(tuple(g.shape)) - 1)).sum() for g in (gx, gy) if g is not None)
    if not getattr(h, "requires_grad", False):
        return None  # f is linear: no second derivative
    second = grad(h, [x, y], allow_unused=True)
    return [np.zeros(X.shape) if g is None else g.detach().numpy() for g in second]


@pytest.mark.parametrize("expr", [e for e in DIFFERENTIABLE if ".float()" not in e])
def test_second_derivatives_agree_with_pytorch(expr):
    torch = _torch()
    theirs = _second(torch, expr, torch.autograd.grad)
    mine = _second(ours, expr, ours.autograd.grad)
    if theirs is None or mine is None:
        assert mine is None or not any(np.any(g) for g in mine)
        assert theirs is None or not any(np.any(g) for g in theirs)
        return
    for a, b in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
