"""Chapter 08's exercise 3: freezing layers.

The oracle for the gradients that still flow is the engine's backward pass of the same
small network with nothing frozen, run by the grader: freezing a layer stops its own
gradient, and changes no other. Which parameters the names freeze is the grader's reading of
the dotted names, not a freeze of its own.
"""

from __future__ import annotations

import random

import numpy as np

from ..tensor import Tensor
from .plain import as_floats
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter08_freeze import _model, _run_freeze


def _freeze_cases(*kinds: str):
    """Two cases of each kind: ``nested`` freezes one layer inside the pair, ``container``
    the pair itself (its layers are its children's, not its own parameters), ``several``
    a layer in the pair and the last layer, ``long`` layer '1' of twelve."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for kind in [k for k in kinds for _ in range(2)]:
            n = 12 if kind == "long" else 3
            sizes = [rng.randint(2, 4) for _ in range(n + 1)]
            layers = [
                {
                    "weight": [
                        [rng.gauss(0, 0.7) for _ in range(sizes[k])] for _ in range(sizes[k + 1])
                    ],
                    "bias": [rng.gauss(0, 0.5) for _ in range(sizes[k + 1])],
                }
                for k in range(n)
            ]
            names = {
                "long": ["1"],
                "nested": ["0.layer1"],
                "container": ["0"],
                "several": ["0.layer0", "1"],
            }[kind]
            x = [[rng.gauss(0, 1) for _ in range(sizes[0])] for _ in range(rng.randint(1, 4))]
            out.append({"kind": kind, "layers": layers, "freeze": names, "x": x})
        return out

    return cases


def _layer_names(case: Case) -> list[str]:
    if case["kind"] == "long":
        return [str(k) for k in range(len(case["layers"]))]
    return ["0.layer0", "0.layer1", "1"]


def _engine_gradients(case: Case) -> list[np.ndarray]:
    """d(sum of squared outputs)/d(each weight and bias), flattened, by the engine's backward
    of the case's model with nothing frozen."""
    model = _model(case)
    out = model(Tensor(case["x"]))
    (out * out).sum().backward()
    return [np.asarray(p.grad, dtype=float).reshape(-1) for p in model.parameters()]


def _judge_freeze(case: Case, seen: dict) -> str | None:
    """Exactly the named modules (and every module inside them) stop getting gradients,
    the others get their full gradient, and the model still computes what it did."""
    layers = _layer_names(case)
    expected = [f"{layer}.{p}" for layer in layers for p in ("weight", "bias")]
    names, grads = seen.get("names"), seen.get("grads")
    if names != expected or not isinstance(grads, list) or len(grads) != len(expected):
        return "the model lost or gained parameters (freeze must only switch requires_grad)"
    if seen.get("values_kept") is not True:
        return "the parameters' values changed: the frozen model no longer computes what it did"
    frozen = _frozen_names(case)
    for name, got, exact in zip(names, grads, _engine_gradients(case), strict=True):
        if name in frozen and got is not None:
            return f"{name} still gets a gradient after freezing {case['freeze']}"
        if name not in frozen:
            values = as_floats(got, exact.size)
            if values is None:
                return f"{name} gets no gradient, but it is not in {case['freeze']}"
            if not np.allclose(values, exact, rtol=1e-8, atol=1e-10):
                return f"{name} gets a wrong gradient after freezing {case['freeze']}"
    return None


def _frozen_names(case: Case, prefix: bool = False) -> set[str]:
    """The parameters freezing ``case["freeze"]`` stops: by whole names, or (the mistake)
    by every module whose name merely starts with one of them."""
    return {
        f"{layer}.{p}"
        for layer in _layer_names(case)
        for p in ("weight", "bias")
        for n in case["freeze"]
        if layer == n or layer.startswith(n + ".") or (prefix and layer.startswith(n))
    }


def _own_only(case: Case, seen: dict) -> bool:
    """Only the parameters a named module holds itself were switched off, not those of the
    modules inside it (the pair '0' holds none of its own)."""
    names, requires = seen.get("names") or [], seen.get("requires") or []
    off = {n for n, r in zip(names, requires, strict=False) if not r}
    layers = set(_layer_names(case))
    own = {f"{n}.{p}" for n in case["freeze"] if n in layers for p in ("weight", "bias")}
    return off == own != _frozen_names(case)


def _nothing_switched(case: Case, seen: dict) -> bool:
    return all(seen.get("requires") or [False]) and not seen.get("attribute")


def _by_prefix(case: Case, seen: dict) -> bool:
    names, requires = seen.get("names") or [], seen.get("requires") or []
    off = {n for n, r in zip(names, requires, strict=False) if not r}
    return off == _frozen_names(case, prefix=True) != _frozen_names(case)


def _graph_cut(case: Case, seen: dict) -> bool:
    # the parameters were switched off as asked, yet a layer that is not frozen lost its
    # gradient (or, the last layer frozen too, nothing that learns is left under the output)
    names = [f"{layer}.{p}" for layer in _layer_names(case) for p in ("weight", "bias")]
    frozen, grads = _frozen_names(case), seen.get("grads") or []
    switched = {n for n, r in zip(names, seen.get("requires") or [], strict=False) if not r}
    if "does not require grad" in str(seen.get("error", "")):
        return switched == frozen
    return switched == frozen and any(
        g is None for n, g in zip(names, grads, strict=False) if n not in frozen
    )


_FREEZE_MISTAKES = (
    Mistake(
        lambda case, seen: seen.get("values_kept") is False,
        "freeze changed the parameters' values: freezing stops a layer from learning, it does "
        "not change what the layer computes",
        name="values changed",
    ),
    Mistake(
        lambda case, seen: bool(seen.get("attribute")) and all(seen.get("requires") or [False]),
        "the module got an attribute called requires_grad, but its parameters still require "
        "gradients: it is each parameter's flag that backward reads",
        name="module attribute",
    ),
    Mistake(
        _own_only,
        "only the parameters the named module holds itself stopped learning: a module's "
        "parameters include those of the modules inside it, so freezing a block freezes its "
        "layers",
        name="own parameters only",
    ),
    Mistake(
        _nothing_switched,
        "after freeze, every parameter still has requires_grad = True, and backward fills the "
        ".grad of every parameter that requires it, whatever .grad held before",
        name="nothing switched off",
    ),
    Mistake(
        _by_prefix,
        "modules whose names merely start with a frozen name were frozen too: '10' is not "
        "inside '1'; a dotted name is matched whole",
        name="name prefix",
    ),
    Mistake(
        _graph_cut,
        "a layer you did not freeze lost its gradient: the gradient must still flow through a "
        "frozen layer to the layers before it",
        name="graph cut",
    ),
)


FREEZE = register(
    Exercise(
        "08.freeze",
        "Freezing layers",
        1,
        "freeze(model, names) stops the sub-modules named in names (dotted names, as "
        "named_modules gives them), and every module inside them, from getting gradients; "
        "every other parameter still learns, and the model computes what it did.",
        ("freeze",),
        (
            Check(
                "only the named modules stop learning (the layers inside a frozen block too); "
                "the others get their full gradient, and the model computes what it did",
                "",
                _freeze_cases("nested", "container", "several"),
                _run_freeze,
                _judge_freeze,
                weight=2.0,
                mistakes=_FREEZE_MISTAKES,
            ),
            Check(
                "a name means a whole module ('1' is not '10')",
                "",
                _freeze_cases("long"),
                _run_freeze,
                _judge_freeze,
                mistakes=_FREEZE_MISTAKES,
            ),
        ),
    )
)
