"""The step-through of one graph: first forward, then backward, as plain data.

``frames(root)`` lists what a student sees, one step at a time: a node turns
green when its value is computed, then red when its gradient arrives, in the
order the engine runs. Each frame has a caption in the lecture's notation
(``v₂ = v₋₁ × v₀ = 10``, ``x̄₁ += v̄₂ · v₀ = 5``). Tests read the frames
directly; :func:`micrograd_edu.viz.animate.animate` draws them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .diagram import Diagram, check_options, summary, table_rows
from .dot import GREEN, RED, to_dot
from .labels import number, value_of
from .steps import backward_steps, bar, execution_order, forward_steps, scalar
from .view import GraphView, view

__all__ = ["Frame", "Frames", "frames"]


@dataclass(frozen=True)
class Frame:
    """One step: which values are known, which gradients have arrived, and why.

    ``phase`` is ``"forward"`` or ``"backward"``; ``current`` is the node the
    step changed (its position in graph order); ``known`` the values computed
    so far; ``grads`` the gradients so far (partial sums while contributions
    are still arriving).
    """

    index: int
    phase: str
    caption: str
    current: int | None
    known: frozenset[int]
    grads: Mapping[int, Any] = field(default_factory=dict)

    def fill(self) -> dict[int, str]:
        """Green for computed values, red for nodes whose gradient has arrived."""
        colours = dict.fromkeys(self.known, GREEN)
        colours.update(dict.fromkeys(self.grads, RED))
        return colours


class Frames(list):
    """The frames of a graph, with the graph to draw them on."""

    def __init__(self, g: GraphView, items: list[Frame]) -> None:
        super().__init__(items)
        self.graph = g

    def heading(self, i: int) -> str:
        """``step 3/15 (forward): v₂ = v₋₁ × v₀ = 10``."""
        return f"step {i + 1}/{len(self)} ({self[i].phase}): {self[i].caption}"

    def diagram(self, i: int, rankdir: str = "LR", captioned: bool = True) -> Diagram:
        """Frame ``i`` drawn: the graph coloured (and captioned) as at that step."""
        frame = self[i]
        g = self.graph
        source = to_dot(
            g,
            rankdir=rankdir,
            max_nodes=len(g.order),
            caption=self.heading(i) if captioned else "",
            titles=[_title(g, j) for j in range(len(g.order))],
            known=set(frame.known),
            grads=frame.grads,
            fill=frame.fill(),
            current=frame.current,
        )
        kept = list(range(len(g.order)))
        return Diagram(source, table_rows(g, kept), summary(g, kept))


def _title(g: GraphView, i: int) -> str:
    name = g.names[i]
    label = g.order[i].label
    return f"{name} {label}" if label and g.kind(i) != "const" else name


def frames(root: Any, max_nodes: int = 60) -> Frames:
    """Forward then backward evaluation of ``root``'s graph, one frame per step.

    >>> class V:
    ...     def __init__(self, data, op="", *parents, label=""):
    ...         self.data, self.op, self.parents, self.label = data, op, parents, label
    ...         self.grad = 0.0
    >>> a, b = V(2.0, label="a"), V(5.0, label="b")
    >>> y = V(10.0, "mul", a, b)
    >>> [f.caption for f in frames(y)]  # doctest: +NORMALIZE_WHITESPACE
    ['inputs: v₋₁ = 2, v₀ = 5', 'v₁ = v₋₁ × v₀ = 10', 'v̄₁ = 1 (ȳ = ∂y/∂y)',
     'x̄₁ += v̄₁ · v₀ = 5', 'x̄₂ += v̄₁ · v₋₁ = 2']
    """
    check_options("frames", "LR", max_nodes)
    g = view(root, "frames")
    if len(g.order) > max_nodes:
        raise ValueError(
            f"frames: the graph has {len(g.order):,} values, too many to step through "
            f"(max_nodes={max_nodes}); animate a smaller expression, or draw this one "
            "with draw_graph"
        )
    leaves = frozenset(i for i, ps in enumerate(g.parents) if not ps)
    inputs = ", ".join(f"{g.names[i]} = {number(value_of(g.order[i]))}" for i in g.inputs)
    out = [Frame(0, "forward", f"inputs: {inputs}" if inputs else "constants", None, leaves)]
    known = set(leaves)
    steps = {s.node: s for s in forward_steps(g)}
    for i in execution_order(g):
        known.add(i)
        s = steps[i]
        value = f"= {number(s.value)}" if scalar(s.value) else f"({number(s.value)})"
        caption = f"{g.names[i]} = {s.formula} {value}"
        out.append(Frame(len(out), "forward", caption, i, frozenset(known)))
    grads: dict[int, Any] = {}
    for s in backward_steps(g):
        if s.child is None:
            grads[s.parent] = s.total
            caption = f"{bar(g, s.parent)} = {number(s.total)} (ȳ = ∂y/∂y)"
        elif g.kind(s.parent) == "const":
            continue  # constants take no gradient
        else:
            # a tensor gradient is known only once all contributions are in ("—" before)
            grads[s.parent] = s.total if s.total is not None else grads.get(s.parent)
            if s.contribution is None:
                caption = f"{bar(g, s.parent)} += {bar(g, s.child)} · {s.local_text}"
            else:
                caption = (
                    f"{bar(g, s.parent)} += {bar(g, s.child)} · {s.local_text} "
                    f"= {number(s.contribution)}"
                )
                if number(s.total) != number(s.contribution):
                    caption += f" (now {number(s.total)})"
        out.append(Frame(len(out), "backward", caption, s.parent, frozenset(known), dict(grads)))
    return Frames(g, out)
