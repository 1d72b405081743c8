"""``animate(root)``: step through forward and backward evaluation in a notebook.

A ``Play`` button and a slider, linked in the browser (``jslink``), choose the
frame; the kernel swaps in that frame's diagram and caption. The frames are
rendered once up front (~15 ms each with the WebAssembly Graphviz), so
stepping is instant. The same frames export as an animated GIF or as a
numbered sequence of SVG files for slides.
"""

from __future__ import annotations

import html
import io
from pathlib import Path
from typing import Any

from .diagram import check_options
from .fit import fitted, narrower
from .frames import Frames, frames
from .render import FIX, RenderError

__all__ = ["Animation", "animate"]


class Animation:
    """The frames of a graph with a player; shown as a widget in Jupyter."""

    def __init__(self, steps: Frames, rankdir: str = "auto", interval: int = 1200) -> None:
        self.frames = steps
        self._rankdir = rankdir
        self.interval = interval
        self._svgs: dict[bool, list[str]] | None = None
        self._widget: Any = None
        self._caption: Any = None  # the widget's slider, caption and picture, once built
        self._picture: Any = None
        self._slider: Any = None

    def __len__(self) -> int:
        return len(self.frames)

    def __repr__(self) -> str:
        return f"<Animation: {len(self.frames)} frames>"

    @property
    def rankdir(self) -> str:
        """The layout of every frame: with "auto", left to right unless the full graph
        (the last frame) would be too wide for a laptop's output area (:mod:`.fit`)."""
        if self._rankdir == "auto":
            last = len(self.frames) - 1
            wide = self.frames.diagram(last, "LR", captioned=False).svg
            _, taller = narrower(wide, lambda: self.frames.diagram(last, "TB", False).svg)
            self._rankdir = "TB" if taller else "LR"
        return self._rankdir

    def svgs(self, captioned: bool = True) -> list[str]:
        """The SVG of every frame (rendered on first use), with its caption as the
        picture's title, or without (the widget shows the caption once, above it)."""
        if self._svgs is None:
            self._svgs = {}
        if captioned not in self._svgs:
            self._svgs[captioned] = [
                self.frames.diagram(i, self.rankdir, captioned).svg for i in range(len(self.frames))
            ]
        return self._svgs[captioned]

    def widget(self) -> Any:
        """A ``Play`` + slider + diagram + caption box (ipywidgets)."""
        if self._widget is None:
            import ipywidgets as w

            # Steps count from 1, as the lecture and the caption number them.
            n = len(self.frames)
            play = w.Play(value=1, min=1, max=n, step=1, interval=self.interval)
            slider = w.IntSlider(value=1, min=1, max=n, description="step", readout=True)
            w.jslink((play, "value"), (slider, "value"))
            self._slider = slider
            self._caption = w.HTML(layout=w.Layout(min_height="1.5em"))
            self._picture = w.HTML()
            self._caption.add_class("mge-caption")
            self._picture.add_class("mge-frame")
            slider.observe(lambda change: self.show(change["new"] - 1), names="value")
            self._widget = w.VBox([w.HBox([play, slider]), self._caption, self._picture])
            self.show(0)
        return self._widget

    def show(self, i: int) -> str:
        """Put frame ``i`` in the widget, the slider on its step (code and the slider always
        show one frame); returns its caption (what the slider calls)."""
        caption = self.frames.heading(i)
        if self._widget is not None:
            if self._slider.value != i + 1:
                self._slider.value = i + 1  # its observer comes back here to draw the frame
                return caption
            self._caption.value = f"<b>{html.escape(caption)}</b>"
            self._picture.value = fitted(self.svgs(captioned=False)[i])
        return caption

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from .widgets import widget_bundle

        try:
            return widget_bundle(self.widget(), include, exclude)
        except (ImportError, RenderError) as error:
            items = "".join(f"<li>{html.escape(f.caption)}</li>" for f in self.frames)
            return {
                "text/html": f"<p>Animation not available ({html.escape(str(error))}). "
                f"Fix: <code>{html.escape(FIX)}</code></p><ol>{items}</ol>",
                "text/plain": repr(self),
            }

    def save_svgs(self, directory: str | Path) -> list[Path]:
        """Write ``frame_000.svg``, ``frame_001.svg``, ... into ``directory``."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        paths = []
        for i, svg in enumerate(self.svgs()):
            path = directory / f"frame_{i:03d}.svg"
            path.write_text(svg, encoding="utf-8")
            paths.append(path)
        return paths

    def save_gif(self, path: str | Path, seconds_per_frame: float = 1.0) -> Path:
        """Write an animated GIF of the frames (no system Graphviz needed)."""
        from PIL import Image

        from .raster import png

        images = [
            Image.open(io.BytesIO(png(self.frames.diagram(i, self.rankdir).source, dpi=96)))
            for i in range(len(self.frames))
        ]
        # Frames differ slightly in size (numbers appear); paste each on one canvas.
        width = max(im.width for im in images)
        height = max(im.height for im in images)
        canvas = []
        for im in images:
            page = Image.new("RGB", (width, height), "white")
            page.paste(im.convert("RGB"), (0, 0))
            canvas.append(page)
        path = Path(path)
        canvas[0].save(
            path,
            save_all=True,
            append_images=canvas[1:],
            duration=int(seconds_per_frame * 1000),
            loop=0,
        )
        return path


def animate(
    root: Any, rankdir: str = "auto", max_nodes: int = 60, interval: int = 1200
) -> Animation:
    """Step through ``root``'s graph: values turn green forward, gradients red backward.

    ``interval`` is the time per frame, in milliseconds, when playing.

    >>> class V:
    ...     def __init__(self, data, op="", *parents, label=""):
    ...         self.data, self.op, self.parents, self.label = data, op, parents, label
    ...         self.grad = 0.0
    >>> a = V(3.0, label="a"); y = V(9.0, "mul", a, a)
    >>> anim = animate(y)
    >>> anim
    <Animation: 5 frames>
    >>> anim.show(1)
    'step 2/5 (forward): v₁ = v₀ × v₀ = 9'
    """
    check_options("animate", rankdir, max_nodes)
    return Animation(frames(root, max_nodes=max_nodes), rankdir=rankdir, interval=interval)
