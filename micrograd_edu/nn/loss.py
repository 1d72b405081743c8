"""Losses as modules, with PyTorch's names, arguments and buffers: ``MSELoss``,
``L1Loss``, ``CrossEntropyLoss``, ``NLLLoss``, ``BCELoss`` and ``BCEWithLogitsLoss``.
A class ``weight`` (and ``pos_weight``) is kept as a buffer, as in PyTorch.

>>> MSELoss()(Tensor([1.0, 2.0]), Tensor([1.0, 4.0]))
tensor(2.)
>>> CrossEntropyLoss()(Tensor([[0.0, 0.0]]), tensor([1]))
tensor(0.6931)
>>> list(CrossEntropyLoss(weight=Tensor([1.0, 2.0])).state_dict())
['weight']
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor, tensor
from . import functional as F
from .loss_functions import reduction_of
from .module import Module

__all__ = [
    "MSELoss",
    "L1Loss",
    "CrossEntropyLoss",
    "NLLLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
]


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super().__init__()
        reduction_of(type(self).__name__, reduction, size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", _as_tensor(weight))


def _as_tensor(value: Any) -> Tensor | None:
    return value if value is None or isinstance(value, Tensor) else tensor(value)


class MSELoss(_Loss):
    """The mean (or ``reduction="sum"``/``"none"``) of the squared differences."""

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """The mean (or sum, or each) of the absolute differences."""

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """The negative log-likelihood of class targets under log-probabilities (the output of
    ``LogSoftmax``)."""

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return F.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(NLLLoss):
    """Softmax cross-entropy of logits against class indices or class probabilities, with
    ``weight``, ``ignore_index`` and ``label_smoothing`` (see ``nn.functional``)."""

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return F.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (the output of ``Sigmoid``) against targets."""

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits against targets, computed stably; ``pos_weight``
    weighs the positive term."""

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Any = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", _as_tensor(weight))
        self.register_buffer("pos_weight", _as_tensor(pos_weight))

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy_with_logits(
            input,
            target,
            weight=self.weight,
            reduction=self.reduction,
            pos_weight=self.pos_weight,
        )
