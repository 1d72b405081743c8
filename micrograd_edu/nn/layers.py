"""Layers: ``Linear``, ``Flatten``, ``Identity``, ``Dropout`` and the activations,
with PyTorch's names, layouts, defaults and printed form.

>>> layer = Linear(3, 2, seed=0)
>>> layer
Linear(in_features=3, out_features=2, bias=True)
>>> layer(Tensor(np.ones((5, 3)))).shape
(5, 2)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import init
from ..init import Seed
from ..tensor import Tensor, apply
from . import functional as F
from .functional import LINEAR
from .module import Module, Parameter

__all__ = [
    "Linear",
    "Flatten",
    "Identity",
    "Dropout",
    "ReLU",
    "LeakyReLU",
    "Tanh",
    "Sigmoid",
    "Softmax",
    "LogSoftmax",
]


class Linear(Module):
    """y = x Wᵀ + b, with PyTorch's layout (``weight`` is (out, in)) and default
    initialisation: weight and bias from U(−1/√in, 1/√in).

    >>> layer = Linear(3, 2, seed=0)
    >>> layer.weight.shape, layer.bias.shape
    ((2, 3), (2,))
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, *, seed: Seed = None
    ) -> None:
        super().__init__()
        for arg, value in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(value, int | np.integer) or value < 1:
                raise ValueError(f"Linear: {arg} must be a positive int, got {value!r}")
        self.in_features = int(in_features)
        self.out_features = int(out_features)
        rng = init.as_generator(seed)
        bound = 1.0 / math.sqrt(in_features)
        self.weight = Parameter(rng.uniform(-bound, bound, size=(out_features, in_features)))
        self.bias = Parameter(rng.uniform(-bound, bound, size=out_features)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        if self.bias is None:
            return apply(LINEAR, x, self.weight)
        return apply(LINEAR, x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Flatten(Module):
    """Merge axes ``start_dim`` (1: keep the batch axis) to ``end_dim`` into one."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    """Returns its input (a placeholder layer)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return x


class Dropout(Module):
    """In training, zero each entry with probability ``p`` and scale the others by
    1/(1 - p); in ``eval()`` mode, the identity (as ``torch.nn.Dropout``).

    >>> drop = Dropout(0.5, seed=0)
    >>> y = drop(Tensor(np.ones(1000)))
    >>> bool(set(np.unique(y.data)) == {0.0, 2.0}), drop.eval()(Tensor([1.0]))
    (True, tensor([1.]))
    """

    def __init__(self, p: float = 0.5, inplace: bool = False, *, seed: Seed = None) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be a probability in [0, 1], got {p!r}")
        self.p, self.inplace = float(p), inplace
        self._rng = init.as_generator(seed) if seed is not None else None

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training, self.inplace, generator=self._rng)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class ReLU(Module):
    """max(x, 0), elementwise (``inplace=True`` overwrites the input, as in PyTorch)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """x for x > 0, ``negative_slope`` · x otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Tanh(Module):
    """tanh(x), elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return x.tanh()


class Sigmoid(Module):
    """1 / (1 + e^(−x)), elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return x.sigmoid()


class Softmax(Module):
    """exp(x) / sum(exp(x)) along ``dim``; without a ``dim``, PyTorch's implicit one (0 for
    0-, 1- and 3-d inputs, else 1), with its warning."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """log(softmax(x)) along ``dim``, computed stably (the same implicit ``dim``)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.dim)
