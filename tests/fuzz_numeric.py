"""The oracle without PyTorch: a program's schedule replayed with central differences.

The forward pass is evaluated by the engine with nothing recorded, so none of its backward
code runs here: every gradient comes from differences of values. What the hooks and
``detach`` do is folded into the function that is differentiated: a hook ``g -> c*g + d`` on a
tensor ``t`` makes the same gradient as replacing ``t`` by ``c*t + (1-c)*t0`` (``t0`` its value
at the point, a constant) and adding ``sum(d*t)`` to the loss; ``detach`` is the case ``c = 0``.
A gradient that reaches an intermediate (an observer's, or a retained one) is a difference in a
nudge added to that intermediate. Second derivatives are differences of differences:
``H u = d/dx (grad f . u)``, four values of ``f`` per entry.

Some combinations are not modelled: hooks with a second-order stage, hooks on intermediates
or retained gradients with ``inputs=`` or ``autograd.grad`` (which tensors such a pass visits
is the engine's choice), casts to float32 and back (differences of rounded values mean
nothing), and a gradient retained or hooked on ``x.contiguous()``, which is ``x`` itself.
:func:`numeric_outcome` returns None for them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from central_differences import central_gradient
from fuzz_programs import ENGINE, Program, compiled, grad_leaves, live, requiring_grad

FIRST, SECOND = 1e-6, 1e-4  # steps of the first and the second differences


class Unsafe(Exception):
    """A node's inputs came near a kink, a tie or a singularity: the program is not judged."""


def check_node(node: Any, arrays: list, value: np.ndarray) -> None:
    """Raise :class:`Unsafe` unless ``node``'s inputs are inside its domain and its value
    is finite and moderate."""
    if node.safe is not None and not node.safe(*arrays):
        raise Unsafe(f"{node.name} = {node.expr.format(*node.inputs)}: an input is near a kink")
    if value.dtype.kind == "f" and (
        value.size == 0 or not np.all(np.isfinite(value)) or np.abs(value).max() > 1e4
    ):
        raise Unsafe(f"{node.name}: not finite or too large")


class Forward:
    """The program's forward pass as a function of its leaves' values."""

    def __init__(self, p: Program) -> None:
        self.p = p
        self.affine: dict[str, tuple[float, float]] = {}  # a tensor's hooks, composed
        reached = live(p)  # a hook runs only where a gradient arrives (its shift is no term else)
        for hook in p.hooks:
            if hook.scale is not None and hook.target in reached:
                c, d = self.affine.get(hook.target, (1.0, 0.0))
                self.affine[hook.target] = (c * hook.scale, d * hook.scale + hook.shift)

    def run(self, leaves: dict, base: dict | None = None, nudge: tuple | None = None):
        """The values of every tensor, and the function whose gradient the engine computes:
        with ``base`` (the values at the point) the hooks and ``detach`` act as above."""
        tensors, arrays, extra = {}, dict(leaves), 0.0
        for name, value in leaves.items():
            maker = ENGINE["Tensor"] if value.dtype.kind == "f" else ENGINE["tensor"]
            tensors[name] = maker(value)
        for node in self.p.body:
            out = compiled(node.expr, len(node.inputs))(*[tensors[i] for i in node.inputs])
            value = np.array(out.numpy())
            changed = False
            if base is None:
                check_node(node, [arrays[i] for i in node.inputs], value)
            else:
                if node.stop:
                    value, changed = base[node.name], True
                if node.name in self.affine:
                    c, d = self.affine[node.name]
                    extra += float((d * value).sum())
                    value, changed = c * value + (1 - c) * base[node.name], True
            if nudge is not None and nudge[0] == node.name:
                value, changed = value + nudge[1], True
            arrays[node.name] = value
            tensors[node.name] = ENGINE["Tensor"](value) if changed else out
        return arrays, float(arrays["loss"]) + extra

    def objective(self, leaves: dict, base: dict, nudge: tuple | None = None) -> float:
        return self.run(leaves, base, nudge)[1]


def numeric_outcome(p: Program) -> dict | None:
    """The results a correct engine records for ``p`` (keys as :func:`fuzz_programs.render`
    writes them), or None where the program combines what is not modelled. Raises
    :class:`Unsafe` when the program comes near a kink."""
    kinds = {step.kind for step in p.steps}
    leaves = {leaf.name for leaf in p.leaves}
    inner = p.retained or any(h.target not in leaves for h in p.hooks)
    if (inner and kinds & {"inputs", "grad", "second"}) or (p.hooks and "second" in kinds):
        return None
    if any(node.rounds for node in p.body):
        return None
    # x.contiguous() of a contiguous x is x itself, as in PyTorch: a gradient retained or
    # hooked there is its input's whole gradient, not a nudge's
    itself = {node.name for node in p.body if node.expr == "{0}.contiguous()"}
    if itself & ({*p.retained} | {h.target for h in p.hooks}):
        return None
    forward = Forward(p)
    xs = grad_leaves(p)
    alive = live(p)
    req = requiring_grad(p)
    values = {
        leaf.name: leaf.value.astype(float) if leaf.value.dtype.kind == "f" else leaf.value
        for leaf in p.leaves
    }
    grads: dict[str, np.ndarray | None] = {x: None for x in xs}
    seen: dict[str, list] = {h.seen: [] for h in p.hooks if h.seen}
    results: dict[str, Any] = {}

    def hooked(name: str, g: np.ndarray) -> np.ndarray:
        for hook in p.hooks:
            if hook.target == name:
                if hook.scale is None:
                    seen[hook.seen].append(g.copy())
                else:
                    g = g * hook.scale + hook.shift
        return g

    def raw(base: dict, name: str) -> np.ndarray:
        """The gradient that reaches ``name`` (before its hooks)."""
        if name in values:
            return central_gradient(
                lambda v: forward.objective({**values, name: v}, base), values[name], FIRST
            )
        zero = np.zeros_like(base[name])
        return central_gradient(lambda d: forward.objective(values, base, (name, d)), zero, FIRST)

    for k, step in enumerate(p.steps, 1):
        if step.kind == "update":
            if not step.needs_grad or grads[step.leaf] is not None:
                values[step.leaf] = step.apply(values[step.leaf], grads[step.leaf])
            continue
        if step.kind == "zero":
            g = grads[step.leaf]
            grads[step.leaf] = None if step.form == "none" or g is None else np.zeros_like(g)
            continue
        base, loss = forward.run(values)
        results[f"{k} loss"] = np.array(loss)
        if step.kind == "second":
            _second(forward, step, k, values, base, grads, raw, results, xs)
        elif step.kind == "grad":  # the leaves' hooks act on what it returns
            for x in step.leaves:
                results[f"{k} grad {x}"] = hooked(x, raw(base, x))
        else:
            retained = {n: None for n in p.retained}
            for _ in range(2 if step.kind == "twice" else 1):
                for node in p.body:  # intermediates whose gradient is seen
                    name = node.name
                    watched = name in retained or any(h.target == name for h in p.hooks)
                    if watched and name in alive and name in req:
                        g = hooked(name, raw(base, name))
                        if name in retained:
                            old = retained[name]
                            retained[name] = g if old is None else old + g
                targets = step.leaves if step.kind == "inputs" else xs
                for x in targets:
                    if x in alive:
                        g = hooked(x, raw(base, x))
                        grads[x] = g if grads[x] is None else grads[x] + g
            for name, g in retained.items():
                results[f"{k} {name}.grad"] = g
        for x in xs:
            results[f"{k} {x}.grad"] = grads[x]
    for hook in p.hooks:
        if hook.seen:
            results[f"hook {hook.seen} on {hook.target}"] = seen[hook.seen]
    return results


def _second(forward, step, k, values, base, grads, raw, results, xs) -> None:
    """``loss.backward(create_graph=True)`` (or ``autograd.grad``), then the gradient of
    ``hv = sum(g * u)``: the first gradients and H u."""
    first = {}
    for x in step.leaves:
        g = raw(base, x)
        if step.form == "backward" and grads[x] is not None:
            g = g + grads[x]
        first[x] = results[f"{k} first {x}"] = g
    if step.form == "backward":
        for x in step.leaves:
            grads[x] = None
    u = {x: values[f"u{x}"] for x in step.leaves}
    results[f"{k} hv"] = np.array(sum(float((first[x] * u[x]).sum()) for x in step.leaves))
    a = SECOND

    def f(shift_j: tuple, sign: float) -> float:
        moved = dict(values)
        for x in step.leaves:
            moved[x] = np.array(moved[x] + sign * a * u[x])  # (a 0-d array stays an array)
        name, index, s = shift_j
        moved[name] = np.array(moved[name])
        moved[name][index] += s * a
        return forward.objective(moved, base)

    for x in xs:
        hu = np.zeros_like(values[x])
        for index in np.ndindex(hu.shape):
            hu[index] = (
                f((x, index, 1), 1)
                - f((x, index, 1), -1)
                - f((x, index, -1), 1)
                + f((x, index, -1), -1)
            ) / (4 * a * a)
        grads[x] = hu if grads[x] is None else grads[x] + hu
