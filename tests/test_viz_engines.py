"""The viz package on the real engines: the lecture's trace tables, frames in
the engine's own order, diagrams of a scalar MLP."""

from __future__ import annotations

import math
import random
import re

import pytest
from viz_nodes import lecture

from micrograd_edu import Value, adjoint_trace, draw_graph, frames, primal_trace, tangent_trace
from micrograd_edu import functions as F
from micrograd_edu.scalar.nn import MLP
from micrograd_edu.scalar.value import adjoint_steps


def f(x1, x2):
    return F.log(x1) + x1 * x2 - F.sin(x2)


def test_primal_trace_matches_the_lecture_with_sin_5_negative():
    t = primal_trace(f, [2, 5])
    assert [(r.left, r.right) for r in t] == [
        ("v₋₁ = x₁", "2"),
        ("v₀ = x₂", "5"),
        ("v₁ = ln v₋₁", "ln 2 = 0.693"),
        ("v₂ = v₋₁ × v₀", "2 × 5 = 10"),
        ("v₃ = sin v₀", "sin 5 = -0.959"),
        ("v₄ = v₁ + v₂", "0.693 + 10 = 10.693"),
        ("v₅ = v₄ − v₃", "10.693 − (-0.959) = 11.652"),
        ("y = v₅", "11.652"),
    ]
    assert t[4].value == pytest.approx(math.sin(5)) and t[4].value < 0
    assert t[-1].value == pytest.approx(math.log(2) + 10 - math.sin(5))


def test_tangent_trace_from_dual_numbers_agrees_with_the_replay_over_the_graph():
    dual = tangent_trace(f, [2, 5], [1, 0])
    assert dual[-1].value == pytest.approx(5.5)
    assert [r.value for r in dual] == pytest.approx([1, 0, 0.5, 5, 0, 5.5, 5.5, 5.5])
    x1, x2 = Value(2.0), Value(5.0)
    replayed = tangent_trace(f(x1, x2), [1, 0])
    assert [r.left for r in replayed] == [r.left for r in dual]
    assert [r.value for r in replayed] == pytest.approx([r.value for r in dual])
    other = tangent_trace(f, [2, 5], [0, 1])
    assert other[-1].value == pytest.approx(2 - math.cos(5))  # ∂f/∂x₂ = x₁ − cos x₂


def test_adjoint_trace_follows_the_engine_and_ends_at_the_gradient():
    t = adjoint_trace(f, [2, 5])
    assert [(r.left, r.right) for r in t[-2:]] == [("x̄₁", "5.5"), ("x̄₂", "1.716")]
    assert t[-1].value == pytest.approx(2 - math.cos(5))
    x1, x2 = Value(2.0, label="x1"), Value(5.0, label="x2")
    recorded = adjoint_steps(f(x1, x2))
    steps = [r for r in t if "+=" in r.left]
    assert len(steps) == len(recorded)
    assert [r.value for r in steps] == pytest.approx([s.parent_grad for s in recorded])


def test_adjoint_trace_of_the_engine_agrees_with_the_replay_on_another_engine():
    y, _ = lecture()  # the stand-in scalar of the tests, replayed from the rule table
    replayed = adjoint_trace(y)
    engine = adjoint_trace(f, [2, 5])
    assert sorted((r.left, round(r.value, 12)) for r in replayed) == sorted(
        (r.left, round(r.value, 12)) for r in engine
    )


def test_frames_run_backward_in_the_engines_order_and_keep_user_gradients():
    x1, x2 = Value(2.0, label="x1"), Value(5.0, label="x2")
    y = f(x1, x2)
    y.backward()
    fs = frames(y)
    assert (x1.grad, round(x2.grad, 3)) == (5.5, 1.716)  # untouched by frames
    g = fs.graph
    backward = [fr for fr in fs if fr.phase == "backward"][1:]
    assert "x̄₁ += v̄₂ · v₀ = 5" in [fr.caption for fr in backward]
    x1.grad = x2.grad = 0.0
    recorded = adjoint_steps(y)  # the engine's own order, on the same graph
    assert [fr.current for fr in backward] == [g.index[id(s.parent)] for s in recorded]
    # forward, the operations come in the mirror image of the engine's backward pass
    forward = [fr.current for fr in fs if fr.phase == "forward"][1:]
    assert forward == list(reversed(dict.fromkeys(g.index[id(s.child)] for s in recorded)))
    assert fs[-1].grads[g.index[id(x1)]] == pytest.approx(5.5)


def test_a_scalar_mlp_graph_folds_and_draws():
    random.seed(0)
    model = MLP(3, [16, 16, 1], seed=0)
    xs = [[random.uniform(-1, 1) for _ in range(3)] for _ in range(20)]
    loss = sum((model(x) - 1.0) ** 2 for x in xs)
    loss.backward()
    d = draw_graph(loss, max_nodes=100)
    total = int(repr(d).split()[1].replace(",", ""))
    assert total > 10_000
    assert len(re.findall(r"^  n\d+ \[label=", d.source, re.M)) == 100
    assert "image/svg+xml" in d._repr_mimebundle_()
    with pytest.raises(ValueError, match="too many to step through"):
        frames(loss)


def test_a_repeated_operand_gets_each_partial_in_turn():
    x = Value(3.0, label="x")
    t = adjoint_trace(x / x)  # d(a/b)/da = 1/b, d(a/b)/db = -out/b
    assert [r.left for r in t][1:3] == ["x̄₁ += v̄₁ · 1/v₀", "x̄₁ += v̄₁ · (−v₁/v₀)"]
    assert t[-1].value == pytest.approx(0.0)


def test_traces_explain_bad_calls():
    with pytest.raises(TypeError, match="primal_trace: expected a graph node"):
        primal_trace(3.0)
    with pytest.raises(TypeError, match=r"adjoint_trace: pass the point"):
        adjoint_trace(f)
    with pytest.raises(TypeError, match="f returned float, not a Value"):
        primal_trace(lambda a: 2.0, [1.0])
    with pytest.raises(ValueError, match="1 tangents for 2 inputs"):
        tangent_trace(f, [2, 5], [1])
    with pytest.raises(TypeError, match="tangent_trace: pass the point"):
        tangent_trace(f)
