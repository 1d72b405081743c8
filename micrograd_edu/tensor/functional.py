"""Functions of several tensors: joining, choosing, and the two losses.

Each builds on :func:`~micrograd_edu.tensor.tensor.apply` (or on the methods), with
the operations of the families (:mod:`.shape`'s joins, :mod:`.products`,
:mod:`.losses`), so its gradient comes with it:

>>> p = tensor([1.0, 2.0], requires_grad=True)
>>> mse_loss(p, [1.0, 4.0]).backward()
>>> p.grad
tensor([ 0., -2.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .creation import tensor
from .losses import CROSS_ENTROPY, MSE_LOSS
from .operation import ShapeError, data_of
from .products import MATMUL
from .shape import CONCATENATE, STACK, axis_of
from .tensor import Tensor, apply, leaf

__all__ = [
    "cat",
    "concatenate",
    "stack",
    "where",
    "maximum",
    "minimum",
    "matmul",
    "mse_loss",
    "cross_entropy",
]


def _tensors(tensors: Any, op: str) -> list[Tensor]:
    items = list(tensors)
    if not items:
        raise ValueError(f"{op}: got an empty list; give one or more tensors")
    return [t if isinstance(t, Tensor) else tensor(t) for t in items]


def cat(tensors: Any, dim: int = 0, **numpy_names: Any) -> Tensor:
    """Join tensors along an existing axis (``torch.cat``; numpy's ``axis=`` works too).

    >>> cat([Tensor([1.0]), Tensor([2.0, 3.0])])
    tensor([1., 2., 3.])
    """
    items = _tensors(tensors, "cat")
    axis = axis_of(numpy_names.pop("axis", dim), items[0].ndim, "cat")
    return apply(CONCATENATE, *items, static=(axis,))


concatenate = cat


def stack(tensors: Any, dim: int = 0, **numpy_names: Any) -> Tensor:
    """Join tensors of one shape along a new axis.

    >>> stack([Tensor([1.0, 2.0]), Tensor([3.0, 4.0])]).shape
    (2, 2)
    """
    items = _tensors(tensors, "stack")
    axis = axis_of(numpy_names.pop("axis", dim), items[0].ndim + 1, "stack")
    return apply(STACK, *items, static=(axis,))


def where(condition: Any, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    """``input`` where ``condition`` holds, ``other`` elsewhere (``torch.where``); with the
    condition alone, the indices where it holds, one tensor per axis.

    >>> where(Tensor([1.0, -1.0]) > 0, Tensor([1.0, 2.0]), 0.0)
    tensor([1., 0.])
    >>> where(tensor([[True, False], [True, True]]))
    (tensor([0, 1, 1]), tensor([0, 0, 1]))
    """
    if input is None and other is None:
        found = np.nonzero(np.asarray(data_of(condition)))
        return tuple(leaf(np.asarray(i, dtype=np.int64)) for i in found)
    if input is None or other is None:
        raise TypeError("where(): give the condition alone, or with both input and other")
    if not isinstance(input, Tensor):
        like = other.dtype if isinstance(other, Tensor) else np.result_type(input, other)
        input = tensor(input, dtype=like)
    return input.where(condition, other)


def maximum(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    """The larger entry of two tensors, elementwise."""
    return input.maximum(other)


def minimum(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    """The smaller entry of two tensors, elementwise."""
    return input.minimum(other)


def matmul(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input @ other`` (``torch.matmul``)."""
    return apply(MATMUL, input, other)


def mse_loss(prediction: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """Mean of the squared differences (``torch.nn.functional.mse_loss``).

    >>> mse_loss(Tensor([1.0, 2.0]), Tensor([1.0, 4.0]))
    tensor(2.)
    """
    target_shape = np.shape(data_of(target))
    if prediction.shape != target_shape:
        raise ShapeError(
            f"mse_loss: prediction of shape {prediction.shape} and target of shape "
            f"{target_shape} must have the same shape (broadcasting here is usually a bug: "
            "reshape one of them)"
        )
    if reduction == "mean":
        return apply(MSE_LOSS, prediction, target)
    d = prediction - target
    if reduction == "sum":
        return (d * d).sum()
    if reduction == "none":
        return d * d
    raise ValueError(f"mse_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def cross_entropy(
    logits: Tensor, targets: Any, weight: Any = None, reduction: str = "mean"
) -> Tensor:
    """Negative log-likelihood of integer class ``targets`` under ``softmax(logits)``
    (``torch.nn.functional.cross_entropy``), computed stably: averaged over the rows,
    summed (``reduction="sum"``) or one per row (``"none"``). The classes are the last
    axis. With ``weight`` (one number per class) each row's loss is multiplied by the
    weight of its class, and the mean divides by the sum of those weights, as in PyTorch.

    >>> cross_entropy(Tensor([[0.0, 0.0]]), tensor([1]))
    tensor(0.6931)
    >>> cross_entropy(Tensor([[0.0, 0.0], [0.0, 2.0]]), tensor([1, 0]), reduction="none")
    tensor([0.6931, 2.1269])
    >>> cross_entropy(Tensor([[0.0, 0.0], [0.0, 2.0]]), tensor([1, 0]), weight=[1.0, 3.0])
    tensor(1.0516)
    """
    if not isinstance(targets, Tensor):
        targets = leaf(np.asarray(targets))
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(
            f"cross_entropy: reduction must be 'mean', 'sum' or 'none', got {reduction!r}"
        )
    if weight is None and reduction == "mean":
        return apply(CROSS_ENTROPY, logits, targets)  # checks the targets, mean
    classes = logits.shape[-1] if logits.ndim else 0
    if weight is not None:
        weight = np.asarray(data_of(weight), dtype=float)
        if weight.shape != (classes,):
            raise ShapeError(
                f"cross_entropy: weight has shape {weight.shape}; it must hold one number per "
                f"class, shape ({classes},), for logits of shape {logits.shape}"
            )
    apply(CROSS_ENTROPY, logits.detach(), targets)  # the same checks of the targets
    rows = targets._data.reshape(-1)
    picked = logits.log_softmax(-1).reshape(-1, classes)[np.arange(rows.size), rows]
    per_row = -picked.reshape(targets.shape)
    if weight is not None:
        row_weight = weight[targets._data]
        per_row = per_row * row_weight
        if reduction == "mean":
            return per_row.sum() / row_weight.sum()
    return per_row.sum() if reduction == "sum" else per_row
