"""nn's layers and containers and optim's optimisers, groups, state and schedules, step for
step against PyTorch (float64), and against closed forms where PyTorch is not installed."""

import numpy as np
import pytest

import micrograd_edu.torchlike as T
from micrograd_edu import nn, optim

X = np.sin(np.arange(24.0) * 0.9).reshape(2, 3, 4)


def _torch():
    return pytest.importorskip("torch")


LAYERS = [
    ("Flatten()", lambda out: out.reshape(2, 12)),
    ("Identity()", lambda out: out),
    ("LeakyReLU(0.2)", lambda out: np.where(X > 0, X, 0.2 * X)),
    ("Softmax(dim=1)", lambda out: np.exp(X) / np.exp(X).sum(axis=1, keepdims=True)),
    ("LogSoftmax(dim=-1)", lambda out: X - np.log(np.exp(X).sum(axis=-1, keepdims=True))),
    ("Tanh()", lambda out: np.tanh(X)),
    ("Sigmoid()", lambda out: 1 / (1 + np.exp(-X))),
    ("ReLU()", lambda out: np.maximum(X, 0)),
    ("Dropout(0.5).eval()", lambda out: X),
]


@pytest.mark.parametrize("layer, closed_form", LAYERS, ids=[c for c, _ in LAYERS])
def test_layers_agree_with_their_closed_forms_and_pytorch(layer, closed_form):
    out = eval(f"nn.{layer}", {"nn": nn})(T.tensor(X))
    np.testing.assert_allclose(out.data, closed_form(X), rtol=1e-12)
    try:
        import torch
    except ImportError:
        return
    theirs = eval(f"torch.nn.{layer}", {"torch": torch})(torch.tensor(X))
    np.testing.assert_allclose(out.data, theirs.numpy(), rtol=1e-12)


def test_dropout_in_training_zeroes_or_scales_and_passes_gradients_alike():
    drop = nn.Dropout(0.25)
    x = T.ones(1000, requires_grad=True)
    y = drop(x)
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.75)
    assert 0.65 < kept.mean() < 0.85
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, np.where(kept, 1 / 0.75, 0.0))
    with pytest.raises(ValueError, match=r"probability in \[0, 1\]"):
        nn.Dropout(1.5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_modules_agree_with_pytorch(reduction):
    torch = _torch()
    a, b = X.reshape(6, 4), np.cos(X).reshape(6, 4)
    targets = [0, 3, 1, 2, 2, 0]
    ours = [
        nn.MSELoss(reduction=reduction)(T.tensor(a), T.tensor(b)),
        nn.CrossEntropyLoss(reduction=reduction)(T.tensor(a), T.tensor(targets)),
    ]
    theirs = [
        torch.nn.MSELoss(reduction=reduction)(torch.tensor(a), torch.tensor(b)),
        torch.nn.CrossEntropyLoss(reduction=reduction)(torch.tensor(a), torch.tensor(targets)),
    ]
    for mine, their in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(mine.data, their.numpy(), rtol=1e-12)


def test_module_dict_and_apply_agree_with_pytorch():
    torch = _torch()

    def build(lib):
        d = lib.ModuleDict({"enc": lib.Linear(3, 2), "act": lib.Tanh()})
        d["dec"] = lib.Linear(2, 3)
        return lib.Sequential(d["enc"], d["act"], d["dec"]), d

    (net, d), (tnet, td) = build(nn), build(torch.nn)
    assert list(d.keys()) == list(td.keys()) and len(d) == len(td) and "act" in d
    assert [n for n, _ in d.named_parameters()] == [n for n, _ in td.named_parameters()]
    visited, tvisited = [], []
    net.apply(lambda m: visited.append(type(m).__name__))
    tnet.apply(lambda m: tvisited.append(type(m).__name__))
    assert visited == tvisited  # children first, then the module itself

    def zero(m):
        if isinstance(m, nn.Linear):
            m.bias.data[...] = 0

    net.apply(zero)
    assert not net[0].bias.data.any() and not net[2].bias.data.any()


def _pair(torch):
    """The same two-layer net in both libraries, from the same weights."""
    ours = nn.Sequential(nn.Linear(4, 5, seed=0), nn.Tanh(), nn.Linear(5, 2, seed=1))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    theirs = theirs.double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


BATCH = np.cos(np.arange(32.0)).reshape(8, 4)
TARGET = np.sin(np.arange(16.0)).reshape(8, 2)

OPTIMISERS = {
    "sgd nesterov": lambda lib, p: lib.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "sgd dampening": lambda lib, p: lib.SGD(p, lr=0.1, momentum=0.5, dampening=0.3),
    "adam decay": lambda lib, p: lib.Adam(p, lr=0.01, weight_decay=0.1),
    "adamw": lambda lib, p: lib.AdamW(p, lr=0.01, betas=(0.8, 0.99)),
    "groups": lambda lib, p: lib.SGD(
        [{"params": p[:2], "lr": 0.3}, {"params": p[2:]}], lr=0.05, momentum=0.9
    ),
}


def _train(lib, net, make, steps, scheduler=None):
    params = list(net.parameters())
    opt = make(lib.optim, params)
    sched = scheduler(lib.optim, opt) if scheduler else None
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((net(lib.tensor(BATCH)) - lib.tensor(TARGET)) ** 2).mean()
        loss.backward()
        opt.step()
        if sched:
            sched.step()
        losses.append(loss.item())
    return losses, opt


@pytest.mark.parametrize("name", list(OPTIMISERS))
def test_optimisers_follow_pytorchs_trajectory(name):
    torch = _torch()
    ours, theirs = _pair(torch)
    mine, _ = _train(T, ours, OPTIMISERS[name], 50)
    their, _ = _train(torch, theirs, OPTIMISERS[name], 50)
    np.testing.assert_allclose(mine, their, rtol=1e-11)


def test_step_lr_follows_pytorch():
    torch = _torch()
    ours, theirs = _pair(torch)

    def sched(lib, opt):
        return lib.lr_scheduler.StepLR(opt, step_size=7, gamma=0.3)

    mine, opt = _train(T, ours, OPTIMISERS["adamw"], 30, sched)
    their, topt = _train(torch, theirs, OPTIMISERS["adamw"], 30, sched)
    np.testing.assert_allclose(mine, their, rtol=1e-11)
    assert opt.param_groups[0]["lr"] == pytest.approx(topt.param_groups[0]["lr"])


@pytest.mark.parametrize("name", ["sgd nesterov", "adamw", "groups"])
def test_state_dict_resumes_training_exactly(name):
    net = nn.Sequential(nn.Linear(4, 5, seed=0), nn.Tanh(), nn.Linear(5, 2, seed=1))
    twin = nn.Sequential(nn.Linear(4, 5, seed=0), nn.Tanh(), nn.Linear(5, 2, seed=1))
    straight, _ = _train(T, net, OPTIMISERS[name], 20)
    first, opt = _train(T, twin, OPTIMISERS[name], 10)
    saved = opt.state_dict()
    fresh = OPTIMISERS[name](optim, list(twin.parameters()))
    fresh.load_state_dict(saved)
    losses = []
    for _ in range(10):
        fresh.zero_grad()
        loss = ((twin(T.tensor(BATCH)) - T.tensor(TARGET)) ** 2).mean()
        loss.backward()
        fresh.step()
        losses.append(loss.item())
    np.testing.assert_array_equal(first + losses, straight)


@pytest.mark.parametrize("name", ["sgd nesterov", "sgd dampening", "adam decay", "adamw"])
def test_a_hyperparameter_set_as_an_attribute_is_the_one_step_uses(name):
    # opt.lr = ... (as a hand-written schedule does) must change the steps exactly as
    # setting param_groups[0]["lr"] does, for every hyperparameter, never be ignored.
    net = nn.Sequential(nn.Linear(4, 5, seed=0), nn.Tanh(), nn.Linear(5, 2, seed=1))
    for key, value in OPTIMISERS[name](optim, list(net.parameters())).defaults.items():
        new = tuple(0.5 * v for v in value) if isinstance(value, tuple) else value * 0.5
        if isinstance(value, bool) or value == 0:
            continue
        runs = []
        for how in ("attribute", "group"):
            twin = nn.Sequential(nn.Linear(4, 5, seed=0), nn.Tanh(), nn.Linear(5, 2, seed=1))

            def make(lib, params, how=how, key=key, new=new):
                opt = OPTIMISERS[name](lib, params)
                if how == "attribute":
                    setattr(opt, key, new)
                    assert getattr(opt, key) == new
                else:
                    opt.param_groups[0][key] = new
                return opt

            runs.append(_train(T, twin, make, 5)[0])
        untouched, _ = _train(
            T,
            nn.Sequential(nn.Linear(4, 5, seed=0), nn.Tanh(), nn.Linear(5, 2, seed=1)),
            OPTIMISERS[name],
            5,
        )
        assert runs[0] == runs[1] != untouched, key


def test_a_hyperparameter_attribute_is_checked_and_ambiguous_groups_refused():
    net = nn.Linear(4, 2, seed=0)
    opt = optim.Adam(net.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="lr must be a positive number"):
        opt.lr = -1.0
    assert opt.lr == 0.1
    groups = OPTIMISERS["groups"](optim, list(net.parameters()))
    with pytest.raises(AttributeError, match=r"different values \[0.3, 0.05\]"):
        _ = groups.lr
    groups.lr = 0.2
    assert [g["lr"] for g in groups.param_groups] == [0.2, 0.2]
    with pytest.raises(AttributeError, match="no attribute 'learning_rate'"):
        _ = groups.learning_rate
