"""What the grader runs next to the submission for chapter04: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py).

A graph arrives as a list of nodes in an order that is not a topological one (the
grader shuffles it), each with its value: the grader's nodes are made first and linked
after, so nothing here orders a graph, and nothing in a case is an order to replay.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ...rules import MATH, RULES
from ..plain import as_float, to_plain
from ..registry import Case

Graph = list[dict[str, Any]]


class _Node:
    """A plain node for topological_order: the graph protocol and nothing more.

    No ``__slots__``: a student may mark a node as visited with an attribute of its own.
    Reading ``parents`` records how deep in Python's call stack the walk stands (see
    :func:`_watching_depth`), which tells a recursive walk from one that keeps its own
    stack.
    """

    def __init__(self, op: str, data: float) -> None:
        self.op, self.data, self.grad, self.label = op, data, 0.0, ""
        self._parents: tuple[Any, ...] = ()

    @property
    def parents(self) -> tuple[Any, ...]:
        if _DEPTH["base"] is not None:
            frame, depth = sys._getframe(1), 0
            while frame is not None and frame is not _DEPTH["base"] and depth < 64:
                frame, depth = frame.f_back, depth + 1
            _DEPTH["most"] = max(_DEPTH["most"], depth)
        return self._parents

    @parents.setter
    def parents(self, parents: tuple[Any, ...]) -> None:
        self._parents = parents


_DEPTH: dict[str, Any] = {"base": None, "most": 0}


@contextmanager
def _watching_depth() -> Iterator[dict[str, Any]]:
    """The deepest call-stack level, counted from the caller's frame, at which a node's
    parents were read inside the block."""
    _DEPTH.update(base=sys._getframe(2), most=0)
    try:
        yield _DEPTH
    finally:
        _DEPTH["base"] = None


class _ClosureNode(_Node):
    """A micrograd-style node: its ``_backward`` adds local derivative x grad to its parents."""

    def __init__(self, op: str, data: float) -> None:
        super().__init__(op, data)
        self._backward: Callable[[], None] = _nothing

    def link(self, parents: tuple[Any, ...]) -> None:
        self.parents = parents
        if parents:
            rule, args = RULES[self.op], [p.data for p in parents]
            local = [partial(MATH, self.data, *args) for partial in rule.partials]

            def _backward() -> None:
                for parent, d in zip(parents, local, strict=True):
                    parent.grad += d * self.grad

            self._backward = _backward


def _nothing() -> None:
    return None


def _build(g: Graph, make: type[_Node]) -> list[_Node]:
    """The grader's nodes for the plain graph ``g``: all made first, then linked, so that
    their order is the listing's (which is not a topological one)."""
    nodes = [make(node["op"], node["data"]) for node in g]
    for node, spec in zip(nodes, g, strict=True):
        parents = tuple(nodes[p] for p in spec["parents"])
        node.link(parents) if isinstance(node, _ClosureNode) else setattr(node, "parents", parents)
    return nodes


def _leaf_indices(g: Graph) -> list[int]:
    return [i for i, node in enumerate(g) if not node["parents"]]


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


_STACK_ROOM = 200  # frames the student's walk may use above the runner: no recursion needs less


def _run_order(functions: dict, case: Case) -> dict:
    """The student's order as indices into the case's listing, how deep in the call stack
    the walk read a node's parents, and whether it raised Python's recursion limit (the
    runner sets it to a little above where the call starts)."""
    nodes = _build(case["graph"], _Node)
    where = {id(node): i for i, node in enumerate(nodes)}
    limit, frame, depth = sys.getrecursionlimit(), sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    sys.setrecursionlimit(depth + _STACK_ROOM)
    try:
        with _watching_depth() as watched:
            order = functions["topological_order"](nodes[case["root"]])
        raised = sys.getrecursionlimit() != depth + _STACK_ROOM
    finally:
        sys.setrecursionlimit(limit)
    seen = {"depth": watched["most"], "raised_limit": raised}
    if not isinstance(order, list | tuple):
        return {**seen, "order": order}
    return {**seen, "order": [where.get(id(item), -1) for item in order]}


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
    """The value and the inputs' gradients of the case's expression on MyValues, and what
    its result node was computed from: each parent an input (its index), a number (-1)
    or another node (-2)."""
    make = functions["MyValue"]
    leaves = [make(x) for x in case["leaves"]]

    def build() -> Any:
        made = list(leaves)
        for step in case["steps"]:
            made.append(_apply(step, made))
        return made[-1]

    out = _backward_by_creation(leaves[0], build)
    index = {id(leaf): k for k, leaf in enumerate(leaves)}
    parents = [
        index.get(id(p), -2 if getattr(p, "parents", ()) else -1)
        for p in getattr(out, "parents", ()) or ()
    ]
    return {"value": out.data, "grads": [leaf.grad for leaf in leaves], "parents": parents}


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
    x = make(a)
    parents = getattr(op(x), "parents", None)
    # a node computed from other computed nodes (a * a * a), not from a (and constants)
    through = isinstance(parents, tuple | list) and any(
        isinstance(getattr(p, "parents", None), tuple | list) and len(p.parents) > 0
        for p in parents
    )
    # out's graph leads back to a (through its parents): else backward never reaches a
    linked = any(leaf is x for leaf in _leaves(op(x)))
    seen = {"value": value, "local": local, "through": through, "linked": linked}
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


def _run_composed(functions: dict, case: Case) -> dict:
    """An expression of -, / (_run_expression's observation) and the student's a ** -1
    (division is built on the power of exercise 04.pow)."""
    seen = _run_expression(functions, case)
    seen["reciprocal"] = _probe(functions["MyValue"], lambda n: n**-1, case["leaves"][-1], 1.0)
    return seen


def _run_backward(functions: dict, case: Case) -> dict:
    """The grads after ``backward(root)``: run ``case["calls"]`` times (default once),
    on nodes whose grads start at ``case["before"]`` ([input's, inner node's]; 0 by
    default), as if an earlier backward had left them there."""
    nodes = _build(case["graph"], _ClosureNode)
    leaf, inner = case.get("before", (0.0, 0.0))
    for node in nodes:
        node.grad = inner if node.parents else leaf
    root = nodes[case["root"]]
    for _ in range(case.get("calls", 1)):
        functions["backward"](root)
    leaves = [nodes[i] for i in _leaf_indices(case["graph"])]
    return {"root_grad": root.grad, "grads": [leaf.grad for leaf in leaves]}


def _number(value: Any) -> Any:
    """A parameter as a plain number: a number, or a node's ``.data``."""
    plain = to_plain(value)
    return plain if as_float(plain) is not None else to_plain(getattr(value, "data", value))


_TRAINED: dict[tuple, Any] = {}  # the last training observed (or what it raised): shared


def _run_train(functions: dict, case: Case) -> dict:
    """The parameters ``train(xs, ys)`` returned, as numbers, and whether they are the
    inputs of the last loss backward was called on (``from_loss``). Each call of
    ``backward`` inside it is reported to the grader (``case["ask"]``), which counts it:
    the grader's own backward is the one in the notebook's namespace while this is
    checked, and it is watched there, through train's globals. What it reports (the loss,
    how the leaves' data and grads stood, how the leaves moved since the call before)
    serves the judge. Trained once for all checks: a training that raised raises the same
    for the checks after (the grader on the other end of ask is new each time)."""
    asker = getattr(case["ask"], "func", case["ask"])
    key = (asker, functions["train"], functions["MyValue"], *map(tuple, (case["xs"], case["ys"])))
    if key not in _TRAINED:
        _TRAINED.clear()
        try:
            _TRAINED[key] = _train(functions, case)
        except Exception as error:
            _TRAINED[key] = error
            raise
    trained = _TRAINED[key]
    if isinstance(trained, Exception):
        raise trained
    return dict(trained)


def _leaves(root: Any) -> list[Any]:
    """The nodes without parents ``root`` depends on, in the order of a walk from it (the
    same order for the same code building the same expression: positions match across
    the steps of a training, whether it updates its parameters in place or anew)."""
    found, seen, todo = [], {id(root)}, [root]
    while todo:
        node = todo.pop()
        parents = getattr(node, "parents", ()) or ()
        if not parents:
            found.append(node)
        for parent in parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                todo.append(parent)
    return found


def _float_of(node: Any, attribute: str) -> float:
    return as_float(to_plain(getattr(node, attribute, 0.0))) or 0.0


def _train(functions: dict, case: Case) -> dict:
    train = functions["train"]
    scope = getattr(train, "__globals__", None)
    given = scope.get("backward") if isinstance(scope, dict) else None
    last: dict[str, Any] = {"leaves": [], "data": [], "grads": []}

    def backward(root: Any) -> Any:
        # reported to the grader: [loss, Σ|leaf grad| before the pass, Σ leaf data, Σ data²,
        # Σ Δdata · grad (how each leaf moved since the last call, against the grad that call
        # left: negative for a step of gradient descent), Σ |Δdata|, how many leaves]
        leaves = _leaves(root)
        data = [_float_of(leaf, "data") for leaf in leaves]
        before = sum(abs(_float_of(leaf, "grad")) for leaf in leaves)
        moved = descent = rate = off = 0.0
        if len(data) == len(last["data"]):
            # the parameters: the leaves that are the same nodes as last call's, where
            # there are any (updated in place; the data's constants are new each step, and
            # may change, as in stochastic descent); else every leaf, by position
            kept = [a is b for a, b in zip(leaves, last["leaves"], strict=True)]
            kept = kept if any(kept) else [True] * len(kept)
            pairs = zip(kept, data, last["data"], last["grads"], strict=True)
            steps = [(n, t, g) for k, n, t, g in pairs if k]
            for now, then, grad in steps:
                moved, descent = moved + abs(now - then), descent + (now - then) * grad
            rate, off = _fit_rate([(n, t, g) for n, t, g in steps if n != t])
        result = given(root)
        _mark(leaves)
        grads = [_float_of(leaf, "grad") for leaf in leaves]
        last.update(leaves=leaves, data=data, grads=grads, step=_step_size(last, data))
        loss = as_float(to_plain(getattr(root, "data", None)))
        sums = [sum(data), sum(d * d for d in data)]
        case["ask"]([loss, before, *sums, descent, moved, len(leaves), rate, off])
        return result

    if callable(given):
        scope["backward"] = backward
    try:
        params = train(list(case["xs"]), list(case["ys"]))
    finally:
        if callable(given):
            scope["backward"] = given
    if not isinstance(params, list | tuple) or len(params) != 4:
        return {"params": to_plain(params)}
    *groups, c = params
    flat = [p for group in groups if isinstance(group, list | tuple) for p in group] + [c]
    return {
        "params": [_group(group) for group in groups] + [_number(c)],
        "from_loss": all(_in_last_loss(p, last) for p in flat),
    }


_MARKS = random.Random()  # unseeded: a submission cannot know the marks in advance


def _mark(leaves: list[Any]) -> None:
    """Scale each leaf's float grad by its own random factor within 2·10⁻⁴ of 1: harmless to
    a descent, and a step taken from p.grad as backward left it carries the marks, where
    one taken from gradients computed some other way (finite differences) does not."""
    for leaf in leaves:
        grad = getattr(leaf, "grad", None)
        if type(grad) is float and math.isfinite(grad):
            try:
                leaf.grad = grad * (1.0 + _MARKS.uniform(-2e-4, 2e-4))
            except (AttributeError, TypeError):
                return


def _fit_rate(steps: list[tuple[float, float, float]]) -> tuple[float, float]:
    """For the leaves that moved, as (now, then, grad): the learning rate that explains the
    moves best (the median of -Δdata / grad) and how far the moves are from that rate times
    the gradients beyond rounding (Σ |Δdata + rate·grad| less 4 ulps of data, over Σ
    |Δdata|: 0 for a step of gradient descent)."""
    rates = sorted((then - now) / grad for now, then, grad in steps if grad != 0.0)
    if not rates:
        return 0.0, 1.0 if steps else 0.0
    rate = rates[len(rates) // 2]
    total = sum(abs(now - then) for now, then, _ in steps)
    off = [abs(now - then + rate * grad) - 4 * math.ulp(then) for now, then, grad in steps]
    return rate, sum(max(0.0, x) for x in off) / total


def _step_size(last: dict[str, Any], data: list[float]) -> float | None:
    """The learning rate of the step from the last call's leaves to ``data`` (the median
    of -Δdata / grad over the leaves that moved: the parameters, not the constants), if
    the leaves match by position."""
    if len(data) != len(last["data"]):
        return None
    rates = sorted(
        (then - now) / grad
        for now, then, grad in zip(data, last["data"], last["grads"], strict=True)
        if abs(grad) > 1e-12 and now != then
    )
    return rates[len(rates) // 2] if rates else None


def _in_last_loss(param: Any, last: dict[str, Any]) -> bool:
    """``param`` is an input of the last loss backward was called on: that node itself
    (updated in place or not), a number equal to one's data now, or one step of gradient
    descent from one (the parameters made anew), at the training's own step size."""
    if any(param is leaf for leaf in last["leaves"]):
        return True
    value = as_float(_number(param))
    if value is None:
        return False
    now = [_float_of(leaf, "data") for leaf in last["leaves"]]
    step = last.get("step")
    pairs = zip(last["data"], last["grads"], strict=True)
    stepped = [d - step * g for d, g in pairs] if step else []
    return any(math.isclose(value, x, rel_tol=1e-9, abs_tol=1e-12) for x in (*now, *stepped))


def _group(group: Any) -> Any:
    """A list of parameters as plain numbers (nodes read by their ``.data``)."""
    if isinstance(group, list | tuple):
        return [_number(p) for p in group]
    return to_plain(group)
