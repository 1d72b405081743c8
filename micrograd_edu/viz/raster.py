"""PNG (and GIF frames) without a system Graphviz: draw Graphviz's layout with matplotlib.

The WebAssembly Graphviz writes SVG but no PNG, and turning SVG into pixels
would need one more native library. Graphviz's ``json`` output, however,
carries every drawing instruction of the layout (``xdot``: polygons, curves,
ellipses, text at positions in points), and matplotlib, already a dependency,
can paint those. So a PNG looks like the SVG on every machine.
"""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np

from .render import render

_KEYS = ("_draw_", "_ldraw_", "_hdraw_", "_tdraw_", "_hldraw_", "_tldraw_")


def png(source: str, dpi: int = 144) -> bytes:
    """Render DOT ``source`` to PNG bytes.

    >>> png("digraph { a -> b }")[:4]
    b'\\x89PNG'
    """
    from matplotlib.figure import Figure

    layout = json.loads(render(source, "json"))
    x0, y0, x1, y1 = (float(v) for v in layout["bb"].split(","))
    width, height = max(x1 - x0, 1.0) + 8, max(y1 - y0, 1.0) + 8
    fig = Figure(figsize=(width / 72, height / 72), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(x0 - 4, x0 - 4 + width)
    ax.set_ylim(y0 - 4, y0 - 4 + height)
    ax.axis("off")
    for item in [layout, *layout.get("objects", []), *layout.get("edges", [])]:
        for key in _KEYS:
            _paint(ax, item.get(key, ()))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return buffer.getvalue()


def _paint(ax: Any, ops: list[dict]) -> None:
    from matplotlib.patches import Ellipse, PathPatch, Polygon
    from matplotlib.path import Path

    pen, brush, width, size, dashed = "#000000", "none", 1.0, 14.0, False
    for op in ops:
        kind = op["op"]
        common = {"edgecolor": _colour(pen), "linewidth": width * 0.75}
        if dashed:
            common["linestyle"] = "--"
        if kind == "c":
            pen = op["color"]
        elif kind == "C":
            brush = op["color"]
        elif kind == "S":
            style = op["style"]
            dashed = style == "dashed"
            if style.startswith("setlinewidth("):
                width = float(style[13:-1])
        elif kind == "F":
            size = float(op["size"])
        elif kind in "Pp":
            face = _colour(brush) if kind == "P" else "none"
            ax.add_patch(Polygon(op["points"], closed=True, facecolor=face, **common))
        elif kind == "L":
            pts = np.asarray(op["points"])
            ax.plot(pts[:, 0], pts[:, 1], color=_colour(pen), linewidth=width * 0.75)
        elif kind in "Bb":  # Graphviz edges are cubic Bézier chains
            pts = op["points"]
            codes = [Path.MOVETO] + [Path.CURVE4] * (len(pts) - 1)
            ax.add_patch(PathPatch(Path(pts, codes), facecolor="none", **common))
        elif kind in "Ee":
            cx, cy, rx, ry = op["rect"]
            face = _colour(brush) if kind == "E" else "none"
            ax.add_patch(Ellipse((cx, cy), 2 * rx, 2 * ry, facecolor=face, **common))
        elif kind == "T":
            x, y = op["pt"]
            align = {"l": "left", "r": "right"}.get(op["align"], "center")
            ax.text(
                x, y, op["text"], ha=align, va="baseline", fontsize=size * 0.85, color=_colour(pen)
            )


def _colour(name: str) -> str:
    # Graphviz writes #rrggbbaa; matplotlib reads that too, but not Graphviz's
    # "transparent".
    return "none" if name in ("transparent", "none") else name
