"""Seeing the computation: diagrams, step-through animations, trace tables, plots.

Everything here reads graphs through the protocol of :mod:`micrograd_edu.scalar.graph`
(``parents``, ``op``, ``data``, ``grad``, ``label``), so the same functions draw
a scalar ``Value`` graph and a ``Tensor`` graph. Plots live in
:mod:`micrograd_edu.viz.plots` and slider panels in
:mod:`micrograd_edu.viz.widgets`.
"""

from __future__ import annotations

from .animate import Animation, animate
from .diagram import Diagram, draw_graph
from .frames import Frame, Frames, frames
from .render import renderer
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
