"""Small graph-protocol classes for the viz tests, independent of the engines.

``S`` is a scalar built straight from the rule table, with its own backward
pass over ``topological_order``; ``A`` is an array node with hand-written
gradients. They follow the protocol only (parents, op, data, grad, label), so
the viz tests do not depend on how ``Value`` or ``Tensor`` are written.
"""

from __future__ import annotations

import numpy as np

from micrograd_edu.graph import topological_order
from micrograd_edu.rules import MATH, RULES


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


class A:
    """An array node: ``A.matmul(x, w)`` and ``A.sum(x)`` with their gradients."""

    def __init__(self, data, label="", parents=(), op=""):
        self.data = np.asarray(data, dtype=float)
        self.label, self.parents, self.op, self.grad = label, parents, op, None

    @staticmethod
    def matmul(x, w):
        return A(x.data @ w.data, parents=(x, w), op="matmul")

    @staticmethod
    def sum(x):
        return A(x.data.sum(), parents=(x,), op="sum")

    def backward(self):
        self.grad = np.ones_like(self.data)
        for n in reversed(topological_order(self)):
            if n.op == "sum":
                n.parents[0].grad = n.grad * np.ones_like(n.parents[0].data)
            elif n.op == "matmul":
                x, w = n.parents
                x.grad = n.grad @ w.data.T
                w.grad = x.data.T @ n.grad


def lecture(x1=2.0, x2=5.0):
    """f(x1, x2) = ln x1 + x1 x2 - sin x2 on stand-in scalars."""
    a, b = S(x1, "x1"), S(x2, "x2")
    return a.log() + a * b - b.sin(), (a, b)
