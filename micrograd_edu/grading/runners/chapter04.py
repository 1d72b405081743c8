"""What the grader runs next to the submission for chapter04: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...rules import MATH, RULES
from ..registry import Case

Graph = list[dict[str, Any]]


def _evaluate(g: Graph, leaves: dict[int, float] | None = None) -> list[float]:
    """Every node's value, on floats (the judge's own evaluation)."""
    values: list[float] = []
    for i, node in enumerate(g):
        if not node["parents"]:
            values.append(leaves.get(i, node["data"]) if leaves else node["data"])
        else:
            args = [values[p] for p in node["parents"]]
            values.append(RULES[node["op"]].value(MATH, *args))
    return values


def _leaf_indices(g: Graph) -> list[int]:
    return [i for i, node in enumerate(g) if not node["parents"]]


class _Node:
    """A plain node for topological_order: the graph protocol and nothing more.

    No ``__slots__``: a student may mark a node as visited with an attribute of its own.
    """

    def __init__(self, op: str, parents: tuple[Any, ...], data: float) -> None:
        self.parents, self.op, self.data, self.grad, self.label = parents, op, data, 0.0, ""


class _ClosureNode(_Node):
    """A micrograd-style node: its ``_backward`` adds local derivative x grad to its parents."""

    def __init__(self, op: str, parents: tuple[Any, ...], data: float) -> None:
        super().__init__(op, parents, data)
        self._backward: Callable[[], None] = _nothing
        if parents:
            rule, args = RULES[op], [p.data for p in parents]
            local = [partial(MATH, data, *args) for partial in rule.partials]

            def _backward() -> None:
                for parent, d in zip(parents, local, strict=True):
                    parent.grad += d * self.grad

            self._backward = _backward


def _nothing() -> None:
    return None


def _build(g: Graph, make: type[_Node]) -> list[_Node]:
    values = _evaluate(g)
    nodes: list[_Node] = []
    for node, value in zip(g, values, strict=True):
        nodes.append(make(node["op"], tuple(nodes[p] for p in node["parents"]), value))
    return nodes


def _backward_by_creation(leaf: Any, build: Callable[[], Any]) -> Any:
    """``build()``'s result, backpropagated as MyValue's backward would: every node
    reachable from it along ``.parents`` runs its ``_backward`` once, in the reverse of
    the order the nodes were made (a node is made after its parents). The order is
    recorded while ``build`` runs, by wrapping ``__init__`` of the class ``leaf`` is
    (MyValue itself may be a factory); the grader needs no topological sort of its own
    (that is an exercise)."""
    created: list[Any] = []
    cls = type(leaf)
    own = "__init__" in vars(cls)
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        created.append(self)

    cls.__init__ = init
    try:
        root = build()
    finally:
        if own:
            cls.__init__ = original
        else:
            del cls.__init__
    reached, todo = {id(root)}, [root]
    while todo:
        for parent in getattr(todo.pop(), "parents", ()) or ():
            if id(parent) not in reached:
                reached.add(id(parent))
                todo.append(parent)
    root.grad = 1.0
    for node in reversed(created):
        if id(node) in reached:
            node._backward()
    return root


def _run_order(functions: dict, case: Case) -> dict:
    nodes = _build(case["graph"], _Node)
    where = {id(node): i for i, node in enumerate(nodes)}
    order = functions["topological_order"](nodes[-1])
    if not isinstance(order, (list, tuple)):
        return {"order": order}
    return {"order": [where.get(id(item), -1) for item in order]}


def _apply(step: list[Any], made: list[Any], tanh: Callable[[Any], Any]) -> Any:
    op, i = step[0], step[1]
    if op == "mul":
        return made[i] * made[step[2]]
    if op == "rmul":
        return step[2] * made[i]
    if op == "mulc":
        return made[i] * step[2]
    if op == "add":
        return made[i] + made[step[2]]
    return tanh(made[i])


def _run_expression(functions: dict, case: Case) -> dict:
    make = functions["MyValue"]
    leaves = [make(x) for x in case["leaves"]]

    def build() -> Any:
        made = list(leaves)
        for step in case["steps"]:
            made.append(_apply(step, made, lambda v: v.tanh()))
        return made[-1]

    out = _backward_by_creation(leaves[0], build)
    return {"value": out.data, "grads": [leaf.grad for leaf in leaves]}


def _probe_tanh(make: Callable[[float], Any], a: float, upstream: float) -> tuple[Any, Any]:
    """A fresh ``MyValue(a).tanh()``, backward with ``out.grad = upstream``: (out.data, a.grad)."""
    x = make(a)
    out = x.tanh()
    out.grad = upstream
    out._backward()
    return out.data, x.grad


def _run_tanh(functions: dict, case: Case) -> dict:
    make, a = functions["MyValue"], case["a"]
    value, local = _probe_tanh(make, a, 1.0)
    seen = {"value": value, "local": local}
    if "upstream" in case:
        seen["scaled"] = _probe_tanh(make, a, case["upstream"])[1]
    if case["twice"]:
        x = make(a)
        _backward_by_creation(x, lambda: x.tanh() + x.tanh())
        seen["twice"] = x.grad
    if case.get("chain"):
        x = make(a)
        _backward_by_creation(x, lambda: x.tanh().tanh())
        seen["chain"] = x.grad
    return seen


def _run_backward(functions: dict, case: Case) -> dict:
    nodes = _build(case["graph"], _ClosureNode)
    functions["backward"](nodes[-1])
    leaves = [nodes[i] for i in _leaf_indices(case["graph"])]
    return {"root_grad": nodes[-1].grad, "grads": [leaf.grad for leaf in leaves]}
