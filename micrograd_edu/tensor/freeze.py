"""``freeze``: trace a function of tensors once, then replay it as a static graph.

The dynamic graph rebuilds Python objects on every call: a ``Tensor`` per
result, a topological sort per ``backward``. When a training step has the
same shapes every time, that work is the same every time too. ``freeze``
records the operations of one call (each an :class:`~micrograd_edu.tensor.operation.Op`
with its input and output *slots*) into a flat list of instructions, and the
returned callable runs the ``forward`` functions in order and the ``vjp``
functions in reverse over a list of numpy arrays. No node is built again.
This is the "freeze a dynamic graph into a static one" the YAAD seed planned.

What the replay assumes, and checks:

* the inputs have the shapes and dtypes of the example inputs; a different
  shape raises :class:`~micrograd_edu.tensor.operation.ShapeError` naming the input (call
  ``freeze`` again with new examples: it does not re-trace behind your back);
* the function takes the same path every time: Python ``if``/``for`` on
  values is decided once, at tracing, like in any static graph (a read of a
  value while tracing, ``.item()``, ``bool()``, ``.data``, warns once with a
  :class:`~micrograd_edu.tensor.TracingWarning`, as ``torch.jit.trace`` does);
* tensors the function uses without taking them as arguments (weights in a
  closure) are read afresh at each call, and receive gradients if they
  required grad when traced. Which tensors receive gradients is fixed at
  tracing.

>>> import numpy as np
>>> from micrograd_edu import Tensor
>>> def loss(x, w):
...     return ((x @ w).tanh() ** 2).mean()
>>> x, w = Tensor(np.ones((4, 3))), Tensor(np.full((3, 2), 0.1), requires_grad=True)
>>> step = freeze(loss, x, w)
>>> value = step(x, w)          # forward and backward; w.grad is filled in
>>> w.grad.shape, round(value.item(), 4)
((3, 2), 0.0849)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .backward import scalar_seed, store_grad
from .modes import STATE, enable_grad
from .operation import ShapeError
from .tensor import Tensor, leaf

__all__ = ["freeze", "FrozenFunction"]


def freeze(f: Callable[..., Tensor], *example_inputs: Tensor) -> FrozenFunction:
    """Trace ``f(*example_inputs)`` once and return a :class:`FrozenFunction`
    that replays its forward and backward pass for new inputs of the same
    shapes. ``f`` must return one tensor; a scalar if anything requires grad.
    """
    inputs = _distinct([x if isinstance(x, Tensor) else Tensor(x) for x in example_inputs])
    tape: list = []
    outer, STATE.tape = STATE.tape, tape
    try:
        with enable_grad():
            result = f(*inputs)
    finally:
        STATE.tape = outer
    if not isinstance(result, Tensor):
        raise TypeError(
            f"freeze: {_name(f)} must return a Tensor, it returned {type(result).__name__}"
        )
    if result.requires_grad and result._data.size != 1:
        raise ShapeError(
            f"freeze: {_name(f)} returned shape {result.shape}; a frozen function replays "
            "backward too, so it must return a scalar (a loss); reduce it, e.g. .sum()"
        )
    return FrozenFunction(f, inputs, tape, result)


def _distinct(inputs: list[Tensor]) -> list[Tensor]:
    """The examples with a tensor given for two arguments (``freeze(f, x, x)``) made two
    tensors, so that each argument gets its own slot: a later call with two different
    tensors then computes f(a, b), not f(a, a)."""
    seen: set[int] = set()
    out = []
    for x in inputs:
        if id(x) in seen:
            twin = leaf(x._data)
            twin.requires_grad_(x.requires_grad)
            x = twin
        seen.add(id(x))
        out.append(x)
    return out


class FrozenFunction:
    """The replayable program ``freeze`` makes; call it like the traced function.

    Each call returns the result as a tensor (with no graph) and adds the
    gradients to ``.grad`` of the inputs and captured tensors that required
    grad at tracing, as ``result.backward()`` would. ``source`` is the
    straight-line Python the tape was compiled to: one line per forward
    operation, one per backward step, no loop and no graph.
    """

    def __init__(self, f: Callable, inputs: list[Tensor], tape: list, result: Tensor) -> None:
        self.name = _name(f)
        self._signature = [(x.shape, x.dtype) for x in inputs]
        # Every tensor gets a slot, the variable v<slot> in the source: the inputs
        # first, then each captured tensor and each result as the tape meets them.
        slots: dict[int, int] = {}
        for i, x in enumerate(inputs):
            slots.setdefault(id(x), i)
        dtypes = [x.dtype for x in inputs]  # per slot
        wants_grad = [x.requires_grad for x in inputs]  # per slot
        leaf_slots = list(range(len(inputs)))  # the parameters of replay
        self._captured: list[Tensor] = []  # tensors f used without taking them as arguments

        def new_slot(t: Tensor) -> int:
            slots[id(t)] = len(dtypes)
            dtypes.append(t.dtype)
            wants_grad.append(t.requires_grad)
            return slots[id(t)]

        def slot_of(t: Tensor) -> int:
            if id(t) not in slots:
                leaf_slots.append(new_slot(t))
                self._captured.append(t)
            return slots[id(t)]

        program = []
        for op, args, out, needs, static in tape:
            ins = tuple(slot_of(t) for t in args)
            program.append((op, ins, new_slot(out), needs, static, out.ndim == 0))
        result_slot = slot_of(result)
        # Positions (among inputs + captured) of the tensors that receive gradients.
        self._targets = [i for i, s in enumerate(leaf_slots) if wants_grad[s]]
        if not result.requires_grad:
            self._targets = []
        targets = [leaf_slots[i] for i in self._targets]
        self.source, namespace, owned = _compile(program, leaf_slots, result_slot, targets, dtypes)
        exec(compile(self.source, f"<frozen {self.name}>", "exec"), namespace)
        self._replay = namespace["replay"]
        self._owned = [slot in owned for slot in targets]
        self.instructions = len(program)

    def __repr__(self) -> str:
        shapes = ", ".join(str(shape) for shape, _ in self._signature)
        return f"<frozen {self.name}({shapes}): {self.instructions} operations>"

    def __call__(self, *inputs: Any) -> Tensor:
        value, grads = self._replay(*self._load(inputs))
        leaves = list(inputs) + self._captured
        for i, g, owned in zip(self._targets, grads, self._owned, strict=True):
            if g is not None:
                if not isinstance(leaves[i], Tensor):
                    raise TypeError(
                        f"frozen {self.name}: input {i} required grad when traced, so pass "
                        "a Tensor there to receive its gradient"
                    )
                store_grad(leaves[i], g, owned)
        return leaf(value)

    def _load(self, inputs: tuple) -> list[np.ndarray]:
        if len(inputs) != len(self._signature):
            raise TypeError(
                f"frozen {self.name}: traced with {len(self._signature)} inputs, "
                f"called with {len(inputs)}"
            )
        arrays = [x._data if isinstance(x, Tensor) else np.asarray(x) for x in inputs]
        for i, (data, (shape, dtype)) in enumerate(zip(arrays, self._signature, strict=True)):
            if data.shape != shape or data.dtype != dtype:
                raise ShapeError(
                    f"frozen {self.name}: input {i + 1} of {len(arrays)} was traced with shape "
                    f"{shape} and dtype {dtype}, but got shape {data.shape} and dtype "
                    f"{data.dtype}; a frozen "
                    f"function replays one shape: call freeze({self.name}, ...) again with "
                    "examples of the new shape"
                )
        return arrays + [t._data for t in self._captured]


def _compile(program: list, leaves: list, result: int, targets: list, dtypes: list):
    """Write the tape as the source of ``replay(v0, v1, ...)``, returning
    ``(value, gradients of the targets)``, the names it refers to, and the slots whose
    gradient the replay owns (the backward module's rule 2, decided once here).

    Which gradients exist is known from the trace, so the source says
    ``g5 = ...`` where the first one arrives and ``g5 = g5 + ...`` after. A gradient
    is owned when it is such a sum, a cast, or the one output of a fresh operation;
    any other (the seed, a gradient an operation passed on) is borrowed, and stored
    as a copy.
    """
    names: dict[str, Any] = {"asarray": np.asarray, "one": scalar_seed(dtypes[result])}
    params = ", ".join(f"v{s}" for s in leaves)
    lines = [f"def replay({params}):"]
    for k, (op, ins, out, _needs, static, scalar) in enumerate(program):
        names[f"forward{k}"] = op.forward
        extra = _constants(names, k, static)
        call = f"forward{k}({', '.join([f'v{i}' for i in ins] + extra)})"
        lines.append(f"    v{out} = {f'asarray({call})' if scalar else call}  # {op.name}")
    arrived = {result} if targets else set()
    owned: set[int] = set()
    if targets:
        lines.append(f"    g{result} = one")
    for k in reversed(range(len(program))):
        op, ins, out, needs, static, _scalar = program[k]
        if out not in arrived or not any(needs):
            continue  # no gradient reaches this operation, or it sends none on
        names[f"vjp{k}"], names[f"needs{k}"] = op.vjp, needs
        received = [f"d{k}_{j}" if need else "_" for j, need in enumerate(needs)]
        xs = "".join(f"v{i}, " for i in ins)
        extra = "".join(", " + c for c in _constants(names, k, static))
        lines.append(
            f"    {', '.join(received)}, = vjp{k}(g{out}, v{out}, ({xs}), needs{k}{extra})"
            f"  # {op.name}"
        )
        for j, slot in enumerate(ins):
            if not needs[j]:
                continue
            d = f"d{k}_{j}"
            cast = dtypes[slot] != dtypes[out]
            if cast:  # mixed precision: cast, as backward() does
                names[f"dtype{slot}"] = dtypes[slot]
                d = f"{d}.astype(dtype{slot})"
            if slot in arrived:
                lines.append(f"    g{slot} = g{slot} + {d}")
                owned.add(slot)
            else:
                lines.append(f"    g{slot} = {d}")
                if op.fresh or cast:
                    owned.add(slot)
            arrived.add(slot)
    grads = "".join(f"g{s}, " if s in arrived else "None, " for s in targets)
    lines.append(f"    return v{result}, ({grads})")
    return "\n".join(lines) + "\n", names, owned


def _constants(names: dict, k: int, static: tuple) -> list[str]:
    for j, value in enumerate(static):
        names[f"static{k}_{j}"] = value
    return [f"static{k}_{j}" for j in range(len(static))]


def _name(f: Callable) -> str:
    return getattr(f, "__name__", type(f).__name__)
