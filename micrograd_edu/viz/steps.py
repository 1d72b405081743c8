"""The steps of forward and reverse evaluation, read off a recorded graph.

Both the trace tables and the step-through animation show these steps, so
they are computed once, here. Local derivatives come from the same rule table
the engines use (:data:`micrograd_edu.rules.RULES`), evaluated on numbers for
the values and on a tiny *printing* namespace for the text: the rule
``d(a*b)/da = b`` prints as ``v₀`` and evaluates to 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..rules import MATH, RULES
from ..scalar.value import Value, adjoint_steps
from .labels import formula, number, subscript, value_of
from .view import GraphView

BAR, DOT = "\u0304", "\u0307"  # combining overline (adjoint) and dot (tangent)


@dataclass(frozen=True)
class ForwardStep:
    """``v₂ = v₋₁ × v₀ = 2 × 5 = 10``: node ``node`` gets its value."""

    node: int
    formula: str
    numbers: str
    value: Any


@dataclass(frozen=True)
class BackwardStep:
    """``x̄₁ += v̄₂ · v₀``: the adjoint of ``child`` reaches ``parent``.

    ``local`` and ``contribution`` are ``None`` where the rule table has no
    scalar rule (tensor operations): then only ``total``, the parent's
    gradient once all contributions are in, is known. The seed step has
    ``child=None``.
    """

    child: int | None
    parent: int
    local_text: str
    local: Any
    contribution: Any
    total: Any


def scalar(x: Any) -> bool:
    """A single number (a 0-d array counts; a bool does not)."""
    if isinstance(x, np.ndarray):
        return x.ndim == 0
    return isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool)


def _value_graph(g: GraphView) -> bool:
    """One scalar ``Value`` root: a graph whose engine records its own backward pass."""
    return len(g.roots) == 1 and isinstance(g.roots[0], Value)


def engine_steps(g: GraphView) -> list[Any] | None:
    """The scalar engine's own record of its backward pass, if ``g`` is a ``Value`` graph.

    ``adjoint_steps`` runs ``backward``; the user's gradients are put
    back afterwards, and leaves start from 0 so that the record holds this
    pass only (leaves accumulate across passes).
    """
    if not _value_graph(g):
        return None
    grads = [n.grad for n in g.order]
    try:
        for node in g.order:
            node.grad = 0.0
        return adjoint_steps(g.roots[0])
    finally:
        for node, grad in zip(g.order, grads, strict=True):
            node.grad = grad


def execution_order(g: GraphView) -> list[int]:
    """The operations in the order the engine evaluates them.

    The scalar engine's recorded backward pass (``adjoint_steps``)
    visits the operations in the reverse of the lecture's numbering, so for a
    ``Value`` graph the forward order is that numbering, ``g.operations``.
    Other graphs (``Tensor``) are differentiated over the graph's topological
    order, which is the order ``g`` already has.
    """
    if _value_graph(g):
        return list(g.operations)
    return [i for i, ps in enumerate(g.parents) if ps]


def bar(g: GraphView, i: int) -> str:
    """The adjoint's name: x̄ₖ for the k-th input, v̄ᵢ otherwise."""
    if i in g.inputs:
        return "x" + BAR + subscript(g.inputs.index(i) + 1)
    return g.names[i][0] + BAR + g.names[i][1:]


def forward_steps(g: GraphView) -> list[ForwardStep]:
    """One step per operation, in numbering order."""
    steps = []
    for i in g.operations:
        node = g.order[i]
        args = [g.names[p] for p in g.parents[i]]
        numbers = [_operand(value_of(g.order[p])) for p in g.parents[i]]
        steps.append(
            ForwardStep(i, formula(node.op, args), formula(node.op, numbers), value_of(node))
        )
    return steps


def _operand(x: Any) -> str:
    text = number(x)
    return f"({text})" if text.startswith("-") else text


def local_partial(g: GraphView, i: int, k: int) -> tuple[Any, Any]:
    """d node_i / d (its k-th parent): as a :class:`Text` (or a plain number),
    and as a number when the rule table knows it."""
    node = g.order[i]
    rule = RULES.get(node.op)
    if rule is None or k >= rule.arity:
        return Text(f"∂{g.names[i]}/∂{g.names[g.parents[i][k]]}"), None
    parents = [g.order[p] for p in g.parents[i]]
    texts = [
        value_of(p) if g.kind(q) == "const" else Text(g.names[q])
        for p, q in zip(parents, g.parents[i], strict=True)
    ]
    text = rule.partials[k](PRINT, Text(g.names[i]), *texts)
    values = [value_of(p) for p in parents]
    if all(scalar(v) for v in values) and scalar(value_of(node)):
        value = float(rule.partials[k](MATH, float(value_of(node)), *(float(v) for v in values)))
    else:
        value = None
    return text, value


def show(expr: Any) -> str:
    """A :class:`Text` or a plain number as text."""
    return str(expr) if isinstance(expr, Text) else number(expr)


def backward_steps(g: GraphView) -> list[BackwardStep]:
    """The adjoints flowing back from the first root, in the engine's order.

    Each operation, from the last to the first, passes its adjoint to each of
    its parents: ``parent̄ += child̄ · ∂child/∂parent``. For a ``Value`` graph
    the numbers are the engine's own record; for other graphs they are
    replayed from the rule table (only the final gradients of tensor
    operations are known).
    """
    root = g.index[id(g.roots[0])]
    top = value_of(g.order[root])
    seed = np.ones_like(top, dtype=float) if not scalar(top) else 1.0
    steps = [BackwardStep(None, root, "", None, seed, seed)]
    recorded = engine_steps(g)
    if recorded is not None:
        sent: dict[int, int] = {}  # a node sends to its parents in order: step k is parent k
        for r in recorded:
            i, p = g.index[id(r.child)], g.index[id(r.parent)]
            k = sent[i] = sent.get(i, -1) + 1
            text = _factor(local_partial(g, i, k)[0])
            steps.append(BackwardStep(i, p, text, r.local, r.contribution, r.parent_grad))
        return steps
    adjoint: dict[int, Any] = {root: seed}
    remaining = [0] * len(g.order)  # contributions still to arrive at each node
    for ps in g.parents:
        for p in ps:
            remaining[p] += 1
    for i in reversed(execution_order(g)):
        if i not in adjoint:  # not upstream of the root
            continue
        for k, p in enumerate(g.parents[i]):
            remaining[p] -= 1
            expr, local = local_partial(g, i, k)
            if local is None or not scalar(adjoint[i]):
                contribution = None
                adjoint[p] = g.order[p].grad if remaining[p] == 0 else None
            else:
                contribution = adjoint[i] * local
                adjoint[p] = (adjoint.get(p) or 0.0) + contribution
            steps.append(BackwardStep(i, p, _factor(expr), local, contribution, adjoint[p]))
    return steps


def _factor(expr: Any) -> str:
    """A local derivative as it reads after ``v̄ ·``: sums and signs in brackets."""
    text = show(expr)
    if text.startswith(("-", "−")) or (isinstance(expr, Text) and expr.rank == 1):
        return f"({text})"
    return text


class Text:
    """An expression printed as text; ``Text("v₀") * 2`` is ``v₀ × 2``.

    Multiplying by 1 or adding 0 vanishes, so rules read as the lecture writes
    them (``d(a+b)/da`` is ``1``, ``d(a*b)/da`` is ``v₀``). Two plain numbers
    combine into a number (``b - 1`` with ``b = 2`` is ``1``). A rule's partial
    reaches Text through the operators below and the functions of :data:`PRINT`.
    """

    def __init__(self, text: str, rank: int = 4) -> None:
        self.text, self.rank = text, rank  # rank: 1 sum, 2 product, 3 power, 4 atom

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    # A reflected operator has self on the right: 1 - v₀ calls v₀.__rsub__(1).

    def __add__(self, other: Any) -> Any:
        return _combine("+", self, other)

    def __radd__(self, other: Any) -> Any:
        return _combine("+", other, self)

    def __sub__(self, other: Any) -> Any:
        return _combine("−", self, other)

    def __rsub__(self, other: Any) -> Any:
        return _combine("−", other, self)

    def __mul__(self, other: Any) -> Any:
        return _combine("×", self, other)

    def __rmul__(self, other: Any) -> Any:
        return _combine("×", other, self)

    def __truediv__(self, other: Any) -> Any:
        return _combine("/", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _combine("/", other, self)

    def __pow__(self, other: Any) -> Any:
        return _combine("^", self, other)

    def __rpow__(self, other: Any) -> Any:
        return _combine("^", other, self)

    def __neg__(self) -> Text:
        return Text(f"−{_wrap(self, 2)}", 2)


_RANK = {"+": 1, "−": 1, "×": 2, "/": 2, "^": 3}


def _wrap(x: Text, rank: int, strict: bool = False) -> str:
    low = x.rank < rank or (strict and x.rank == rank)
    return f"({x.text})" if low else x.text


def _lift(x: Any) -> Text:
    return x if isinstance(x, Text) else Text(number(x), 4 if x >= 0 else 1)


def _is(x: Any, value: float) -> bool:
    return not isinstance(x, Text) and x == value


def _combine(symbol: str, a: Any, b: Any) -> Any:
    if symbol == "×" and (_is(a, 1) or _is(b, 1)):
        return b if _is(a, 1) else a
    if symbol == "×" and (_is(a, -1) or _is(b, -1)):
        return -(b if _is(a, -1) else a)
    if (symbol in "×/" and _is(a, 0)) or (symbol == "×" and _is(b, 0)):
        return 0.0
    if symbol == "+" and (_is(a, 0) or _is(b, 0)):
        return b if _is(a, 0) else a
    if symbol == "^" and _is(b, 1):
        return a
    a, b = _lift(a), _lift(b)
    if symbol == "+" and b.text.startswith("−"):
        return Text(f"{_wrap(a, 1)} − {b.text[1:]}", 1)
    rank = _RANK[symbol]
    sep = "" if symbol in "/^" else " "
    return Text(f"{_wrap(a, rank)}{sep}{symbol}{sep}{_wrap(b, rank, strict=True)}", rank)


class _Print:
    """The printing namespace: a rule's partial evaluated over it is its formula."""

    def __getattr__(self, name: str) -> Any:
        shown = "ln" if name == "log" else name

        def apply(x: Any) -> Any:
            if not isinstance(x, Text):
                return getattr(MATH, name)(x)
            return Text(f"{shown} {x}" if x.rank == 4 else f"{shown}({x})", 4)

        return apply


PRINT = _Print()
