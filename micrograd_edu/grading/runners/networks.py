"""A trained network, read as plain data for the grader to evaluate in its own process.

Chapters 09 and 10 grade a training by what the trained network computes on points the
submission never sees: the runner reads the network the student's function returned (an
``nn.Sequential`` of ``Linear`` layers and activations, or one ``Linear``; optionally with
the centre and scale the inputs were standardised with) into its layers' kinds and
numbers, and the judge runs those numbers itself (``grading/networks.py``). So a
prediction can only come from a network: a lookup of the training rows has nothing to
report, and the held-out inputs never reach the submission's process. No answer lives
here (see runners/__init__.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import nn

# Activations by class, with the attributes their forward reads.
ACTIVATIONS = {
    nn.ReLU: (),
    nn.Tanh: (),
    nn.Sigmoid: (),
    nn.Identity: (),
    nn.LeakyReLU: ("negative_slope",),
    nn.Softmax: ("dim",),
    nn.LogSoftmax: ("dim",),
}
MAX_PARAMETERS = 200_000  # far above the chapters' networks; the grader reads no more


def _layers(module: Any, out: list) -> str | None:
    """Append ``module``'s layers to ``out``; the name of what cannot be read, if any."""
    kind = type(module)
    if isinstance(module, nn.Sequential) and kind in (nn.Sequential,):
        for child in module:
            problem = _layers(child, out)
            if problem:
                return problem
        return None
    if kind is nn.Linear:
        # as nested lists: row by row, a large weight stays within what the grader reads
        weight = np.asarray(module.weight.data, dtype=float).tolist()
        bias = None if module.bias is None else np.asarray(module.bias.data, dtype=float).tolist()
        out.append(["Linear", weight, bias])
        return None
    if kind is nn.Dropout:  # a trained network is evaluated as in eval(): Dropout passes x
        out.append(["Identity"])
        return None
    if kind in ACTIVATIONS:
        out.append([kind.__name__, *(float(getattr(module, a)) for a in ACTIVATIONS[kind])])
        return None
    return kind.__name__


def read_network(answer: Any) -> dict:
    """What ``train_…`` returned, as the judge reads it: ``layers``, and the ``centre``
    and ``scale`` of the inputs when it returned ``(network, centre, scale)``; or
    ``not_a_network`` naming what it found instead."""
    centre = scale = None
    if isinstance(answer, (tuple, list)) and len(answer) == 3:
        answer, centre, scale = answer
    layers: list = []
    problem = _layers(answer, layers) if isinstance(answer, nn.Module) else type(answer).__name__
    if problem:
        return {"not_a_network": problem}
    count = sum(np.size(part) for layer in layers for part in layer[1:] if part is not None)
    if count > MAX_PARAMETERS:
        return {"not_a_network": f"a network of {count:,} numbers"}
    seen: dict[str, Any] = {"layers": layers}
    if centre is not None:
        seen["centre"] = np.asarray(centre, dtype=float).reshape(-1).tolist()
        seen["scale"] = np.asarray(scale, dtype=float).reshape(-1).tolist()
    return seen
