"""Chapters 04 and 05's checks: correct answers pass on any seed, each mistake
fails the check aimed at it (with a hint), and exercises stay independent."""

import csv
import math

import pytest
from grading_helpers import explained, failed_checks
from grading_helpers import grade as grade_directly

import micrograd_edu as mg
from micrograd_edu.grading import chapter


def post_order(root, first_visit):
    """Iterative depth-first post-order; ``first_visit(node)`` says whether to enter node."""
    order, stack = [], [(root, iter(root.parents))]
    first_visit(root)
    while stack:
        node, parents = stack[-1]
        for parent in parents:
            if first_visit(parent):
                stack.append((parent, iter(parent.parents)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def topological_order(root):
    seen = set()

    def first_visit(node):
        new = id(node) not in seen
        seen.add(id(node))
        return new

    return post_order(root, first_visit)


def marking_order(root):
    # correct, marking visited nodes with an attribute instead of a set
    def first_visit(node):
        new = not getattr(node, "seen", False)
        node.seen = True
        return new

    return post_order(root, first_visit)


def recursive_order(root):
    order, seen = [], set()

    def visit(node):
        if id(node) not in seen:
            seen.add(id(node))
            for parent in node.parents:
                visit(parent)
            order.append(node)

    visit(root)
    return order


def no_visited_set(root):
    return post_order(root, lambda node: True)


def pre_order(root):
    order, seen, stack = [], {id(root)}, [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for parent in node.parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return order


def make_value_class(mul_rule="right", tanh_rule="right"):
    """MyValue as the exercise notebook gives it, with __mul__ and tanh right or wrong."""

    class MyValue:
        def __init__(self, data, parents=(), op=""):
            self.data, self.grad, self.parents, self.op, self.label = (
                float(data),
                0.0,
                parents,
                op,
                "",
            )
            self._backward = lambda: None

        def __add__(self, other):
            other = other if isinstance(other, MyValue) else MyValue(other)
            out = MyValue(self.data + other.data, (self, other), "add")

            def _backward():
                self.grad += out.grad
                other.grad += out.grad

            out._backward = _backward
            return out

        __radd__ = __add__

        def __mul__(self, other):
            if mul_rule == "todo":
                raise NotImplementedError()
            if not (mul_rule == "no_wrap" and not isinstance(other, MyValue)):
                other = other if isinstance(other, MyValue) else MyValue(other)
            parents = (self,) if mul_rule == "self_parent" else (self, other)
            out = MyValue(self.data * other.data, parents, "mul")

            def _backward():
                if mul_rule == "assign":
                    self.grad = other.data * out.grad
                    other.grad = self.data * out.grad
                elif mul_rule == "no_chain":
                    self.grad += other.data
                    other.grad += self.data
                elif mul_rule == "own_data":
                    self.grad += self.data * out.grad
                    other.grad += other.data * out.grad
                else:
                    self.grad += other.data * out.grad
                    other.grad += self.data * out.grad

            out._backward = _backward
            return out

        __rmul__ = __mul__

        def tanh(self):
            if tanh_rule == "todo":
                raise NotImplementedError()
            x = self.data
            if tanh_rule == "exp":
                t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
            elif tanh_rule == "exp_x":
                t = (math.exp(x) - math.exp(-x)) / (math.exp(x) + math.exp(-x))
            else:
                t = math.tanh(x)
            out = MyValue(t, () if tanh_rule == "no_parents" else (self,), "tanh")

            def _backward():
                if tanh_rule == "assign":
                    self.grad = (1 - t * t) * out.grad
                elif tanh_rule == "self_data":
                    self.grad += (1 - x * x) * out.grad
                elif tanh_rule == "no_chain":
                    self.grad += 1 - t * t
                elif tanh_rule == "nothing":
                    pass
                else:
                    self.grad += (1 - t * t) * out.grad

            out._backward = _backward
            return out

    return MyValue


def backward(root):
    root.grad = 1.0
    for node in reversed(topological_order(root)):
        node._backward()


def jacobian_cost(n, m, ops):
    return n * ops, (1 + m) * ops


def choose_mode(n, m):
    forward, reverse = jacobian_cost(n, m, 1)
    return "forward" if forward < reverse else "reverse"


def vjp(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    outputs = f(*inputs)
    total = sum((vi * y for vi, y in zip(v, outputs, strict=True)), mg.Value(0.0))
    total.backward()
    return [x.grad for x in inputs]


CORRECT = {
    "topological_order": topological_order,
    "MyValue": make_value_class(),
    "backward": backward,
    "jacobian_cost": jacobian_cost,
    "choose_mode": choose_mode,
    "vjp": vjp,
}


def grade(exercise_id, functions, seed="test"):
    """Grade with the correct answers standing in for the functions not given."""
    return grade_directly(exercise_id, {**CORRECT, **functions}, seed)


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(6)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("04") + chapter("05"):
        result = grade(ex.id, {}, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


@pytest.mark.parametrize(
    "wrong, failing",
    [
        (recursive_order, {"a chain of 5000 nodes"}),
        (no_visited_set, {"diamonds: shared nodes appear once"}),
        (pre_order, {"every node after its parents"}),
        (lambda root: list(reversed(topological_order(root))), None),
        (lambda root: [root], None),
    ],
)
def test_topological_order_mistakes(wrong, failing):
    result = grade("04.topological_order", {"topological_order": wrong})
    assert not result.passed
    if failing is not None:
        assert failing <= failed_checks(result)
    assert explained(result)


def test_marking_nodes_with_an_attribute_is_fine():
    assert grade("04.topological_order", {"topological_order": marking_order}).passed


def test_recursion_error_is_named_in_the_reason():
    result = grade("04.topological_order", {"topological_order": recursive_order})
    chain = next(c for c in result.checks if c.name == "a chain of 5000 nodes")
    assert "RecursionError" in chain.reason and "stack" in chain.hint


def test_a_node_listed_repeatedly_is_named_even_past_the_length_the_grader_reads():
    # without a visited set the chain's shared constant is listed once per step:
    # over 10,000 items, more than the grader reads, reported by length
    result = grade("04.topological_order", {"topological_order": no_visited_set})
    reasons = {c.name: c.reason for c in result.checks}
    chain = reasons["a chain of 5000 nodes"]
    assert chain.startswith("returned ") and int(chain.split()[1]) > 10_000
    assert chain.endswith("items for a graph of 5002 nodes: each node must appear once")
    assert "each node must appear once" in reasons["diamonds: shared nodes appear once"]


@pytest.mark.parametrize(
    "exercise_id, rule, failing",
    [
        ("04.mul", {"mul_rule": "assign"}, {"a * a: a node used twice"}),
        ("04.mul", {"mul_rule": "no_chain"}, {"(a * b) * c: gradients scale by out.grad"}),
        ("04.mul", {"mul_rule": "own_data"}, None),
        ("04.mul", {"mul_rule": "no_wrap"}, {"a * 2.5 and 2.5 * a: plain numbers"}),
        ("04.mul", {"mul_rule": "self_parent"}, {"c * (a * b): a product as the right operand"}),
        (
            "04.tanh",
            {"tanh_rule": "no_parents"},
            {"tanh(tanh(a)): backward through two tanh nodes"},
        ),
        ("04.tanh", {"tanh_rule": "assign"}, {"a.tanh() + a.tanh(): a node used twice"}),
        ("04.tanh", {"tanh_rule": "no_chain"}, {"gradients scale by out.grad"}),
        ("04.tanh", {"tanh_rule": "self_data"}, {"tanh(a): the local derivative 1 - tanh²(a)"}),
        ("04.tanh", {"tanh_rule": "exp"}, {"tanh of a large number (|a| > 720)"}),
        ("04.tanh", {"tanh_rule": "exp_x"}, {"tanh of a large number (|a| > 720)"}),
        (
            "04.tanh",
            {"tanh_rule": "nothing"},
            {"tanh(a): the local derivative 1 - tanh²(a)", "gradients scale by out.grad"},
        ),
    ],
)
def test_value_rule_mistakes(exercise_id, rule, failing):
    result = grade(exercise_id, {"MyValue": make_value_class(**rule)})
    assert not result.passed and explained(result)
    if failing is not None:
        assert failed_checks(result) == failing


def test_tanh_reasons_and_hints_name_the_mistake_made():
    def reasons(rule):
        result = grade("04.tanh", {"MyValue": make_value_class(tanh_rule=rule)})
        return {c.name: (c.reason, c.hint) for c in result.checks if not c.passed}

    ((reason, hint),) = reasons("self_data").values()
    assert "1 - a²" in reason and "input" in reason and "1 - out.data**2" in hint
    ((reason, hint),) = reasons("no_chain").values()
    assert "out.grad" in reason and "out.grad" in hint
    ((reason, hint),) = reasons("assign").values()
    assert "one tanh's contribution" in reason and "+=" in hint
    ((reason, hint),) = reasons("exp_x").values()
    assert "OverflowError" in reason and "math.tanh" in hint


def test_mul_and_tanh_are_graded_independently():
    only_tanh = make_value_class(mul_rule="todo")
    assert grade("04.tanh", {"MyValue": only_tanh}).passed
    assert grade("04.mul", {"MyValue": only_tanh}).status == "not attempted"
    assert grade("04.mul", {"MyValue": make_value_class(tanh_rule="todo")}).passed


def forward_order_backward(root):
    root.grad = 1.0
    for node in topological_order(root):
        node._backward()


def unseeded_backward(root):
    for node in reversed(topological_order(root)):
        node._backward()


def recursive_backward(root):
    root.grad = 1.0

    def visit(node):
        node._backward()
        for parent in node.parents:
            visit(parent)

    visit(root)


@pytest.mark.parametrize("wrong", [forward_order_backward, unseeded_backward, recursive_backward])
def test_backward_mistakes(wrong):
    result = grade("04.backward", {"backward": wrong})
    assert not result.passed and explained(result)


def test_backward_fails_its_chain_check_when_recursive():
    assert "a chain of 3000 nodes" in failed_checks(
        grade("04.backward", {"backward": recursive_backward})
    )


def test_backward_uses_the_supplied_topological_order():
    # a student whose topological_order is wrong still earns backward's points
    result = grade("04.backward", {"topological_order": pre_order})
    assert result.passed


CHAPTER05_HINTS = {  # a phrase of each targeted hint: a mistake gets its own and no other
    "per output": "one pass per output",
    "extra pass": "one pass too many",
    "column": "a whole column of the Jacobian",
    "no recording": "the sweeps need a graph",
    "per input": "one sweep per input",
    "one sweep": "with m outputs, how many sweeps",
    "one input": "with a single input",
    "one output": "with a single output",
    "unweighted": "each with weight 1",
    "one output only": "only one output's contribution",
    "calls per input": "one call per input",
    "calls per output": "one call per output",
    "finite differences": "as many calls as finite differences",
}


def _assert_own_hint(result, own):
    own = own if isinstance(own, tuple) else (own,)
    hints = [c.hint for c in result.checks if not c.passed and c.hint]
    others = [p for key, p in CHAPTER05_HINTS.items() if key not in own]
    assert not any(p in h for h in hints for p in others), hints
    if own != (None,):
        assert hints and all(any(CHAPTER05_HINTS[k] in h for k in own) for h in hints), hints


@pytest.mark.parametrize(
    "wrong, failing, hint",
    [
        (  # the two costs swapped
            lambda n, m, ops: (m * ops, n * ops),
            {"forward mode, for any number of inputs", "reverse mode, for any number of outputs"},
            ("per output", "per input"),
        ),
        (
            lambda n, m, ops: (n * ops, m * ops),
            {"reverse mode, for any number of outputs"},
            "no recording",
        ),
        (
            lambda n, m, ops: ((1 + n) * ops, (1 + m) * ops),
            {"forward mode, for any number of inputs"},
            "extra pass",
        ),
        (
            lambda n, m, ops: (n * m * ops, (1 + m) * ops),
            {"forward mode, for any number of inputs"},
            "column",
        ),
        (
            lambda n, m, ops: (n * ops, ops),
            {"reverse mode, for any number of outputs"},
            "one sweep",
        ),
        (
            lambda n, m, ops: (n * ops, 2 * m * ops),
            {"reverse mode, for any number of outputs"},
            None,
        ),
    ],
)
def test_jacobian_cost_mistakes(wrong, failing, hint):
    result = grade("05.jacobian_cost", {"jacobian_cost": wrong})
    assert failed_checks(result) == failing
    _assert_own_hint(result, hint)


@pytest.mark.parametrize(
    "wrong, failing, hint",
    [
        (
            lambda n, m: "reverse",
            {"a curve: one input, many outputs", "wide and tall Jacobians"},
            ("one input", None),
        ),
        (lambda n, m: "forward", None, ("one output", None)),
        (lambda n, m: "forward" if m < 1 + n else "reverse", None, ("one output", "one input")),
        (lambda n, m: "Reverse mode", None, None),
    ],
)
def test_choose_mode_mistakes(wrong, failing, hint):
    result = grade("05.choose_mode", {"choose_mode": wrong})
    assert not result.passed
    if failing is not None:
        assert failed_checks(result) == failing
    own = hint if isinstance(hint, tuple) else (hint,)
    _assert_own_hint(result, tuple(k for k in own if k) or None)


def vjp_ignoring_v(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    for y in f(*inputs):
        if isinstance(y, mg.Value):
            y.backward()
    return [x.grad for x in inputs]


def vjp_last_output(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    (v[-1] * f(*inputs)[-1]).backward()
    return [x.grad for x in inputs]


def vjp_by_columns(f, xs, v):
    out = []
    for j in range(len(xs)):
        _, column = mg.jvp(f, xs, [float(k == j) for k in range(len(xs))])
        out.append(sum(vi * c for vi, c in zip(v, column, strict=True)))
    return out


def vjp_per_output(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    for k, weight in enumerate(v):
        (weight * f(*inputs)[k]).backward()  # leaves accumulate: right, but m calls
    return [x.grad for x in inputs]


def vjp_weighted_right(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    total = sum((w * y for w, y in zip(v, f(*inputs), strict=True)), mg.Value(0.0))
    total.backward()
    return [x.grad * 1.01 for x in inputs]  # weighted by v, then spoiled: no model fits


@pytest.mark.parametrize(
    "wrong, failing, hint",
    [
        (vjp_ignoring_v, {"vᵀJ matches a numerical Jacobian"}, "unweighted"),
        (vjp_last_output, {"vᵀJ matches a numerical Jacobian"}, "one output only"),
        (vjp_by_columns, {"one evaluation of f"}, "calls per input"),
        (vjp_per_output, {"one evaluation of f"}, "calls per output"),
        # weighted by v: it must not hear "weigh each output", nor fail the count of calls
        (
            vjp_weighted_right,
            {"vᵀJ matches a numerical Jacobian", "m = 1, v = [1]: the gradient"},
            None,
        ),
    ],
)
def test_vjp_mistakes(wrong, failing, hint):
    result = grade("05.vjp", {"vjp": wrong})
    assert failed_checks(result) == failing
    _assert_own_hint(result, hint)
    assert "one evaluation of f" not in failed_checks(result) or hint.startswith("calls")


def test_the_packages_topological_order_is_withheld_from_submissions(tmp_path):
    pytest.importorskip("resource")
    from pathlib import Path

    from micrograd_edu.cli import main
    from micrograd_edu.grading.notebook import dumps, read_notebook

    root = Path(__file__).resolve().parents[1]
    nb = read_notebook(root / "solutions" / "04_reverse.ipynb")
    cell = next(c for c in nb["cells"] if c.get("id") == "order-code")
    cell["source"] = "from micrograd_edu import topological_order\n"
    (tmp_path / "imports_the_answer.ipynb").write_text(dumps(nb), encoding="utf-8")
    out = tmp_path / "gradebook.csv"
    assert main(["grade", str(tmp_path / "imports_the_answer.ipynb"), "--csv", str(out)]) == 0
    with open(out, newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert float(row["04.topological_order"]) == 0
    assert all(float(row[f"04.{name}"]) == 2 for name in ("mul", "tanh", "backward"))


def test_a_myvalue_made_by_a_factory_function_is_graded_like_the_class():
    """The grader backpropagates in the order the nodes were made, recorded on the class
    of the nodes, not on the name given: a factory works as the class does."""
    cls = make_value_class()
    for exercise_id in ("04.mul", "04.tanh"):
        assert grade(exercise_id, {"MyValue": lambda data, cls=cls: cls(data)}).passed
        assert cls.__init__.__name__ == "__init__"  # the recording wrapper is gone
