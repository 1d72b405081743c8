"""A computation graph written as Graphviz DOT text.

One record node per value (its name or operation, its data or shape, its
gradient), one small node per operation, edges in the direction data flows.
Node ids come from a counter in graph order, so the same graph always gives
the same text (and the same SVG). Past ``max_nodes`` values, the nodes far
from the output are folded into one summary node, so a 65,000-node MLP graph
draws in a moment instead of hanging the browser.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .labels import INFIX, PREFIX, is_nan, number, value_of
from .view import GraphView

#: Colours of the step-through animation (the YAAD post's green and red).
GREEN = "#b7e4c7"
RED = "#f5b7b1"
NAN_FILL = "#ffd8a8"
_SUMMARY = "folded"

_HIDDEN = object()


def escape_record(text: str) -> str:
    """Escape the characters that structure a Graphviz record label."""
    for ch in '\\{}|<>"':
        text = text.replace(ch, "\\" + ch)
    return text


def escape_string(text: str) -> str:
    """Escape text for a double-quoted DOT string."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def op_symbol(op: str) -> str:
    """``×`` for ``mul``, ``ln`` for ``log``, the name itself otherwise."""
    return INFIX.get(op) or PREFIX.get(op) or op


def kept_nodes(g: GraphView, max_nodes: int) -> list[int]:
    """The (at most) ``max_nodes`` values nearest the roots, breadth first."""
    if len(g.order) <= max_nodes:
        return list(range(len(g.order)))
    seen: set[int] = set()
    queue = [g.index[id(r)] for r in g.roots]
    for i in queue:  # queue grows while we walk it: breadth first
        if len(seen) >= max_nodes:
            break
        if i not in seen:
            seen.add(i)
            queue.extend(g.parents[i])
    return sorted(seen)


def to_dot(
    g: GraphView,
    *,
    show_grad: bool = True,
    rankdir: str = "LR",
    max_nodes: int = 150,
    caption: str = "",
    titles: list[str] | None = None,
    known: set[int] | None = None,
    grads: Mapping[int, Any] | None = None,
    fill: Mapping[int, str] | None = None,
    current: int | None = None,
) -> str:
    """The DOT source of the graph ``g``.

    ``titles`` replaces each record's name; ``known`` lists the values already
    computed (others show ``?``); ``grads`` gives the gradients to show
    (``None``: each node's own ``grad``; a node missing from it shows ``?``);
    ``fill`` colours nodes; ``current`` is drawn with a thick border.

    >>> from micrograd_edu.viz.view import view
    >>> class V:
    ...     def __init__(self, data, op="", *parents, label=""):
    ...         self.data, self.op, self.parents, self.label = data, op, parents, label
    ...         self.grad = 0.0
    >>> a = V(2.0, label="a"); y = V(4.0, "mul", a, a)
    >>> print(to_dot(view(y, "draw_graph")))  # doctest: +ELLIPSIS
    digraph G {
    ...
      n0 [label="{a|data 2|grad 0}"];
      n1 [label="{mul|data 4|grad 0}"];
      n1op [label="×", ...];
      n1op -> n1;
      n0 -> n1op;
      n0 -> n1op;
    }
    """
    kept = kept_nodes(g, max_nodes)
    keep = set(kept)
    titles = titles or [n.label or n.op or "leaf" for n in g.order]
    fill = fill or {}
    wrap = "{%s}" if rankdir in ("LR", "RL") else "%s"
    nan_count = 0
    body = []
    for i in kept:
        node = g.order[i]
        data = number(value_of(node)) if known is None or i in known else "?"
        fields = [titles[i], f"data {data}"]
        if show_grad and g.kind(i) != "const":  # constants are never differentiated
            grad = node.grad if grads is None else grads.get(i, _HIDDEN)
            fields.append(f"grad {'?' if grad is _HIDDEN else number(grad)}")
        label = wrap % "|".join(escape_record(f) for f in fields)
        attrs = [f'label="{label}"']
        colour = fill.get(i)
        if (known is None or i in known) and is_nan(value_of(node)):
            nan_count += 1
            colour = NAN_FILL
        if colour:
            attrs.append(f'fillcolor="{colour}"')
        if i == current:
            attrs.append("penwidth=3")
        body.append(f"  n{i} [{', '.join(attrs)}];")
        if g.parents[i]:
            symbol = escape_string(op_symbol(node.op))
            body.append(
                f'  n{i}op [label="{symbol}", shape=ellipse, fontsize=11, '
                'width=0.3, height=0.3, margin=0.02, fillcolor="#eeeeee"];'
            )
            body.append(f"  n{i}op -> n{i};")
    folded_edges = []
    for i in kept:
        for p in g.parents[i]:
            if p in keep:
                body.append(f"  n{p} -> n{i}op;")
            elif i not in folded_edges:
                folded_edges.append(i)
    if folded_edges:
        body.insert(0, _summary_node(g, keep, max_nodes))
        body += [f"  {_SUMMARY} -> n{i}op;" for i in folded_edges]
    if nan_count:
        note = f"⚠ {nan_count} value{'s are' if nan_count > 1 else ' is'} NaN (orange)"
        caption = f"{caption}\n{note}" if caption else note
    header = [
        "digraph G {",
        f'  graph [rankdir={rankdir}, fontname="Helvetica", fontsize=14, labelloc=t, '
        f'nodesep=0.25, ranksep=0.35, label="{escape_string(caption)}"];',
        '  node [shape=record, fontname="Helvetica", fontsize=12, style=filled, '
        "fillcolor=white, height=0.3];",
        '  edge [arrowsize=0.7, color="#555555"];',
    ]
    return "\n".join([*header, *body, "}"])


def _summary_node(g: GraphView, keep: set[int], max_nodes: int) -> str:
    hidden = [i for i in range(len(g.order)) if i not in keep]
    ops = Counter(g.order[i].op or "leaf" for i in hidden)
    common = ", ".join(f"{op} ×{n:,}" for op, n in ops.most_common(4))
    text = (
        f"⋯ {len(hidden):,} more values folded ({common})\\n"
        f"showing the {max_nodes:,} nearest the output; "
        f"draw_graph(..., max_nodes=N) shows more"
    )
    return f'  {_SUMMARY} [shape=box, style="filled,dashed", fillcolor="#f4f4f4", label="{text}"];'
