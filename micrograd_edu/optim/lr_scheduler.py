"""Learning-rate schedules: ``StepLR``, ``ExponentialLR`` and ``LambdaLR``, with
PyTorch's ``step()`` and ``get_last_lr()``.

>>> from micrograd_edu import Tensor
>>> from micrograd_edu.optim import SGD
>>> opt = SGD([Tensor([1.0], requires_grad=True)], lr=1.0)
>>> schedule = StepLR(opt, step_size=2, gamma=0.1)
>>> lrs = []
>>> for epoch in range(5):
...     lrs.append(schedule.get_last_lr()[0]); opt.step(); schedule.step()
>>> [round(lr, 6) for lr in lrs]
[1.0, 1.0, 0.1, 0.1, 0.01]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "ExponentialLR", "LambdaLR"]


class LRScheduler:
    """Sets each group's ``"lr"`` from its ``"initial_lr"`` and the epoch count."""

    def __init__(self, optimizer: Optimizer) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{type(self).__name__}: expected an optimiser, got {type(optimizer).__name__}"
            )
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def factor(self, epoch: int, index: int) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    def step(self) -> None:
        """Advance one epoch and set the learning rates for it."""
        self.last_epoch += 1
        for i, group in enumerate(self.optimizer.param_groups):
            group["lr"] = self.base_lrs[i] * self.factor(self.last_epoch, i)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step`` set (one per group)."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        return {"last_epoch": self.last_epoch, "base_lrs": list(self.base_lrs)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.last_epoch, self.base_lrs = state["last_epoch"], list(state["base_lrs"])


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1) -> None:
        if int(step_size) < 1:
            raise ValueError(f"StepLR: step_size must be a positive int, got {step_size!r}")
        self.step_size, self.gamma = int(step_size), gamma
        super().__init__(optimizer)

    def factor(self, epoch: int, index: int) -> float:
        return self.gamma ** (epoch // self.step_size)


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float) -> None:
        self.gamma = gamma
        super().__init__(optimizer)

    def factor(self, epoch: int, index: int) -> float:
        return self.gamma**epoch


class LambdaLR(LRScheduler):
    """The initial learning rate times ``lr_lambda(epoch)``."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float]) -> None:
        self.lr_lambda = lr_lambda
        super().__init__(optimizer)

    def factor(self, epoch: int, index: int) -> float:
        return self.lr_lambda(epoch)
