"""Losses as modules: ``MSELoss`` and ``CrossEntropyLoss`` (PyTorch's names).

>>> MSELoss()(Tensor([1.0, 2.0]), Tensor([1.0, 4.0]))
tensor(2.)
>>> CrossEntropyLoss()(Tensor([[0.0, 0.0]]), tensor([1]))
tensor(0.6931)
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor, tensor  # noqa: F401  (tensor: the docstring's example)
from . import functional as F
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss"]


class MSELoss(Module):
    """The mean (or ``reduction="sum"``) of the squared differences."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, prediction: Tensor, target: Any) -> Tensor:
        return F.mse_loss(prediction, target, reduction=self.reduction)


class CrossEntropyLoss(Module):
    """Softmax cross-entropy of logits against integer class labels, averaged (or
    ``reduction="sum"``/``"none"``); ``weight``: one number per class, as in PyTorch."""

    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def forward(self, logits: Tensor, targets: Any) -> Tensor:
        return F.cross_entropy(logits, targets, weight=self.weight, reduction=self.reduction)
