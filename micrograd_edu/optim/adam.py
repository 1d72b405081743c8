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

from .optimizer import Optimizer, array_of, gradients_of, require, updated

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (see the module docstring); ``state[p]`` holds ``step``, ``exp_avg`` (m),
    ``exp_avg_sq`` (v) and with ``amsgrad`` ``max_exp_avg_sq`` (the running maximum of v,
    which then takes v's place in the step), as in PyTorch. A parameter gets its state at
    its first gradient, as in PyTorch: one that never gets a gradient has none.
    ``maximize=True`` climbs the objective instead."""

    _decoupled = False

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
        )
        super().__init__(params, defaults)
        self._flat: dict[int, tuple] = {}

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
        """The group's moments laid end to end (m, v and, with amsgrad, max v), the slices
        of each parameter in them, and each parameter's state, whose moments are views into
        those arrays (the state joins ``self.state`` at the parameter's first gradient)."""
        if index not in self._flat:
            params = group["params"]
            dtypes = {array_of(p).dtype for p in params}
            one_dtype = len(dtypes) == 1
            bounds = np.cumsum([0] + [array_of(p).size for p in params])
            dtype = dtypes.pop() if one_dtype else np.float64
            count = 3 if group["amsgrad"] else 2
            flats = tuple(np.zeros(bounds[-1], dtype) for _ in range(count))
            slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
            names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")[:count]
            states = [
                {
                    "step": 0,
                    **{
                        k: f[s].reshape(array_of(p).shape)
                        for k, f in zip(names, flats, strict=True)
                    },
                }
                for p, s in zip(params, slices, strict=True)
            ]
            self._flat[index] = (flats, slices, states, one_dtype)
        return self._flat[index]

    def step(self, closure: Any = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        loss = closure() if closure is not None else None
        for index, group in enumerate(self.param_groups):
            params = group["params"]
            flats, slices, states, one_dtype = self._moments(index, group)
            datas = [array_of(p) for p in params]
            grads = gradients_of(params)
            if group["maximize"]:
                grads = [None if g is None else -g for g in grads]
            for p, g, state in zip(params, grads, states, strict=True):
                if g is not None and p not in self.state:
                    self.state[p] = state
            t = states[0]["step"] if states else 0
            if (
                one_dtype
                and all(g is not None for g in grads)
                and all(state["step"] == t for state in states)
            ):
                data = np.concatenate([d.ravel() for d in datas])
                grad = np.concatenate([g.ravel() for g in grads])
                t += 1
                self._update(group, data, grad, *flats, t=t)
                for d, s, state in zip(datas, slices, states, strict=True):
                    d[...] = data[s].reshape(d.shape)
                    state["step"] = t
            else:
                for d, g, state in zip(datas, grads, states, strict=True):
                    if g is not None:
                        state["step"] += 1
                        moments = [
                            state[k]
                            for k in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
                            if k in state
                        ]
                        self._update(group, d, g, *moments, t=state["step"])
            updated(*(p for p, g in zip(params, grads, strict=True) if g is not None))
        return loss

    def _update(
        self,
        group: dict,
        p: np.ndarray,
        g: np.ndarray,
        m: np.ndarray,
        v: np.ndarray,
        v_max: np.ndarray | None = None,
        *,
        t: int,
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
        if v_max is not None:
            np.maximum(v_max, v, out=v_max)
        denom = np.sqrt(v if v_max is None else v_max)
        denom /= math.sqrt(1.0 - beta2**t)
        denom += eps
        p -= (lr / (1.0 - beta1**t)) * (m / denom)

    def load_state(self, p: Any, saved: dict[str, Any]) -> None:
        # Into the views, so that the flat arrays stay the parameters' moments.
        index = next(i for i, g in enumerate(self.param_groups) if any(q is p for q in g["params"]))
        group = self.param_groups[index]
        position = next(i for i, q in enumerate(group["params"]) if q is p)
        state = self._moments(index, group)[2][position]
        state["step"] = int(saved["step"])
        for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            if key in state and key in saved:
                np.copyto(state[key], np.asarray(getattr(saved[key], "data", saved[key])))
        self.state[p] = state


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
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
