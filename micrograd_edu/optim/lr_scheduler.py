"""Learning-rate schedules with PyTorch's ``step()``, ``get_last_lr()`` and its *chainable*
rule: each step changes the rate the optimiser holds now (``group["lr"]``), not a rate
recomputed from the initial one. So a rate set by hand, or two schedulers on one optimiser,
compose exactly as in PyTorch. ``LambdaLR`` alone scales the initial rate, as PyTorch's does.

>>> from micrograd_edu import Tensor
>>> from micrograd_edu.optim import SGD
>>> opt = SGD([Tensor([1.0], requires_grad=True)], lr=1.0)
>>> schedule = StepLR(opt, step_size=2, gamma=0.1)
>>> lrs = []
>>> for epoch in range(5):
...     lrs.append(schedule.get_last_lr()[0]); opt.step(); schedule.step()
>>> [round(lr, 6) for lr in lrs]
[1.0, 1.0, 0.1, 0.1, 0.01]

Two schedulers on one optimiser multiply, as in PyTorch:

>>> opt = SGD([Tensor([1.0], requires_grad=True)], lr=1.0)
>>> a, b = ExponentialLR(opt, gamma=0.5), StepLR(opt, step_size=1, gamma=0.1)
>>> opt.step(); a.step(); b.step(); round(opt.param_groups[0]["lr"], 6)
0.05
"""

from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
]


class LRScheduler:
    """The base of every schedule: subclasses give :meth:`get_lr`, the rates of the epoch
    ``last_epoch`` (from the groups' current rates), and may give ``closed_form``, the rates
    of any epoch from the initial ones (what ``step(epoch)`` uses)."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{type(self).__name__}: expected an optimiser, got {type(optimizer).__name__}"
            )
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"{type(self).__name__}: param_groups[{i}] has no 'initial_lr', which "
                        f"resuming with last_epoch={last_epoch} needs; load the optimiser's "
                        "state_dict first, or start with last_epoch=-1"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._initial = True  # the constructor's own step sets the rates of epoch 0
        self.step()
        self._initial = False

    def get_lr(self) -> list[float]:  # pragma: no cover - every schedule defines it
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")

    def _current(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or, as PyTorch's deprecated form, jump to ``epoch``) and set
        each group's rate."""
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            warnings.warn(
                "scheduler.step(epoch) is deprecated in PyTorch (it uses the closed form where "
                "there is one); call scheduler.step() once per epoch",
                UserWarning,
                stacklevel=2,
            )
            self.last_epoch = epoch
            closed = getattr(self, "closed_form", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = self._current()

    def get_last_lr(self) -> list[float]:
        """The rates the last ``step`` set (one per group)."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimiser (and, for ``LambdaLR``, its functions), as PyTorch."""
        skip = {"optimizer", "lr_lambdas"}
        return {key: value for key, value in self.__dict__.items() if key not in skip}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


def _lambdas(name: str, optimizer: Any, fn: Any) -> list[Callable[[int], float]]:
    groups = len(getattr(optimizer, "param_groups", ()))
    if isinstance(fn, list | tuple):
        if len(fn) != groups:
            raise ValueError(
                f"{name}: expected {groups} lr_lambdas (one per parameter group), got {len(fn)}"
            )
        return list(fn)
    return [fn] * groups


class LambdaLR(LRScheduler):
    """The initial rate times ``lr_lambda(epoch)`` (one function, or one per group)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.lr_lambdas = _lambdas(type(self).__name__, optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [
            base * fn(self.last_epoch)
            for fn, base in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class MultiplicativeLR(LambdaLR):
    """The current rate times ``lr_lambda(epoch)`` at each step after the first."""

    def get_lr(self) -> list[float]:
        if self._initial:
            return self._current()
        return [
            group["lr"] * fn(self.last_epoch)
            for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)
        ]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        if not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"StepLR: step_size must be a positive int, got {step_size!r}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def closed_form(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch listed in ``milestones``."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        times = self.milestones.get(self.last_epoch, 0)
        return [lr * self.gamma**times for lr in self._current()] if times else self._current()

    def closed_form(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def closed_form(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from the initial rate down to ``eta_min`` over ``T_max`` epochs, in
    PyTorch's recursive form (which also follows a rate changed by hand)."""

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t, n, low = self.last_epoch, self.T_max, self.eta_min
        if self._initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            return [
                low + (base - low) * (1 + math.cos(t * math.pi / n)) / 2 for base in self.base_lrs
            ]
        if (t - 1 - n) % (2 * n) == 0:
            return [
                lr + (base - low) * (1 - math.cos(math.pi / n)) / 2
                for base, lr in zip(self.base_lrs, self._current(), strict=True)
            ]
        ratio = (1 + math.cos(math.pi * t / n)) / (1 + math.cos(math.pi * (t - 1) / n))
        return [ratio * (lr - low) + low for lr in self._current()]

    def closed_form(self) -> list[float]:
        t, n, low = self.last_epoch, self.T_max, self.eta_min
        return [low + (base - low) * (1 + math.cos(math.pi * t / n)) / 2 for base in self.base_lrs]
