"""What the grader runs next to the submission for chapter08_optim: it builds the
parameters of a case, hands them to the student's optimiser class and records where
each step leaves them. No answer, oracle or expected value lives here (see
runners/__init__.py)."""

from __future__ import annotations

import numpy as np

from ... import nn
from ...tensor import Tensor
from ..registry import Case


def _run_optimiser(functions: dict, case: Case) -> dict:
    """Step the student's optimiser through the case's gradients as a training loop
    does (``zero_grad``, a ``backward`` that gives each parameter its gradient, ``step``),
    with the learning rates a scheduler would set; the parameters after every step. A case
    ``in_place`` zeroes the gradients in place (``zero_grad(set_to_none=False)``)."""
    shapes = case["shapes"]
    params = [
        nn.Parameter(np.reshape(np.array(v, dtype=float), s))
        for v, s in zip(case["init"], shapes, strict=True)
    ]
    groups = [
        {**_hyper(group), "params": [params[i] for i in group["params"]]}
        for group in case["groups"]
    ]
    given = groups[0]["params"] if len(groups) == 1 else groups
    opt = functions[case["optimiser"]](given, **_hyper(case["defaults"]))
    trajectory = []
    for step, grads in enumerate(case["grads"]):
        for group, lr in zip(
            opt.param_groups, case["lrs"][step] if case["lrs"] else (), strict=False
        ):
            group["lr"] = lr
        # zeroed in place where the case says so (a state that aliases p.grad then shows)
        opt.zero_grad(set_to_none=False) if case.get("in_place") else opt.zero_grad()
        terms = [
            (Tensor(np.reshape(np.array(g, dtype=float), s)) * p).sum()
            for p, g, s in zip(params, grads, shapes, strict=True)
            if g is not None
        ]
        if terms:
            sum(terms[1:], terms[0]).backward()  # each parameter's gradient is its g
        opt.step()
        trajectory.append([np.array(p.data, dtype=float).ravel() for p in params])  # copies
    return {"trajectory": trajectory}


def _hyper(spec: dict) -> dict:
    """A group's hyperparameters as a user writes them (``betas`` a tuple)."""
    return {k: tuple(v) if k == "betas" else v for k, v in spec.items() if k != "params"}
