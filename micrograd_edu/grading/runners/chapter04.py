"""What the grader runs next to the submission for chapter04: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@contextmanager
def _recording(cls: type) -> Iterator[list[Any]]:
    """Every instance of ``cls`` made inside the block, in the order they were made,
    recorded by wrapping ``cls.__init__`` (the class of a node: MyValue itself may be a
    factory function)."""
    created: list[Any] = []
    own = "__init__" in vars(cls)
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        created.append(self)

    cls.__init__ = init
    try:
        yield created
    finally:
        if own:
            cls.__init__ = original
        else:
            del cls.__init__


def _backward_by_creation(leaf: Any, build: Callable[[], Any], seed: Any = 1.0) -> Any:
    """``build()``'s result, backpropagated as MyValue's backward would: every node
    reachable from it along ``.parents`` runs its ``_backward`` once, in the reverse of
    the order the nodes were made (a node is made after its parents), after the result's
    grad is set to ``seed``. The grader needs no topological sort of its own (that is an
    exercise). A result that is not of the leaf's class is returned as it is."""
    with _recording(type(leaf)) as created:
        root = build()
    if not isinstance(root, type(leaf)):
        return root
    reached, todo = {id(root)}, [root]
    while todo:
        for parent in getattr(todo.pop(), "parents", ()) or ():
            if id(parent) not in reached:
                reached.add(id(parent))
                todo.append(parent)
    root.grad = seed
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


# An expression as plain data: a list of steps [op, i] | [op, i, j] | [op, i, c], with
# indices into the list of nodes built so far (the leaves come first) and c a plain
# number. The same steps run on the student's MyValues and, for the judge, on floats.
_STEPS: dict[str, Callable[..., Any]] = {
    "add": lambda u, v: u + v,
    "sub": lambda u, v: u - v,
    "div": lambda u, v: u / v,
    "rsub": lambda u, c: c - u,
    "subc": lambda u, c: u - c,
    "rdiv": lambda u, c: c / u,
    "divc": lambda u, c: u / c,
}
TWO_NODES = ("add", "sub", "div")


def _apply(step: list[Any], made: list[Any]) -> Any:
    """One step on the nodes ``made`` so far (MyValues or floats)."""
    op, node = step[0], made[step[1]]
    if op == "neg":
        return -node
    return _STEPS[op](node, made[step[2]] if op in TWO_NODES else step[2])


def _run_expression(functions: dict, case: Case) -> dict:
    make = functions["MyValue"]
    leaves = [make(x) for x in case["leaves"]]

    def build() -> Any:
        made = list(leaves)
        for step in case["steps"]:
            made.append(_apply(step, made))
        return made[-1]

    out = _backward_by_creation(leaves[0], build)
    return {"value": out.data, "grads": [leaf.grad for leaf in leaves]}


def _unary(case: Case) -> Callable[[Any], Any]:
    """The case's operation on one node: a method (exp, relu), or ``node ** k``."""
    if case["op"] == "pow":
        return lambda node: node ** case["k"]
    return lambda node: getattr(node, case["op"])()


def _probe(make: Callable[[float], Any], op: Callable, a: float, upstream: float) -> tuple:
    """A fresh ``op(MyValue(a))``, its _backward run once with ``out.grad = upstream``:
    (out.data, a.grad)."""
    x = make(a)
    out = op(x)
    out.grad = upstream
    out._backward()
    return out.data, x.grad


def _run_unary(functions: dict, case: Case) -> dict:
    """What one operation does: its value and local derivative (out.grad = 1), scaled by
    another out.grad, used twice, and applied to its own result."""
    make, a, op = functions["MyValue"], case["a"], _unary(case)
    value, local = _probe(make, op, a, 1.0)
    seen = {"value": value, "local": local}
    if "upstream" in case:
        seen["scaled"] = _probe(make, op, a, case["upstream"])[1]
    if case.get("twice"):
        x = make(a)
        _backward_by_creation(x, lambda: op(x) + op(x))
        seen["twice"] = x.grad
    if case.get("chain"):
        x = make(a)
        _backward_by_creation(x, lambda: op(op(x)))
        seen["chain"] = x.grad
    return seen


def _calls(cls: type, names: tuple[str, ...], build: Callable[[], Any]) -> tuple[Any, dict]:
    """``build()``, and how often it called each of the methods ``names`` of ``cls``."""
    counts = dict.fromkeys(names, 0)
    saved = {name: vars(cls).get(name) for name in names}
    for name in names:
        method = getattr(cls, name, None)
        if callable(method):

            def counted(*args: Any, _name: str = name, _method: Any = method, **kwargs: Any) -> Any:
                counts[_name] += 1
                return _method(*args, **kwargs)

            setattr(cls, name, counted)
    try:
        return build(), counts
    finally:
        for name, method in saved.items():
            if method is None:
                if name in vars(cls):
                    delattr(cls, name)
            else:
                setattr(cls, name, method)


def _run_composed(functions: dict, case: Case) -> dict:
    """An expression of -, / (_run_expression's observation), how often building it called
    the primitives (+, *, **), and the student's a ** -1 (division is built on the power of
    exercise 04.pow)."""
    make = functions["MyValue"]
    seen, calls = _calls(
        type(make(0.0)),
        ("__add__", "__radd__", "__mul__", "__rmul__", "__pow__"),
        lambda: _run_expression(functions, case),
    )
    seen["calls"] = [calls["__add__"] + calls["__radd__"], calls["__mul__"] + calls["__rmul__"]]
    seen["calls"].append(calls["__pow__"])
    seen["reciprocal"] = _probe(make, lambda node: node**-1, case["leaves"][-1], 1.0)
    return seen


def _run_backward(functions: dict, case: Case) -> dict:
    """The grads after ``backward(output)``: run ``case["calls"]`` times (default once),
    on nodes whose grads start at ``case["before"]`` ([input's, inner node's]; 0 by
    default), as if an earlier backward had left them there."""
    nodes = _build(case["graph"], _ClosureNode)
    leaf, inner = case.get("before", (0.0, 0.0))
    for node in nodes:
        node.grad = inner if node.parents else leaf
    for _ in range(case.get("calls", 1)):
        functions["backward"](nodes[-1])
    leaves = [nodes[i] for i in _leaf_indices(case["graph"])]
    return {"root_grad": nodes[-1].grad, "grads": [leaf.grad for leaf in leaves]}


_TRAINED: dict[tuple, dict] = {}  # the last training observed: the three checks share it


def _run_train(functions: dict, case: Case) -> dict:
    """``train(xs, ys)``, the MyValues it made, and its predictions at the training
    points and at the new points ``case["new"]``. Trained once for all three checks."""
    key = (
        functions["train"],
        functions["MyValue"],
        *map(tuple, (case["xs"], case["ys"], case["new"])),
    )
    if key not in _TRAINED:
        _TRAINED.clear()
        _TRAINED[key] = _train(functions, case)
    return dict(_TRAINED[key])


@contextmanager
def _leaf_clears(cls: type) -> Iterator[dict[str, int]]:
    """How often, inside the block, a node without parents (an input, such as a weight) has
    its grad set to 0 (a training loop clearing its gradients: backward never does that, it
    resets only the nodes inside the graph, and a node's __init__ sets grad before parents),
    and how often to anything else (a backward pass reaching it)."""
    counts = {"cleared": 0, "reached": 0}  # grads of inputs set to 0, and to anything else
    own = "__setattr__" in vars(cls)
    original = cls.__setattr__

    def setattr_(self: Any, name: str, value: Any) -> None:
        if name == "grad" and not getattr(self, "parents", True):
            old = getattr(self, "__dict__", {}).get("grad")
            if type(value) in (int, float) and value == 0:  # cleared, if it held something
                counts["cleared"] += type(old) in (int, float) and old != 0
            else:
                counts["reached"] += 1
        original(self, name, value)

    cls.__setattr__ = setattr_
    try:
        yield counts
    finally:
        if own:
            cls.__setattr__ = original
        else:
            del cls.__setattr__


def _train(functions: dict, case: Case) -> dict:
    make = functions["MyValue"]
    kind = type(make(0.0))
    with _recording(kind) as created, _leaf_clears(kind) as clears:
        predict = functions["train"](list(case["xs"]), list(case["ys"]))
    made = len(created)
    created.clear()  # free the training's graphs before predicting

    def read(x: float) -> Any:
        y = predict(x)
        return getattr(y, "data", y)

    return {
        "made": made,
        **clears,
        "fitted": [read(x) for x in case["xs"]],
        "predicted": [read(x) for x in case["new"]],
    }
