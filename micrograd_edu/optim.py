"""Optimisers: SGD (with momentum) and Adam, with PyTorch's exact update formulas.

An optimiser holds a list of parameters and reads only two attributes of each:
``.data`` (a numpy array, updated *in place*, so anything holding the array
sees the new values) and ``.grad`` (a numpy array, or ``None`` when no gradient
reached the parameter: that parameter is skipped, as in PyTorch).

The formulas are PyTorch's, operation for operation, so a model trained here
and the same model in PyTorch, from the same weights on the same batches, give
the same losses step after step (to rounding).

>>> import numpy as np
>>> from types import SimpleNamespace
>>> p = SimpleNamespace(data=np.array([1.0]), grad=np.array([0.5]))
>>> opt = SGD([p], lr=0.1)
>>> opt.step(); p.data
array([0.95])
>>> opt.zero_grad(); p.grad is None
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    """What SGD and Adam share: the parameter list, ``zero_grad`` and checks."""

    def __init__(self, params: Iterable[Any], lr: float) -> None:
        name = type(self).__name__
        if hasattr(params, "named_parameters"):
            raise TypeError(
                f"{name}: got the model itself; pass its parameters: "
                f"{name}(model.parameters(), ...)"
            )
        if isinstance(params, np.ndarray) or hasattr(params, "data"):
            raise TypeError(
                f"{name}: params must be an iterable of parameters (e.g. model.parameters()), "
                f"got a single {type(params).__name__}"
            )
        self.params = list(params)
        if not self.params:
            raise ValueError(
                f"{name}: got an empty parameter list; pass model.parameters() of a model "
                "that has parameters (a generator can be used only once)"
            )
        for i, p in enumerate(self.params):
            if not isinstance(getattr(p, "data", None), np.ndarray):
                raise TypeError(
                    f"{name}: parameter {i} is a {type(p).__name__}, not a Tensor whose "
                    ".data is a numpy array"
                )
            if not getattr(p, "is_leaf", True):
                raise ValueError(
                    f"{name}: parameter {i} was computed by an operation; an optimiser "
                    "updates leaves (Parameters, or tensors made with requires_grad=True)"
                )
        if len({id(p) for p in self.params}) != len(self.params):
            raise ValueError(f"{name}: a parameter appears more than once in the list")
        _require(name, "lr", lr, isinstance(lr, (int, float)) and lr > 0, "a positive number")
        self.lr = lr

    def zero_grad(self) -> None:
        """Forget every gradient (set it to ``None``, PyTorch's default)."""
        for p in self.params:
            p.grad = None

    def step(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class SGD(Optimizer):
    """Stochastic gradient descent, with optional momentum and weight decay.

    PyTorch's update: g = grad + weight_decay·p; with momentum the buffer starts
    as b = g and then b = momentum·b + g; finally p = p − lr·b (or p − lr·g).

    >>> from types import SimpleNamespace
    >>> p = SimpleNamespace(data=np.array([1.0]), grad=np.array([1.0]))
    >>> opt = SGD([p], lr=0.1, momentum=0.9)
    >>> opt.step(); opt.step(); p.data       # steps of 0.1, then 0.1·(0.9 + 1)
    array([0.71])
    """

    def __init__(
        self, params: Iterable[Any], lr: float, momentum: float = 0.0, weight_decay: float = 0.0
    ) -> None:
        super().__init__(params, lr)
        _require("SGD", "momentum", momentum, momentum >= 0, "a number >= 0")
        _require("SGD", "weight_decay", weight_decay, weight_decay >= 0, "a number >= 0")
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.buffers: list[np.ndarray | None] = [None] * len(self.params)

    def step(self) -> None:
        """Update every parameter that has a gradient."""
        for i, p in enumerate(self.params):
            g = p.grad
            if g is None:
                continue
            if self.weight_decay:
                g = g + self.weight_decay * p.data
            if self.momentum:
                buf = self.buffers[i]
                if buf is None:
                    buf = self.buffers[i] = np.array(g, dtype=p.data.dtype)
                else:
                    buf *= self.momentum
                    buf += g
                g = buf
            p.data -= self.lr * g


class Adam(Optimizer):
    """Adam (Kingma & Ba), with PyTorch's arithmetic.

    With t the step count and g = grad + weight_decay·p:
    m ← m + (1 − β₁)(g − m), v ← β₂v + (1 − β₂)g², and
    p ← p − lr/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + eps).

    When every parameter has a gradient (the usual case) the update runs once
    on all parameters laid end to end in one long array, rather than once per
    parameter: a small network's arrays are so short that numpy's fixed cost
    per call, not the arithmetic, is what a step costs (PyTorch's ``foreach``
    optimisers do the same). The numbers are identical either way.

    >>> from types import SimpleNamespace
    >>> p = SimpleNamespace(data=np.array([1.0]), grad=np.array([3.0]))
    >>> Adam([p], lr=0.1).step(); p.data    # the first step has length lr
    array([0.9])
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        beta1, beta2 = betas
        ok = 0 <= beta1 < 1 and 0 <= beta2 < 1
        _require("Adam", "betas", betas, ok, "two numbers in [0, 1)")
        _require("Adam", "eps", eps, eps >= 0, "a number >= 0")
        _require("Adam", "weight_decay", weight_decay, weight_decay >= 0, "a number >= 0")
        self.betas = (beta1, beta2)
        self.eps = eps
        self.weight_decay = weight_decay
        self.steps = [0] * len(self.params)
        # The moments of all parameters live in one array each; m[i], v[i] are views.
        dtypes = {p.data.dtype for p in self.params}
        self._flat = len(dtypes) == 1
        bounds = np.cumsum([0] + [p.data.size for p in self.params])
        self._slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        m_all = np.zeros(bounds[-1], dtype=dtypes.pop() if self._flat else np.float64)
        v_all = np.zeros_like(m_all)
        self._moments = (m_all, v_all)
        shapes = [p.data.shape for p in self.params]
        self.m = [m_all[s].reshape(n) for s, n in zip(self._slices, shapes, strict=True)]
        self.v = [v_all[s].reshape(n) for s, n in zip(self._slices, shapes, strict=True)]

    def step(self) -> None:
        """Update every parameter that has a gradient."""
        params = self.params
        together = self._flat and len(set(self.steps)) == 1
        if together and all(p.grad is not None for p in params):
            data = np.concatenate([p.data.ravel() for p in params])
            grad = np.concatenate([p.grad.ravel() for p in params])
            self._update(data, grad, *self._moments, self.steps[0] + 1)
            self.steps = [t + 1 for t in self.steps]
            for p, s in zip(params, self._slices, strict=True):
                p.data[...] = data[s].reshape(p.data.shape)
            return
        for i, p in enumerate(params):
            if p.grad is not None:
                self.steps[i] += 1
                self._update(p.data, p.grad, self.m[i], self.v[i], self.steps[i])

    def _update(self, p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, t: int) -> None:
        beta1, beta2 = self.betas
        if self.weight_decay:
            g = g + self.weight_decay * p
        m += (1.0 - beta1) * (g - m)  # torch's lerp_ for a weight below 0.5
        v *= beta2
        v += (1.0 - beta2) * g * g  # torch's addcmul_ order: (value * g) * g
        denom = np.sqrt(v)
        denom /= math.sqrt(1.0 - beta2**t)
        denom += self.eps
        p -= (self.lr / (1.0 - beta1**t)) * (m / denom)


def _require(name: str, arg: str, value: Any, ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(f"{name}: {arg} must be {what}, got {value!r}")
