"""The graph protocol every engine's nodes follow, and its topological order.

A node of a computation graph (a scalar ``Value``, a ``Tensor``) offers:

* ``parents``: a tuple of the nodes it was computed from (empty for a leaf);
* ``op``: the operation's name (``"mul"``, ``"matmul"``, ...; ``""`` for a leaf);
* ``data``: its value (a float, or a numpy array);
* ``grad``: its gradient once ``backward`` has reached it (or ``None``/0);
* ``label``: a name given by the user (``""`` when it has none).

Diagrams, trace tables and animations read graphs only through these five
attributes, so one function serves both engines.

The order is computed *iteratively* with an explicit stack: a recursive
depth-first search (micrograd's) raises ``RecursionError`` past about a
thousand nodes in a chain.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol


class Node(Protocol):
    parents: tuple[Any, ...]
    op: str
    data: Any
    grad: Any
    label: str


class GraphCycleError(ValueError):
    """A graph built by hand contains a cycle, so it has no topological order."""


def topological_order(roots: Any | Iterable[Any]) -> list[Any]:
    """Every node reachable from ``roots``, each after all of its parents.

    Reverse-mode differentiation walks this list backwards, so a node's
    gradient is complete before it is passed on to its parents.

    >>> class N:
    ...     def __init__(self, name, *parents):
    ...         self.label, self.parents = name, parents
    >>> a = N("a"); b = N("b", a); c = N("c", a, b)
    >>> [n.label for n in topological_order(c)]
    ['a', 'b', 'c']
    """
    roots = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    order: list[Any] = []
    state: dict[int, int] = {}  # id -> 1 while on the stack, 2 once placed
    for root in roots:
        if state.get(id(root)) == 2:
            continue
        _require_node(root)
        state[id(root)] = 1
        stack = [(root, iter(root.parents))]
        while stack:
            node, parents = stack[-1]
            for parent in parents:
                seen = state.get(id(parent))
                if seen is None:
                    _require_node(parent)
                    state[id(parent)] = 1
                    stack.append((parent, iter(parent.parents)))
                    break
                if seen == 1:
                    name = getattr(parent, "label", "") or getattr(parent, "op", "") or "a node"
                    raise GraphCycleError(
                        f"topological_order: the graph has a cycle through {name!r}; "
                        "graphs built by operations never do, so check the parents "
                        "you set by hand"
                    )
            else:
                stack.pop()
                state[id(node)] = 2
                order.append(node)
    return order


def _require_node(obj: Any) -> None:
    if not hasattr(obj, "parents"):
        raise TypeError(
            f"topological_order: expected a graph node (a Value or a Tensor) with a "
            f"'parents' attribute, got {type(obj).__name__}"
        )
