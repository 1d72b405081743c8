"""The course's two experiments, end to end, against independent oracles:
least squares for the linear one, PyTorch (optional) step by step for both
optimisers on the non-linear one."""

import numpy as np
import pytest

from micrograd_edu import data, nn, optim
from micrograd_edu.course.experiments import (
    deep_relu_net,
    from_scalar_mlp,
    nonlinear_batches,
    to_torch,
    train,
    train_torch,
)
from micrograd_edu.scalar import nn as scalar_nn
from micrograd_edu.tensor import Tensor, mse_loss
from micrograd_edu.tensor.modes import no_grad


def test_linear_experiment_recovers_beta_with_momentum_sgd():
    X, y, beta = data.linear_regression(seed=0)
    model = nn.Linear(5, 1, bias=False, seed=0)
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    losses = train(model, opt, [(X, y)] * 200)  # full-batch gradient descent
    learned = model.weight.data[0]
    assert np.abs(learned - beta).max() < 0.01
    least_squares = np.linalg.lstsq(X, y[:, 0], rcond=None)[0]
    assert np.abs(learned - least_squares).max() < 1e-3
    assert losses[-1] == pytest.approx(0.01, rel=0.05)  # the noise variance σ² = 0.1²


def test_nonlinear_experiment_fits_the_piecewise_function():
    # The full run: 100 epochs of 32 batches, about a second.
    x, y = data.piecewise(seed=0)  # the points nonlinear_batches draws from
    net = deep_relu_net()
    losses = train(net, optim.Adam(net.parameters(), lr=1e-3), nonlinear_batches(100))
    assert len(losses) == 3200
    epochs = np.array(losses).reshape(100, 32).mean(axis=1)
    assert epochs[99] < epochs[49] < epochs[9] < epochs[0]
    with no_grad():
        mse = float(mse_loss(net(Tensor(x)), Tensor(y)).data)
    assert mse <= 0.02
    with no_grad():
        grid = np.linspace(-1, 1, 201)[:, None]
        fit = net(Tensor(grid)).data
    # against the noiseless truth, away from the jump at 0
    away = np.abs(grid) > 0.05
    assert np.sqrt(np.mean((fit - data.piecewise_truth(grid))[away] ** 2)) < 0.15


def test_frozen_training_takes_the_same_steps_as_the_dynamic_graph():
    batches = nonlinear_batches(2)  # 32 batches per epoch, the last one of 8 rows
    runs = []
    for frozen in (False, True):
        net = deep_relu_net()
        losses = train(net, optim.Adam(net.parameters(), lr=1e-2), batches, frozen=frozen)
        runs.append((losses, [p.data.copy() for p in net.parameters()]))
    (dynamic, dynamic_params), (frozen, frozen_params) = runs
    assert np.allclose(frozen, dynamic, rtol=1e-12, atol=0)
    for p, q in zip(frozen_params, dynamic_params, strict=True):
        assert np.allclose(p, q, rtol=1e-12, atol=1e-15)


@pytest.fixture
def torch():
    """PyTorch on one thread: for 10x10 matrices more threads only add waiting."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, params: lib.SGD(params, lr=0.01, momentum=0.9),
        lambda lib, params: lib.Adam(params, lr=1e-3),
        lambda lib, params: lib.Adam(params, lr=1e-2, betas=(0.8, 0.99), weight_decay=0.01),
    ],
    ids=["sgd-momentum", "adam", "adam-decay"],
)
def test_losses_follow_pytorch_step_by_step(make, torch):
    batches = nonlinear_batches(4)[:100]
    ours = deep_relu_net()
    theirs = to_torch(ours)
    our_losses = train(ours, make(optim, list(ours.parameters())), batches)
    their_losses = train_torch(theirs, make(torch.optim, theirs.parameters()), batches)
    relative = np.abs(np.subtract(our_losses, their_losses)) / np.abs(their_losses)
    assert relative.max() < 1e-8
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        assert np.allclose(p.data, q.detach().numpy(), rtol=1e-8, atol=1e-12)


def test_to_torch_names_what_it_cannot_convert():
    pytest.importorskip("torch")

    class Custom(nn.Module):
        pass

    with pytest.raises(TypeError, match="no PyTorch counterpart for Custom"):
        to_torch(nn.Sequential(Custom()))


def test_scalar_and_tensor_mlps_with_the_same_weights_have_the_same_gradients():
    mlp = scalar_nn.MLP(3, [4, 4, 1], seed=0)
    twin = from_scalar_mlp(mlp)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(6, 1))
    # the scalar engine: one Value per number, the loss written out by hand
    loss = sum((mlp(list(x)) - float(y[0])) ** 2 for x, y in zip(X, Y, strict=True)) / len(X)
    loss.backward()
    tensor_loss = mse_loss(twin(Tensor(X)), Tensor(Y))
    tensor_loss.backward()
    assert float(tensor_loss.data) == pytest.approx(loss.data, rel=1e-12)
    linears = [m for m in twin if isinstance(m, nn.Linear)]
    for layer, linear in zip(mlp.layers, linears, strict=True):
        w_grad = [[w.grad for w in n.w] for n in layer.neurons]
        b_grad = [n.b.grad for n in layer.neurons]
        assert np.allclose(linear.weight.grad, w_grad, rtol=1e-12, atol=1e-12)
        assert np.allclose(linear.bias.grad, b_grad, rtol=1e-12, atol=1e-12)
    assert any(np.any(lin.weight.grad != 0) for lin in linears)


def test_deep_relu_net_needs_two_layers():
    with pytest.raises(ValueError, match="layers must be at least 2, got 1"):
        deep_relu_net(layers=1)
