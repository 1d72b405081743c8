"""The review's aliasing SGD (chapter 08's "aliased" mistake): kept out of the wheel, since
it is a whole optimiser but for one copy."""

from __future__ import annotations

from ... import optim


class AliasedSGD(optim.Optimizer):
    """SGD whose velocity starts as the gradient array itself, not a copy (the review's):
    right while each backward makes a new .grad, wrong once zero_grad zeroes it in place
    and backward writes into it. Run through the grader's own loop, as the student's is."""

    def __init__(self, params: list, lr: float = 0.01, momentum: float = 0.9) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum})

    def step(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state, g = self.state[p], p.grad.data
                if "velocity" not in state:
                    state["velocity"] = g
                else:
                    state["velocity"] *= group["momentum"]
                    state["velocity"] += g
                p.data -= group["lr"] * state["velocity"]
