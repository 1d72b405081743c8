"""What the grader runs next to the submission for chapter08_freeze: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import numpy as np

from ... import nn
from ...tensor import Tensor
from ..registry import Case


class _Pair(nn.Module):
    """Two linear layers with a ReLU between them (the lecture's Net2 shape)."""

    def __init__(self, first: nn.Linear, second: nn.Linear) -> None:
        super().__init__()
        self.layer0, self.layer1 = first, second

    def forward(self, x: Tensor) -> Tensor:
        return self.layer1(self.layer0(x).relu())


def _model(case: Case) -> nn.Module:
    linears = []
    for layer in case["layers"]:
        w = np.array(layer["weight"])
        linear = nn.Linear(w.shape[1], w.shape[0], seed=0)
        linear.weight.data[...] = w
        linear.bias.data[...] = layer["bias"]
        linears.append(linear)
    if case["kind"] == "long":
        return nn.Sequential(*linears)
    return nn.Sequential(_Pair(linears[0], linears[1]), linears[2])


def _run_freeze(functions: dict, case: Case) -> dict:
    model = _model(case)
    before = [p.data.copy() for p in model.parameters()]
    functions["freeze"](model, list(case["freeze"]))
    kept = all(np.array_equal(p.data, b) for p, b in zip(model.parameters(), before, strict=False))
    requires = [p.requires_grad for p in model.parameters()]
    attribute = [name for name, m in model.named_modules() if "requires_grad" in vars(m)]
    out = model(Tensor(case["x"]))
    try:
        (out * out).sum().backward()
    except RuntimeError as error:  # nothing that learns is left under the output
        said = f"{type(error).__name__}: {str(error)[:200]}"
        return {"error": said, "requires": requires, "attribute": attribute, "values_kept": kept}
    names, grads = [], []
    for name, p in model.named_parameters():
        names.append(name)
        grads.append(None if p.grad is None else np.asarray(p.grad, dtype=float).reshape(-1))
    return {
        "names": names,
        "grads": grads,
        "requires": requires,
        "attribute": attribute,
        "values_kept": kept,
    }
