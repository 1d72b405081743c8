import pytest

from micrograd_edu.scalar.graph import GraphCycleError, topological_order


class N:
    def __init__(self, label, *parents):
        self.label, self.parents, self.op = label, parents, ""


def test_diamond_places_each_node_after_its_parents_once():
    a = N("a")
    b = N("b", a)
    c = N("c", a)
    d = N("d", b, c)
    order = topological_order(d)
    assert len(order) == 4
    position = {n.label: i for i, n in enumerate(order)}
    for node in order:
        for parent in node.parents:
            assert position[parent.label] < position[node.label]


def test_a_long_chain_needs_no_recursion():
    node = N("x0")
    for i in range(200_000):
        node = N(f"x{i + 1}", node)
    order = topological_order(node)
    assert len(order) == 200_001
    assert order[0].label == "x0" and order[-1] is node


def test_several_roots_share_nodes():
    a = N("a")
    b = N("b", a)
    c = N("c", a)
    assert [n.label for n in topological_order([b, c])] == ["a", "b", "c"]


def test_a_cycle_made_by_hand_is_reported():
    a = N("a")
    b = N("b", a)
    a.parents = (b,)
    with pytest.raises(GraphCycleError, match="cycle"):
        topological_order(b)


def test_non_nodes_are_refused_by_name():
    with pytest.raises(TypeError, match="got int"):
        topological_order(3)


def test_lecture_order_numbers_given_inputs_first_and_leaves_out_constants():
    from micrograd_edu.scalar.graph import lecture_order

    x1, x2, c = N("x1"), N("x2"), N("2")
    c.op = "const"
    a = N("a", x2, c)  # level 1
    b = N("b", a, x1)  # level 2
    d = N("d", x1)  # level 1, found after a
    root = N("root", b, d)  # level 3
    for n in (a, b, d, root):
        n.op = "op"
    leaves, ops = lecture_order(root, inputs=[x1, x2])
    assert [n.label for n in leaves] == ["x1", "x2"]
    assert [n.label for n in ops] == ["a", "d", "b", "root"]
