"""The scalar reverse-mode engine: ``Value``.

A ``Value`` wraps one float. Every operation on Values records a new node that
remembers its parents and, already at forward time, the *local derivatives*
of the operation with respect to each parent (read off the rule table).
``backward()`` then walks the graph once, from the output back to the inputs,
adding ``local derivative x adjoint`` into each parent: the chain rule on numbers.

>>> x1, x2 = Value(2.0, label="x1"), Value(5.0, label="x2")
>>> y = x1.log() + x1 * x2 - x2.sin()
>>> y.backward()
>>> round(y.data, 3), x1.grad, round(x2.grad, 3)
(11.652, 5.5, 1.716)

Three choices, all measured against the alternatives:

* **A tape of numbers, not closures.** micrograd stores a ``_backward``
  closure per node; here the local derivatives are plain floats, so backward
  is one loop of multiply-adds with no function calls, the graph prints as a
  table (:func:`adjoint_steps`), and a dropped graph is freed at once (a
  closure that refers to its own node makes a reference cycle, which only
  Python's cycle collector frees; that collection is most of micrograd's time
  in a training loop, see ``benchmarks/bench_scalar.py``).
* **Parents in the node.** An operation has one or two parents, so a node keeps
  them, and its derivative with respect to each, in four slots of its own
  (``parents`` and ``local`` are made from them when asked). One object per node
  instead of three (the node, a tuple of parents, a tuple of derivatives): Python's
  cycle collector, which runs during a training step as the graph grows, has a
  third as many objects to walk. The demo step of ``benchmarks/bench_scalar.py``
  went from 213 to 86 ms of CPU time, most of the difference in the collector.
* **Order from a creation counter.** A node is always made after its
  parents, so sorting the reachable nodes by creation number is a reverse
  topological order. Collecting them needs no depth-first search: on a chain
  of 10**5 nodes this backward ran 10x faster than one over
  :func:`~micrograd_edu.scalar.graph.topological_order` (a generic search that also
  detects cycles, which Values cannot form), and 1.6x faster on an MLP.
  Either way the walk is iterative, so a chain of 10**6 nodes works. Visited
  nodes are marked with an object fresh to each walk rather than put in a set: on
  a chain of 10**6 nodes that halved the walk (a set that large is slow to grow
  and misses the caches on every lookup).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import count
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np

from ..functions import as_float, evaluate
from ..rules import MATH, RULES, Rule
from .graph import lecture_order

__all__ = ["Value", "AdjointStep", "ReverseJacobian", "adjoint_steps", "jacobian_reverse"]

# Every node gets the next number at creation (see the module docstring).
_creation = count()


class Value:
    """A scalar in a computation graph: ``data``, ``grad`` and the graph protocol
    (``parents``, ``op``, ``label``) of :mod:`micrograd_edu.scalar.graph`.

    ``local`` holds the derivative of this node with respect to each parent,
    computed when the node was made. Python numbers combined with a Value become
    leaves with ``op == "const"``. Nothing needs the derivative in a constant,
    so where it is undefined (``log`` of a negative base, for the exponent of
    ``(-2.0) ** 2``) it is recorded as ``nan`` instead of raising.

    >>> a = Value(3.0, label="a")
    >>> b = 2 * a ** 2 - 1 / a
    >>> b.backward(); round(a.grad, 6)
    12.111111
    """

    __slots__ = ("data", "grad", "op", "label", "_a", "_b", "_da", "_db", "_order", "_mark")

    def __init__(
        self,
        data: float,
        label: str = "",
        _parents: tuple[Value, ...] = (),
        _op: str = "",
        _local: tuple[float, ...] = (),
    ) -> None:
        if type(data) is not float:
            data = as_float(data, "Value")
        if type(label) is not str:
            raise TypeError(
                f"Value: the second argument is the label, a str, got {type(label).__name__}; "
                "micrograd's Value(data, (children,), 'op') is not needed here: operators "
                "record the parents and their local derivatives (write a + b, a.tanh(), ...)"
            )
        if len(_parents) > 2 or len(_local) != len(_parents):
            raise ValueError(
                "Value: a node has at most two parents, with one local derivative each; "
                f"got {len(_parents)} parents and {len(_local)} derivatives"
            )
        self.data = data
        self.grad = 0.0
        self.op = _op
        self.label = label
        self._a, self._b = (tuple(_parents) + (None, None))[:2]
        self._da, self._db = (tuple(_local) + (0.0, 0.0))[:2]
        self._order = next(_creation)
        self._mark = None

    @property
    def parents(self) -> tuple[Value, ...]:
        """The nodes this one was computed from (empty for a leaf)."""
        a, b = self._a, self._b
        return () if a is None else (a,) if b is None else (a, b)

    @property
    def local(self) -> tuple[float, ...]:
        """The derivative of this node with respect to each parent."""
        return (self._da, self._db)[: len(self.parents)]

    def __repr__(self) -> str:
        name = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data!r}, grad={self.grad!r}{name})"

    # ---------------------------------------- operations, each from its rule in RULES
    # A reflected operator has self on the right: 2 - x calls x.__rsub__(2).

    def __add__(self, other: Any) -> Value:
        return _binary(RULES["add"], self, other)

    def __radd__(self, other: Any) -> Value:
        return _binary(RULES["add"], other, self)

    def __sub__(self, other: Any) -> Value:
        return _binary(RULES["sub"], self, other)

    def __rsub__(self, other: Any) -> Value:
        return _binary(RULES["sub"], other, self)

    def __mul__(self, other: Any) -> Value:
        return _binary(RULES["mul"], self, other)

    def __rmul__(self, other: Any) -> Value:
        return _binary(RULES["mul"], other, self)

    def __truediv__(self, other: Any) -> Value:
        return _binary(RULES["div"], self, other)

    def __rtruediv__(self, other: Any) -> Value:
        return _binary(RULES["div"], other, self)

    def __pow__(self, other: Any) -> Value:
        return _binary(RULES["pow"], self, other)

    def __rpow__(self, other: Any) -> Value:
        return _binary(RULES["pow"], other, self)

    def __neg__(self) -> Value:
        return _unary(RULES["neg"], self)

    def __abs__(self) -> Value:
        return _unary(RULES["abs"], self)

    abs = __abs__

    def exp(self) -> Value:
        return _unary(RULES["exp"], self)

    def log(self) -> Value:
        return _unary(RULES["log"], self)

    def log1p(self) -> Value:
        return _unary(RULES["log1p"], self)

    def sqrt(self) -> Value:
        return _unary(RULES["sqrt"], self)

    def sin(self) -> Value:
        return _unary(RULES["sin"], self)

    def cos(self) -> Value:
        return _unary(RULES["cos"], self)

    def tan(self) -> Value:
        return _unary(RULES["tan"], self)

    def tanh(self) -> Value:
        return _unary(RULES["tanh"], self)

    def sigmoid(self) -> Value:
        return _unary(RULES["sigmoid"], self)

    def relu(self) -> Value:
        return _unary(RULES["relu"], self)

    def step(self) -> Value:
        return _unary(RULES["step"], self)

    def sign(self) -> Value:
        return _unary(RULES["sign"], self)

    @staticmethod
    def _rule(rule: Rule, *args: Any) -> Value:
        """Any rule of the table, by :func:`micrograd_edu.functions.apply` (a new rule's path)."""
        return _unary(rule, *args) if rule.arity == 1 else _binary(rule, *args)

    # ------------------------------------------------------------------- backward

    def backward(self) -> None:
        """Fill ``grad`` of every node below this one with d(self)/d(node).

        Leaves *accumulate* (a second ``backward`` adds to their ``grad``, as in
        PyTorch; call :meth:`zero_grad` between steps); inner nodes are reset
        first, so they hold the adjoint of this call.

        The order is iterative, so a chain of a million nodes is fine:

        >>> x = y = Value(1.0)
        >>> for _ in range(10_000):
        ...     y = y * 1.0
        >>> y.backward(); x.grad
        1.0
        """
        nodes = _below(self)
        # `grad = grad + ...`, never `grad += ...`: a grad a user set to an array must not
        # be written into (the same rule as the tensor engine's; floats are unaffected).
        self.grad = self.grad + 1.0
        for node in nodes:
            a = node._a
            if a is not None:  # leaves have nothing to pass on
                g = node.grad
                a.grad = a.grad + node._da * g
                b = node._b
                if b is not None:
                    b.grad = b.grad + node._db * g

    def zero_grad(self) -> None:
        """Set ``grad`` to 0 on this node and every node below it."""
        for node in _below(self):
            node.grad = 0.0


def _below(root: Value) -> list[Value]:
    """Every node reachable from ``root``, in reverse topological order (root
    first), with the grads of inner nodes reset to 0. Visited nodes are marked with
    an object fresh to this walk, not put in a set (see the module docstring)."""
    mark = root._mark = object()
    stack = [root]
    nodes = []
    while stack:
        node = stack.pop()
        nodes.append(node)
        a = node._a
        if a is not None:
            node.grad = 0.0
            if a._mark is not mark:
                a._mark = mark
                stack.append(a)
            b = node._b
            if b is not None and b._mark is not mark:
                b._mark = mark
                stack.append(b)
    nodes.sort(key=_order_of, reverse=True)
    return nodes


_order_of = attrgetter("_order")
_new = object.__new__


def _node(data: float, op: str, a: Any, da: float, b: Any, db: float) -> Value:
    """A recorded node (parents ``a`` and ``b``, or None): ``__init__`` without its
    argument checks, which an operation's own result does not need."""
    v = _new(Value)
    v.data = data
    v.grad = 0.0
    v.op = op
    v.label = ""
    v._a = a
    v._b = b
    v._da = da
    v._db = db
    v._order = next(_creation)
    v._mark = None
    return v


def _const(x: Any, op: str) -> Value:
    return _node(x if type(x) is float else as_float(x, op, "Value"), "const", None, 0.0, None, 0.0)


def _unary(rule: Rule, a: Value) -> Value:
    """The node ``rule(a)``: its value and local derivative, read off the rule."""
    if rule.domain is not None or rule.grad_domain is not None:
        return _checked(rule, a)
    x = a.data
    out = rule.value(MATH, x)
    return _node(out, rule.name, a, rule.partials[0](MATH, out, x), None, 0.0)


def _binary(rule: Rule, a: Any, b: Any) -> Value:
    """The node ``rule(a, b)``, a number on either side becoming a constant leaf."""
    if type(a) is not Value:
        a = _const(a, rule.name)
    if type(b) is not Value:
        b = _const(b, rule.name)
    if rule.domain is not None or rule.grad_domain is not None:
        return _checked(rule, a, b)
    x, y = a.data, b.data
    out = rule.value(MATH, x, y)
    da, db = rule.partials
    return _node(out, rule.name, a, da(MATH, out, x, y), b, db(MATH, out, x, y))


def _checked(rule: Rule, *args: Value) -> Value:
    # The path of the rules with a domain (div, pow, log, sqrt): `evaluate` checks it
    # (and skips the derivative in a constant exponent, see the class docstring).
    out, local = evaluate(rule, tuple(a.data for a in args), args[-1].op == "const")
    if len(args) == 1:
        return _node(out, rule.name, args[0], local[0], None, 0.0)
    return _node(out, rule.name, args[0], local[0], args[1], local[1])


class AdjointStep(NamedTuple):
    """One addition of reverse mode: ``parent.grad += local * child.grad``.

    ``contribution`` is the amount added and ``parent_grad`` the parent's
    adjoint after the addition.
    """

    child: Value
    parent: Value
    local: float
    contribution: float
    parent_grad: float


def adjoint_steps(root: Value) -> list[AdjointStep]:
    """Run reverse mode from ``root`` and return, in execution order, what each
    node sent to each parent: the lecture's reverse (adjoint) trace.

    The nodes are visited in the reverse of the lecture's numbering
    (:func:`~micrograd_edu.scalar.graph.lecture_order`: v₅, v₄, ... for the example),
    which like ``backward``'s creation order is a reverse topological order, so
    the gradients are the same; only the rows come in the lecture's order.

    >>> x1, x2 = Value(2.0, label="x1"), Value(5.0, label="x2")
    >>> steps = adjoint_steps(x1.log() + x1 * x2 - x2.sin())
    >>> [(s.child.op, s.parent.label or s.parent.op, round(s.contribution, 3)) for s in steps]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('sub', 'add', 1.0), ('sub', 'sin', -1.0), ('add', 'log', 1.0), ('add', 'mul', 1.0),
     ('sin', 'x2', -0.284), ('mul', 'x1', 5.0), ('mul', 'x2', 2.0), ('log', 'x1', 0.5)]
    >>> x1.grad, round(x2.grad, 3)
    (5.5, 1.716)
    """
    _, operations = lecture_order(root)
    for node in operations:  # as in backward: inner nodes hold this call's adjoints
        node.grad = 0.0
    root.grad = root.grad + 1.0
    steps = []
    for node in reversed(operations):
        g = node.grad
        for parent, d in zip(node.parents, node.local, strict=True):
            parent.grad = parent.grad + d * g
            steps.append(AdjointStep(node, parent, d, d * g, parent.grad))
    return steps


class ReverseJacobian(NamedTuple):
    """The Jacobian (shape ``(n,)`` for a scalar f, ``(m, n)`` otherwise), the number
    of backward sweeps spent on it (one per output), and the multiply-adds those
    sweeps made (one per edge of the graph per sweep)."""

    jacobian: np.ndarray
    passes: int
    multiply_adds: int


def jacobian_reverse(f: Callable[..., Any], xs: Sequence[float]) -> ReverseJacobian:
    """The Jacobian of ``f`` at ``xs`` by reverse mode: one evaluation records the
    graph, then sweep i seeds output i's adjoint with 1 and reads off row i (a
    vector-Jacobian product with the unit vector eᵢ), so m outputs cost m sweeps
    whatever n is: the mirror image of :func:`~micrograd_edu.scalar.dual.jacobian_forward`.

    >>> J, passes, _ = jacobian_reverse(lambda x, y: [x * y, x + y], [2.0, 5.0])
    >>> J.tolist(), passes
    ([[5.0, 2.0], [1.0, 1.0]], 2)
    """
    if isinstance(xs, int | float) or not isinstance(xs, Sequence | np.ndarray):
        raise TypeError(
            f"jacobian_reverse: xs must be a sequence of numbers (one per argument of f), "
            f"got {type(xs).__name__}; write [x] for a single input"
        )
    inputs = [Value(float(x)) for x in xs]
    out = f(*inputs)
    many = isinstance(out, list | tuple)
    # an output that does not depend on the inputs is a constant: its row is zero
    outputs = [
        y if isinstance(y, Value) else _const(y, "jacobian_reverse")
        for y in (out if many else [out])
    ]
    rows, multiply_adds = [], 0
    for y in outputs:
        for node in inputs + _below(y):  # every sweep starts from zero: leaves accumulate
            node.grad = 0.0
        y.backward()
        multiply_adds += sum(len(node.parents) for node in _below(y))
        rows.append([x.grad for x in inputs])
    jacobian = np.array(rows, dtype=float)
    return ReverseJacobian(jacobian if many else jacobian[0], len(outputs), multiply_adds)
