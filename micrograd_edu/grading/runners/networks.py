"""A trained network, read as plain data for the grader to evaluate in its own process.

Chapters 09 and 10 grade a training by what the trained network computes on points the
submission never sees: the runner reads the network the student's function returned (an
``nn.Sequential`` of ``Linear`` layers, activations, ``Dropout`` and ``BatchNorm1d`` (read
as in ``eval()``), or one ``Linear``; optionally with
the centre and scale the inputs were standardised with) into its layers' kinds and
numbers, and the judge runs those numbers itself (``grading/networks.py``). So a
prediction can only come from a network: a lookup of the training rows has nothing to
report, and the held-out inputs never reach the submission's process. No answer lives
here (see runners/__init__.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ... import nn
from ..registry import Case, runner_factory

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
    if kind is nn.BatchNorm1d and module.track_running_stats:
        # as in eval(): the running statistics' fixed scale and shift, entry by entry
        scale = 1.0 / np.sqrt(np.asarray(module.running_var.data, dtype=float) + module.eps)
        if module.affine:
            scale = scale * np.asarray(module.weight.data, dtype=float)
        shift = -np.asarray(module.running_mean.data, dtype=float) * scale
        if module.has_bias:
            shift = shift + np.asarray(module.bias.data, dtype=float)
        out.append(["Scale", scale.tolist(), shift.tolist()])
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
    if not isinstance(answer, nn.Module):
        return {"not_a_network": f"an object of type {type(answer).__name__}"}
    problem = _layers(answer, layers)
    if problem:
        where = "" if problem == type(answer).__name__ else "a network holding "
        return {"not_a_network": f"{where}a module of type {problem}"}
    count = sum(np.size(part) for layer in layers for part in layer[1:] if part is not None)
    if count > MAX_PARAMETERS:
        return {"not_a_network": f"a network of {count:,} numbers"}
    seen: dict[str, Any] = {"layers": layers}
    if centre is not None:
        seen["centre"] = np.asarray(centre, dtype=float).reshape(-1).tolist()
        seen["scale"] = np.asarray(scale, dtype=float).reshape(-1).tolist()
        seen["shapes"] = [list(np.shape(centre)), list(np.shape(scale))]  # do they fit a row?
    return seen


@contextmanager
def counted_training() -> Iterator[dict[str, Any]]:
    """Count, while the student's training runs, the backward passes, and those that ran
    while a parameter of the graph still held a gradient from before (``stale``): a loop
    that never clears its gradients, however it would clear them, makes every backward
    after the first a stale one. The method, seen (for a hint: the grade is the network's).
    Also keeps, under ``first``, each parameter's numbers as the first backward pass that
    reached it saw them (by ``id``): how far the gradient steps moved it (:func:`moved`)."""
    from ...scalar.graph import topological_order
    from ...tensor import Tensor

    counts: dict[str, Any] = {"backward": 0, "stale": 0, "first": {}}
    backward = Tensor.backward

    def counted_backward(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        counts["backward"] += 1
        leaves = [n for n in topological_order(self) if not n.parents and n.requires_grad]
        if any(n.grad is not None and np.any(np.asarray(n.grad.data)) for n in leaves):
            counts["stale"] += 1
        for n in leaves:
            if id(n) not in counts["first"]:  # the tensor kept too, so its id stays its own
                counts["first"][id(n)] = (n, np.array(n.data, dtype=float, copy=True))
        return backward(self, *args, **kwargs)

    Tensor.backward = counted_backward
    try:
        yield counts
    finally:
        Tensor.backward = backward


def moved(network: Any, first: dict[int, tuple[Any, np.ndarray]]) -> float:
    """How far the returned network's parameters are from where the first backward pass
    that reached each saw them, relative to their size: a network set by hand, then given
    token steps, has not moved. A parameter no backward pass reached (a copy of the trained
    network) is measured from the nearest numbers of its shape a backward pass saw (none:
    it has not moved)."""
    if isinstance(network, (tuple, list)) and len(network) == 3:
        network = network[0]
    if not isinstance(network, nn.Module):
        return 0.0
    change = size = 0.0
    for p in network.parameters():
        now = np.asarray(p.data, dtype=float)
        if id(p) in first:
            then = [first[id(p)][1]]
        else:
            then = [seen for _, seen in first.values() if seen.shape == now.shape] or [now]
        change += min(float(np.sum((now - t) ** 2)) for t in then)
        size += float(np.sum(now**2))
    return float(np.sqrt(change / size)) if size > 0 else 0.0


def trained(train: Callable[[], Any]) -> dict:
    """Run ``train`` (the student's training, one call) and read the network it returns,
    with the counts of :func:`counted_training` (what the hints about the loop read) and
    how far the gradient steps moved it (:func:`moved`)."""
    with counted_training() as counts:
        network = train()
    first = counts.pop("first")
    return {**read_network(network), **counts, "moved": moved(network, first)}


# Each training exercise: its function, and its arguments (besides seed) as the case names them.
TRAININGS = {"train_model": ("x", "y"), "train_classifier": ("X", "labels")}
_TRAINED: dict[tuple, dict] = {}  # the last training observed, for the check that repeats it


@runner_factory
def run_training(name: str, again: bool = False) -> Callable[[dict, Case], dict]:
    """The runner of the training exercise whose function is ``name``: the network it
    returns for the case's data and seed; with ``again``, that training (the one an earlier
    check of the same case observed, when it did) and the same call once more, the second
    network under keys that begin with ``again.``."""

    def train(functions: dict, case: Case) -> dict:
        args = [np.array(case[k], dtype=int if k == "labels" else float) for k in TRAININGS[name]]
        return trained(lambda: functions[name](*args, case["seed"]))

    def run(functions: dict, case: Case) -> dict:
        key = (functions[name], case["seed"], str(case[TRAININGS[name][0]][:3]))
        first = _TRAINED.get(key) if again else None
        if first is None:
            _TRAINED.clear()
            _TRAINED[key] = first = train(functions, case)
        if not again:
            return dict(first)
        return {**first, **{f"again.{k}": v for k, v in train(functions, case).items()}}

    return run
