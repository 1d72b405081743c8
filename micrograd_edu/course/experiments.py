"""The course's two training experiments, as functions notebooks, tests and
benchmarks share.

* **linear**: a ``Linear(5, 1, bias=False)`` fitted by momentum SGD to
  :func:`data.linear_regression` recovers the true β;
* **the post's schedule**: one sample per step, in the data's order, each sample's
  squared error divided by n (:func:`per_sample`, :func:`squared_error_over`), where the
  chapter's runs take mini-batches;
* **non-linear**: a deep ReLU network (10 ``Linear`` layers of width 10, He
  initialisation, zero biases) fitted by Adam on mini-batches of 32 to the
  piecewise function of :func:`data.piecewise`.

>>> net = deep_relu_net(seed=0)
>>> len(net), net[0]
(19, Linear(in_features=1, out_features=10, bias=True))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from .. import init, nn
from ..init import Seed
from ..scalar import nn as scalar_nn
from ..tensor import Tensor, mse_loss
from ..tensor.freeze import freeze
from . import data

__all__ = [
    "per_sample",
    "squared_error_over",
    "deep_relu_net",
    "nonlinear_batches",
    "train",
    "to_torch",
    "train_torch",
    "from_scalar_mlp",
]


def per_sample(
    x: np.ndarray, y: np.ndarray, epochs: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The post's schedule for :func:`train`: one sample per step, the rows in the data's
    own order, ``epochs`` times (``len(x) * epochs`` steps).

    >>> [a.tolist() for a, _ in per_sample(np.array([[1.0], [2.0]]), np.zeros((2, 1)), 2)]
    [[[1.0]], [[2.0]], [[1.0]], [[2.0]]]
    """
    return ((x[j : j + 1], y[j : j + 1]) for _ in range(epochs) for j in range(len(x)))


def squared_error_over(n: int) -> Callable[[Tensor, Tensor], Tensor]:
    """The post's loss for one step: the squared error divided by ``n``, so that the
    losses of an epoch of :func:`per_sample` steps add up to a mean squared error.

    >>> squared_error_over(4)(Tensor([[3.0]]), Tensor([[1.0]])).item()
    1.0
    """
    return lambda pred, target: ((pred - target) ** 2).sum() / n


def deep_relu_net(width: int = 10, layers: int = 10, *, seed: Seed = 1) -> nn.Sequential:
    """``layers`` Linear layers (1 → width → … → width → 1) with ReLU between
    them; weights He-normal (fan-in), biases zero.

    A network this deep and narrow depends on where it starts. Trained on
    :func:`nonlinear_batches` (Adam, lr 1e-3), the default seed 1 ends at a
    training MSE of 0.0126 (PyTorch reaches about 0.0125); over seeds 0 to 11
    (for the weights and the batch order) six end below 0.02, four between
    0.02 and 0.031, and two get stuck (0.10 and 0.44)
    when too many ReLUs die: worth showing students, not hiding.

    >>> [p.shape for p in deep_relu_net(width=3, layers=2, seed=0).parameters()]
    [(3, 1), (3,), (1, 3), (1,)]
    """
    if layers < 2:
        raise ValueError(f"deep_relu_net: layers must be at least 2, got {layers!r}")
    rng = init.as_generator(seed)
    sizes = [1] + [width] * (layers - 1) + [1]
    modules: list[nn.Module] = []
    for k in range(layers):
        linear = nn.Linear(sizes[k], sizes[k + 1], seed=rng)
        init.kaiming_normal_(linear.weight, seed=rng)
        init.zeros_(linear.bias)
        modules += [linear, nn.ReLU()] if k < layers - 1 else [linear]
    return nn.Sequential(*modules)


def nonlinear_batches(epochs: int = 100, *, seed: Seed = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """The non-linear experiment's batches: the 1000 points of
    ``data.piecewise(seed=0)`` in mini-batches of 32, reshuffled at each epoch
    (32 batches per epoch, the last one of 8 rows).

    >>> batches = nonlinear_batches(2)
    >>> len(batches), batches[0][0].shape, batches[-1][0].shape
    (64, (32, 1), (8, 1))
    """
    x, y = data.piecewise(seed=0)
    loader = data.Batches(x, y, batch_size=32, seed=seed)
    return [batch for _ in range(epochs) for batch in loader]


def train(
    model: Callable[[Tensor], Tensor],
    optimizer: Any,
    batches: Iterable[tuple[np.ndarray, np.ndarray]],
    loss_fn: Callable[[Tensor, Tensor], Tensor] = mse_loss,
    *,
    frozen: bool = False,
) -> list[float]:
    """One optimisation step per ``(x, y)`` batch; returns each step's loss.

    With ``frozen=True`` the loss and its backward pass are traced once per
    batch shape by :func:`micrograd_edu.tensor.freeze` and replayed as a static graph
    (same numbers, no graph rebuilt at each step).

    >>> from micrograd_edu import data, optim
    >>> x, y = data.piecewise(n=64, seed=0)
    >>> net = deep_relu_net(width=4, layers=3, seed=0)
    >>> losses = train(net, optim.Adam(net.parameters(), lr=0.01), [(x, y)] * 20)
    >>> losses[-1] < losses[0]
    True
    """

    def loss_of(x: Tensor, y: Tensor) -> Tensor:
        return loss_fn(model(x), y)

    programs: dict[tuple, Any] = {}  # a frozen step per pair of batch shapes
    losses = []
    for xb, yb in batches:
        optimizer.zero_grad()
        x, y = Tensor(xb), Tensor(yb)
        if frozen:
            shapes = (x.shape, y.shape)
            if shapes not in programs:
                programs[shapes] = freeze(loss_of, x, y)
            loss = programs[shapes](x, y)  # forward and backward
        else:
            loss = loss_of(x, y)
            loss.backward()
        optimizer.step()
        losses.append(float(loss.data))
    return losses


def to_torch(model: nn.Module) -> Any:
    """The same network in PyTorch (float64, same weights), for comparing the
    two step by step. Handles ``Sequential``, ``Linear`` and the activations.

    >>> import pytest; torch = pytest.importorskip("torch")
    >>> net = deep_relu_net(width=3, layers=2, seed=0)
    >>> to_torch(net)
    Sequential(
      (0): Linear(in_features=1, out_features=3, bias=True)
      (1): ReLU()
      (2): Linear(in_features=3, out_features=1, bias=True)
    )
    """
    import torch  # an optional oracle, imported only when asked for

    def convert(module: nn.Module) -> Any:
        if isinstance(module, nn.Sequential):
            return torch.nn.Sequential(*[convert(m) for m in module])
        if isinstance(module, nn.Linear):
            return torch.nn.Linear(
                module.in_features, module.out_features, bias=module.bias is not None
            )
        for ours, theirs in ((nn.ReLU, "ReLU"), (nn.Tanh, "Tanh"), (nn.Sigmoid, "Sigmoid")):
            if isinstance(module, ours):
                return getattr(torch.nn, theirs)()
        raise TypeError(f"to_torch: no PyTorch counterpart for {type(module).__name__}")

    copy = convert(model).double()
    copy.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in model.state_dict().items()})
    return copy


def train_torch(
    model: Any, optimizer: Any, batches: Iterable[tuple[np.ndarray, np.ndarray]]
) -> list[float]:
    """:func:`train` for a PyTorch model and optimiser (MSE loss), for comparisons."""
    import torch

    losses = []
    for xb, yb in batches:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(torch.from_numpy(xb)), torch.from_numpy(yb))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def from_scalar_mlp(mlp: scalar_nn.MLP) -> nn.Sequential:
    """The tensor-engine twin of a scalar ``scalar_nn.MLP``: one ``Linear`` per
    layer holding the same weights (row j of the weight = neuron j's ``w``), ReLU
    between layers. Both compute the same function, one number per node or one
    matrix per node: the course's lesson on vectorization.

    >>> mlp = scalar_nn.MLP(2, [3, 1], seed=0)
    >>> twin = from_scalar_mlp(mlp)
    >>> x = [0.5, -1.0]
    >>> bool(abs(mlp(x).data - float(twin(Tensor([x])).data[0, 0])) < 1e-12)
    True
    """
    modules: list[nn.Module] = []
    for k, layer in enumerate(mlp.layers):
        neurons = layer.neurons
        linear = nn.Linear(len(neurons[0].w), len(neurons), seed=0)
        linear.weight.data[...] = [[w.data for w in n.w] for n in neurons]
        linear.bias.data[...] = [n.b.data for n in neurons]
        modules += [linear, nn.ReLU()] if k < len(mlp.layers) - 1 else [linear]
    return nn.Sequential(*modules)
