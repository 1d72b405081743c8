"""What the grader runs next to the submission for chapter08: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import numpy as np

from ... import nn
from ..registry import Case


def _build(spec: dict) -> tuple[nn.Module, list[nn.Parameter]]:
    """The real module tree of ``spec``, and its parameters in creation order."""
    modules: list[nn.Module] = []
    created: list[nn.Parameter] = []

    def make(node: dict) -> nn.Module:
        block = nn.Module()
        for name, p in node["params"]:
            if "ref" in p:
                setattr(block, name, created[p["ref"]])
                continue
            param = nn.Parameter(np.full(p["shape"], len(created), dtype=float))
            param.requires_grad_(not p["frozen"])
            created.append(param)
            setattr(block, name, param)
        for name, child in node["children"]:
            setattr(block, name, modules[child["ref"]] if "ref" in child else make(child))
        modules.append(block)
        return block

    return make(spec), created


def _run_walk(functions: dict, case: Case) -> dict:
    module, created = _build(case["tree"])
    index = {id(p): k for k, p in enumerate(created)}
    names, which = [], []
    for name, param in functions["named_parameters"](module):
        names.append(name)
        which.append(index.get(id(param), -1))
    return {"names": names, "which": which}
