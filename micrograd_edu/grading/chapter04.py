"""Chapter 04's exercises: reverse mode, built by hand.

A graph travels to the student's process as plain data: a list of nodes, each
``{"op": name, "parents": [indices], "data": x}``, in an order the grader shuffles (so
the listing is never an answer to replay), and the index of the root. The grader builds
its own nodes from it and reads back what the student's code did to them; the judge
checks the result against independent oracles: the definition of a topological order,
closed-form derivatives and central differences of the same expression evaluated on
floats. The network of 04.train comes back as its parameters, and the judge evaluates
it itself, at points the submission never saw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from ..rules import MATH, RULES
from ..scalar.graph import topological_order as _order
from ..scalar.numerical import gradient
from .explain import Kind
from .plain import as_float, as_floats, close, describe, ratio, too_long
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter04 import (
    Graph,
    _apply,
    _build,
    _ClosureNode,
    _leaf_indices,
    _run_backward,
    _run_composed,
    _run_order,
    _run_train,
    _run_unary,
)
from .steps import reference_steps

_UNARY = ("sin", "tanh", "cos")


# --- graphs as plain data ----------------------------------------------------


def _leaf(rng: random.Random) -> dict[str, Any]:
    return {"op": "", "parents": [], "data": round(rng.uniform(-1.5, 1.5), 3)}


def _listed_order(g: Graph) -> list[int]:
    """A topological order of the listing (Kahn's way: the grader's own, not the
    exercise's depth-first walk)."""
    waiting = [len(node["parents"]) for node in g]
    children: list[list[int]] = [[] for _ in g]
    for i, node in enumerate(g):
        for p in node["parents"]:
            children[p].append(i)
    ready, order = [i for i, w in enumerate(waiting) if w == 0], []
    while ready:
        i = ready.pop()
        order.append(i)
        for child in children[i]:
            waiting[child] -= 1  # a parent used twice (x * x) is counted twice
            if waiting[child] == 0:
                ready.append(child)
    return order


def _evaluate(g: Graph, leaves: dict[int, float] | None = None) -> list[float]:
    """Every node's value, on floats (the judge's own evaluation), in listing order."""
    values: list[float] = [0.0] * len(g)
    for i in _listed_order(g):
        node = g[i]
        if not node["parents"]:
            values[i] = leaves.get(i, node["data"]) if leaves else node["data"]
        else:
            values[i] = RULES[node["op"]].value(MATH, *(values[p] for p in node["parents"]))
    return values


def _shuffled(rng: random.Random, g: Graph) -> Case:
    """A case of the graph ``g`` (listed parents first, its root last): every node's value
    filled in, the nodes listed in a random order, and the root's new index."""
    values = _evaluate(g)
    new = list(range(len(g)))
    rng.shuffle(new)
    listing: Graph = [{}] * len(g)
    for old, node in enumerate(g):
        listing[new[old]] = {
            "op": node["op"],
            "parents": [new[p] for p in node["parents"]],
            "data": values[old],
        }
    return {"graph": listing, "root": new[len(g) - 1]}


def _diamonds(rng: random.Random, levels: int) -> Graph:
    """x, then per level two branches of the previous top joined again (2**levels
    paths), squashed by tanh so that the values stay of order one. The branches differ in
    length (two steps and one), so that no order by distance from the root (a
    breadth-first walk, reversed) is a topological one."""
    g: Graph = [_leaf(rng)]
    for _ in range(levels):
        top = len(g) - 1
        g.append({"op": rng.choice(_UNARY), "parents": [top]})
        g.append({"op": rng.choice(_UNARY), "parents": [top + 1]})
        g.append({"op": rng.choice(("mul", "add")), "parents": [top, top]})  # x * x
        g.append({"op": "mul", "parents": [top + 2, top + 3]})
        g.append({"op": "tanh", "parents": [top + 4]})
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


def _ancestors(case: Case, first_only: bool = False) -> set[int]:
    """The nodes the root depends on (root included); ``first_only``: those reached
    along each node's first parent alone."""
    g, root = case["graph"], case["root"]
    seen, stack = {root}, [root]
    while stack:
        parents = g[stack.pop()]["parents"]
        for p in parents[:1] if first_only else parents:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def _numerical_gradient(case: Case, h: float = 1e-6) -> list[float]:
    g, root = case["graph"], case["root"]
    leaves = _leaf_indices(g)

    def output(*xs: float) -> float:
        return _evaluate(g, dict(zip(leaves, xs, strict=True)))[root]

    return gradient(output, [g[i]["data"] for i in leaves], h).gradient.tolist()


# --- the grader's own nodes ----------------------------------------------------


# The package's answer to 04.topological_order, and the standard library's; the batch
# grader withholds them from submissions. The grader keeps its own under a private name,
# which withholding leaves alone (and so its backward, the answer to 04.backward, too).
WITHHELD = ("micrograd_edu.scalar.graph.topological_order", "graphlib")

# A walk that keeps its own stack reads a node's parents a frame or two below the call; a
# recursive one, a frame deeper per level of the graph (the diamonds are 21 to 33 deep).
_RECURSIVE = 16


def _judge_order(case: Case, seen: dict) -> str | None:
    g, order = case["graph"], seen.get("order")
    wanted = _ancestors(case)
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


def _judge_walk(case: Case, seen: dict) -> str | None:
    """A right order, found without recursion: the method is the exercise."""
    if seen.get("raised_limit") is True:
        return "the walk raised Python's recursion limit: it must not recurse at all"
    depth = seen.get("depth")
    if type(depth) is int and depth >= _RECURSIVE:
        return (
            f"the walk read a node's parents {depth} calls deep in Python's call stack: it "
            "recurses, one call deeper per level of the graph"
        )
    return _judge_order(case, seen)


def _order_list(seen: dict) -> list[int] | None:
    order = seen.get("order")
    return order if isinstance(order, list) and all(type(i) is int for i in order) else None


def _listed_twice(case: Case, seen: dict) -> bool:
    order = _order_list(seen)
    return too_long(seen.get("order")) is not None or (
        order is not None and len(set(order)) != len(order)
    )


def _valid_order(case: Case, order: list[int]) -> bool:
    position = {node: k for k, node in enumerate(order)}
    return all(
        position.get(p, -1) < position[i]
        for i in order
        for p in case["graph"][i]["parents"]
        if p in position
    )


def _parent_after(case: Case, seen: dict) -> bool:
    order = _order_list(seen)
    if order is None or len(set(order)) != len(order) or set(order) != _ancestors(case):
        return False
    return not _valid_order(case, order)


def _without_root(case: Case, seen: dict) -> bool:
    order = _order_list(seen)
    return (
        order is not None
        and len(set(order)) == len(order)
        and set(order) == _ancestors(case) - {case["root"]}
        and _valid_order(case, order)
    )


def _only_first_parents(case: Case, seen: dict) -> bool:
    order = _order_list(seen)
    wanted = _ancestors(case, first_only=True)
    return (
        order is not None
        and wanted != _ancestors(case)
        and len(set(order)) == len(order)
        and set(order) == wanted
    )


def _recursed(case: Case, seen: dict) -> bool:
    depth = seen.get("depth")
    return (
        seen.get("raised_limit") is True
        or "RecursionError" in str(seen.get("error", ""))
        or (type(depth) is int and depth >= _RECURSIVE)
    )


_ORDER_MISTAKES = (
    Mistake(
        _listed_twice,
        "a node reached along two paths (or used twice, as in x * x) is listed more than "
        "once: how does your walk know it has been somewhere before?",
        name="listed twice",
    ),
    Mistake(
        _parent_after,
        "a node is listed before one of the nodes it depends on: when may a node be "
        "appended, and what must already be in the list?",
        name="parent after",
    ),
    Mistake(
        _without_root,
        "every node but the root is there: the order ends with root itself",
        name="no root",
    ),
    Mistake(
        _only_first_parents,
        "the nodes your walk reached are those along each node's first parent only: every "
        "node in .parents leads further back",
        name="first parents",
    ),
    Mistake(
        _recursed,
        "a recursive walk goes one Python call deeper per level of the graph, and past "
        "about 1000 levels raises RecursionError (raising the limit only moves the crash): "
        "keep your own stack of the nodes still to finish",
        name="recursion",
    ),
)
_A_LIST = Kind(
    "a list of the graph's nodes", lambda v: isinstance(v, list) or too_long(v) is not None
)


def _graph_cases(make: Callable[[random.Random], Graph], count: int) -> Callable:
    """``count`` cases, each a graph drawn by ``make``, shuffled (for topological_order
    and backward)."""
    return lambda rng: [_shuffled(rng, make(rng)) for _ in range(count)]


def _order_check(name: str, make: Callable[[random.Random], Graph], count: int, **kw) -> Check:
    return Check(
        name,
        "",
        _graph_cases(make, count),
        _run_order,
        kw.pop("judge", _judge_order),
        mistakes=_ORDER_MISTAKES,
        right=lambda case: {"order": _A_LIST},
        **kw,
    )


TOPOLOGICAL_ORDER = register(
    Exercise(
        "04.topological_order",
        "Topological order",
        2,
        "topological_order(root) returns every node root depends on (root included), "
        "each once and after all of its parents, without recursion (the walk keeps its own "
        "stack). The package's topological_order and Python's graphlib are withheld while "
        "it is checked.",
        ("topological_order",),
        (
            _order_check(
                "diamonds: shared nodes once, without recursion",
                lambda rng: _diamonds(rng, rng.randint(5, 8)),
                3,
                judge=_judge_walk,
            ),
            _order_check(
                "every node after its parents",
                lambda rng: _random_dag(rng, rng.randint(1, 4), 25),
                4,
            ),
            _order_check("a chain of 5000 nodes", lambda rng: _chain(rng, 5000), 1),
        ),
        withheld=WITHHELD,
    )
)


# --- MyValue's operations: 04.pow, 04.exp, 04.relu ------------------------------
#
# The lecture builds +, *, tanh and log; these exercises ask for the others. The first
# check, the exercise's main property, judges the local derivative against its closed
# form: an operation with no backward rule earns nothing, whatever its value. The others
# compare the student's gradients with the student's OWN local derivative (measured on a
# fresh node with out.grad = 1), and wait for the first.

_VALUE = {
    "pow": lambda a, k: a**k,
    "exp": lambda a, k: math.exp(a),
    "relu": lambda a, k: max(a, 0.0),
}
_SLOPE = {
    "pow": lambda a, k: k * a ** (k - 1),
    "exp": lambda a, k: math.exp(a),
    "relu": lambda a, k: 1.0 if a > 0 else 0.0,
}
_NAME = {"pow": "a ** k", "exp": "a.exp()", "relu": "a.relu()"}


def _number(rng: random.Random, low: float = 0.3, high: float = 2.0, sign: bool = True) -> float:
    return round((rng.choice((-1, 1)) if sign else 1) * rng.uniform(low, high), 4)


def _unary_cases(
    op: str,
    count: int = 4,
    low: float = 0.3,
    high: float = 2.0,
    sign: bool = True,
    powers: tuple[float, ...] = (2, 3, -1, -2, 0.5, 1.5),
    **observe: bool,
) -> Callable[[random.Random], list[Case]]:
    """``count`` cases of ``op`` at a in ±[low, high] (a > 0 for a fractional power);
    ``observe`` adds ``upstream``, ``twice``, ``chain``."""

    def make(rng: random.Random, k: float) -> Case:
        case: Case = {"op": op}
        if op == "pow":
            case["k"] = k
        fractional = op == "pow" and case["k"] != int(case["k"])
        case["a"] = _number(rng, low, high, sign and not fractional)
        if observe.get("upstream"):
            case["upstream"] = _number(rng, 1.5, 3.0)
        return {**case, "twice": bool(observe.get("twice")), "chain": bool(observe.get("chain"))}

    def draw(rng: random.Random) -> list[Case]:
        # a different power in each case: a mistake that scales by 1/k is no constant
        # factor; and always a whole k >= 3, which a ** k built as a * a * a gets wrong
        ks = rng.sample(powers, count)
        whole = [k for k in powers if k == int(k) and k >= 3]
        if op == "pow" and whole and not set(ks) & set(whole):
            ks[0] = rng.choice(whole)
        return [make(rng, k) for k in ks]

    return draw


def _where(case: Case) -> str:
    at = f"a = {case['a']}"
    return f"{_NAME[case['op']]} at {at}" + (f", k = {case['k']}" if "k" in case else "")


def _off(what: str, got: float, want: float) -> str:
    """What ``got`` is against a right value ``want``, without stating ``want``."""
    if not math.isfinite(got):
        return f"{what} is {got}"
    if want != 0 and got != 0 and abs(got / want - 1) > 1e-6:
        return f"{what} is {ratio(got, want)} times the right value"
    if want != 0 and got != want:
        digits = int(-math.log10(abs(got / want - 1)))
        return f"{what} agrees with the right value to {digits} digits only"
    return f"{what} is off by {abs(got - want):.2g}"


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


def _judge_value(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "value")
    if problem:
        return problem
    want = _VALUE[case["op"]](case["a"], case.get("k"))
    return (
        None
        if close(got[0], want, 1e-9, 1e-12)
        else _off(f"for {_where(case)}, out.data", got[0], want)
    )


# A local derivative from its formula is right to the last few bits; a difference
# quotient, however small its h, keeps 10 or 11 digits at best (rounding over h).
_EXACT = 1e-12


def _approximated(case: Case, seen: dict) -> bool:
    """The local derivative is right to between 4 and 12 digits: a difference quotient."""
    local, want = as_float(seen.get("local")), _SLOPE[case["op"]](case["a"], case.get("k"))
    return local is not None and close(local, want, 1e-4, 1e-9)


_APPROXIMATION = Mistake(
    _approximated,
    "right to many digits but not all of them: an approximation (a difference quotient?), "
    "where the derivative's own formula gives the local derivative exactly",
    name="approximation",
)


def _judge_local(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "local")
    if problem:
        return problem
    want = _SLOPE[case["op"]](case["a"], case.get("k"))
    if close(got[0], want, _EXACT, 1e-15):
        return None
    where = f"for {_where(case)}, a.grad after out._backward() with out.grad = 1"
    return f"{where} is still 0" if got[0] == 0.0 else _off(where, got[0], want)


def _judge_linked_local(case: Case, seen: dict) -> str | None:
    """The local derivative, in a node backward can reach a from: a rule in a node cut
    from a (no parents) is never run by backward."""
    if seen.get("linked") is False:
        return (
            f"for {_where(case)}, a is not among the nodes out was computed from (its "
            "parents, and theirs): backward(out) would never reach a"
        )
    return _judge_local(case, seen)


def _judge_scaled(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "local", "scaled")
    if problem:
        return problem
    (local, scaled), upstream = got, case["upstream"]
    if close(scaled, upstream * local, 1e-9, 1e-15):
        return None
    return f"with out.grad = {upstream}, a.grad is not {upstream} times its value for out.grad = 1"


def _judge_twice(case: Case, seen: dict) -> str | None:
    got, problem = _numbers(seen, "local", "twice")
    if problem or close(got[1], 2 * got[0], 1e-9, 1e-15):
        return problem
    twice = f"{_NAME[case['op']]} + {_NAME[case['op']]}"
    return f"after backward of {twice}, a.grad is not the sum of both nodes' shares"


def _judge_chain(case: Case, seen: dict) -> str | None:
    # Only whether backward reaches a: the values are the other checks' business.
    got, problem = _numbers(seen, "local", "chain")
    if problem or got[0] == 0.0 or got[1] != 0.0:
        return problem
    return (
        "after backward of the operation applied twice, a.grad is still 0: backward never reached a"
    )


def _local_is(model: Callable[[float, Any], float]) -> Callable[[Case, dict], bool]:
    """A mistake model: the local derivative the student measured is ``model(a, k)``."""

    def matches(case: Case, seen: dict) -> bool:
        local, want = as_float(seen.get("local")), model(case["a"], case.get("k"))
        return (
            local is not None
            and want != _SLOPE[case["op"]](case["a"], case.get("k"))
            and (close(local, want, 1e-9, 1e-12))
        )

    return matches


_NEVER_ADDED = Mistake(
    None,
    "a.grad never changed: the node's _backward must add its share to the grad of the node "
    "it was computed from",
    name="never added",
    factor=0.0,
)
_UNSCALED = Mistake(
    lambda case, seen: close(seen["scaled"], seen["local"], 1e-9, 1e-15),
    "a.grad came out the same whatever out.grad was: the chain rule multiplies the local "
    "derivative by the gradient arriving from above",
    name="unscaled",
)
_REPLACED = Mistake(
    lambda case, seen: close(seen["twice"], seen["local"], 1e-9, 1e-15),
    "a.grad holds one node's share, not both: a second node that uses a must add to its "
    "gradient, not replace what the first one put there",
    name="replaced",
)
_REACH = (
    "backward reaches a node only through the parents of the nodes after it: which node "
    "does out list as the one it was computed from?"
)
_UNREACHED = Mistake(lambda case, seen: seen["chain"] == 0.0, _REACH, name="unreached")
_UNLINKED = Mistake(lambda case, seen: seen.get("linked") is False, _REACH, name="unreached")


def _right(key: str, table: dict) -> Callable[[Case], dict]:
    return lambda case: {key: table[case["op"]](case["a"], case.get("k"))}


def _unary_checks(op: str, local_mistakes: tuple[Mistake, ...], **ranges: Any) -> tuple:
    """The five checks every one-argument operation gets: the local derivative (the main
    property), the value, scaled by out.grad, a node used twice, and the operation
    applied to its result."""
    chained = {"sign": False} if op == "relu" else {}  # relu's slope is 0 below 0: it hides these
    # Weights: the local derivative is derived (2); adding into a.grad rather than
    # assigning it is the lecture's point about reverse mode, and a node used twice (x * x,
    # a shared weight) is the rule in real graphs, where `=` breaks every gradient: it
    # weighs 4, so that `=` keeps at most 60% of the exercise.
    return (
        Check(
            f"{_NAME[op]}: the local derivative",
            "",
            _unary_cases(op, **{**ranges, **chained}),
            _run_unary,
            _judge_linked_local,
            weight=2.0,
            mistakes=(_NEVER_ADDED, _UNLINKED, *local_mistakes),
            right=_right("local", _SLOPE),
        ),
        Check(
            f"{_NAME[op]}: the value",
            "",
            _unary_cases(op, **ranges),
            _run_unary,
            _judge_value,
            right=_right("value", _VALUE),
        ),
        Check(
            "gradients scale by out.grad",
            "",
            _unary_cases(op, 3, **{**ranges, **chained}, upstream=True),
            _run_unary,
            _judge_scaled,
            mistakes=(_UNSCALED,),
        ),
        Check(
            f"{_NAME[op]} + {_NAME[op]}: a node used twice",
            "",
            _unary_cases(op, 3, **{**ranges, **chained}, twice=True),
            _run_unary,
            _judge_twice,
            weight=4.0,
            mistakes=(_REPLACED,),
        ),
        Check(
            "the operation applied to its own result: backward reaches a",
            "",
            _unary_cases(op, 3, **{**ranges, **chained}, chain=True),
            _run_unary,
            _judge_chain,
            mistakes=(_UNREACHED,),
        ),
    )


def _raised_at_zero(case: Case, seen: dict) -> bool:
    return "ZeroDivisionError" in str(seen.get("error", "")) or (
        seen.get("local") is not None and not math.isfinite(as_float(seen["local"]) or 0.0)
    )


_STATEMENT = (
    "The new node's data is {what}; its _backward adds the local derivative, times "
    "out.grad, to the grad of the node it was computed from. Derive the local derivative "
    "yourself: the derivatives of the package's rule table, with which mg.Value, mg.Dual "
    "and mg.diff differentiate, are withheld while it is checked."
)
# The package's engines take every derivative from the rule table: without its derivatives
# (its values stay), no engine of the package can answer a local derivative for the student.
# The batch grader observes these three in a child of their own (Exercise.alone): the
# grader's nodes for 04.backward and 04.topological_order differentiate with that table.
OWN_DERIVATIVES = ("micrograd_edu.rules._rule(*partials)",)


def _composed(case: Case, seen: dict) -> bool:
    """a ** k came back as a node computed from other nodes, not from a itself (a * a * a):
    its own _backward holds only the last multiplication's share."""
    return seen.get("through") is True


_POW_LOCAL = (
    Mistake(
        _composed,
        "a ** k came back as a node computed from other nodes (a * a * ...), not from a: "
        "its own _backward holds the last multiplication's share only, and no product "
        "makes a ** -1 or a ** 0.5. Make one node from a whose _backward applies the power "
        "rule",
        name="composed",
    ),
    Mistake(
        _local_is(lambda a, k: k * a**k),
        "a.grad matches k times a to the power k: once the exponent has come down as a "
        "factor, what power of a is left?",
        name="k times power",
    ),
    Mistake(
        _local_is(lambda a, k: a ** (k - 1)),
        "a.grad lacks the factor the exponent brings down when a power is differentiated",
        name="no factor",
    ),
    Mistake(
        _local_is(lambda a, k: a**k),
        "a.grad equals the power itself: that is exp's slope, not a power's",
        name="itself",
    ),
    _APPROXIMATION,
)

POW = register(
    Exercise(
        "04.pow",
        "MyValue.__pow__",
        2,
        "MyValue.__pow__(self, k), for a plain number k (an int, negative or a fraction): "
        + _STATEMENT.format(what="self.data raised to the power k"),
        ("MyValue",),
        _unary_checks("pow", _POW_LOCAL)
        + (
            Check(
                "a ** k at a = 0, for k = 1, 2, 3",
                "",
                lambda rng: [
                    {"op": "pow", "k": k, "a": 0.0, "twice": False, "chain": False}
                    for k in (3, 2, 1)
                ],  # fmt: skip
                _run_unary,
                _judge_local,
                right=_right("local", _SLOPE),
                mistakes=(
                    Mistake(
                        _raised_at_zero,
                        "at a = 0 your rule divides by zero, though a ** k has a slope there "
                        "for k >= 1: write the slope without dividing by a",
                        name="divides by a",
                    ),
                ),  # (the local-derivative check tells the other mistakes apart; at 0 they agree)
            ),
        ),
        withheld=OWN_DERIVATIVES,
        alone=True,
    )
)

EXP = register(
    Exercise(
        "04.exp",
        "MyValue.exp",
        2,
        "MyValue.exp(self): " + _STATEMENT.format(what="e to the power self.data"),
        ("MyValue",),
        _unary_checks(
            "exp",
            (
                Mistake(
                    _local_is(lambda a, k: a),
                    "a.grad equals a, the input: how fast does e to the a grow where it stands?",
                    name="input",
                ),
                Mistake(
                    _local_is(lambda a, k: a * math.exp(a)),
                    "a.grad is a times e to the a: the exponent a is not a factor that "
                    "comes down, as it would in a power",
                    name="a times",
                ),
                Mistake(
                    _local_is(lambda a, k: 1.0),
                    "a.grad is 1, as for addition: exp is curved, its slope changes with a",
                    name="one",
                ),
                _APPROXIMATION,
            ),
            low=0.1,
            high=2.0,
        ),
        withheld=OWN_DERIVATIVES,
        alone=True,
    )
)


def _relu_at_zero_or_below(rng: random.Random) -> list[Case]:
    # the negative cases first: a slope of 1 everywhere fails there, with its own hint
    below = [-_number(rng, 0.1, 3.0, sign=False) for _ in range(2)]
    return [{"op": "relu", "a": a, "twice": False, "chain": False} for a in (*below, 0.0)]


RELU = register(
    Exercise(
        "04.relu",
        "MyValue.relu",
        2,
        "MyValue.relu(self): "
        + _STATEMENT.format(what="self.data where it is positive and 0 elsewhere")
        + " At exactly 0, follow PyTorch: its gradient there is that of the flat side.",
        ("MyValue",),
        (
            *_unary_checks(
                "relu",
                (
                    Mistake(
                        lambda case, seen: (
                            case["a"] > 0 and close(seen["local"], case["a"], 1e-9, 1e-12)
                        ),
                        "for a > 0, a.grad equals a: relu's output there rises exactly as "
                        "fast as its input; its slope is not its height",
                        name="height",
                    ),
                ),
                low=0.1,
                high=3.0,
            ),
            Check(
                "a.relu() at 0 and below: no gradient",
                "",
                _relu_at_zero_or_below,
                _run_unary,
                _judge_local,
                right=_right("local", _SLOPE),
                mistakes=(
                    Mistake(
                        lambda case, seen: case["a"] == 0.0 and seen["local"] == 1.0,
                        "at a = 0 exactly, a.grad is 1, the slope of relu's rising side: "
                        "PyTorch gives it the slope of its flat side there",
                        name="at zero",
                    ),
                    Mistake(
                        lambda case, seen: case["a"] <= 0 and seen["local"] == 1.0,
                        "for a < 0, a.grad is 1: relu's output does not change when a "
                        "negative a changes a little",
                        name="slope one",
                    ),
                ),
            ),
        ),
        withheld=OWN_DERIVATIVES,
        alone=True,
    )
)


# --- 04.div: negation, subtraction and division, composed ------------------------


def _float_expression(case: Case, leaves: list[float]) -> float:
    made = list(leaves)
    for step in case["steps"]:
        made.append(_apply(step, made))
    return made[-1]


def _judge_expression(case: Case, seen: dict) -> str | None:
    leaves = case["leaves"]
    recip = seen.get("reciprocal")
    if any(step[0] in ("div", "rdiv") for step in case["steps"]) and isinstance(recip, list):
        a = leaves[-1]
        values = as_floats(recip, 2)
        if values is None or not (
            close(values[0], 1 / a, 1e-9, 1e-12) and close(values[1], -1 / a**2, 1e-9, 1e-12)
        ):
            return "a ** -1 is not right yet (exercise 04.pow): a division built on it cannot be"
    value = as_float(seen.get("value"))
    if value is None:
        return f"out.data is {describe(seen.get('value'))}; expected a number"
    want_value = _float_expression(case, leaves)
    if not close(value, want_value, 1e-9, 1e-12):
        return _off(f"for {case['text']}, out.data", value, want_value)
    grads = as_floats(seen.get("grads"), len(leaves))
    if grads is None:
        return f"the inputs' grads are {describe(seen.get('grads'))}; expected numbers"
    want = case.get(HELD) or (
        gradient(lambda *xs: _float_expression(case, list(xs)), leaves, 1e-6).gradient.tolist()
    )
    for name, got, exact in zip("abc", grads, want, strict=False):
        if not close(got, exact, 1e-5, 1e-7):
            return _off(f"for {case['text']}, {name}.grad", got, exact)
    return None


def _quotient(rng: random.Random) -> Case:
    a, b = _number(rng), _number(rng)
    return {"leaves": [a, b], "steps": [["div", 0, 1]], "text": "a / b", HELD: [1 / b, -a / b**2]}


def _with_a_number(
    rng: random.Random, ops: tuple[str, ...] = ("rdiv", "divc", "rsub", "subc")
) -> Case:
    a, c = _number(rng), _number(rng)
    op = rng.choice(ops)
    text = {"rdiv": f"{c} / a", "divc": f"a / {c}", "rsub": f"{c} - a", "subc": f"a - {c}"}[op]
    slope = {"rdiv": -c / a**2, "divc": 1 / c, "rsub": -1.0, "subc": 1.0}[op]
    return {"leaves": [a], "steps": [[op, 0, c]], "text": text, HELD: [slope]}


def _negation(rng: random.Random) -> Case:
    return {"leaves": [_number(rng)], "steps": [["neg", 0]], "text": "-a", HELD: [-1.0]}


def _subtraction(rng: random.Random) -> Case:
    a, b = _number(rng), _number(rng)
    return {"leaves": [a, b], "steps": [["sub", 0, 1]], "text": "a - b", HELD: [1.0, -1.0]}


def _difference(rng: random.Random) -> Case:
    return _negation(rng) if rng.random() < 0.5 else _subtraction(rng)


def _shared(rng: random.Random) -> Case:
    a, b = _number(rng, 0.5, 2.0, sign=False), _number(rng, 0.5, 2.0, sign=False)
    steps = [["sub", 0, 1], ["add", 0, 1], ["div", 2, 3]]
    return {"leaves": [a, b], "steps": steps, "text": "(a - b) / (a + b)"}


def _swapped(case: Case, seen: dict) -> bool:
    """c / a computed as a / c, or c - a as a - c: self taken for the left operand."""
    op, _, c = case["steps"][0]
    a = case["leaves"][0]
    value = as_float(seen.get("value"))
    return (
        value is not None
        and op in ("rdiv", "rsub")
        and close(value, a / c if op == "rdiv" else a - c, 1e-9, 1e-12)
    )


# For each operation, the operand a node of its own rule would be computed from directly,
# and the node built from +, * and ** is not: b in a / b is reached through b ** -1, in
# a - b through -b; a in c / a and c - a likewise. -a built from * has two parents (a and
# the number -1); a rule of its own, one.
_THROUGH = {"div": 1, "sub": 1, "rdiv": 0, "rsub": 0}


def _own_rule(case: Case, seen: dict) -> bool:
    """A right result whose node was computed straight from the operands: a backward rule
    of its own (a wrong one, such as c - a computed as a - c, is another mistake)."""
    parents = seen.get("parents")
    if not isinstance(parents, list) or len(case["steps"]) != 1:
        return False
    if _judge_expression(case, seen) is not None:
        return False
    op = case["steps"][0][0]
    if op == "neg":
        return parents == [0]
    return op in _THROUGH and _THROUGH[op] in parents


def _judge_composed(case: Case, seen: dict) -> str | None:
    if _own_rule(case, seen):
        operand = "a" if case["steps"][0][0] in ("neg", "rdiv", "rsub") else "b"
        return (
            f"the node {case['text']} returns is computed from {operand} itself: it has a "
            "backward rule of its own"
        )
    return _judge_expression(case, seen)


def _cut_by_negation(case: Case, seen: dict) -> bool:
    """-x made as a new node from the number -x.data (no parents): the value is right, and
    every input reached only through a negation gets no gradient."""
    want, value = case.get(HELD), as_float(seen.get("value"))
    grads = as_floats(seen.get("grads"), len(case["leaves"]))
    if want is None or grads is None or value is None or not any(w < 0 for w in want):
        return False
    return close(value, _float_expression(case, case["leaves"]), 1e-9, 1e-12) and all(
        close(g, 0.0 if w < 0 else w, 1e-9, 1e-12) for g, w in zip(grads, want, strict=True)
    )


_CUT = Mistake(
    _cut_by_negation,
    "the value is right, but an input that is negated gets no gradient: a new MyValue made "
    "from -self.data has no parents, so backward stops there. Build -x from the operations "
    "MyValue has",
    name="cut by negation",
)


def _cases_of(make: Callable[[random.Random], Case], count: int = 4) -> Callable:
    return lambda rng: [make(rng) for _ in range(count)]


DIV = register(
    Exercise(
        "04.div",
        "Negation, subtraction and division, composed",
        2,
        "MyValue's __neg__, __sub__, __rsub__, __truediv__ and __rtruediv__ (self - other, "
        "other - self, self / other, other / self, for a MyValue or a plain number), each "
        "built from the operations MyValue already has (+, * and your **), with no backward "
        "rule of its own.",
        ("MyValue",),
        (
            Check(
                "a / b: value and both gradients",
                "",
                _cases_of(_quotient),
                _run_composed,
                _judge_expression,
            ),
            Check(
                "a plain number on either side: c / a, a / c, c - a, a - c",
                "",
                _cases_of(_with_a_number, 6),
                _run_composed,
                _judge_expression,
                mistakes=(
                    _CUT,
                    Mistake(
                        _swapped,
                        "the number and a came out in the other order: for c / a and c - a "
                        "Python calls a's reflected method, with self the right operand",
                        name="swapped",
                    ),
                ),
            ),
            Check(
                "-a and a - b",
                "",
                _cases_of(_difference),
                _run_composed,
                _judge_expression,
                mistakes=(_CUT,),
            ),
            Check(
                "(a - b) / (a + b): nodes used twice",
                "",
                _cases_of(_shared, 3),
                _run_composed,
                _judge_expression,
            ),
            Check(
                "built from +, * and **: no backward rule of its own",
                "",
                lambda rng: [  # every operation, each a case: one wrong earns nothing
                    _quotient(rng),
                    _negation(rng),
                    _subtraction(rng),
                    _with_a_number(rng, ("rdiv",)),
                    _with_a_number(rng, ("rsub",)),
                ],
                _run_composed,
                _judge_composed,
                mistakes=(
                    Mistake(
                        _own_rule,
                        "give -, / and their reflected forms no _backward of their own: build "
                        "each from the operations MyValue has (+, * and your **), and its "
                        "gradient comes out of theirs",
                        name="own rule",
                    ),
                ),
            ),
        ),
    )
)


# --- 04.backward -----------------------------------------------------------------
#
# As PyTorch does it: the adjoints inside the graph start from 0 at every call, the
# inputs' grads add up across calls. The mistakes are modelled by running the mistaken
# backward on the grader's own nodes for the same graph.


def _simulate(case: Case, order: str = "reversed", reset: str = "inner") -> list[float]:
    """The inputs' grads a backward gives on ``case`` when it walks ``order`` ("reversed"
    or "forward") and first sets to 0 the grads of ``reset`` ("inner", "all", "none")."""
    g = case["graph"]
    nodes = _build(g, _ClosureNode)
    leaf, inner = case.get("before", (0.0, 0.0))
    for node in nodes:
        node.grad = inner if node.parents else leaf
    root = nodes[case["root"]]
    walk = _order(root)
    for _ in range(case.get("calls", 1)):
        for node in walk:
            if reset == "all" or (reset == "inner" and node.parents):
                node.grad = 0.0
        root.grad = 1.0
        for node in reversed(walk) if order == "reversed" else walk:
            node._backward()
    return [nodes[i].grad for i in _leaf_indices(g)]


def _judge_backward(case: Case, seen: dict) -> str | None:
    g = case["graph"]
    root = as_float(seen.get("root_grad"))
    if root != 1.0:
        shown = describe(seen.get("root_grad")) if root is None else f"{root:g}"
        return f"after backward the output's grad is {shown}; it must be d out / d out"
    want = _right_grads(case)
    grads = as_floats(seen.get("grads"), len(want))
    if grads is None:
        return f"the inputs' grads are {describe(seen.get('grads'))}; expected numbers"
    if all(close(got, w, 1e-5, 1e-6) for got, w in zip(grads, want, strict=True)):
        return None
    worst = max(abs(got - w) / max(abs(w), 1e-3) for got, w in zip(grads, want, strict=True))
    return (
        f"the inputs' gradients differ from central differences by up to {worst:.2g} "
        f"of their size ({len(g)}-node graph)"
    )


def _right_grads(case: Case) -> list[float]:
    """The inputs' grads after the case's calls of a right backward (by central
    differences of the graph on floats)."""
    leaf = case.get("before", (0.0, 0.0))[0]
    return [leaf + case.get("calls", 1) * d for d in _numerical_gradient(case)]


def _gives(order: str = "reversed", reset: str = "inner") -> Callable[[Case, dict], bool]:
    """A mistake model: the inputs' grads are what that mistaken backward gives, and
    differ from the right ones."""

    def matches(case: Case, seen: dict) -> bool:
        model = _simulate(case, order, reset)
        right = _simulate(case)
        grads = as_floats(seen.get("grads"), len(model)) or []
        if as_float(seen.get("root_grad")) != 1.0:  # an unseeded output is its own mistake
            return False
        return (
            len(grads) == len(model)
            and any(not close(m, r, 1e-6, 1e-9) for m, r in zip(model, right, strict=True))
            and all(close(got, m, 1e-6, 1e-9) for got, m in zip(grads, model, strict=True))
        )

    return matches


# Walked from the inputs' end, every node but the root passes on a grad that is still 0:
# the same grads as running the root's rule alone (`root._backward()` and nothing else).
_FORWARD = Mistake(
    _gives(order="forward"),
    "only the root's own rule passed anything on: every other node's _backward ran while "
    "its grad was still 0 (before the nodes that use it had added their shares), or never "
    "ran. Walk the whole topological order, from the end with no node after it",
    name="forward order",
)
_STALE = Mistake(
    _gives(reset="none"),
    "the nodes inside the graph passed on adjoints an earlier backward had left in them: "
    "as in PyTorch, each backward starts them afresh, while the inputs keep adding up",
    name="stale",
)
_CLEARED = (
    "the inputs lost what their .grad held before backward: PyTorch adds each backward's "
    "gradient to an input's .grad, and only the adjoints inside the graph start afresh"
)
_LEAVES_CLEARED = Mistake(_gives(reset="all"), _CLEARED, name="leaves cleared")
# called twice, a backward that clears the inputs too gives exactly half the gradient
_HALF = Mistake(None, _CLEARED, name="leaves cleared", factor=0.5)
_ORDER_MISTAKES = (_FORWARD,)


def _graphs_with(make: Callable[[random.Random], Graph], count: int, **case: Any) -> Callable:
    """``count`` graphs drawn by ``make``, shuffled, each with the entries ``case``
    (calls, before)."""
    return lambda rng: [{**_shuffled(rng, make(rng)), **case} for _ in range(count)]


def _backward_right(case: Case) -> dict:
    # (the output's own grad is judged apart: with it, an input gradient off by a factor
    # would not read as one)
    return {"grads": _right_grads(case)}


BACKWARD = register(
    Exercise(
        "04.backward",
        "backward, as PyTorch does it",
        2,
        "backward(root) fills in the grad of every node root depends on, as PyTorch does: "
        "the inputs (nodes without parents) ADD d root / d input to their grad, so that "
        "two calls give twice the gradient, while every other node's grad is d root / d "
        "node for this call alone, whatever an earlier backward left in it. Use "
        "topological_order(root).",
        ("backward",),
        (
            Check(
                "diamonds: each node passes its gradient on once it is complete",
                "",
                _graph_cases(lambda rng: _diamonds(rng, rng.randint(2, 5)), 3),
                _run_backward,
                _judge_backward,
                right=_backward_right,
                mistakes=_ORDER_MISTAKES,
            ),
            Check(
                "a single operation: the output's grad is seeded",
                "",
                _graph_cases(lambda rng: _random_dag(rng, 2, 1), 3),
                _run_backward,
                _judge_backward,
                right=_backward_right,
                mistakes=_ORDER_MISTAKES,
            ),
            Check(
                "random graphs with shared nodes",
                "",
                _graph_cases(lambda rng: _random_dag(rng, rng.randint(2, 4), 20), 4),
                _run_backward,
                _judge_backward,
                right=_backward_right,
                mistakes=_ORDER_MISTAKES,
            ),
            Check(
                "a chain of 3000 nodes",
                "",
                _graph_cases(lambda rng: _chain(rng, 3000), 1),
                _run_backward,
                _judge_backward,
                right=_backward_right,
                mistakes=_ORDER_MISTAKES,
            ),
            Check(
                "called twice: the inputs get twice the gradient",
                "",
                _graphs_with(lambda rng: _random_dag(rng, rng.randint(2, 4), 12), 3, calls=2),
                _run_backward,
                _judge_backward,
                right=_backward_right,
                mistakes=(_STALE, _HALF, _FORWARD),
            ),
            Check(
                "grads an earlier backward left: inside the graph forgotten, inputs kept",
                "",
                _graphs_with(
                    lambda rng: _random_dag(rng, rng.randint(2, 4), 12), 3, before=(0.25, 3.0)
                ),
                _run_backward,
                _judge_backward,
                right=_backward_right,
                mistakes=(_STALE, _LEAVES_CLEARED, _FORWARD),
            ),
        ),
        requires=reference_steps(topological_order="topological_order"),
    )
)


# --- 04.train: the student's engine learns a curve ----------------------------------
#
# train returns the network's parameters; the judge evaluates the network itself, at the
# training points and at points between them that the submission never sees. Every call
# of backward while it trains is the grader's (the reference, watched through train's
# globals, runners/chapter04.py) and is counted here; what each call reports (the loss,
# whether the inputs' grads were cleared, whether the parameters moved) serves the hints.

_POINTS = 16
_STEPS = 20  # backward calls a training by gradient descent makes at the very least


def _curve(rng: random.Random) -> list[Case]:
    """``_POINTS`` evenly spaced points of ±sin(w x) on [-2, 2] to train on; the midpoints
    between them, with their targets, stay with the judge."""
    w, sign = round(rng.uniform(1.3, 1.7), 3), rng.choice((-1.0, 1.0))
    xs = [round(-2 + 4 * k / (_POINTS - 1), 6) for k in range(_POINTS)]
    new = [(u + v) / 2 for u, v in zip(xs, xs[1:], strict=False)]
    return [
        {
            "xs": xs,
            "ys": [sign * math.sin(w * x) for x in xs],
            HELD: {"new": new, "targets": [sign * math.sin(w * x) for x in new]},
        }
    ]


def _line_error(xs: list[float], ys: list[float]) -> float:
    """The mean squared error of the best straight line through (xs, ys)."""
    n, mx, my = len(xs), sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return sum((y - my - slope * (x - mx)) ** 2 for x, y in zip(xs, ys, strict=True)) / n


def _mse(got: list[float], want: list[float]) -> float:
    return sum((g - w) ** 2 for g, w in zip(got, want, strict=True)) / len(want)


def _network(seen: dict) -> tuple[Callable[[float], float] | None, str | None]:
    """The network the parameters describe, ŷ(x) = c + Σⱼ vⱼ tanh(wⱼ x + bⱼ), or why not."""
    params = seen.get("params")
    shape = "a list [w, b, v, c] of three equal lists of numbers and a number"
    if not isinstance(params, list) or len(params) != 4:
        return None, f"train returned {describe(params)}; expected {shape}"
    *groups, c = params
    lists = [as_floats(g, len(g)) if isinstance(g, list) else None for g in groups]
    if any(g is None for g in lists) or as_float(c) is None:
        return None, f"train returned something other than {shape}"
    w, b, v = lists
    if not (1 <= len(w) == len(b) == len(v) <= 256):
        return None, f"w, b and v hold {len(w)}, {len(b)} and {len(v)} numbers: one per neuron"

    def predict(x: float) -> float:
        try:
            return as_float(c) + sum(
                vj * math.tanh(wj * x + bj) for wj, bj, vj in zip(w, b, v, strict=True)
            )
        except OverflowError:
            return math.nan

    return predict, None


def _judge_fit(case: Case, seen: dict, xs: list[float], ys: list[float], which: str) -> str | None:
    predict, problem = _network(seen)
    if problem:
        return problem
    got = [predict(x) for x in xs]
    if not all(math.isfinite(y) for y in got):
        return "the network's output is inf or nan"
    error, line = _mse(got, ys), _line_error(xs, ys)
    if error <= line / 2:
        return None
    return (
        f"mean squared error {error:.3g} on the {len(xs)} {which} points; a network "
        f"must do better than half the best straight line's ({line:.3g})"
    )


def _reports(seen: dict) -> list[list[float]]:
    """What each backward call reported: [loss, Σ|grad| before, Σ data, Σ data², Σ Δdata ·
    grad since the call before, Σ |Δdata| since then, how many leaves, the learning rate
    that explains the moves since then, how far the moves are from it (runners/chapter04.py,
    _fit_rate)]."""
    return [r for r in seen.get("requests") or [] if as_floats(r, 9) is not None]


def _training(seen: dict) -> list[list[float]]:
    """The reports of the last run of calls on losses of one shape (as many leaves as the
    last): the training of the network whose parameters come back."""
    reports, run = _reports(seen), []
    for report in reversed(reports):
        if report[6] != reports[-1][6]:
            break
        run.append(report)
    return run[::-1]


def _steps(seen: dict) -> tuple[int, int]:
    """How many times the parameters moved between calls of that training: against the
    gradient, and along it."""
    moves = [r for r in _training(seen)[1:] if r[5] > 0]
    return sum(r[4] < 0 for r in moves), sum(r[4] > 0 for r in moves)


def _judge_trained(case: Case, seen: dict) -> str | None:
    """Trained by gradient descent with backward on the network's loss, returned what that
    training reached, and fits the training points."""
    calls = seen.get("calls")
    if type(calls) is not int or calls < _STEPS:
        return (
            f"train called backward {calls} times: gradient descent calls it once a step, "
            f"and a network needs more than {_STEPS} steps"
        )
    if seen.get("from_loss") is not True:
        return (
            "the parameters train returned are not the inputs of the last loss it called "
            "backward on: the network must be the one gradient descent trained"
        )
    against, along = _steps(seen)
    if against < _STEPS or along > against / 10:
        return (
            f"between the calls of backward on the network's loss the parameters moved "
            f"{against} times against the gradient and {along} times along it: gradient "
            f"descent takes more than {_STEPS} steps, each against the gradient"
        )
    return _descended(seen) or _judge_fit(case, seen, case["xs"], case["ys"], "training")


_OFF = 1e-6  # how far from -lr·p.grad a step may move (rounding, where lr·p.grad is tiny)
_FALL = 4  # how many times lower the loss ends than it starts, at the least


def _descended(seen: dict) -> str | None:
    """Why the training was not gradient descent driven by backward, or None: every step
    moved the parameters by -lr·p.grad, p.grad as backward left it, with one lr for every
    parameter and step, and the loss fell by a factor _FALL over the steps (the first and
    last tenth's mean: a start already as good as the end is a fit made some other way)."""
    training = _training(seen)
    tenth = max(1, len(training) // 10)
    start, end = (sum(r[0] for r in part) / tenth for part in (training[:tenth], training[-tenth:]))
    if not end * _FALL <= start:
        return (
            f"the loss went from {start:.3g} to {end:.3g} (the mean of the first and last "
            f"{tenth} calls of backward): gradient descent from the network's first "
            f"parameters brings it down {_FALL} times at the least; the network must be the "
            "one the steps reached, not one fitted before them"
        )
    moves = [(k, r) for k, r in enumerate(training) if k and r[5] > 0]
    for k, r in moves:
        if not r[8] <= _OFF:
            return (
                f"step {k} moved the parameters {r[8]:.2g} of the way off -lr·p.grad (for the "
                "lr that fits best): each step of gradient descent moves every parameter p by "
                "-lr·p.grad, with p.grad as backward(loss) left it"
            )
    rates = [r[7] for _, r in moves]
    if rates and not max(rates) - min(rates) <= _OFF * max(abs(x) for x in rates):
        return (
            f"the learning rate went from {min(rates):.3g} to {max(rates):.3g} over the steps: "
            "gradient descent takes every step with one learning rate"
        )
    return None


def _judge_new(case: Case, seen: dict) -> str | None:
    return _judge_fit(case, seen, case[HELD]["new"], case[HELD]["targets"], "new")


def _never_moved(case: Case, seen: dict) -> bool:
    reports = _training(seen)
    return (
        seen.get("from_loss") is True
        and len(reports) >= 2
        and all(r[2:4] == reports[0][2:4] for r in reports)
    )


def _never_cleared(case: Case, seen: dict) -> bool:
    reports = _training(seen)
    return (
        len(reports) >= 2
        and not _never_moved(case, seen)
        and _steps(seen)[1] == 0
        and all(r[1] > 0 for r in reports[1:])
    )


def _ascended(case: Case, seen: dict) -> bool:
    against, along = _steps(seen)
    return along > 0 and against == 0


def _diverged(case: Case, seen: dict) -> bool:
    losses = [r[0] for r in _training(seen)]
    return (
        len(losses) >= 2
        and not _ascended(case, seen)
        and (not all(math.isfinite(x) for x in losses) or losses[-1] > 2 * losses[0])
    )


_PARAMETERS = Kind(
    "a list [w, b, v, c] of three equal lists of numbers and a number",
    lambda params: _network({"params": params})[1] is None,
)


_TRAIN_MISTAKES = (
    Mistake(
        lambda case, seen: seen.get("calls") == 0 and "error" not in seen,
        "train never called backward: each step of gradient descent computes the loss as a "
        "MyValue and calls backward(loss), the function of exercise 3, by that name",
        name="no backward",
    ),
    Mistake(
        _never_moved,
        "the parameters never changed between one backward and the next: `p = p - lr * "
        "p.grad` makes a new MyValue and leaves the network's own as it was; change p.data",
        name="never moved",
    ),
    Mistake(
        _never_cleared,
        "the parameters' gradients were never set back to 0: backward adds to each input's "
        "grad, so every step followed the sum of all the gradients so far",
        name="never cleared",
    ),
    Mistake(
        _ascended,
        "every step moved the parameters along their gradient, uphill: gradient descent "
        "subtracts lr times the gradient",
        name="ascent",
    ),
    Mistake(
        _diverged,
        "the loss grew as the training went on, though each step went downhill: each step "
        "went too far; take a smaller learning rate",
        name="diverged",
    ),
)


TRAIN = register(
    Exercise(
        "04.train",
        "Your engine trains a network",
        4,
        "train(xs, ys) fits the network ŷ(x) = c + Σⱼ vⱼ tanh(wⱼ x + bⱼ), its parameters "
        "MyValues, to the points (xs[i], ys[i]) by gradient descent, calling backward(loss) "
        "once a step, and returns its parameters [w, b, v, c]: three lists of one number "
        "per neuron and the number c (numbers or MyValues).",
        ("MyValue", "train"),
        (
            Check(
                "trained with backward: fits the training points",
                "",
                _curve,
                _run_train,
                _judge_trained,
                weight=3.0,
                mistakes=_TRAIN_MISTAKES,
                serve=lambda case, report: None,
                log_requests=True,
                right=lambda case: {"params": _PARAMETERS},
            ),
            Check(
                "new points between them",
                "",
                _curve,
                _run_train,
                _judge_new,
                same_cases_as="trained with backward: fits the training points",
            ),
        ),
        requires=reference_steps(
            backward="backward_reference", topological_order="topological_order"
        ),
    )
)
