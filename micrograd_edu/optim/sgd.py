"""Stochastic gradient descent, with PyTorch's momentum, dampening, Nesterov and
weight decay, operation for operation.

PyTorch's update, per parameter: g = grad + weight_decay·p; with momentum the
buffer starts as b = g and then b = momentum·b + (1 − dampening)·g, and
g = g + momentum·b (Nesterov) or g = b; finally p = p − lr·g.

>>> import numpy as np
>>> from types import SimpleNamespace
>>> p = SimpleNamespace(data=np.array([1.0]), grad=np.array([1.0]))
>>> opt = SGD([p], lr=0.1, momentum=0.9)
>>> opt.step(); opt.step(); p.data       # steps of 0.1, then 0.1·(0.9 + 1)
array([0.71])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, array_of, gradients_of, require, updated

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (see the module docstring); ``maximize=True`` climbs."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def check(self, group: dict[str, Any]) -> None:
        super().check(group)
        for arg in ("momentum", "dampening", "weight_decay"):
            require("SGD", arg, group[arg], lambda v: v >= 0, "a number >= 0")
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("SGD: nesterov=True needs momentum > 0 and dampening 0")

    def step(self, closure: Any = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            params = group["params"]
            for p, g in zip(params, gradients_of(params), strict=True):
                if g is None:
                    continue
                if group["maximize"]:
                    g = -g
                data = array_of(p)
                if group["weight_decay"]:
                    g = g + group["weight_decay"] * data
                if momentum:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = np.array(g, dtype=data.dtype)
                    else:
                        buf *= momentum
                        buf += (1.0 - dampening) * g if dampening else g
                    g = g + momentum * buf if group["nesterov"] else buf
                data -= lr * g
                updated(p)
        return loss
