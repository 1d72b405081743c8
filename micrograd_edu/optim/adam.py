"""Adam and AdamW (Kingma & Ba; Loshchilov & Hutter), with PyTorch's arithmetic.

With t the step count and g = grad (+ weight_decay·p for Adam):
m ← m + (1 − β₁)(g − m), v ← β₂v + (1 − β₂)g², and
p ← p − lr/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + eps).
AdamW instead shrinks the weights directly first: p ← p − lr·weight_decay·p.

When every parameter of a group has a gradient (the usual case) the update runs
once on all of them laid end to end in one long array, rather than once per
parameter: a small network's arrays are so short that numpy's fixed cost per
call, not the arithmetic, is what a step costs (PyTorch's ``foreach`` optimisers
do the same). The numbers are identical either way.

>>> import numpy as np
>>> from types import SimpleNamespace
>>> p = SimpleNamespace(data=np.array([1.0]), grad=np.array([3.0]))
>>> Adam([p], lr=0.1).step(); p.data    # the first step has length lr
array([0.9])
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, gradients_of, require, updated

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (see the module docstring); ``state[p]`` holds ``step``, ``exp_avg`` (m)
    and ``exp_avg_sq`` (v), as in PyTorch."""

    _decoupled = False

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        self._flat: dict[int, tuple[np.ndarray, np.ndarray, list[slice], bool]] = {}

    def check(self, group: dict[str, Any]) -> None:
        super().check(group)
        name = type(self).__name__
        betas = group["betas"]
        if not (isinstance(betas, tuple | list) and len(betas) == 2):
            raise ValueError(f"{name}: betas must be two numbers in [0, 1), got {betas!r}")
        for beta in betas:
            require(name, "betas", beta, lambda v: 0 <= v < 1, "two numbers in [0, 1)")
        require(name, "eps", group["eps"], lambda v: v >= 0, "a number >= 0")
        require(name, "weight_decay", group["weight_decay"], lambda v: v >= 0, "a number >= 0")

    def _moments(self, index: int, group: dict[str, Any]) -> tuple:
        """The group's m and v laid end to end, the slices of each parameter in them,
        and each parameter's state, whose moments are views into m and v."""
        if index not in self._flat:
            params = group["params"]
            dtypes = {p.data.dtype for p in params}
            one_dtype = len(dtypes) == 1
            bounds = np.cumsum([0] + [p.data.size for p in params])
            dtype = dtypes.pop() if one_dtype else np.float64
            m_all, v_all = np.zeros(bounds[-1], dtype), np.zeros(bounds[-1], dtype)
            slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
            states = []
            for p, s in zip(params, slices, strict=True):
                shape = p.data.shape
                states.append(
                    {
                        "step": 0,
                        "exp_avg": m_all[s].reshape(shape),
                        "exp_avg_sq": v_all[s].reshape(shape),
                    }
                )
                self.state[p] = states[-1]
            self._flat[index] = (m_all, v_all, slices, states, one_dtype)
        return self._flat[index]

    def step(self, closure: Any = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        loss = closure() if closure is not None else None
        for index, group in enumerate(self.param_groups):
            params = group["params"]
            m_all, v_all, slices, states, one_dtype = self._moments(index, group)
            datas = [p.data for p in params]
            grads = gradients_of(params)
            t = states[0]["step"] if states else 0
            if (
                one_dtype
                and all(g is not None for g in grads)
                and all(state["step"] == t for state in states)
            ):
                data = np.concatenate([d.ravel() for d in datas])
                grad = np.concatenate([g.ravel() for g in grads])
                t += 1
                self._update(group, data, grad, m_all, v_all, t)
                for d, s, state in zip(datas, slices, states, strict=True):
                    d[...] = data[s].reshape(d.shape)
                    state["step"] = t
            else:
                for d, g, state in zip(datas, grads, states, strict=True):
                    if g is not None:
                        state["step"] += 1
                        m, v = state["exp_avg"], state["exp_avg_sq"]
                        self._update(group, d, g, m, v, state["step"])
            updated(*(p for p, g in zip(params, grads, strict=True) if g is not None))
        return loss

    def _update(
        self, group: dict, p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, t: int
    ) -> None:
        lr, (beta1, beta2), eps, decay = (
            group["lr"],
            group["betas"],
            group["eps"],
            group["weight_decay"],
        )
        if decay:
            if self._decoupled:
                p *= 1.0 - lr * decay
            else:
                g = g + decay * p
        m += (1.0 - beta1) * (g - m)  # torch's lerp_ for a weight below 0.5
        v *= beta2
        v += (1.0 - beta2) * g * g  # torch's addcmul_ order: (value * g) * g
        denom = np.sqrt(v)
        denom /= math.sqrt(1.0 - beta2**t)
        denom += eps
        p -= (lr / (1.0 - beta1**t)) * (m / denom)

    def load_state(self, p: Any, saved: dict[str, Any]) -> None:
        # Into the views, so that the flat arrays stay the parameters' moments.
        index = next(i for i, g in enumerate(self.param_groups) if any(q is p for q in g["params"]))
        self._moments(index, self.param_groups[index])
        state = self.state[p]
        state["step"] = int(saved["step"])
        np.copyto(state["exp_avg"], saved["exp_avg"])
        np.copyto(state["exp_avg_sq"], saved["exp_avg_sq"])


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01), as ``torch.optim.AdamW``."""

    _decoupled = True

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)
