"""A small neural network made of scalar ``Value`` nodes, micrograd style.

One ``Value`` per weight and one graph node per multiply and add: slow, but
every number can be looked at. The tensor engine's ``nn`` does the same with
one node per matrix.

>>> model = MLP(2, [4, 1], seed=0)
>>> len(model.parameters())
17
>>> out = model([1.0, -2.0])
>>> out.backward()
>>> any(p.grad != 0.0 for p in model.parameters())
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .value import Value

__all__ = ["Neuron", "Layer", "MLP"]


class Module:
    """What every part of the network shares: its parameters and zero_grad."""

    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = 0.0


class Neuron(Module):
    """``relu(w . x + b)`` (or just ``w . x + b`` with ``nonlin=False``).

    Weights start uniform in [-1, 1] from ``rng``; the bias starts at 0.
    """

    def __init__(self, nin: int, nonlin: bool = True, rng: random.Random | None = None) -> None:
        rng = rng or random.Random(0)
        self.w = [Value(rng.uniform(-1.0, 1.0)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x: Sequence[Value | float]) -> Value:
        if len(x) != len(self.w):
            raise ValueError(f"Neuron: expected {len(self.w)} inputs, got {len(x)}")
        act = sum((wi * xi for wi, xi in zip(self.w, x, strict=True)), self.b)
        return act.relu() if self.nonlin else act

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons reading the same inputs."""

    def __init__(
        self, nin: int, nout: int, nonlin: bool = True, rng: random.Random | None = None
    ) -> None:
        rng = rng or random.Random(0)
        self.neurons = [Neuron(nin, nonlin, rng) for _ in range(nout)]

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes ``nin -> nouts[0] -> ... -> nouts[-1]``; ReLU between
    layers, the last layer linear. ``seed`` makes the initial weights repeatable."""

    def __init__(self, nin: int, nouts: Sequence[int], seed: int = 0) -> None:
        rng = random.Random(seed)
        sizes = [nin, *nouts]
        self.layers = [
            Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1, rng=rng)
            for i in range(len(nouts))
        ]

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
