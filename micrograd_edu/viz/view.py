"""A graph read once through the protocol, numbered for drawing and tracing.

Every viz function starts here: the nodes in graph order (a counter gives each
one its id, so the same graph always gives the same drawing; ``id()`` never
leaks out), which of them are inputs, constants or operations, and the
lecture's names ``v₋ₙ₊₁ … v₀`` for the inputs and ``v₁, v₂, …`` for the
operations, numbered level by level as the lecture does (all operations on
the inputs first, then those that use their results, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..scalar.graph import GraphCycleError, lecture_order, topological_order
from .labels import number, subscript, value_of

_PROTOCOL = ("parents", "op", "data", "grad", "label")


@dataclass
class GraphView:
    """The nodes of a graph in order, with their numbering.

    ``order`` lists nodes parents-first; ``index[id(node)]`` is a node's
    position in it; ``parents[i]`` are the positions of node i's parents;
    ``names[i]`` is ``v₋₁``-style for inputs and operations and the number
    itself for a constant; ``inputs`` are the positions of x₁, x₂, ... and
    ``operations`` those of v₁, v₂, ... (both empty when not ``numbered``).
    """

    roots: list[Any]
    order: list[Any]
    index: dict[int, int]
    parents: list[tuple[int, ...]]
    names: list[str]
    inputs: list[int]
    operations: list[int]

    def kind(self, i: int) -> str:
        """``"input"`` (a leaf the user made), ``"const"`` or ``"op"``."""
        node = self.order[i]
        if node.parents:
            return "op"
        return "const" if node.op == "const" else "input"


def check_node(obj: Any, caller: str) -> None:
    """Raise a clear ``TypeError`` unless ``obj`` follows the graph protocol."""
    missing = [a for a in _PROTOCOL if not hasattr(obj, a)]
    if missing:
        raise TypeError(
            f"{caller}: expected a graph node (a Value or a Tensor), got "
            f"{type(obj).__name__} {_short(obj)}, which has no {', '.join(missing)}; "
            "build a graph first, e.g. x = Value(2.0); y = x * x; "
            f"{caller}(y)"
        )


def _engine_types() -> tuple[type, ...]:
    from ..scalar.value import Value
    from ..tensor import Tensor

    return (Value, Tensor)


def _short(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= 40 else text[:37] + "..."


def view(
    root: Any, caller: str, inputs: list[Any] | None = None, numbered: bool = True
) -> GraphView:
    """Read the graph under ``root`` (a node or a list of nodes).

    ``inputs`` fixes the order of the input variables (x₁, x₂, ...); by
    default they are numbered in graph order. ``numbered=False`` skips the
    lecture's numbering (a diagram does not show it, and on a 65,000-node
    graph it would double the time).
    """
    roots = list(root) if isinstance(root, (list, tuple)) else [root]
    if not roots:
        raise ValueError(f"{caller}: the graph is empty; pass a Value or Tensor to draw")
    for r in roots:
        check_node(r, caller)  # before walking: a clear message for a non-node root
    try:
        order = topological_order(roots)
    except GraphCycleError as error:
        raise GraphCycleError(f"{caller}: {error}") from None
    except TypeError as error:  # a parent that is not a node
        raise TypeError(f"{caller}: {error}") from None
    engine = _engine_types()
    for node in order:  # a node built by hand may lack data, grad, ...
        if type(node) not in engine:  # the engine's own always have them
            check_node(node, caller)
    index = {id(n): i for i, n in enumerate(order)}
    parents = [tuple(index[id(p)] for p in n.parents) for n in order]
    g = GraphView(roots, order, index, parents, [""] * len(order), [], [])
    if numbered:
        _number(g, inputs)
    return g


def _number(g: GraphView, inputs: list[Any] | None) -> None:
    # graph.lecture_order numbers as the lecture does: inputs, then operations
    # level by level (v₁ = ln v₋₁, v₂ = v₋₁v₀, v₃ = sin v₀, v₄ = v₁ + v₂, ...).
    leaves, operations = lecture_order(g.roots, inputs or ())
    g.inputs = [g.index[id(x)] for x in leaves if id(x) in g.index]
    for k, i in enumerate(g.inputs):
        g.names[i] = "v" + subscript(k - len(g.inputs) + 1)
    g.operations = [g.index[id(node)] for node in operations]
    for k, i in enumerate(g.operations):
        g.names[i] = "v" + subscript(k + 1)
    for i in range(len(g.order)):
        if g.kind(i) == "const":
            g.names[i] = number(value_of(g.order[i]))
