"""Chapter 04's exercises: reverse mode, built by hand.

A graph travels to the student's process as plain data: a list of nodes, each
``{"op": name, "parents": [indices], "data": x}`` (``data`` for leaves only),
the last node being the output. The grader builds its own nodes from it and
reads back what the student's code did to them; the judge checks the result
against independent oracles: the definition of a topological order, closed-form
derivatives and central differences of the same expression evaluated on floats.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from ..numerical import gradient
from .plain import as_float, as_floats, close, describe, too_long
from .references import topological_order
from .registry import HELD, Case, Check, Exercise, register
from .runners.chapter04 import (
    Graph,
    _apply,
    _evaluate,
    _leaf_indices,
    _run_backward,
    _run_expression,
    _run_order,
    _run_tanh,
)

_UNARY = ("sin", "tanh", "cos")


# --- graphs as plain data ----------------------------------------------------


def _leaf(rng: random.Random) -> dict[str, Any]:
    return {"op": "", "parents": [], "data": round(rng.uniform(-1.5, 1.5), 3)}


def _diamonds(rng: random.Random, levels: int) -> Graph:
    """x, then per level two branches of the previous top joined again (2**levels
    paths), squashed by tanh so that the values stay of order one."""
    g: Graph = [_leaf(rng)]
    for _ in range(levels):
        top = len(g) - 1
        g.append({"op": rng.choice(_UNARY), "parents": [top]})
        g.append({"op": rng.choice(("mul", "add")), "parents": [top, top]})  # x * x
        g.append({"op": "mul", "parents": [top + 1, top + 2]})
        g.append({"op": "tanh", "parents": [top + 3]})
    return g


def _random_dag(rng: random.Random, leaves: int, ops: int) -> Graph:
    """Leaves, then operations whose parents are any earlier nodes (so many are
    shared); drawn again until every value stays below 100 (no overflow, and
    central differences stay accurate)."""
    while True:
        g: Graph = [_leaf(rng) for _ in range(leaves)]
        for _ in range(ops):
            if rng.random() < 0.35:
                g.append({"op": rng.choice(_UNARY), "parents": [rng.randrange(len(g))]})
            else:
                pair = [rng.randrange(len(g)), len(g) - 1]
                rng.shuffle(pair)
                g.append({"op": rng.choice(("add", "mul", "sub")), "parents": pair})
        if max(abs(v) for v in _evaluate(g)) < 100:
            return g


def _chain(rng: random.Random, length: int) -> Graph:
    """x, c, then x + c + c + ... : a chain ``length`` deep that uses c at every step."""
    g: Graph = [_leaf(rng), _leaf(rng)]
    for k in range(length):
        g.append({"op": "add", "parents": [k + 1 if k else 0, 1]})
    return g


def _ancestors(g: Graph) -> set[int]:
    seen, stack = {len(g) - 1}, [len(g) - 1]
    while stack:
        for p in g[stack.pop()]["parents"]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def _numerical_gradient(g: Graph, h: float = 1e-6) -> list[float]:
    leaves = _leaf_indices(g)

    def output(*xs: float) -> float:
        return _evaluate(g, dict(zip(leaves, xs, strict=True)))[-1]

    return gradient(output, [g[i]["data"] for i in leaves], h).gradient.tolist()


# --- the grader's own nodes ----------------------------------------------------


# The package's answer to 04.topological_order; the batch grader withholds it
# from submissions. The grader keeps it under a private name, which withholding
# leaves alone (and so its backward, the answer to 04.backward, is private too).
WITHHELD = ("micrograd_edu.graph.topological_order",)


def _judge_order(case: Case, seen: dict) -> str | None:
    g, order = case["graph"], seen.get("order")
    wanted = _ancestors(g)
    repeated = f"for a graph of {len(wanted)} nodes: each node must appear once"
    length = too_long(order)
    if length is not None:  # too long for the grader to read: nodes listed repeatedly
        return f"returned {length} items {repeated}"
    if not isinstance(order, list) or not all(type(i) is int for i in order):
        return f"returned {describe(order)}; expected a list of the graph's nodes"
    if -1 in order:
        return "the list holds something that is not a node of the graph"
    if len(set(order)) != len(order):
        return f"returned {len(order)} items {repeated}"
    if set(order) != wanted:
        return f"the order has {len(order)} nodes; the output depends on {len(wanted)}"
    position = {node: k for k, node in enumerate(order)}
    for i in order:
        if any(position[p] > position[i] for p in g[i]["parents"]):
            return "a node comes before one of its parents"
    return None


def _graph_cases(make: Callable[[random.Random], Graph], count: int) -> Callable:
    """``count`` cases, each a graph drawn by ``make`` (for topological_order and backward)."""
    return lambda rng: [{"graph": make(rng)} for _ in range(count)]


TOPOLOGICAL_ORDER = register(
    Exercise(
        "04.topological_order",
        "Topological order",
        2,
        "topological_order(root) returns every node root depends on (root included), "
        "each once and after all of its parents, without recursion.",
        ("topological_order",),
        (
            Check(
                "diamonds: shared nodes appear once",
                "a node reached along two paths (or used twice, as in x * x) must be "
                "listed once: keep a set of visited nodes",
                _graph_cases(lambda rng: _diamonds(rng, rng.randint(2, 8)), 3),
                _run_order,
                _judge_order,
            ),
            Check(
                "every node after its parents",
                "append a node only once all of its parents are placed (post-order), "
                "and follow .parents, not only the first parent",
                _graph_cases(lambda rng: _random_dag(rng, rng.randint(1, 4), 25), 4),
                _run_order,
                _judge_order,
            ),
            Check(
                "a chain of 5000 nodes",
                "a recursive depth-first search raises RecursionError past about 1000 "
                "levels: keep your own stack (a list) of nodes still to finish, and a set "
                "of the nodes already listed",
                _graph_cases(lambda rng: _chain(rng, 5000), 1),
                _run_order,
                _judge_order,
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- 04.mul and 04.tanh: MyValue's operations ------------------------------------

# An expression as plain data: a list of steps ["mul", i, j] | ["add", i, j] |
# ["tanh", i] | ["rmul", i, c] (c * node i) | ["mulc", i, c] (node i * c), with
# indices into the list built so far (the leaves come first). The same steps run
# on the student's MyValues and, for the judge, on floats.


def _float_expression(case: Case, leaves: list[float]) -> float:
    made = list(leaves)
    for step in case["steps"]:
        made.append(_apply(step, made, math.tanh))
    return made[-1]


def _judge_expression(case: Case, seen: dict) -> str | None:
    leaves = case["leaves"]
    value = as_float(seen.get("value"))
    if value is None:
        return f"out.data is {describe(seen.get('value'))}; expected a number"
    if not close(value, _float_expression(case, leaves), 1e-9, 1e-12):
        return f"wrong value: out.data is off for the expression {case['text']}"
    grads = as_floats(seen.get("grads"), len(leaves))
    if grads is None:
        return f"the inputs' grads are {describe(seen.get('grads'))}; expected numbers"
    # closed forms where the case has them, else central differences of the float expression
    want = (
        case.get(HELD)
        or gradient(lambda *xs: _float_expression(case, list(xs)), leaves, 1e-6).gradient.tolist()
    )
    for k, (got, exact) in enumerate(zip(grads, want, strict=True)):
        if not close(got, exact, 1e-5, 1e-7):
            return f"wrong gradient of {case['text']} with respect to input {k}"
    return None


def _cases(make: Callable[[random.Random], Case], count: int = 4) -> Callable:
    return lambda rng: [make(rng) for _ in range(count)]


def _number(rng: random.Random, low: float = 0.3, high: float = 2.0) -> float:
    return round(rng.choice((-1, 1)) * rng.uniform(low, high), 4)


def _product(rng: random.Random) -> Case:
    a, b = _number(rng), _number(rng)
    return {"leaves": [a, b], "steps": [["mul", 0, 1]], "text": "a * b", HELD: [b, a]}


def _square(rng: random.Random) -> Case:
    a = _number(rng)
    return {"leaves": [a], "steps": [["mul", 0, 0]], "text": "a * a", HELD: [2 * a]}


def _with_number(rng: random.Random) -> Case:
    a, c = _number(rng), _number(rng)
    op = rng.choice(("rmul", "mulc"))
    text = f"{c} * a" if op == "rmul" else f"a * {c}"
    return {"leaves": [a], "steps": [[op, 0, c]], "text": text, HELD: [c]}


def _nested_product(rng: random.Random) -> Case:
    a, b, c = _number(rng), _number(rng), _number(rng)
    steps = [["mul", 0, 1], ["mul", 3, 2]]
    return {
        "leaves": [a, b, c],
        "steps": steps,
        "text": "(a * b) * c",
        HELD: [b * c, a * c, a * b],
    }


def _judge_reached(case: Case, seen: dict) -> str | None:
    # Only whether backward reaches every input: the values are the other checks' business.
    grads = as_floats(seen.get("grads"), len(case["leaves"]))
    if grads is None:
        return f"the inputs' grads are {describe(seen.get('grads'))}; expected numbers"
    missed = [name for name, g in zip("abc", grads, strict=False) if g == 0.0]
    if missed:
        names = " and ".join(f"{name}.grad" for name in missed)
        verb = "is" if len(missed) == 1 else "are"
        return (
            f"after backward of {case['text']}, {names} {verb} still 0: backward never reached it"
        )
    return None


def _product_on_the_right(rng: random.Random) -> Case:
    a, b, c = _number(rng), _number(rng), _number(rng)
    steps = [["mul", 2, 0], ["mul", 1, 3]] if rng.random() < 0.5 else [["mul", 0, 1], ["mul", 2, 3]]
    text = "b * (c * a)" if steps[0] == ["mul", 2, 0] else "c * (a * b)"
    return {"leaves": [a, b, c], "steps": steps, "text": text, HELD: [b * c, a * c, a * b]}


MUL = register(
    Exercise(
        "04.mul",
        "MyValue.__mul__",
        2,
        "MyValue.__mul__(self, other) returns a new MyValue for self * other whose "
        "_backward adds other.data * out.grad to self.grad and self.data * out.grad "
        "to other.grad; a plain number is wrapped in a MyValue.",
        ("MyValue",),
        (
            Check(
                "a * b: value and both gradients",
                "d(ab)/da = b and d(ab)/db = a: each input gets the OTHER input's data "
                "times out.grad; and out must list (self, other) as its parents",
                _cases(_product),
                _run_expression,
                _judge_expression,
            ),
            Check(
                "(a * b) * c: gradients scale by out.grad",
                "the chain rule multiplies the local derivative by out.grad (the "
                "gradient arriving from above), not by 1",
                _cases(_nested_product),
                _run_expression,
                _judge_expression,
            ),
            Check(
                "c * (a * b): a product as the right operand",
                "backward reaches a node only through the parents of the nodes after it: "
                "which nodes does out list as the ones it was computed from?",
                _cases(_product_on_the_right, 3),
                _run_expression,
                _judge_reached,
            ),
            Check(
                "a * a: a node used twice",
                "when self and other are the same node both contributions must add up "
                "(2a): accumulate with +=, never assign grad with =",
                _cases(_square),
                _run_expression,
                _judge_expression,
            ),
            Check(
                "a * 2.5 and 2.5 * a: plain numbers",
                "wrap a plain number in MyValue before using .data, and keep "
                "__rmul__ = __mul__ so that 2.5 * a works",
                _cases(_with_number),
                _run_expression,
                _judge_expression,
            ),
        ),
    )
)


# 04.tanh's checks each aim at one mistake, and only the first judges the local
# derivative against 1 - tanh²: the others compare the student's gradients with the
# student's OWN local derivative (measured on a fresh node with out.grad = 1), so a
# wrong derivative fails one check, not all of them.


def _tanh_case(low: float, high: float, **observe: bool) -> Callable[[random.Random], Case]:
    """Draw ``a`` in ±[low, high]; ``observe`` adds ``upstream``, ``twice``, ``chain``."""

    def make(rng: random.Random) -> Case:
        case: Case = {"a": _number(rng, low, high)}
        if observe.get("upstream"):
            case["upstream"] = _number(rng, 1.5, 3.0)
        return {**case, "twice": bool(observe.get("twice")), "chain": bool(observe.get("chain"))}

    return make


def _numbers(seen: dict, *keys: str) -> tuple[list[float], str | None]:
    """The observations ``keys`` as floats, or ``([], the reason one is not a number)``."""
    got: list[float] = []
    for key in keys:
        number = as_float(seen.get(key))
        if number is None:
            what = "out.data" if key == "value" else "a.grad"
            return [], f"{what} is {describe(seen.get(key))}; expected a number"
        got.append(number)
    return got, None


def _judge_tanh_value(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "value")
    if problem or close(got[0], math.tanh(case["a"]), 1e-9, 1e-12):
        return problem
    return f"out.data is not tanh(a) for a = {case['a']}"


def _judge_tanh_local(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "local")
    a = case["a"]
    if problem or close(got[0], 1 - math.tanh(a) ** 2, 1e-9, 1e-12):
        return problem
    if got[0] == 0.0:
        return "a.grad is still 0 after out._backward(): _backward must add to self.grad"
    if close(got[0], 1 - a * a, 1e-9, 1e-12):
        return f"for a = {a}, a.grad is 1 - a²: the derivative is written with the input a"
    return f"for a = {a}, a.grad is not 1 - tanh²(a) (with out.grad = 1)"


def _judge_tanh_scaled(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "local", "scaled")
    if problem:
        return problem
    (local, scaled), upstream = got, case["upstream"]
    if local == 0.0 and scaled == 0.0:
        return f"a.grad stays 0 when out.grad = {upstream}"
    if close(scaled, upstream * local, 1e-9, 1e-15):
        return None
    return f"with out.grad = {upstream}, a.grad is not {upstream} times its value for out.grad = 1"


def _judge_tanh_twice(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "local", "twice")
    if problem or close(got[1], 2 * got[0], 1e-9, 1e-15):
        return problem
    if close(got[1], got[0], 1e-9, 1e-15):
        return "a.grad holds one tanh's contribution, not the sum of both"
    return "a.grad is not the sum of the two tanh nodes' contributions"


def _judge_tanh_chain(case: Case, seen: dict) -> str | None:
    # Only whether backward reaches a: the values are the other checks' business.
    got, problem = _numbers(seen, "local", "chain")
    if problem or got[0] == 0.0 or got[1] != 0.0:
        return problem
    return "after backward of tanh(tanh(a)), a.grad is still 0: backward never reached a"


TANH = register(
    Exercise(
        "04.tanh",
        "MyValue.tanh",
        2,
        "MyValue.tanh(self) returns a new MyValue for tanh(self.data) whose _backward "
        "adds (1 - tanh²) * out.grad to self.grad.",
        ("MyValue",),
        (
            Check(
                "tanh(a): the value",
                "out.data is tanh(self.data): compute it with math.tanh",
                _cases(_tanh_case(0.05, 3.0)),
                _run_tanh,
                _judge_tanh_value,
            ),
            Check(
                "tanh(a): the local derivative 1 - tanh²(a)",
                "d tanh(x)/dx = 1 - tanh(x)², written with the OUTPUT t = tanh(x): "
                "1 - out.data**2, not 1 - self.data**2",
                _cases(_tanh_case(0.05, 3.0)),
                _run_tanh,
                _judge_tanh_local,
            ),
            Check(
                "gradients scale by out.grad",
                "multiply the local derivative by out.grad, the gradient arriving from above",
                _cases(_tanh_case(0.05, 3.0, upstream=True), 3),
                _run_tanh,
                _judge_tanh_scaled,
            ),
            Check(
                "a.tanh() + a.tanh(): a node used twice",
                "two tanh nodes both send a gradient to a: accumulate with +=, never "
                "assign grad with =",
                _cases(_tanh_case(0.05, 3.0, twice=True), 3),
                _run_tanh,
                _judge_tanh_twice,
            ),
            Check(
                "tanh(tanh(a)): backward through two tanh nodes",
                "backward reaches a node only through the parents of the nodes after it: "
                "which node does out list as the one it was computed from?",
                _cases(_tanh_case(0.05, 3.0, chain=True), 3),
                _run_tanh,
                _judge_tanh_chain,
            ),
            Check(
                "tanh of a large number (|a| > 720)",
                "math.exp overflows past 709, so e^x, e^{2x} or cosh(x) do for large |x|: "
                "compute out.data with math.tanh, and the derivative from out.data",
                _cases(_tanh_case(720.0, 900.0), 3),
                _run_tanh,
                _judge_tanh_value,
            ),
        ),
    )
)


# --- 04.backward ---------------------------------------------------------------


def _judge_backward(case: Case, seen: dict) -> str | None:
    g = case["graph"]
    root = as_float(seen.get("root_grad"))
    if root != 1.0:
        shown = describe(seen.get("root_grad")) if root is None else f"{root:g}"
        return f"after backward the output's grad is {shown}; it must be 1 (d out / d out)"
    want = _numerical_gradient(g)
    grads = as_floats(seen.get("grads"), len(want))
    if grads is None:
        return f"the inputs' grads are {describe(seen.get('grads'))}; expected numbers"
    if all(close(got, w, 1e-5, 1e-6) for got, w in zip(grads, want, strict=True)):
        return None
    return f"the inputs' gradients differ from central differences ({len(g)}-node graph)"


BACKWARD = register(
    Exercise(
        "04.backward",
        "backward",
        2,
        "backward(root) sets root.grad = 1 and calls every node's _backward, output "
        "first, in the reverse of topological_order(root).",
        ("backward",),
        (
            Check(
                "a single operation: the output's grad is seeded with 1",
                "start with root.grad = 1.0: d out / d out = 1, and every other gradient "
                "is a multiple of it",
                _graph_cases(lambda rng: _random_dag(rng, 2, 1), 3),
                _run_backward,
                _judge_backward,
            ),
            Check(
                "diamonds: each node passes its gradient on once it is complete",
                "walk reversed(topological_order(root)): the output first, so a node "
                "receives everything from its children before its _backward runs",
                _graph_cases(lambda rng: _diamonds(rng, rng.randint(2, 5)), 3),
                _run_backward,
                _judge_backward,
            ),
            Check(
                "random graphs with shared nodes",
                "call each node's _backward exactly once, in reverse topological order",
                _graph_cases(lambda rng: _random_dag(rng, rng.randint(2, 4), 20), 4),
                _run_backward,
                _judge_backward,
            ),
            Check(
                "a chain of 3000 nodes",
                "loop over the order; a recursive backward raises RecursionError on long chains",
                _graph_cases(lambda rng: _chain(rng, 3000), 1),
                _run_backward,
                _judge_backward,
            ),
        ),
        requires={"topological_order": topological_order},
    )
)
