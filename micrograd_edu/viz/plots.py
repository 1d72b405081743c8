"""The course's plots, one function each, each returning a matplotlib ``Figure``.

They take plain data (lists, numpy arrays, dicts of them), not other modules'
result types, so a notebook can feed them from any engine. They build a
``matplotlib.figure.Figure`` directly (not ``pyplot``), so a figure returned
by a notebook cell shows once and no global state is touched. Jupyter shows
them as PNG images with no ``%matplotlib`` magic (see :class:`NotebookFigure`).

>>> import numpy as np
>>> fig = fd_error_plot([1e-1, 1e-2], [1e-1, 1e-2], [1e-2, 1e-4])
>>> isinstance(fig, Figure), fig._repr_png_()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
(True, True)
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

__all__ = [
    "fd_error_plot",
    "swell_plot",
    "jacobian_cost_plot",
    "training_curves_plot",
    "fit_plot",
    "gradient_flow_plot",
    "descent_plot",
    "NotebookFigure",
    "png_bytes",
]

EPS = float(np.finfo(float).eps)


def png_bytes(fig: Figure, dpi: float = 90) -> bytes:
    """The figure drawn as a PNG image (Agg, so the same bytes on every run).

    >>> png_bytes(Figure(figsize=(1, 1)))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


class NotebookFigure(Figure):
    """A ``Figure`` that Jupyter displays as a PNG image, with no ``%matplotlib`` magic.

    IPython knows how to show a plain ``Figure`` only once pyplot's inline backend
    has registered a formatter for it; without that a cell ending in ``fig`` shows
    its text. ``_repr_png_`` is IPython's own protocol for rich output, so this
    needs no global registration. PNG rather than SVG: Agg's output does not
    change from run to run, and nbval does not compare images.
    """

    def _repr_png_(self) -> bytes:
        return png_bytes(self)


def _axes(title: str, size: tuple[float, float] = (6.0, 4.0)) -> tuple[Figure, Any]:
    fig = NotebookFigure(figsize=size, layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title)
    return fig, ax


def _positive(name: str, values: Any) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-D sequence of numbers, got {array.shape}")
    return array


def fd_error_plot(
    h: Sequence[float],
    forward_error: Sequence[float],
    central_error: Sequence[float],
    eps: float = EPS,
    h_marker: float | None = None,
) -> Figure:
    """Finite-difference error against step size ``h`` (log-log).

    ``forward_error[i]`` and ``central_error[i]`` are ``|estimate - exact|`` at
    ``h[i]``. Vertical lines mark √ε (the best forward step) and ∛ε (the best
    central step); the regions where rounding (small h) and truncation (large
    h) dominate are labelled. ``h_marker`` draws the slider's current h.
    """
    h = _positive("fd_error_plot: h", h)
    fig, ax = _axes("Finite differences: error against step size h")
    # Exact zeros (a lucky h) cannot be drawn on a log axis; floor them at eps².
    floor = eps * eps
    ax.loglog(
        h,
        np.maximum(_positive("forward_error", forward_error), floor),
        "o-",
        ms=3,
        label="forward  (f(x+h) − f(x)) / h",
    )
    ax.loglog(
        h,
        np.maximum(_positive("central_error", central_error), floor),
        "s-",
        ms=3,
        label="central  (f(x+h) − f(x−h)) / 2h",
    )
    # √ε and ∛ε label their dashed lines from above the axes, where neither a curve
    # nor the slider's marker can cover them; the regions' names go in a band kept free
    # below the lowest error, which the vertical lines stop short of.
    band = 0.1  # of the axes' height
    marks = (np.sqrt(eps), np.cbrt(eps))
    for value in marks:
        ax.axvline(value, ymin=band, color="grey", ls="--", lw=1)
    top = ax.secondary_xaxis("top")
    top.set_xticks(marks, ["√ε", "∛ε"])
    top.xaxis.set_minor_locator(NullLocator())
    top.tick_params(length=3, color="grey")
    if h_marker is not None:
        ax.axvline(h_marker, ymin=band, color="crimson", lw=2, label=f"h = {h_marker:.1e}")
    low, high = ax.get_ylim()
    ax.set_ylim(low / (high / low) ** (band / (1 - band)), high)
    for x, text, align in (
        (0.02, "← rounding error dominates", "left"),
        (0.98, "truncation error dominates →", "right"),
    ):
        ax.text(x, 0.03, text, transform=ax.transAxes, ha=align, fontsize=9, color="0.25")
    ax.set_xlabel("step size h")
    ax.set_ylabel("absolute error")
    # Below the axes: inside, the vertical lines and the marker would cross it.
    fig.legend(loc="outside lower center", ncols=3, fontsize=8)
    return fig


def swell_plot(
    n: Sequence[int], symbolic_size: Sequence[float], ad_cost: Sequence[float]
) -> Figure:
    """Expression swell: the size of the symbolic derivative against ``n``
    (e.g. iterations of the logistic map), beside AD's linear cost (e.g.
    operations recorded), on a log scale.
    """
    n = _positive("swell_plot: n", n)
    fig, ax = _axes("Symbolic expression swell vs. automatic differentiation")
    ax.semilogy(
        n, _positive("symbolic_size", symbolic_size), "o-", label="symbolic derivative size"
    )
    ax.semilogy(n, _positive("ad_cost", ad_cost), "s-", label="AD cost (operations)")
    ax.set_xlabel("n")
    ax.set_ylabel("size / operations (log scale)")
    ax.legend()
    return fig


def jacobian_cost_plot(
    n: Sequence[int],
    forward_cost: Sequence[float],
    reverse_cost: Sequence[float],
    m: int | None = None,
    unit: str = "passes",
) -> Figure:
    """Cost of the Jacobian of f: ℝⁿ → ℝᵐ by forward mode (one pass per input)
    and reverse mode (one backward pass per output), against the number of inputs ``n``.
    Costs are in ``unit`` (passes, seconds, ...); each line's label says what it counts.

    >>> fig = jacobian_cost_plot([1, 2], [1, 2], [1, 1], m=1)
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['forward mode: n passes (one per input)', 'reverse mode: 1 backward pass (one per output)']
    >>> fig = jacobian_cost_plot([1, 2], [3, 12], [6, 12], m=1, unit="operations")
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['forward mode: n passes', 'reverse mode: 1 forward + 1 backward pass']
    """
    n = _positive("jacobian_cost_plot: n", n)
    title = "Jacobian cost: forward vs. reverse mode"
    if m is not None:
        title += f" (m = {m} output{'' if m == 1 else 's'})"
    fig, ax = _axes(title)
    forward, reverse = _cost_labels(unit, m)
    ax.plot(n, _positive("forward_cost", forward_cost), "o-", label=forward)
    ax.plot(n, _positive("reverse_cost", reverse_cost), "s-", label=reverse)
    ax.set_xlabel("n (inputs)")
    ax.set_ylabel(f"cost ({unit})")
    ax.legend()
    return fig


def _cost_labels(unit: str, m: int | None) -> tuple[str, str]:
    """What each line of :func:`jacobian_cost_plot` counts. In passes, reverse mode's
    line is its backward passes, flat in n; in any other unit (the y-axis names it)
    both lines also grow with the size of a pass, and reverse mode's includes the
    forward pass that records the graph."""
    outputs = "m" if m is None else str(m)
    passes = "pass" if m == 1 else "passes"
    if unit == "passes":
        return (
            "forward mode: n passes (one per input)",
            f"reverse mode: {outputs} backward {passes} (one per output)",
        )
    return "forward mode: n passes", f"reverse mode: 1 forward + {outputs} backward {passes}"


def training_curves_plot(
    curves: Mapping[str, Sequence[float]], ylabel: str = "loss", log: bool = True
) -> Figure:
    """One line per named curve (``{"train": losses, "test": losses}``) against step."""
    if not curves:
        raise ValueError("training_curves_plot: no curves given; pass {'train': [...]} ")
    from matplotlib.ticker import MaxNLocator

    fig, ax = _axes("Training")
    steps = max(len(values) for values in curves.values())
    every = np.concatenate([np.asarray(v, dtype=float) for v in curves.values()])
    positive = every[np.isfinite(every) & (every > 0)]
    for name, values in curves.items():
        few = len(values) <= 20  # a handful of points: show each one (one point is no line)
        ax.plot(
            np.arange(1, len(values) + 1),
            np.asarray(values, dtype=float),
            "o-" if few else "-",
            label=name,
        )
    # a log axis only where the losses span more than a decade (its labels are odd inside one)
    if log and positive.size and positive.max() > 10 * positive.min():
        ax.set_yscale("log")
    if steps <= 20:  # steps are whole numbers: one tick each
        ax.set_xticks(range(1, steps + 1))
        ax.set_xlim(0.5, steps + 0.5)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    ax.legend()
    return fig


def fit_plot(
    x: Sequence[float],
    y: Sequence[float],
    grid: Sequence[float],
    fitted: Sequence[float],
    truth: Sequence[float] | None = None,
) -> Figure:
    """Data points ``(x, y)``, the fitted function on ``grid`` and, if given, the truth."""
    fig, ax = _axes("Fitted function")
    ax.scatter(x, y, s=10, alpha=0.6, label="data")
    ax.plot(grid, fitted, color="crimson", lw=2, label="fitted")
    if truth is not None:
        ax.plot(grid, truth, color="black", ls="--", lw=1, label="truth")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend()
    return fig


def gradient_flow_plot(grads: Mapping[str, Any]) -> Figure:
    """Mean |gradient| per layer (``{"layer 1": array, ...}`` in input-to-output
    order), on a log scale: vanishing or exploding gradients show at a glance.
    """
    if not grads:
        raise ValueError("gradient_flow_plot: no layers given; pass {'layer 1': grad_array, ...}")
    names = list(grads)
    means = [float(np.mean(np.abs(np.asarray(g, dtype=float)))) for g in grads.values()]
    fig, ax = _axes("Gradient flow: mean |grad| per layer")
    ax.bar(range(len(names)), means, color="steelblue")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    if all(v > 0 for v in means):
        ax.set_yscale("log")
    ax.set_ylabel("mean |grad|")
    return fig


def descent_plot(
    f: Any,
    paths: Mapping[str, Any],
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    title: str = "",
    minimum: tuple[float, float] | None = None,
) -> Figure:
    """The paths of optimisers (``{"Adam": points of shape (k, 2)}``) over the contours
    of the loss ``f`` on the box ``xlim`` × ``ylim``. ``f`` takes a point as an array
    whose first axis holds x and y, so it is evaluated on the whole grid at once (a
    function written with arithmetic alone works for tensors and grids alike). The
    contours are spaced evenly in log(loss), so a narrow valley shows its floor."""
    if not paths:
        raise ValueError("descent_plot: no paths given; pass {'name': points of shape (k, 2)}")
    xs, ys = np.linspace(*xlim, 200), np.linspace(*ylim, 200)
    grid = np.stack(np.meshgrid(xs, ys))
    loss = np.asarray(f(grid), dtype=float)
    fig, ax = _axes(title, size=(6.0, 4.5))
    floor = loss[loss > 0].min() if np.any(loss > 0) else 1.0
    ax.contour(xs, ys, np.log10(np.maximum(loss, floor)), levels=20, cmap="Greys", linewidths=0.7)
    for name, path in paths.items():
        points = np.asarray(path, dtype=float).reshape(-1, 2)
        ax.plot(
            points[:, 0],
            points[:, 1],
            ".-",
            ms=3,
            lw=1.2,
            label=f"{name} ({len(points) - 1} steps)",
        )
    if minimum is not None:
        ax.plot(*minimum, "*", color="black", ms=12, label="minimum")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(loc="best", fontsize="small")
    return fig
