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

from collections.abc import Iterable, Sequence
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


def lecture_order(
    roots: Any | Iterable[Any], inputs: Sequence[Any] = ()
) -> tuple[list[Any], list[Any]]:
    """The nodes below ``roots`` as the lecture's trace tables number them.

    Returns ``(leaves, operations)``: the k-th of n leaves is v₍ₖ₋ₙ₊₁₎ (so
    v₋ₙ₊₁ … v₀), the k-th operation v₍ₖ₊₁₎. Leaves are ``inputs`` in the
    order given, then any other user leaf (``op == ""``) in graph order;
    constants (``op == "const"``) are left out, since a trace writes them as
    numbers. Operations go level by level (a leaf has level 0, an operation
    one more than its highest parent), in topological order within a level:
    for ln x₁ + x₁x₂ − sin x₂ that is v₁ = ln, v₂ = ×, v₃ = sin, v₄ = +, v₅ = −.
    Any such order is a topological order, so both modes may run in it.

    >>> class N:
    ...     def __init__(self, op, *parents):
    ...         self.op, self.parents = op, parents
    >>> x1, x2 = N(""), N("")
    >>> y = N("sub", N("add", N("log", x1), N("mul", x1, x2)), N("sin", x2))
    >>> leaves, ops = lecture_order(y)
    >>> [n.op for n in ops], leaves == [x1, x2]
    (['log', 'mul', 'sin', 'add', 'sub'], True)
    """
    order = topological_order(roots)
    level: dict[int, int] = {}
    for node in order:
        level[id(node)] = 1 + max((level[id(p)] for p in node.parents), default=-1)
    given = {id(x) for x in inputs}
    leaves = list(inputs) + [
        n for n in order if not n.parents and n.op != "const" and id(n) not in given
    ]
    operations = sorted((n for n in order if n.parents), key=lambda n: level[id(n)])
    return leaves, operations
