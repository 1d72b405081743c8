"""What the grader runs next to the submission for chapter02: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...scalar.symbolic import Apply, Constant, Expr, Symbol
from ..plain import as_float, to_plain
from ..registry import Case, runner_factory

Nodes = list[list[Any]]


_MAX_NODES = 5000


def build(nodes: Nodes) -> Expr:
    """The package expression for a plain node list (shared indices stay shared)."""
    made: list[Expr] = []
    for node in nodes:
        head, *rest = node
        if head == "const":
            made.append(Constant(rest[0]))
        elif head == "var":
            made.append(Symbol(rest[0]))
        else:
            made.append(Apply(head, tuple(made[i] for i in rest)))
    return made[-1]


def encode(expr: Any) -> Nodes:
    """``expr`` as a plain node list; only the package's own node classes are read.

    >>> x = Symbol("x")
    >>> encode(x * x.sin() + 2)
    [['var', 'x'], ['sin', 0], ['mul', 0, 1], ['const', 2], ['add', 2, 3]]
    >>> returned(2.5)  # a number is not an expression: it stays a number, for the judge
    2.5
    """
    nodes: Nodes = []
    index: dict[int, int] = {}
    opened: set[int] = set()  # Apply nodes whose arguments are being read
    stack: list[tuple[Any, bool]] = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in index:
            continue
        kind = type(node)
        if kind not in (Constant, Symbol, Apply):
            raise TypeError(f"the result holds a {kind.__name__}, not an expression node")
        if kind is Apply and not expanded:
            if type(node.args) is not tuple or type(node.op) is not str:
                raise TypeError("the result holds a malformed Apply node")
            if id(node) in opened:
                raise ValueError("the result is not a tree: an expression contains itself")
            opened.add(id(node))
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args) if id(a) not in index)
            continue
        if kind is Constant:
            if type(node.value) not in (int, float):
                raise TypeError("the result holds a Constant that is not an int or float")
            plain = ["const", node.value]
        elif kind is Symbol:
            if type(node.name) is not str:
                raise TypeError("the result holds a Symbol whose name is not a str")
            plain = ["var", node.name]
        else:
            plain = [node.op, *(index[id(a)] for a in node.args)]
        index[id(node)] = len(nodes)
        nodes.append(plain)
        if len(nodes) > _MAX_NODES:
            raise ValueError(f"the result has more than {_MAX_NODES} distinct nodes")
    return nodes


def returned(result: Any) -> Any:
    """What a function returned, as the judge reads it: a number as a number, an
    expression as its node list."""
    number = to_plain(result)
    return number if as_float(number) is not None else encode(result)


# name: (u(x) as an expression, u'(x) as an expression, u and u' with math)
_LIBRARY: dict[str, tuple[Callable, Callable, Callable, Callable]] = {
    "sin": (lambda x: x.sin(), lambda x: x.cos(), math.sin, math.cos),
    "exp": (lambda x: x.exp(), lambda x: x.exp(), math.exp, math.exp),
    "log": (lambda x: x.log(), lambda x: 1 / x, math.log, lambda t: 1 / t),
    "cube": (lambda x: x**3, lambda x: 3 * x**2, lambda t: t**3, lambda t: 3 * t * t),
    "x+2": (lambda x: x + 2, lambda x: Constant(1), lambda t: t + 2, lambda t: 1.0),
    "3": (lambda x: Constant(3), lambda x: Constant(0), lambda t: 3.0, lambda t: 0.0),
}


@runner_factory
def _run_rule(name: str) -> Callable[[dict, Case], dict]:
    def run(functions: dict, case: Case) -> dict:
        x = Symbol("x")
        u, du = (_LIBRARY[case["u"]][k](x) for k in (0, 1))
        v, dv = (_LIBRARY[case["v"]][k](x) for k in (0, 1))
        return {"derivative": returned(functions[name](u, du, v, dv))}

    return run


def _run_diff(functions: dict, case: Case) -> dict:
    expr = build(case["tree"])
    return {"derivative": returned(functions["my_diff"](expr, Symbol(case["var"])))}


def _run_size(functions: dict, case: Case) -> dict:
    return {"size": functions["my_size"](build(case["tree"]))}


def _run_fold(functions: dict, case: Case) -> dict:
    given = build(case["tree"])
    folded = returned(functions["fold_constants"](given))
    return {"folded": folded, "input_after": encode(given)}
