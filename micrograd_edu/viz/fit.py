"""Diagrams that fit a laptop's output area: the layout chosen by width, the SVG scaled
down (never up), and a frame that scrolls when even half size would not fit.

JupyterLab's output area is 848 px wide at 1,280 x 800 with the file browser open.
A graph is laid out left to right unless that is wider than this and top to bottom is
narrower. Shown, the SVG takes the output's width, at most its natural size, at least
half of it: below half, labels stop being legible, so a wider drawing keeps that size
inside a frame of the output's width that scrolls, starting at its right-hand end,
where the output node and the first backward step are.

>>> svg = '<svg width="1200pt" height="300pt" viewBox="0 0 1200 300"><g/></svg>'
>>> size(svg)
(1600.0, 400.0)
>>> 'max-width:1600px' in fitted(svg) and 'min-width:800px' in fitted(svg)
True
"""

from __future__ import annotations

import re

__all__ = ["OUTPUT_WIDTH", "size", "fitted", "narrower"]

OUTPUT_WIDTH = 848  # px
_UNITS = {"pt": 4 / 3, "px": 1.0, "": 1.0, "in": 96.0}


def size(svg: str) -> tuple[float, float]:
    """The natural width and height of ``svg`` in CSS pixels (Graphviz writes points)."""
    head = svg[svg.find("<svg") :]
    found = []
    for name in ("width", "height"):
        match = re.search(rf'\b{name}="([\d.]+)(pt|px|in|)"', head)
        found.append(float(match.group(1)) * _UNITS[match.group(2)] if match else 0.0)
    return found[0], found[1]


def fitted(svg: str) -> str:
    """``svg`` as HTML that fits the output area (see the module docstring)."""
    width, height = size(svg)
    if not width:
        return svg
    body = svg[svg.find("<svg") :]
    style = (
        f"width:100%;max-width:{width:g}px;min-width:{min(width, width / 2):g}px;"
        "height:auto;display:block"
    )
    body = re.sub(r'\bwidth="[^"]*"', f'width="{width:g}px"', body, count=1)
    body = re.sub(r'\bheight="[^"]*"', f'height="{height:g}px" style="{style}"', body, count=1)
    # A frame the output's width; direction rtl starts a scrolled frame at the right end.
    return (
        '<div class="mge-diagram" style="max-width:100%;overflow-x:auto;direction:rtl">'
        f'<div style="direction:ltr">{body}</div></div>'
    )


def narrower(first: str, render_other) -> tuple[str, bool]:
    """``first`` if it fits :data:`OUTPUT_WIDTH`, else the narrower of it and
    ``render_other()``; and whether the other was chosen."""
    if size(first)[0] <= OUTPUT_WIDTH:
        return first, False
    other = render_other()
    return (other, True) if size(other)[0] < size(first)[0] else (first, False)
