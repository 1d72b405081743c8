"""The lecture's trace tables, generated from the engine.

For f(x₁, x₂) = ln x₁ + x₁x₂ − sin x₂ at (2, 5):

* the **primal** trace lists each intermediate value, v₋₁ = 2 … v₅ = 11.652;
* the **tangent** trace carries v̇ᵢ = ∂vᵢ/∂x alongside (forward mode);
* the **adjoint** trace lists, in the order reverse mode runs, each
  ``parent̄ += child̄ · ∂child/∂parent``, ending with x̄₁ = 5.5, x̄₂ = 1.716.

Each function takes either a Python function of scalars and the point
(``primal_trace(f, [2, 5])``) or an already built graph (``primal_trace(y)``),
and returns a :class:`Trace`: an HTML table in Jupyter, plain text elsewhere.
(The lecture slide prints sin 5 as +0.959; it is −0.959.)
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..rules import RULES
from ..scalar.dual import TangentStep, tangent_steps
from ..scalar.value import Value
from .labels import number, subscript, value_of
from .steps import (
    DOT,
    PRINT,
    Text,
    backward_steps,
    bar,
    forward_steps,
    local_partial,
    show,
)
from .view import GraphView, view

__all__ = ["Row", "Trace", "primal_trace", "tangent_trace", "adjoint_trace"]


class Row(NamedTuple):
    """One line of a trace: ``left`` (``v₂ = v₋₁ × v₀``), ``right`` (``2 × 5 = 10``)
    and the number itself."""

    left: str
    right: str
    value: Any


class Trace:
    """A trace table: rows of (definition, computation, value)."""

    def __init__(self, title: str, rows: list[Row]) -> None:
        self.title, self.rows = title, rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> Row:
        return self.rows[i]

    def __str__(self) -> str:
        width = max((len(r.left) for r in self.rows), default=0)
        lines = [self.title, "-" * len(self.title)]
        lines += [f"{r.left:<{width}}   {r.right}" for r in self.rows]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><td style='text-align:left'>{html.escape(r.left)}</td>"
            f"<td style='text-align:left'>{html.escape(r.right)}</td></tr>"
            for r in self.rows
        )
        return f"<table><caption>{html.escape(self.title)}</caption>{body}</table>"


def _graph(f: Any, primals: Sequence[float] | None, caller: str) -> GraphView:
    """The graph of ``f`` at ``primals`` (built with the scalar engine), or ``f`` itself."""
    if not callable(f):
        if primals is not None:
            raise TypeError(f"{caller}: pass either a function and its inputs, or a graph alone")
        return view(f, caller)
    if primals is None or len(primals) == 0:
        raise TypeError(f"{caller}: pass the point to evaluate at, e.g. {caller}(f, [2.0, 5.0])")
    xs = [Value(float(p), label=f"x{k + 1}") for k, p in enumerate(primals)]
    y = f(*xs)
    if not hasattr(y, "parents"):
        raise TypeError(
            f"{caller}: f returned {type(y).__name__}, not a Value; "
            "build the result from the inputs it is given"
        )
    return view(y, caller, inputs=xs)


def primal_trace(f: Any, primals: Sequence[float] | None = None) -> Trace:
    """The forward primal trace: each input, then each intermediate value.

    >>> t = primal_trace(lambda a, b: a.log() + a * b - b.sin(), [2.0, 5.0])
    >>> print(t)  # doctest: +NORMALIZE_WHITESPACE
    Forward primal trace
    --------------------
    v₋₁ = x₁          2
    v₀ = x₂           5
    v₁ = ln v₋₁       ln 2 = 0.693
    v₂ = v₋₁ × v₀     2 × 5 = 10
    v₃ = sin v₀       sin 5 = -0.959
    v₄ = v₁ + v₂      0.693 + 10 = 10.693
    v₅ = v₄ − v₃      10.693 − (-0.959) = 11.652
    y = v₅            11.652
    """
    g = _graph(f, primals, "primal_trace")
    rows = [
        Row(
            f"{g.names[i]} = x{subscript(k + 1)}",
            number(value_of(g.order[i])),
            value_of(g.order[i]),
        )
        for k, i in enumerate(g.inputs)
    ]
    for s in forward_steps(g):  # in numbering order
        right = f"{s.numbers} = {number(s.value)}"
        rows.append(Row(f"{g.names[s.node]} = {s.formula}", right, s.value))
    root = _root(g)
    rows.append(
        Row(f"y = {g.names[root]}", number(value_of(g.order[root])), value_of(g.order[root]))
    )
    return Trace("Forward primal trace", rows)


def tangent_trace(
    f: Any, primals: Sequence[float] | None = None, tangents: Sequence[float] | None = None
) -> Trace:
    """The forward tangent trace: v̇ᵢ = Σ ∂vᵢ/∂vⱼ · v̇ⱼ, seeded with ``tangents`` (ẋ).

    The default seed ẋ = (1, 0, …) gives ∂y/∂x₁. Given a function, the
    numbers come from the forward-mode engine (dual numbers,
    :func:`micrograd_edu.scalar.dual.tangent_steps`); given a graph already built
    (``tangent_trace(y, [1, 0])``), forward mode is replayed over it with the
    rule table.

    >>> t = tangent_trace(lambda a, b: a.log() + a * b - b.sin(), [2.0, 5.0], [1.0, 0.0])
    >>> t[-1]
    Row(left='ẏ = v̇₅', right='5.5', value=5.5)
    """
    if callable(f):
        if primals is None or len(primals) == 0:
            raise TypeError("tangent_trace: pass the point too, e.g. tangent_trace(f, [2, 5])")
        seed = _seed(len(primals), tangents)
        steps = tangent_steps(f, [float(p) for p in primals], seed).steps
    else:
        if tangents is None:
            tangents = primals  # tangent_trace(graph, tangents)
        g = view(f, "tangent_trace")
        seed = _seed(len(g.inputs), tangents)
        steps = _replay(g, seed)
    rows = []
    for s in steps:
        name = "v" + DOT + subscript(s.index)
        if s.op == "input":
            rows.append(Row(f"{name} = ẋ{subscript(len(rows) + 1)}", number(s.tangent), s.tangent))
            continue
        rule = RULES.get(s.op)
        if rule is None:
            raise ValueError(f"tangent_trace: no rule for {s.op!r} in the rule table")
        args = [Text("v" + subscript(a)) if type(a) is int else a for a in s.args]
        expr: Any = 0.0
        for k, a in enumerate(s.args):
            if type(a) is int:  # an earlier step; floats are constants
                local = rule.partials[k](PRINT, Text("v" + subscript(s.index)), *args)
                expr = expr + Text("v" + DOT + subscript(a)) * local
        rows.append(Row(f"{name} = {show(expr)}", number(s.tangent), s.tangent))
    last = steps[-1]
    rows.append(Row(f"ẏ = v{DOT}{subscript(last.index)}", number(last.tangent), last.tangent))
    return Trace(f"Forward tangent trace, ẋ = ({', '.join(number(t) for t in seed)})", rows)


def _seed(n: int, tangents: Sequence[float] | None) -> list[float]:
    seed = [1.0] + [0.0] * (n - 1) if tangents is None else [float(t) for t in tangents]
    if len(seed) != n:
        raise ValueError(
            f"tangent_trace: {len(seed)} tangents for {n} inputs; give one ẋ per input"
        )
    return seed


def _replay(g: GraphView, seed: list[float]) -> list[TangentStep]:
    """Forward mode over a recorded graph: the steps the dual-number engine would give."""
    # the numbers of the names v₋ₙ₊₁ … v₀, v₁, … (view numbers them so)
    number_of = {i: k - len(g.inputs) + 1 for k, i in enumerate(g.inputs)}
    number_of.update({i: k + 1 for k, i in enumerate(g.operations)})
    tangent = dict(zip(g.inputs, seed, strict=True))
    steps = [
        TangentStep(number_of[i], "input", (), value_of(g.order[i]), tangent[i]) for i in g.inputs
    ]
    for i in g.operations:
        args: list[int | float] = []
        total = 0.0
        for k, p in enumerate(g.parents[i]):
            if g.kind(p) == "const":
                args.append(float(value_of(g.order[p])))
                continue
            args.append(number_of[p])
            local = local_partial(g, i, k)[1]
            if local is None:
                raise ValueError(
                    f"tangent_trace: no scalar rule for {g.order[i].op!r}; "
                    "traces are for functions of scalars (Value)"
                )
            total += local * tangent[p]
        tangent[i] = total
        steps.append(
            TangentStep(number_of[i], g.order[i].op, tuple(args), value_of(g.order[i]), total)
        )
    return steps


def adjoint_trace(f: Any, primals: Sequence[float] | None = None) -> Trace:
    """The reverse adjoint trace, in the order reverse mode computes it.

    Starting from ȳ = 1, each operation sends ``child̄ · ∂child/∂parent`` to
    each parent; the last rows are the gradient x̄ = ∂y/∂x.

    >>> t = adjoint_trace(lambda a, b: a.log() + a * b - b.sin(), [2.0, 5.0])
    >>> [(r.left, round(r.value, 3)) for r in t[-2:]]
    [('x̄₁', 5.5), ('x̄₂', 1.716)]
    """
    g = _graph(f, primals, "adjoint_trace")
    steps = backward_steps(g)
    root = _root(g)
    rows = [Row(f"{bar(g, root)} = ȳ", number(steps[0].total), steps[0].total)]
    final: dict[int, Any] = {}
    for s in steps[1:]:
        if s.child is None or g.kind(s.parent) == "const":
            continue
        right = number(s.contribution)
        if s.total is not None and number(s.total) != right:
            right += f"  (so {bar(g, s.parent)} = {number(s.total)})"
        left = f"{bar(g, s.parent)} += {bar(g, s.child)} · {s.local_text}"
        rows.append(Row(left, right, s.total))
        final[s.parent] = s.total
    for i in g.inputs:
        value = final.get(i, 0.0)
        rows.append(Row(bar(g, i), number(value), value))
    return Trace("Reverse adjoint trace", rows)


def _root(g: GraphView) -> int:
    return g.index[id(g.roots[0])]
