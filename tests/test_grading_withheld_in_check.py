"""The package's own answer to an exercise, reached from a notebook cell, earns nothing in
the notebook's check() either: the withheld library imported at a cell's top level, and
the package's engines that differentiate with the rule table (mg.Value, mg.Dual) while an
exercise asks for a derivative of the student's own (the review of chapters 00-05, issue
28). Each source is the review's, as the student ran it; each runs in process (cheap)."""

import linecache

import pytest

from micrograd_edu import check

ORDER_WITH_GRAPHLIB = """
{imports}


def topological_order(root):
    graph, stack, seen, nodes = {{}}, [root], {{id(root)}}, {{}}
    while stack:
        node = stack.pop()
        nodes[id(node)] = node
        graph[id(node)] = [id(p) for p in node.parents]
        for p in node.parents:
            if id(p) not in seen:
                seen.add(id(p))
                stack.append(p)
    return [nodes[i] for i in {sorter}(graph).static_order()]
"""

VALUE = """
import micrograd_edu as mg


class MyValue:
    def __init__(self, data, parents=(), op=""):
        self.data, self.grad, self.parents, self.op = float(data), 0.0, tuple(parents), op
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, MyValue) else MyValue(other)
        out = MyValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        t = mg.Value(self.data)
        (t**k).backward()
        d = t.grad
        out = MyValue(self.data**k, (self,), "pow")

        def _backward():
            self.grad += d * out.grad

        out._backward = _backward
        return out
"""

DUAL = """
from micrograd_edu import Dual


class MyDual:
    def __init__(self, primal, tangent=0.0):
        self.primal, self.tangent = float(primal), float(tangent)

    def __add__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal + other.primal, self.tangent + other.tangent)

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(
            self.primal * other.primal, self.primal * other.tangent + self.tangent * other.primal
        )

    __rmul__ = __mul__

    def __truediv__(self, other):
        o = other if isinstance(other, MyDual) else MyDual(other)
        r = Dual(self.primal, self.tangent) / Dual(o.primal, o.tangent)
        return MyDual(r.primal, r.tangent)

    def __rtruediv__(self, other):
        return MyDual(other) / self

    def __pow__(self, other):
        o = Dual(other.primal, other.tangent) if isinstance(other, MyDual) else other
        r = Dual(self.primal, self.tangent) ** o
        return MyDual(r.primal, r.tangent)

    def __rpow__(self, other):
        r = other ** Dual(self.primal, self.tangent)
        return MyDual(r.primal, r.tangent)
"""

VJP_BY_THE_PACKAGE = """
import micrograd_edu as mg


def vjp(f, xs, v):
    J = mg.jacobian_reverse(f, xs).jacobian
    return [sum(v[i] * J[i][j] for i in range(len(v))) for j in range(len(xs))]
"""

GAMED = [
    (
        "04.topological_order",
        ORDER_WITH_GRAPHLIB.format(imports="import graphlib", sorter="graphlib.TopologicalSorter"),
    ),
    (
        "04.topological_order",
        ORDER_WITH_GRAPHLIB.format(
            imports="from graphlib import TopologicalSorter", sorter="TopologicalSorter"
        ),
    ),
    ("04.pow", VALUE),
    ("03.dual_divide", DUAL),
    ("03.dual_power", DUAL),
    ("05.vjp", VJP_BY_THE_PACKAGE),
]


def _namespace(source, name):
    filename = f"<cell {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


@pytest.mark.parametrize(
    "exercise_id, source", GAMED, ids=[f"{e}-{i}" for i, (e, _) in enumerate(GAMED)]
)
def test_the_packages_own_answer_earns_nothing_in_check(exercise_id, source):
    namespace = _namespace(source, exercise_id)
    result = check(exercise_id, namespace=namespace, time_limit=None).result
    assert result.score == 0, [(c.name, c.reason) for c in result.checks]
    assert "withheld" in result.checks[0].reason, result.checks[0].reason
    # and the notebook's names are the notebook's again afterwards
    assert _namespace(source, exercise_id).keys() == namespace.keys()
