"""Graphs for the viz tests: a stand-in scalar, and a small real ``Tensor`` graph.

``S`` is a scalar built straight from the rule table, with its own backward
pass over ``topological_order``; it follows the protocol only (parents, op,
data, grad, label). It stays beside the real ``Value`` because viz takes a
``Value`` graph's backward steps from the engine's own record
(``adjoint_steps``): only a scalar of another type reaches the path
every other protocol node takes (the rule table replayed), and its backward
pass is an oracle independent of both. Array graphs take that path whatever
their type, so they need no stand-in: the tests use the real ``Tensor``
(:func:`matmul_sum`).
"""

from __future__ import annotations

import numpy as np

from micrograd_edu import Tensor
from micrograd_edu.rules import MATH, RULES
from micrograd_edu.scalar.graph import topological_order


class S:
    def __init__(self, data, label="", parents=(), op=""):
        self.data, self.label, self.parents, self.op = float(data), label, parents, op
        self.grad = 0.0

    def _apply(self, op, *others):
        args = (self, *(o if isinstance(o, S) else S(o, op="const") for o in others))
        return S(RULES[op].value(MATH, *(a.data for a in args)), parents=args, op=op)

    def __add__(self, o):
        return self._apply("add", o)

    def __sub__(self, o):
        return self._apply("sub", o)

    def __mul__(self, o):
        return self._apply("mul", o)

    def __truediv__(self, o):
        return self._apply("div", o)

    def __pow__(self, o):
        return self._apply("pow", o)

    def __radd__(self, o):
        return S(o, op="const")._apply("add", self)

    def __rmul__(self, o):
        return S(o, op="const")._apply("mul", self)

    def __neg__(self):
        return self._apply("neg")

    def log(self):
        return self._apply("log")

    def sin(self):
        return self._apply("sin")

    def tanh(self):
        return self._apply("tanh")

    def backward(self):
        order = topological_order(self)
        for n in order:
            n.grad = 0.0
        self.grad = 1.0
        for n in reversed(order):
            if n.parents:
                args = [p.data for p in n.parents]
                for k, p in enumerate(n.parents):
                    p.grad += n.grad * RULES[n.op].partials[k](MATH, n.data, *args)


def lecture(x1=2.0, x2=5.0):
    """f(x1, x2) = ln x1 + x1 x2 - sin x2 on stand-in scalars."""
    a, b = S(x1, "x1"), S(x2, "x2")
    return a.log() + a * b - b.sin(), (a, b)


def matmul_sum():
    """z = sum(x @ W) on the real Tensor after backward, every node keeping its gradient."""
    x = Tensor(np.ones((2, 3)), requires_grad=True, label="x")
    w = Tensor(np.arange(6.0).reshape(3, 2), requires_grad=True, label="W")
    m = x @ w
    m.retain_grad()
    z = m.sum()
    z.retain_grad()
    z.backward()
    return z, (x, w, m)
