"""``draw_graph``: a computation graph as a picture Jupyter shows inline.

The returned :class:`Diagram` is SVG in a notebook (``_repr_mimebundle_``),
can be saved as SVG, PNG or DOT, and never fails a cell: when no renderer
works it shows the graph as an HTML table with the one-line fix.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from .dot import kept_nodes, op_symbol, to_dot
from .fit import fitted, narrower
from .labels import number, value_of
from .render import FIX, RenderError, render
from .view import GraphView, view

RANKDIRS = ("auto", "LR", "RL", "TB", "BT")  # auto: LR, or TB when LR is too wide


class Diagram:
    """A drawn graph: ``.source`` (DOT), ``.svg``, ``.save(path)``; shown in Jupyter as
    SVG that fits the output area (:mod:`.fit`)."""

    def __init__(
        self,
        source: str,
        rows: list[tuple[str, ...]],
        summary: str,
        alternative: str | None = None,
    ) -> None:
        self.source = source
        self.rows = rows  # the table shown when nothing can render
        self.summary = summary
        self._alternative = alternative  # another layout, drawn if source is too wide
        self._svg: str | None = None

    @property
    def svg(self) -> str:
        """The SVG text (rendered once, then kept). Raises ``RenderError`` with the fix.
        With another layout given, the narrower of the two when the first is too wide
        for a laptop's output area (``.source`` then becomes that layout's)."""
        if self._svg is None:
            svg = render(self.source, "svg").decode("utf-8")
            if self._alternative is not None:
                other = self._alternative
                svg, swapped = narrower(svg, lambda: render(other, "svg").decode("utf-8"))
                if swapped:
                    self.source = other
            self._svg = svg
        return self._svg

    def save(self, path: str | Path) -> Path:
        """Write the diagram to ``path``: ``.svg``, ``.png`` or ``.dot``/``.gv``.

        >>> import tempfile, os
        >>> class V:
        ...     parents, op, data, grad, label = (), "", 2.0, 0.0, "x"
        >>> d = draw_graph(V())
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     saved = d.save(os.path.join(tmp, "g.svg"))
        ...     saved.read_text().count("<svg")
        1
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            path.write_text(self.svg, encoding="utf-8")
        elif suffix == ".png":
            from .raster import png

            path.write_bytes(png(self.source))
        elif suffix in (".dot", ".gv"):
            path.write_text(self.source, encoding="utf-8")
        else:
            raise ValueError(
                f"Diagram.save: cannot write {path.name!r}; use a name ending in .svg, .png or .dot"
            )
        return path

    def __repr__(self) -> str:
        return f"<Diagram: {self.summary}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        try:
            svg = self.svg
            return {"text/html": fitted(svg), "image/svg+xml": svg, "text/plain": repr(self)}
        except RenderError as error:
            return {"text/html": self.table_html(str(error)), "text/plain": repr(self)}

    def table_html(self, reason: str = "") -> str:
        """The graph as an HTML table, with why there is no picture and the fix."""
        head = "".join(f"<th>{h}</th>" for h in ("#", "name", "op", "data", "grad", "inputs"))
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self.rows
        )
        why = html.escape(reason or "no Graphviz renderer is available")
        return (
            f"<p>{html.escape(self.summary)}. The diagram could not be drawn ({why}). "
            f"Fix: <code>{html.escape(FIX)}</code></p>"
            f"<table><tr>{head}</tr>{body}</table>"
        )


def table_rows(g: GraphView, kept: list[int]) -> list[tuple[str, ...]]:
    """One row per drawn value: number, name, op, data, grad, inputs."""
    return [
        (
            str(i),
            g.order[i].label or g.names[i] or f"#{i}",
            op_symbol(g.order[i].op) if g.parents[i] else g.kind(i),
            number(value_of(g.order[i])),
            number(g.order[i].grad),
            ", ".join(g.order[p].label or g.names[p] or f"#{p}" for p in g.parents[i]),
        )
        for i in kept
    ]


def summary(g: GraphView, kept: list[int]) -> str:
    ops = sum(1 for ps in g.parents if ps)
    text = f"{len(g.order):,} values, {ops:,} operations"
    if len(kept) < len(g.order):
        text += f" ({len(kept):,} drawn)"
    return text


def check_options(caller: str, rankdir: str, max_nodes: int) -> None:
    if rankdir not in RANKDIRS:
        raise ValueError(f"{caller}: rankdir={rankdir!r}; use one of {', '.join(RANKDIRS)}")
    if not isinstance(max_nodes, int) or isinstance(max_nodes, bool) or max_nodes < 1:
        raise ValueError(f"{caller}: max_nodes={max_nodes!r}; use a positive whole number")


def draw_graph(
    root: Any, show_grad: bool = True, rankdir: str = "auto", max_nodes: int = 150
) -> Diagram:
    """Draw the graph that computed ``root`` (a ``Value``, a ``Tensor``, or a list of them).

    One record per value (name or operation, data or shape, gradient), one
    small node per operation, arrows in the direction data flows. Graphs with
    more than ``max_nodes`` values show those nearest the output and fold the
    rest into one summary node.

    >>> class V:
    ...     def __init__(self, data, op="", *parents, label=""):
    ...         self.data, self.op, self.parents, self.label = data, op, parents, label
    ...         self.grad = 0.0
    >>> x = V(3.0, label="x"); y = V(9.0, "mul", x, x, label="y")
    >>> d = draw_graph(y)
    >>> d
    <Diagram: 2 values, 1 operations>
    >>> "image/svg+xml" in d._repr_mimebundle_()
    True
    """
    check_options("draw_graph", rankdir, max_nodes)
    g = view(root, "draw_graph", numbered=False)
    kept = kept_nodes(g, max_nodes)

    def dot(direction: str) -> str:
        return to_dot(g, show_grad=show_grad, rankdir=direction, max_nodes=max_nodes)

    auto = rankdir == "auto"
    source = dot("LR" if auto else rankdir)
    return Diagram(source, table_rows(g, kept), summary(g, kept), dot("TB") if auto else None)
