"""``nn.utils``: clipping gradients before a step, as ``torch.nn.utils`` does it.

>>> from micrograd_edu.nn import Parameter
>>> import numpy as np
>>> p = Parameter(np.zeros(2)); p.grad = np.array([3.0, 4.0])
>>> clip_grad_norm_([p], max_norm=1.0)     # the norm before clipping
tensor(5.)
>>> p.grad
tensor([0.6000, 0.8000])
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor, cat

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector"]


def _with_grads(parameters: Any) -> list[Any]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in params if p.grad is not None]


def clip_grad_norm_(
    parameters: Iterable[Any] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """Scale every gradient by max_norm / (total norm + 1e-6) when that is below 1 (the total
    norm of all gradients together); returns the total norm before clipping."""
    params = _with_grads(parameters)
    norm_type = float(norm_type)
    if not params:
        return Tensor(np.array(0.0))
    grads = [p.grad._data for p in params]
    if math.isinf(norm_type):
        norms = np.array([np.abs(g).max() if g.size else 0.0 for g in grads])
        total = norms.max()
    else:
        norms = np.array([np.sum(np.abs(g) ** norm_type) ** (1.0 / norm_type) for g in grads])
        total = np.sum(norms**norm_type) ** (1.0 / norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is "
            f"{total}, so they cannot be clipped; pass error_if_nonfinite=False to go on"
        )
    scale = min(max_norm / (total + 1e-6), 1.0)
    for p in params:
        p.grad._data[...] = p.grad._data * scale
    return Tensor(np.array(total, dtype=grads[0].dtype))


def clip_grad_value_(
    parameters: Iterable[Any] | Tensor, clip_value: float, foreach: Any = None
) -> None:
    """Clamp every gradient entry to [−clip_value, clip_value], in place."""
    for p in _with_grads(parameters):
        np.clip(p.grad._data, -clip_value, clip_value, out=p.grad._data)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Every parameter's values, flattened and laid end to end (in the graph)."""
    return cat([p.reshape(-1) for p in parameters])
