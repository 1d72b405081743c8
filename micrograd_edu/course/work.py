"""The work each mode of automatic differentiation does for a Jacobian, counted by
watching the package's own engines while they compute it (chapter 05).

* **forward mode** (:func:`~micrograd_edu.scalar.dual.jacobian_forward`): one unit per
  elementary operation performed on dual numbers; every new ``Dual`` an operation makes
  passes through ``Dual._result``, which the counter wraps;
* **reverse mode** (:func:`~micrograd_edu.scalar.value.jacobian_reverse`): one unit per
  operation *recorded* (a ``Value`` made with its local derivatives, which the counter sees
  being stored) and one per operation a backward sweep *passes through* (its local
  derivatives read, once per sweep that reaches it).

Nothing here computes the counts from a formula: they are what the engines did. The
counters replace an attribute of the engine's classes for the length of a ``with``
block and put the original back after it. :func:`checkpointed_gradient` is reverse mode
with checkpoints, counted the same way: the memory it holds at most, and the steps it
evaluates.

>>> from micrograd_edu import functions as F
>>> work = count_work(lambda x, y: [F.sin(x * y), x + y], [0.5, 2.0])
>>> work.forward, work.recorded, work.swept, work.reverse
(6, 3, 3, 6)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from ..scalar.dual import Dual, jacobian_forward
from ..scalar.value import Value, jacobian_reverse

__all__ = [
    "Work",
    "counting_duals",
    "counting_values",
    "count_work",
    "Checkpointed",
    "checkpointed_gradient",
]


@contextmanager
def counting_duals() -> Iterator[dict[str, int]]:
    """``{"operations": n}``: the elementary operations performed on dual numbers inside
    the block."""
    counts = {"operations": 0}
    original = Dual.__dict__["_result"]

    def counted(self: Dual, *args: Any) -> Dual:
        counts["operations"] += 1
        return original(self, *args)

    Dual._result = counted  # every operation makes its result here
    try:
        yield counts
    finally:
        Dual._result = original


class _Watched:
    """``Value._da`` (a node's derivative with respect to its first parent) while
    counting: storing it on a node that has a parent is recording an operation (a leaf has
    none), reading it is a sweep passing through that node (``backward`` reads it once
    per node it passes)."""

    def __init__(self, slot: Any, counts: dict[str, int]) -> None:
        self.slot, self.counts = slot, counts

    def __get__(self, node: Any, kind: type | None = None) -> Any:
        if node is None:
            return self
        self.counts["swept"] += 1
        return self.slot.__get__(node, kind)

    def __set__(self, node: Any, local: Any) -> None:
        self.counts["recorded"] += node._a is not None
        self.slot.__set__(node, local)


@contextmanager
def counting_values() -> Iterator[dict[str, int]]:
    """``{"recorded": r, "swept": s}``: the operations recorded on Values inside the block,
    and how many times a backward sweep passed through one."""
    counts = {"recorded": 0, "swept": 0}
    slot = Value.__dict__["_da"]
    Value._da = _Watched(slot, counts)
    try:
        yield counts
    finally:
        Value._da = slot


class Work(NamedTuple):
    """The units of work for one Jacobian: forward mode's operations; reverse mode's
    operations recorded plus operations swept (``reverse`` is their sum)."""

    forward: int
    recorded: int
    swept: int

    @property
    def reverse(self) -> int:
        return self.recorded + self.swept


def count_work(f: Callable[..., Any], xs: Sequence[float]) -> Work:
    """The work the package's two engines do for the Jacobian of ``f`` at ``xs`` (both
    Jacobians are computed, and must agree).

    ``f`` takes the inputs as separate arguments and returns a list of outputs, written
    with :mod:`micrograd_edu.functions` so that it runs on both engines."""
    with counting_duals() as forward:
        by_columns = jacobian_forward(f, xs).jacobian
    with counting_values() as reverse:
        by_rows = jacobian_reverse(f, xs).jacobian
    if not np.allclose(by_columns, by_rows, rtol=1e-9, atol=1e-12):
        raise ArithmeticError("count_work: the two modes' Jacobians differ")
    return Work(forward["operations"], reverse["recorded"], reverse["swept"])


class Checkpointed(NamedTuple):
    """What :func:`checkpointed_gradient` found: the gradient, the most items it held at
    once (states stored plus operations recorded), and the steps it evaluated."""

    grad_x0: float
    grad_w: float
    peak: int
    evaluations: int


def checkpointed_gradient(
    step: Callable[[Any, Any], Any], x0: float, w: float, steps: int, every: int
) -> Checkpointed:
    """d x_T / d x₀ and d x_T / d w for x_{t+1} = step(x_t, w), by reverse mode with a
    checkpoint every ``every`` steps.

    The forward pass runs on plain numbers and stores the state at the start of each
    segment; the backward pass rebuilds one segment at a time from its stored state, as
    Values, sweeps it seeded with the adjoint the later segments handed back, and drops it.
    Memory is counted in items: a stored state is one, a recorded operation one.

    >>> from micrograd_edu import functions as F
    >>> found = checkpointed_gradient(lambda x, w: F.sin(x) * w + x, 0.5, 0.9, 100, 10)
    >>> found.peak, found.evaluations  # 10 states + 10 steps of 3 operations; 100 + 100
    (40, 200)
    """
    if not (isinstance(every, int) and 1 <= every and isinstance(steps, int) and steps >= 1):
        raise ValueError(
            f"checkpointed_gradient: steps ({steps!r}) and every ({every!r}) must be whole "
            "numbers of at least 1"
        )
    evaluations = 0

    def run(x: Any, w: Any) -> Any:
        nonlocal evaluations
        evaluations += 1
        return step(x, w)

    stored, x = [], float(x0)
    for t in range(steps):
        if t % every == 0:
            stored.append(x)
        x = run(x, w)
    adjoint, grad_w, peak = 1.0, 0.0, 0
    for index in reversed(range(len(stored))):
        start, x_start, w_leaf = index * every, Value(stored[index]), Value(w)
        with counting_values() as counts:
            y = x_start
            for _ in range(start, min(start + every, steps)):
                y = run(y, w_leaf)
        peak = max(peak, len(stored) + counts["recorded"])
        (y * adjoint).backward()  # the sweep, seeded with what the later steps handed back
        adjoint, grad_w = x_start.grad, grad_w + w_leaf.grad
    return Checkpointed(adjoint, grad_w, peak, evaluations)
