"""Sliders that drive plain functions.

No widget callback fires when a notebook runs headless (nbval, CI), so each
panel is a thin shell around a plain function that tests call directly:
:func:`fd_errors` behind the ``h`` slider, ``DescentPanel.paths`` behind the
learning-rate slider, :func:`run_training` behind the MLP sliders. Figures are sent
to the browser as PNG images, which does not depend on the notebook's matplotlib
backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..scalar.numerical import central_difference, forward_difference, step_size_study
from .plots import descent_plot, fd_error_plot, png_bytes, training_curves_plot

__all__ = [
    "fd_errors",
    "FiniteDifferencePanel",
    "DescentPanel",
    "run_training",
    "TrainingPanel",
    "widget_bundle",
]

#: The output type through which Jupyter front ends draw a widget (protocol 2, both majors).
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def widget_bundle(widget: Any, include: Any = None, exclude: Any = None) -> dict[str, Any]:
    """What Jupyter displays for an ipywidgets ``widget``, on ipywidgets 8 and on 7.

    ipywidgets 8 gives it as ``_repr_mimebundle_``; ipywidgets 7 (Colab's) has no such
    method and displays through ``_ipython_display_`` instead, so an object that shows a
    widget as its own output (a panel, an animation) builds the same bundle from the
    widget's model id: the front end draws it alike under either.

    >>> import ipywidgets
    >>> sorted(widget_bundle(ipywidgets.IntSlider()))
    ['application/vnd.jupyter.widget-view+json', 'text/plain']
    """
    own = getattr(widget, "_repr_mimebundle_", None)
    if own is not None:
        return own(include=include, exclude=exclude)
    text = repr(widget)
    bundle: dict[str, Any] = {"text/plain": text if len(text) <= 110 else text[:110] + "…"}
    if getattr(widget, "comm", None) is not None:  # a closed widget has no view left to draw
        bundle[WIDGET_VIEW] = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    return bundle


def fd_errors(f: Callable[[float], float], exact: float, x: float, h: float) -> dict[str, float]:
    """Forward and central difference estimates of f'(x) with step ``h``, and their errors
    (the quotients are :mod:`micrograd_edu.scalar.numerical`'s).

    >>> r = fd_errors(math.sin, math.cos(1.0), 1.0, 1e-5)
    >>> r["central_error"] < r["forward_error"] < 1e-5
    True
    """
    if not h > 0:
        raise ValueError(f"fd_errors: the step h must be positive, got {h!r}")
    forward = forward_difference(f, x, h)
    central = central_difference(f, x, h)
    return {
        "h": h,
        "forward": forward,
        "central": central,
        "forward_error": abs(forward - exact),
        "central_error": abs(central - exact),
    }


# A figure is drawn at twice the pixels it is shown with, so it stays sharp on a laptop's
# high-density screen, and shown at its own aspect ratio, never wider than the output area.
_DPI = 90


def _image() -> Any:
    import ipywidgets as w

    return w.Image(format="png", layout=w.Layout(height="auto", max_width="100%"))


def _show(image: Any, fig: Any) -> None:
    image.layout.width = f"{round(fig.get_figwidth() * _DPI)}px"
    image.value = png_bytes(fig, dpi=2 * _DPI)


def _slider_layout() -> dict[str, Any]:
    import ipywidgets as w

    # Wide enough to pick a value by eye; the description never cut off. A value is sent to
    # the kernel when the student lets go of the slider, never while it moves: with
    # continuous updates, ipywidgets 8's front end sends the value a slider is drawn with as
    # soon as it draws it (noUiSlider reports its start position when the view binds to it;
    # a log slider's goes through log and pow, so it need not even be the same float). A
    # slider drawn before code's new value reached the browser sent the old one back, which
    # undid the code's: the browser test's h slider stayed at 1e-6 under load.
    return {
        "layout": w.Layout(width="min(560px, 100%)"),
        "style": {"description_width": "8em"},
        "continuous_update": False,
    }


class _Panel:
    widget: Any

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return widget_bundle(self.widget, include, exclude)


class _SliderPanel(_Panel):
    """One slider over a line of text and a figure, which :meth:`draw` gives for the
    slider's value. Code and the slider always show one value (see :func:`_slider_layout`)."""

    def _build(self, slider: Any) -> None:
        import ipywidgets as w

        self.slider = slider
        self.text = w.HTML()
        self.image = _image()
        self.slider.observe(lambda change: self.update(change["new"]), names="value")
        self.widget = w.VBox([self.slider, self.text, self.image])
        self.update(self.slider.value)

    def draw(self, value: float) -> tuple[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def update(self, value: float) -> str:
        """Redraw for ``value`` and move the slider there (code and the slider stay one
        value); returns the text shown under the slider."""
        if self.slider.value != value:
            self.slider.value = value  # its observer redraws
            return self.text.value
        text, fig = self.draw(value)
        self.text.value = text
        _show(self.image, fig)
        return text


class FiniteDifferencePanel(_SliderPanel):
    """An ``h`` slider over the finite-difference error plot of ``f`` at ``x``.

    >>> panel = FiniteDifferencePanel(math.sin, math.cos(1.0), 1.0)
    >>> "central" in panel.update(1e-3)
    True
    """

    def __init__(
        self,
        f: Callable[[float], float],
        exact: float,
        x: float,
        hs: Sequence[float] | None = None,
        h: float = 1e-6,
    ) -> None:
        import ipywidgets as w

        self.f, self.exact, self.x = f, exact, x
        self.hs = np.logspace(-15, -1, 57) if hs is None else np.asarray(hs, dtype=float)
        study = step_size_study(f, x, self.hs, exact)
        self.forward, self.central = study.forward_errors, study.central_errors
        self._build(
            w.FloatLogSlider(
                value=h, base=10, min=-15, max=-1, step=0.25, description="h",
                readout_format=".1e", **_slider_layout(),
            )
        )  # fmt: skip

    def draw(self, h: float) -> tuple[str, Any]:
        r = fd_errors(self.f, self.exact, self.x, h)
        text = (
            f"h = {h:.1e}: forward error {r['forward_error']:.2e}, "
            f"central error {r['central_error']:.2e}"
        )
        return text, fd_error_plot(self.hs, self.forward, self.central, h_marker=h)


class DescentPanel(_SliderPanel):
    """A learning-rate slider over the paths that optimisers take on a 2-D loss.

    ``optimisers`` maps a name to a function of (parameter list, learning rate) that
    makes the optimiser; each runs ``steps`` steps from ``start`` on ``f`` (see
    :func:`micrograd_edu.optim.descent.descent_path`), drawn over the contours of ``f`` on
    ``xlim`` × ``ylim``.

    >>> from micrograd_edu import optim
    >>> bowl = lambda p: (p * p).sum() / 2 if hasattr(p, "grad") else (p * p).sum(0) / 2
    >>> panel = DescentPanel(bowl, (1.0, 1.0), {"GD": lambda ps, lr: optim.SGD(ps, lr=lr)},
    ...                      steps=3, xlim=(-1, 1), ylim=(-1, 1), lr=0.5)
    >>> panel.paths(0.5)["GD"][-1]
    array([0.125, 0.125])
    >>> panel.update(1.0)
    'learning rate 1.0e+00, after 3 steps: GD loss 0'
    """

    def __init__(
        self,
        f: Callable[[Any], Any],
        start: Sequence[float],
        optimisers: Mapping[str, Callable[[list[Any], float], Any]],
        steps: int,
        xlim: tuple[float, float],
        ylim: tuple[float, float],
        lr: float = 0.01,
        minimum: tuple[float, float] | None = None,
    ) -> None:
        import ipywidgets as w

        self.f, self.start, self.optimisers, self.steps = f, tuple(start), dict(optimisers), steps
        self.xlim, self.ylim, self.minimum = xlim, ylim, minimum
        self._build(
            w.FloatLogSlider(
                value=lr, base=10, min=-4, max=0, step=0.05, description="learning rate",
                readout_format=".1e", **_slider_layout(),
            )
        )  # fmt: skip

    def paths(self, lr: float) -> dict[str, np.ndarray]:
        """Each optimiser's path at learning rate ``lr`` (what the slider draws)."""
        from ..optim.descent import descent_path

        return {
            name: descent_path(self.f, self.start, lambda ps, make=make: make(ps, lr), self.steps)
            for name, make in self.optimisers.items()
        }

    def draw(self, lr: float) -> tuple[str, Any]:
        paths = self.paths(lr)
        ends = []
        first = float(np.asarray(self.f(np.asarray(self.start))))
        for name, path in paths.items():
            last = float(np.asarray(self.f(path[-1])))
            if len(path) <= self.steps:
                ends.append(f"{name} diverged at step {len(path)}")
            elif last > first:
                ends.append(f"{name} diverging (loss {last:.2g})")
            else:
                ends.append(f"{name} loss {last:.2g}")
        text = f"learning rate {lr:.1e}, after {self.steps} steps: " + ", ".join(ends)
        fig = descent_plot(self.f, paths, self.xlim, self.ylim, minimum=self.minimum)
        return text, fig


def run_training(
    train: Callable[..., Mapping[str, Sequence[float]]],
    learning_rate: float,
    width: int,
    depth: int,
    epochs: int,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, list[float]]:
    """Call ``train`` with the panel's settings and check what it returns.

    ``train(learning_rate=, width=, depth=, epochs=, progress=)`` trains an MLP
    (the course's notebook supplies it), calls ``progress(done, total)`` as it
    goes, and returns its curves, e.g. ``{"train": losses, "test": losses}``.

    >>> def train(learning_rate, width, depth, epochs, progress):
    ...     for e in range(epochs):
    ...         progress(e + 1, epochs)
    ...     return {"train": [1.0 / (e + 1) for e in range(epochs)]}
    >>> run_training(train, 0.1, 8, 2, 3)["train"]
    [1.0, 0.5, 0.3333333333333333]
    """
    if not learning_rate > 0 or width < 1 or depth < 1 or epochs < 1:
        raise ValueError(
            f"run_training: need learning_rate > 0 and width, depth, epochs >= 1; got "
            f"learning_rate={learning_rate}, width={width}, depth={depth}, epochs={epochs}"
        )
    curves = train(
        learning_rate=learning_rate,
        width=width,
        depth=depth,
        epochs=epochs,
        progress=progress or (lambda done, total: None),
    )
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError(
            "run_training: train must return its curves as a dict such as "
            f"{{'train': [losses...]}}, got {type(curves).__name__}"
        )
    return {name: [float(v) for v in values] for name, values in curves.items()}


class TrainingPanel(_Panel):
    """Sliders for learning rate, width, depth and epochs, a Train button, a
    progress bar and the training curves. ``train`` is the training callable
    (see :func:`run_training`)."""

    def __init__(
        self,
        train: Callable[..., Mapping[str, Sequence[float]]],
        learning_rate: float = 0.05,
        width: int = 16,
        depth: int = 2,
        epochs: int = 200,
    ) -> None:
        import ipywidgets as w

        self.train_fn = train
        look = _slider_layout()
        self.learning_rate = w.FloatLogSlider(
            value=learning_rate, base=10, min=-4, max=0, description="learning rate", **look
        )
        self.width = w.IntSlider(value=width, min=1, max=128, description="width", **look)
        self.depth = w.IntSlider(value=depth, min=1, max=12, description="depth", **look)
        self.epochs = w.IntSlider(value=epochs, min=1, max=5000, description="epochs", **look)
        self.button = w.Button(description="Train", button_style="primary")
        self.progress = w.IntProgress(value=0, min=0, max=1, description="progress")
        self.status = w.HTML("press <b>Train</b> to train with these settings")
        self.image = _image()
        self.image.layout.display = "none"  # no empty (broken) image before the first run
        self.button.on_click(lambda _: self.train())
        sliders = [self.learning_rate, self.width, self.depth, self.epochs]
        self.widget = w.VBox(
            [*sliders, w.HBox([self.button, self.progress]), self.status, self.image]
        )

    def _tick(self, done: int, total: int) -> None:
        self.progress.max = max(total, 1)
        self.progress.value = min(done, total)

    def train(self) -> dict[str, list[float]]:
        """Train with the sliders' values (what the button does); returns the curves."""
        self.button.disabled = True
        self.status.value = "training…"
        try:
            curves = run_training(
                self.train_fn,
                self.learning_rate.value,
                self.width.value,
                self.depth.value,
                self.epochs.value,
                self._tick,
            )
        except Exception as error:  # show it in the panel, keep the panel usable
            self.status.value = f"<b>training failed:</b> {type(error).__name__}: {error}"
            raise
        finally:
            self.button.disabled = False
        last = ", ".join(
            f"{k} {v[-1]:.3g}" for k, v in curves.items() if v and math.isfinite(v[-1])
        )
        self.status.value = f"done: final {last}"
        _show(self.image, training_curves_plot(curves))
        self.image.layout.display = None
        return curves
