"""Functions of tensors: the ``tensor`` constructor, joining, and the losses.

Each builds on :func:`~micrograd_edu.tensor.core.apply` (or on the operators),
so its gradient comes with it:

>>> p = tensor([1.0, 2.0], requires_grad=True)
>>> mse_loss(p, [1.0, 4.0]).backward()
>>> p.grad
array([ 0., -2.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import array_ops as A
from ..ops import ShapeError
from .core import Tensor, _data, _leaf, apply

__all__ = ["concatenate", "cross_entropy", "mse_loss", "stack", "tensor"]


def tensor(data: Any, requires_grad: bool = False, dtype: Any = None) -> Tensor:
    """Make a tensor, as ``torch.tensor`` does.

    >>> tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def concatenate(tensors: list[Tensor], axis: int = 0) -> Tensor:
    """Join tensors along an existing axis (``torch.cat``).

    >>> concatenate([Tensor([1.0]), Tensor([2.0, 3.0])])
    tensor([1., 2., 3.])
    """
    return apply(A.CONCATENATE, *tensors, static=(axis,))


def stack(tensors: list[Tensor], axis: int = 0) -> Tensor:
    """Join tensors of one shape along a new axis.

    >>> stack([Tensor([1.0, 2.0]), Tensor([3.0, 4.0])]).shape
    (2, 2)
    """
    return apply(A.STACK, *tensors, static=(axis,))


def mse_loss(prediction: Tensor, target: Any) -> Tensor:
    """Mean of the squared differences (``torch.nn.functional.mse_loss``).

    >>> mse_loss(Tensor([1.0, 2.0]), Tensor([1.0, 4.0]))
    tensor(2.)
    """
    target_shape = np.shape(_data(target))
    if prediction.shape != target_shape:
        raise ShapeError(
            f"mse_loss: prediction of shape {prediction.shape} and target of shape "
            f"{target_shape} must have the same shape (broadcasting here is usually a bug: "
            "reshape one of them)"
        )
    return apply(A.MSE_LOSS, prediction, target)


def cross_entropy(logits: Tensor, targets: Any) -> Tensor:
    """Mean negative log-likelihood of integer class ``targets`` under
    ``softmax(logits)`` (``torch.nn.functional.cross_entropy``), computed stably.

    >>> cross_entropy(Tensor([[0.0, 0.0]]), np.array([1]))
    tensor(0.6931)
    """
    if not isinstance(targets, Tensor):
        targets = _leaf(np.asarray(targets))
    return apply(A.CROSS_ENTROPY, logits, targets)
