import copy

import numpy as np
import pytest
from central_differences import central_gradient
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_edu import nn
from micrograd_edu.tensor import Tensor, mse_loss
from micrograd_edu.tensor.modes import no_grad


def upstream_loss(y: Tensor, g: np.ndarray) -> Tensor:
    """sum(Y * G): its gradient with respect to Y is exactly G."""
    return (y * Tensor(g)).sum()


@settings(max_examples=25, deadline=None)
@given(
    rows=st.integers(1, 6),
    n_in=st.integers(1, 5),
    n_out=st.integers(1, 5),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_linear_matches_the_closed_forms_for_any_shape(rows, n_in, n_out, bias, seed):
    rng = np.random.default_rng(seed)
    layer = nn.Linear(n_in, n_out, bias=bias, seed=rng)
    X = Tensor(rng.normal(size=(rows, n_in)), requires_grad=True)
    G = rng.normal(size=(rows, n_out))
    upstream_loss(layer(X), G).backward()
    W = layer.weight.data
    assert np.allclose(X.grad, G @ W, rtol=1e-12, atol=1e-14)
    assert np.allclose(layer.weight.grad, G.T @ X.data, rtol=1e-12, atol=1e-14)
    if bias:
        assert np.allclose(layer.bias.grad, G.sum(axis=0), rtol=1e-12, atol=1e-14)


def test_linear_treats_leading_axes_as_more_rows():
    rng = np.random.default_rng(5)
    layer = nn.Linear(4, 3, seed=0)
    x = rng.normal(size=(2, 5, 4))
    G = rng.normal(size=(2, 5, 3))
    X = Tensor(x, requires_grad=True)
    upstream_loss(layer(X), G).backward()
    rows, G_rows = x.reshape(10, 4), G.reshape(10, 3)
    assert np.allclose(layer.weight.grad, G_rows.T @ rows, rtol=1e-13)
    assert np.allclose(layer.bias.grad, G_rows.sum(axis=0), rtol=1e-13)
    assert np.allclose(X.grad, G @ layer.weight.data, rtol=1e-13)
    no_bias = nn.Linear(4, 3, bias=False, seed=0)
    assert np.allclose(no_bias(Tensor(x)).data, x @ no_bias.weight.data.T, rtol=1e-14)


def test_linear_gradients_match_central_differences():
    rng = np.random.default_rng(2)
    layer = nn.Linear(3, 2, seed=3)
    x = rng.normal(size=(4, 3))
    y = rng.normal(size=(4, 2))

    def loss() -> float:
        with no_grad():
            return float(mse_loss(layer(Tensor(x)).tanh(), Tensor(y)).data)

    def loss_with(p, values) -> float:
        saved = p.data.copy()
        p.data[...] = values
        value = loss()
        p.data[...] = saved
        return value

    mse_loss(layer(Tensor(x)).tanh(), Tensor(y)).backward()
    for p in layer.parameters():
        numeric = central_gradient(lambda v, p=p: loss_with(p, v), p.data)
        np.testing.assert_allclose(p.grad, numeric, rtol=1e-6, atol=1e-9)


def test_linear_default_init_is_pytorchs_uniform_and_seeded():
    layer = nn.Linear(100, 50, seed=0)
    bound = 1 / np.sqrt(100)
    for p in (layer.weight, layer.bias):
        assert np.abs(p.data).max() <= bound and np.abs(p.data).max() > 0.9 * bound
    assert layer.weight.shape == (50, 100) and layer.bias.shape == (50,)
    assert np.array_equal(layer.weight.data, nn.Linear(100, 50, seed=0).weight.data)
    assert nn.Linear(3, 2, bias=False, seed=0).bias is None


def test_activations_apply_their_functions():
    x = np.linspace(-3, 3, 7)
    assert np.allclose(nn.ReLU()(Tensor(x)).data, np.maximum(x, 0))
    assert np.allclose(nn.Tanh()(Tensor(x)).data, np.tanh(x))
    assert np.allclose(nn.Sigmoid()(Tensor(x)).data, 1 / (1 + np.exp(-x)))


class Net2(nn.Module):
    def __init__(self, seed=0):
        super().__init__()
        self.layer0 = nn.Linear(4, 3, seed=seed)
        self.act = nn.ReLU()
        self.layer1 = nn.Linear(3, 1, seed=seed + 1)

    def forward(self, x):
        return self.layer1(self.act(self.layer0(x)))


def test_module_tree_names_and_order():
    net = nn.Sequential(nn.Linear(4, 3, seed=0), nn.ReLU(), nn.Linear(3, 1, seed=1))
    assert [n for n, _ in net.named_modules()] == ["", "0", "1", "2"]
    assert [n for n, _ in net.named_children()] == ["0", "1", "2"]
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert list(net.modules())[0] is net and list(net.children())[1] is net[1]
    net2 = Net2()
    assert [n for n, _ in net2.named_modules()] == ["", "layer0", "act", "layer1"]
    assert list(net2.state_dict()) == [
        "layer0.weight",
        "layer0.bias",
        "layer1.weight",
        "layer1.bias",
    ]
    nested = nn.Sequential(Net2(), nn.ModuleList([nn.Tanh(), nn.Linear(1, 1, seed=0)]))
    assert [n for n, _ in nested.named_modules()] == [
        "",
        "0",
        "0.layer0",
        "0.act",
        "0.layer1",
        "1",
        "1.0",
        "1.1",
    ]
    assert [n for n, _ in nested.named_parameters()][-2:] == ["1.1.weight", "1.1.bias"]


def test_a_shared_module_is_listed_once():
    shared = nn.Linear(2, 2, seed=0)
    net = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(net.parameters())) == 2
    assert [n for n, _ in net.named_modules()] == ["", "0", "1"]


def test_module_tree_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours = nn.Sequential(nn.Linear(4, 3, seed=0), nn.ReLU(), nn.Linear(3, 1, seed=1))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))

    class TorchNet2(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer0 = torch.nn.Linear(4, 3)
            self.act = torch.nn.ReLU()
            self.layer1 = torch.nn.Linear(3, 1)

    for a, b in ((ours, theirs), (Net2(), TorchNet2())):
        assert [n for n, _ in a.named_modules()] == [n for n, _ in b.named_modules()]
        assert [(n, p.shape) for n, p in a.named_parameters()] == [
            (n, tuple(p.shape)) for n, p in b.named_parameters()
        ]
        assert repr(a).replace("Net2", "TorchNet2") == repr(b)
    # PyTorch's own weights, loaded into ours, give PyTorch's outputs. load_state_dict
    # copies into the parameters (as PyTorch's), so ours stay float64: float32's precision.
    ours.load_state_dict(theirs.state_dict())
    assert ours[0].weight.dtype == np.float64
    x = torch.randn(5, 4)
    assert np.allclose(ours(Tensor(x.numpy())).data, theirs(x).detach().numpy(), rtol=1e-5)
    nested_ours = nn.Sequential(Net2(), nn.ModuleList([nn.Tanh(), nn.Sigmoid()]))
    nested_theirs = torch.nn.Sequential(
        TorchNet2(), torch.nn.ModuleList([torch.nn.Tanh(), torch.nn.Sigmoid()])
    )
    assert repr(nested_ours).replace("Net2", "TorchNet2") == repr(nested_theirs)


def test_outputs_and_gradients_match_pytorch_from_the_same_weights():
    torch = pytest.importorskip("torch")
    ours = Net2(seed=4)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    theirs = theirs.double()
    renamed = {
        k.replace("layer0", "0").replace("layer1", "2"): v for k, v in ours.state_dict().items()
    }
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in renamed.items()})
    x = np.random.default_rng(0).normal(size=(6, 4))
    y = np.random.default_rng(1).normal(size=(6, 1))
    mse_loss(ours(Tensor(x)), Tensor(y)).backward()
    torch.nn.functional.mse_loss(theirs(torch.from_numpy(x)), torch.from_numpy(y)).backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters(), strict=True):
        assert np.allclose(p.grad, q.grad.numpy(), rtol=1e-12, atol=1e-15), name


def test_requires_grad_false_freezes_a_layer():
    net = nn.Sequential(nn.Linear(2, 3, seed=0), nn.ReLU(), nn.Linear(3, 1, seed=1))
    net[0].requires_grad_(False)
    assert [p.requires_grad for p in net.parameters()] == [False, False, True, True]
    x = np.random.default_rng(0).normal(size=(5, 2))
    net(Tensor(x)).sum().backward()
    assert net[0].weight.grad is None and net[0].bias.grad is None
    assert net[2].weight.grad is not None and net[2].bias.grad is not None
    net.requires_grad_(True)
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net(Tensor(x)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())


def test_train_and_eval_set_the_flag_everywhere():
    net = nn.Sequential(Net2(), nn.ReLU())
    assert all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_state_dict_round_trip():
    a, b = Net2(seed=0), Net2(seed=10)
    x = Tensor(np.random.default_rng(0).normal(size=(3, 4)))
    assert not np.allclose(a(x).data, b(x).data)
    weight = b.layer0.weight.detach().numpy()
    state = a.state_dict()
    b.load_state_dict(state)
    assert np.array_equal(a(x).data, b(x).data)
    assert b.layer0.weight.detach().numpy() is weight  # loaded in place
    snapshot = copy.deepcopy(state)
    state["layer0.weight"][0, 0] += 1.0  # the state shares the values, as PyTorch's does
    assert a.layer0.weight.data[0, 0] == state["layer0.weight"][0, 0]
    assert snapshot["layer0.weight"][0, 0] == state["layer0.weight"][0, 0] - 1.0
    b.load_state_dict(snapshot)
    assert b.layer0.weight.data[0, 0] == snapshot["layer0.weight"][0, 0]


def test_load_state_dict_names_every_problem():
    net = Net2()
    state = net.state_dict()
    del state["layer1.bias"]
    state["layer2.weight"] = np.zeros(1)
    state["layer0.weight"] = np.zeros((4, 3))
    with pytest.raises(ValueError) as error:
        net.load_state_dict(state)
    message = str(error.value)
    assert "missing keys ['layer1.bias']" in message
    assert "unexpected keys ['layer2.weight']" in message
    assert (
        "shape mismatch for 'layer0.weight': the model has (3, 4), the state has (4, 3)" in message
    )
    state["layer0.weight"] = np.ones((3, 4))
    net.load_state_dict(state, strict=False)  # only shapes are checked
    assert np.array_equal(net.layer0.weight.data, np.ones((3, 4)))


def test_sequential_and_module_list_behave_like_lists():
    a, b, c = nn.Linear(2, 2, seed=0), nn.ReLU(), nn.Linear(2, 1, seed=1)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and seq[0] is a and seq[-1] is c and list(seq) == [a, b, c]
    assert isinstance(seq[1:], nn.Sequential) and list(seq[1:]) == [b, c]
    assert list(nn.Sequential([a, b])) == [a, b]
    x = Tensor(np.ones((1, 2)))
    assert np.array_equal(seq(x).data, c(b(a(x))).data)
    layers = nn.ModuleList().append(a).extend([c])
    assert [n for n, _ in layers.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    with pytest.raises(IndexError, match="index 5 is out of range for 3 modules"):
        seq[5]
    with pytest.raises(TypeError, match="Sequential: indices must be ints or slices, got 'a'"):
        seq["a"]
    with pytest.raises(TypeError, match="ModuleList: expected a Module, got int"):
        layers.append(3)


def test_reassigning_an_attribute_replaces_it():
    net = Net2()
    net.layer0 = nn.Linear(4, 3, seed=5)
    net.act = None
    assert [n for n, _ in net.named_modules()] == ["", "layer0", "layer1"]
    assert net.act is None
    del net.layer1
    assert [n for n, _ in net.named_modules()] == ["", "layer0"]


def test_mistakes_get_clear_errors():
    class Forgot(nn.Module):
        def __init__(self):
            self.layer = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match=r"call super\(\).__init__\(\) first"):
        Forgot()
    with pytest.raises(NotImplementedError, match="Module has no forward"):
        nn.Module()(1)
    with pytest.raises(
        ValueError, match=r"last dimension must equal in_features, got shape \(2, 3\)"
    ):
        nn.Linear(4, 1, seed=0)(Tensor(np.ones((2, 3))))
    with pytest.raises(ValueError, match="in_features must be a positive int, got 0"):
        nn.Linear(0, 1)
    with pytest.raises(AttributeError, match="'Net2' object has no attribute 'layer9'"):
        _ = Net2().layer9
    with pytest.raises(TypeError, match="mode must be a bool"):
        Net2().train("no")
