"""RMSprop (Hinton's lecture 6e), with PyTorch's arithmetic, operation for operation.

With g = grad (+ weight_decay·p): v ← αv + (1 − α)g²; centered, also ḡ ← ḡ + (1 − α)(g − ḡ)
and the scale is √(v − ḡ²), otherwise √v; then with momentum b ← μb + g/(scale + eps) and
p ← p − lr·b, without it p ← p − lr·g/(scale + eps).

>>> import numpy as np
>>> from types import SimpleNamespace
>>> p = SimpleNamespace(data=np.array([1.0]), grad=np.array([2.0]))
>>> RMSprop([p], lr=0.01, alpha=0.75).step(); p.data   # v = 0.25·4: a step of lr·g/√v = 0.02
array([0.98])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, array_of, gradients_of, require, updated

__all__ = ["RMSprop"]


def lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """start ← start + weight·(end − start), in PyTorch's two forms (exact at both ends)."""
    if weight < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1.0 - weight)


class RMSprop(Optimizer):
    """RMSprop (see the module docstring); ``state[p]`` holds ``step``, ``square_avg``,
    and ``momentum_buffer`` / ``grad_avg`` when momentum / ``centered`` ask for them, as in
    PyTorch."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            alpha=alpha,
            eps=eps,
            weight_decay=weight_decay,
            momentum=momentum,
            centered=centered,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def check(self, group: dict[str, Any]) -> None:
        super().check(group)
        require("RMSprop", "alpha", group["alpha"], lambda v: 0 <= v, "a number >= 0")
        for arg in ("eps", "weight_decay", "momentum"):
            require("RMSprop", arg, group[arg], lambda v: v >= 0, "a number >= 0")

    def step(self, closure: Any = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            momentum, decay = group["momentum"], group["weight_decay"]
            params = group["params"]
            for p, g in zip(params, gradients_of(params), strict=True):
                if g is None:
                    continue
                if group["maximize"]:
                    g = -g
                state = self.state[p]
                data = array_of(p)
                if not state:
                    state["step"] = 0
                    state["square_avg"] = np.zeros_like(data)
                    if momentum > 0:
                        state["momentum_buffer"] = np.zeros_like(data)
                    if group["centered"]:
                        state["grad_avg"] = np.zeros_like(data)
                state["step"] += 1
                if decay:
                    g = g + decay * data
                v = state["square_avg"]
                v *= alpha
                v += (1.0 - alpha) * g * g
                if group["centered"]:
                    mean = state["grad_avg"]
                    lerp_(mean, g, 1.0 - alpha)
                    scale = np.sqrt(v - mean * mean)
                else:
                    scale = np.sqrt(v)
                scale += eps
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf *= momentum
                    buf += g / scale
                    data -= lr * buf
                else:
                    data -= lr * (g / scale)
                updated(p)
        return loss
