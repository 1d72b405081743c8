"""Frames, animation and trace tables, checked against independent oracles:
the lecture's numbers, the stand-in engine's own backward pass, and central
differences of the plain Python function."""

from __future__ import annotations

import math

import numpy as np
import pytest
from central_differences import central_gradient
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from viz_nodes import S, lecture, matmul_sum

from micrograd_edu import adjoint_trace, animate, draw_graph, frames, primal_trace, tangent_trace
from micrograd_edu.viz.dot import GREEN, RED
from micrograd_edu.viz.labels import number


def f_math(x1, x2):
    return math.log(x1) + x1 * x2 - math.sin(x2)


def central(f, point):
    """The gradient of ``f(*point)`` by central differences (the tests' shared oracle)."""
    return central_gradient(lambda x: f(*x), point)


def test_forward_frames_turn_nodes_green_in_execution_order():
    y, (a, b) = lecture()
    fs = frames(y)
    forward = [f for f in fs if f.phase == "forward"]
    assert forward[0].caption == "inputs: v₋₁ = 2, v₀ = 5"
    assert [f.caption for f in forward[1:]] == [
        "v₁ = ln v₋₁ = 0.693",
        "v₂ = v₋₁ × v₀ = 10",
        "v₄ = v₁ + v₂ = 10.693",
        "v₃ = sin v₀ = -0.959",
        "v₅ = v₄ − v₃ = 11.652",
    ]
    order = fs.graph.order
    for before, after in zip(forward, forward[1:], strict=False):
        assert before.known < after.known and after.current in after.known - before.known
        # an operation is computed only after its operands
        assert all(fs.graph.index[id(p)] in before.known for p in order[after.current].parents)
    assert forward[-1].fill() == dict.fromkeys(range(7), GREEN)


def test_backward_frames_turn_nodes_red_and_end_at_the_gradient():
    y, (a, b) = lecture()
    fs = frames(y)
    backward = [f for f in fs if f.phase == "backward"]
    assert backward[0].caption == "v̄₅ = 1 (ȳ = ∂y/∂y)"
    assert "x̄₁ += v̄₂ · v₀ = 5" in [f.caption for f in backward]
    assert len(backward) == 1 + 8  # the seed, then one step per operand edge
    last = backward[-1]
    y.backward()  # the stand-in engine's own reverse pass is the oracle
    g = fs.graph
    for i, node in enumerate(g.order):
        assert last.grads[i] == pytest.approx(node.grad)
        assert last.fill()[i] == RED
    assert last.grads[g.index[id(a)]] == pytest.approx(central(f_math, (2.0, 5.0))[0])
    reds = [len(f.grads) for f in backward]
    assert reds == sorted(reds)  # once red, a node stays red


def test_frames_do_not_change_the_users_gradients():
    y, (a, b) = lecture()
    frames(y)
    assert a.grad == 0.0 and b.grad == 0.0


def test_constants_get_no_gradient_step():
    a = S(3.0, "a")
    y = a * 2.0 + 1.0
    fs = frames(y)
    consts = [i for i in range(len(fs.graph.order)) if fs.graph.kind(i) == "const"]
    assert len(consts) == 2
    assert all(i not in f.grads for f in fs for i in consts)
    assert fs[-1].grads[fs.graph.index[id(a)]] == 2.0


def test_tensor_frames_show_gradients_once_complete():
    z, (x, w, m) = matmul_sum()
    fs = frames(z)
    assert [f.phase for f in fs] == ["forward"] * 3 + ["backward"] * 4
    for node in (x, w, m):
        np.testing.assert_array_equal(fs[-1].grads[fs.graph.index[id(node)]], node.grad)
    assert fs[1].caption == "v₁ = v₋₁ @ v₀ (shape (2, 2))"


def test_frames_refuse_graphs_too_large_to_step_through():
    x = S(1.0, "x")
    y = x
    for _ in range(100):
        y = y * 1.0
    with pytest.raises(ValueError, match="frames: the graph has 201 values"):
        frames(y)
    with pytest.raises(TypeError, match="frames: expected a graph node"):
        frames("y")


def test_animation_steps_and_exports(tmp_path):
    y, _ = lecture()
    anim = animate(y)
    box = anim.widget()
    play, slider = box.children[0].children
    assert type(play).__name__ == "Play" and type(slider).__name__ == "IntSlider"
    # the slider counts steps as the caption does, from 1
    assert (play.min, play.max) == (slider.min, slider.max) == (1, len(anim))
    assert slider.value == 1 and anim._caption.value.startswith("<b>step 1/15")
    slider.value = 3  # what jslink does in the browser; the observer redraws
    assert anim._caption.value == "<b>step 3/15 (forward): v₂ = v₋₁ × v₀ = 10</b>"
    picture = anim._picture.value
    assert picture.startswith('<div class="mge-diagram"') and "<svg" in picture
    assert "step 3/15" not in picture  # the caption is shown once, above the picture
    assert "v₂" in picture
    # code that shows a frame (lecture 04 shows each in turn) moves the slider there too
    assert anim.show(14).startswith("step 15/15") and slider.value == 15
    assert anim._caption.value.startswith("<b>step 15/15") and anim._picture.value != picture
    assert "application/vnd.jupyter.widget-view+json" in anim._repr_mimebundle_()
    svgs = anim.save_svgs(tmp_path / "slides")
    assert len(svgs) == 15 and svgs[0].name == "frame_000.svg"
    gif = Image.open(anim.save_gif(tmp_path / "steps.gif"))
    assert gif.n_frames == 15


def test_animation_without_a_renderer_lists_the_steps(monkeypatch):
    monkeypatch.setenv("MICROGRAD_EDU_RENDERER", "none")
    y, _ = lecture()
    bundle = animate(y)._repr_mimebundle_()
    assert "pip install" in bundle["text/html"] and "v₂ = v₋₁ × v₀ = 10" in bundle["text/html"]


def test_primal_trace_has_the_lecture_numbers_with_sin_5_negative():
    y, _ = lecture()
    t = primal_trace(y)
    values = [round(r.value, 3) for r in t]
    assert values == [2, 5, 0.693, 10, -0.959, 10.693, 11.652, 11.652]
    assert t[4].left == "v₃ = sin v₀" and t[4].right == "sin 5 = -0.959"
    assert "<table>" in t._repr_html_() and "v₃ = sin v₀" in str(t)


def test_tangent_trace_seeds_and_agrees_with_central_differences():
    y, _ = lecture()
    t1 = tangent_trace(y, [1.0, 0.0])
    assert t1[-1].value == pytest.approx(5.5)
    assert t1[3].left == "v̇₂ = v̇₋₁ × v₀ + v̇₀ × v₋₁"
    t2 = tangent_trace(y, [0.0, 1.0])
    assert t2[-1].value == pytest.approx(central(f_math, (2.0, 5.0))[1])
    with pytest.raises(ValueError, match="3 tangents for 2 inputs"):
        tangent_trace(y, [1.0, 0.0, 0.0])


def test_adjoint_trace_in_reverse_order_ends_with_the_gradient():
    y, _ = lecture()
    t = adjoint_trace(y)
    assert t[0].left == "v̄₅ = ȳ"
    assert (t[-2].left, round(t[-2].value, 3)) == ("x̄₁", 5.5)
    assert (t[-1].left, round(t[-1].value, 3)) == ("x̄₂", 1.716)
    assert [r.left for r in t].index("x̄₁ += v̄₂ · v₀") < [r.left for r in t].index(
        "x̄₁ += v̄₁ · 1/v₋₁"
    )


def test_traces_refuse_mixed_arguments():
    y, _ = lecture()
    with pytest.raises(TypeError, match="either a function and its inputs, or a graph"):
        adjoint_trace(y, [1.0])


# Random expressions over two inputs: every trace and frame must agree with the
# stand-in engine's backward pass and with central differences.
UNARY = ["sin", "tanh", "neg"]
BINARY = ["add", "sub", "mul"]


@st.composite
def expressions(draw):
    steps = draw(
        st.lists(
            st.tuples(st.sampled_from(UNARY + BINARY), st.integers(0, 50), st.integers(0, 50)),
            min_size=1,
            max_size=8,
        )
    )
    return steps


def apply(op, a, b):
    if op in ("sin", "tanh"):
        return getattr(a, op)() if hasattr(a, op) else getattr(math, op)(a)
    if op == "neg":
        return -a
    return {"add": a + b, "sub": a - b, "mul": a * b}[op]


def build(steps, x1, x2, make):
    pool = [make(x1, "x1"), make(x2, "x2")]
    for op, i, j in steps:
        pool.append(apply(op, pool[i % len(pool)], pool[j % len(pool)]))
    return pool[-1], pool[:2]


@settings(max_examples=30, deadline=None)
@given(expressions(), st.floats(-2, 2), st.floats(-2, 2))
def test_random_expressions_traces_agree_with_oracles(steps, x1, x2):
    y, (a, b) = build(steps, x1, x2, lambda v, name: S(v, name))
    if not y.parents:
        return
    fs = frames(y, max_nodes=200)
    adj = adjoint_trace(y)
    y.backward()

    def plain(u, v):
        return build(steps, u, v, lambda value, name: value)[0]

    for k, x in enumerate((a, b)):
        if x not in fs.graph.order:
            continue  # the expression does not use this input
        pos = fs.graph.inputs.index(fs.graph.index[id(x)])
        fd = central(plain, (x1, x2))[k]
        assert fs[-1].grads.get(fs.graph.index[id(x)], 0.0) == pytest.approx(x.grad, abs=1e-9)
        assert [r.value for r in adj if r.left == f"x̄{'₁₂'[pos]}"][0] == pytest.approx(x.grad)
        seed = [0.0] * len(fs.graph.inputs)
        seed[pos] = 1.0
        assert tangent_trace(y, seed)[-1].value == pytest.approx(x.grad, abs=1e-9)
        assert x.grad == pytest.approx(fd, abs=1e-4)


def test_real_tensor_graph_draws_and_steps():
    from micrograd_edu import Tensor

    x = Tensor(np.ones((2, 3)), requires_grad=True, label="x")
    w = Tensor(np.arange(6.0).reshape(3, 2), requires_grad=True, label="W")
    y = (x @ w).tanh().sum()
    y.backward()
    d = draw_graph(y)
    assert "{x|data shape (2, 3)|grad shape (2, 3)}" in d.source
    assert "image/svg+xml" in d._repr_mimebundle_()
    fs = frames(y)
    assert [f.caption for f in fs][:4] == [
        "inputs: v₋₁ = shape (2, 3), v₀ = shape (3, 2)",
        "v₁ = v₋₁ @ v₀ (shape (2, 2))",
        "v₂ = tanh(v₁) (shape (2, 2))",
        f"v₃ = sum(v₂) = {number(float(np.tanh(x.data @ w.data).sum()))}",
    ]
    assert "v̄₁ += v̄₂ · (1 − v₂ × v₂)" in [f.caption for f in fs]
    np.testing.assert_array_equal(fs[-1].grads[fs.graph.index[id(w)]], w.grad)


def test_local_derivative_text_reads_as_the_lecture_writes_it():
    # A rule's partial reaches Text through its operators (the reflected ones put the
    # plain number on the left) and the printing namespace's functions.
    from micrograd_edu.rules import RULES
    from micrograd_edu.viz.steps import PRINT, Text

    a, b = Text("v₀"), Text("v₁")
    assert str(1 - a) == "1 − v₀" and str(2 / a) == "2/v₀" and str(2**a) == "2^v₀"
    assert str(-(a + b) * 3) == "−(v₀ + v₁) × 3" and (a * 1, a + 0) == (a, a)
    assert str(PRINT.abs(a)) == "abs v₀" and str(PRINT.sin(a)) == "sin v₀"
    out = Text("v₂")
    assert str(RULES["sigmoid"].partials[0](PRINT, out, a)) == "v₂ × (1 − v₂)"
