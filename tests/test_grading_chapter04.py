"""Chapter 04's checks: correct answers pass on any seed; each typical mistake fails the
check aimed at it with its own hint and no other targeted hint (a confusion matrix); the
exercises stay independent; the student's own MyValue trains a network."""

import csv
import math
import random

import numpy as np
import pytest
from grading_helpers import explained, failed_checks
from grading_helpers import grade as grade_directly

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


def make_value_class(pow="right", exp="right", relu="right", div="right"):
    """MyValue as the exercise notebook gives it (+, *, tanh), with **, exp, relu and the
    composed operations right or wrong in one way each."""

    class MyValue:
        def __init__(self, data, parents=(), op=""):
            self.data, self.grad, self.parents, self.op = float(data), 0.0, tuple(parents), op
            self.label = ""
            self._backward = lambda: None

        def __add__(self, other):
            other = other if isinstance(other, MyValue) else MyValue(other)
            out = MyValue(self.data + other.data, (self, other), "add")

            def _backward():
                self.grad += out.grad
                other.grad += out.grad

            out._backward = _backward
            return out

        def __mul__(self, other):
            other = other if isinstance(other, MyValue) else MyValue(other)
            out = MyValue(self.data * other.data, (self, other), "mul")

            def _backward():
                self.grad += other.data * out.grad
                other.grad += self.data * out.grad

            out._backward = _backward
            return out

        __radd__ = __add__
        __rmul__ = __mul__

        def tanh(self):
            out = MyValue(math.tanh(self.data), (self,), "tanh")

            def _backward():
                self.grad += (1 - out.data**2) * out.grad

            out._backward = _backward
            return out

        def _unary(self, rule, value, slope, wrong):
            """A one-argument node whose rule is right, or the mistake ``rule`` (``wrong``
            maps each mistake to its local derivative)."""
            if rule == "todo":
                raise NotImplementedError()
            out = MyValue(value, () if rule == "no_parents" else (self,), "op")

            def _backward():
                local = wrong[rule]() if rule in wrong else slope
                if rule == "assign":
                    self.grad = local * out.grad
                elif rule == "no_chain":
                    self.grad += local
                elif rule != "nothing":
                    self.grad += local * out.grad

            out._backward = _backward
            return out

        def __pow__(self, k):
            a = self.data
            slope = k * a ** (k - 1)
            wrong = {
                "k_times_power": lambda: k * a**k,
                "no_factor": lambda: a ** (k - 1),
                "itself": lambda: a**k,
                "divides": lambda: k * a**k / a,  # right, except that it divides by a
            }
            return self._unary(pow, a**k, slope, wrong)

        def exp(self):
            a = self.data
            wrong = {"input": lambda: a, "a_times": lambda: a * math.exp(a), "one": lambda: 1.0}
            return self._unary(exp, math.exp(a), math.exp(a), wrong)

        def relu(self):
            a = self.data
            value = a if relu == "no_clamp" else max(a, 0.0)
            wrong = {
                "height": lambda: max(a, 0.0),
                "at_zero": lambda: float(a >= 0),
                "always": lambda: 1.0,
            }
            return self._unary(relu, value, float(a > 0), wrong)

        def __neg__(self):
            if div == "todo":
                raise NotImplementedError()
            return self * -1

        def __sub__(self, other):
            if div == "todo":
                raise NotImplementedError()
            return self + (-other)

        def __rsub__(self, other):
            if div == "todo":
                raise NotImplementedError()
            return self + (-other) if div == "swapped" else other + (-self)

        def __truediv__(self, other):
            if div == "todo":
                raise NotImplementedError()
            if div != "own_rule":
                return self * other**-1
            other = other if isinstance(other, MyValue) else MyValue(other)
            out = MyValue(self.data / other.data, (self, other), "div")

            def _backward():
                self.grad += out.grad / other.data
                other.grad -= out.grad * self.data / other.data**2

            out._backward = _backward
            return out

        def __rtruediv__(self, other):
            if div == "todo":
                raise NotImplementedError()
            return self * other**-1 if div == "swapped" else other * self**-1

    return MyValue


def backward(root):
    """As PyTorch: the inner adjoints afresh, the inputs' grads adding up."""
    order = topological_order(root)
    for node in order:
        if node.parents:
            node.grad = 0.0
    root.grad = 1.0
    for node in reversed(order):
        node._backward()


def train(xs, ys, hidden=8, steps=200, lr=0.1, activation="tanh", value=None, square=2, clear=True):
    """The exercise's reference network; ``activation=None`` leaves the layers linear;
    ``square=None`` squares the error by a product (which overflows to inf, not raising)."""
    value = value or CORRECT["MyValue"]
    rng = random.Random(0)
    w1 = [value(rng.gauss(0, 1)) for _ in range(hidden)]
    b1 = [value(rng.gauss(0, 1)) for _ in range(hidden)]
    w2 = [value(rng.gauss(0, hidden**-0.5)) for _ in range(hidden)]
    b2 = value(0.0)
    params = [*w1, *b1, *w2, b2]

    def act(u):
        return getattr(u, activation)() if activation else u

    def predict(x):
        return sum((v * act(w * x + b) for w, b, v in zip(w1, b1, w2, strict=True)), b2)

    for _ in range(steps):
        errors = [predict(x) - y for x, y in zip(xs, ys, strict=True)]
        squares = (e**square if square else e * e for e in errors)
        loss = sum(squares, value(0.0)) / len(xs)
        backward(loss)
        for p in params:
            p.data -= lr * p.grad
            if clear:
                p.grad = 0.0
    return predict


CORRECT = {"topological_order": topological_order, "MyValue": make_value_class()}
CORRECT.update(backward=backward, train=train)


def grade(exercise_id, functions, seed="test"):
    """Grade with the correct answers standing in for the functions not given."""
    return grade_directly(exercise_id, {**CORRECT, **functions}, seed)


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(4)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("04"):
        result = grade(ex.id, {}, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


ORDER_HINTS = {
    "twice": "is listed more than once",
    "before": "listed before one of the nodes it depends on",
    "missing": "some nodes the output depends on are missing",
    "recursion": "raises RecursionError past about 1000 levels",
}


def first_parents_only(root):
    order, node = [], root
    while True:
        order.append(node)
        if not node.parents:
            return order[::-1]
        node = node.parents[0]


@pytest.mark.parametrize("seed", ["test", "other"])
@pytest.mark.parametrize(
    "wrong, failing, hints",
    [
        (recursive_order, {"a chain of 5000 nodes"}, {"recursion"}),
        (no_visited_set, {"diamonds: shared nodes appear once"}, {"twice"}),
        (pre_order, {"every node after its parents"}, {"before"}),
        (lambda root: list(reversed(topological_order(root))), None, {"before"}),
        (first_parents_only, None, {"missing"}),
        (lambda root: [root], None, {"missing"}),
    ],
    ids=["recursive", "no visited set", "pre-order", "reversed", "first parents", "root only"],
)
def test_topological_order_mistakes_get_their_own_hints(wrong, failing, hints, seed):
    result = grade("04.topological_order", {"topological_order": wrong}, seed)
    assert not result.passed
    if failing is not None:
        assert failing <= failed_checks(result)
    shown = {c.hint for c in result.checks if not c.passed and c.hint}
    assert {key for key, p in ORDER_HINTS.items() for h in shown if p in h} == hints, shown


def test_marking_nodes_with_an_attribute_is_fine():
    assert grade("04.topological_order", {"topological_order": marking_order}).passed


def test_recursion_error_is_named_in_the_reason():
    result = grade("04.topological_order", {"topological_order": recursive_order})
    chain = next(c for c in result.checks if c.name == "a chain of 5000 nodes")
    assert "RecursionError" in chain.reason and "call stack" in chain.hint


def test_a_node_listed_repeatedly_is_named_even_past_the_length_the_grader_reads():
    # without a visited set the chain's shared constant is listed once per step:
    # over 10,000 items, more than the grader reads, reported by length
    result = grade("04.topological_order", {"topological_order": no_visited_set})
    reasons = {c.name: c.reason for c in result.checks}
    chain = reasons["a chain of 5000 nodes"]
    assert chain.startswith("returned ") and int(chain.split()[1]) > 10_000
    assert chain.endswith("items for a graph of 5002 nodes: each node must appear once")
    assert "each node must appear once" in reasons["diamonds: shared nodes appear once"]


def test_the_packages_topological_order_is_withheld_from_submissions(tmp_path):
    pytest.importorskip("resource")
    from pathlib import Path

    from micrograd_edu.course.cli import main
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
    assert all(float(row[f"04.{name}"]) == 2 for name in ("pow", "exp", "relu", "div", "backward"))


CHAPTER04_HINTS = {  # a phrase of each targeted hint: a mistake gets its own and no other
    "never added": "a.grad never changed",
    "unscaled": "whatever out.grad was",
    "replaced": "holds one node's share",
    "unreached": "backward reaches a node only through",
    "k times power": "k times a to the power k",
    "no factor": "lacks the factor",
    "power itself": "equals the power itself",
    "exp input": "a.grad equals a, the input",
    "exp a times": "a times e to the a",
    "exp one": "a.grad is 1, as for addition",
    "relu height": "its slope is not its height",
    "relu zero": "the slope of relu's rising side",
    "divides": "divides by zero",
    "never cleared": "never set back to 0",
    "relu negative": "for a < 0, a.grad is not 0",
    "swapped": "came out in the other order",
    "forward order": "which end of the topological order",
    "stale": "adjoints an earlier backward had left",
    "leaves cleared": "the inputs lost what their .grad held",
    "blew up": "the predictions blew up",
    "straight": "lie on a straight line",
    "flat": "every prediction is the same number",
}


def assert_own_hint(result, own):
    """Every hint shown is ``own``'s (None: no targeted hint at all), and no other's."""
    hints = [c.hint for c in result.checks if not c.passed and c.hint]
    others = [phrase for key, phrase in CHAPTER04_HINTS.items() if key != own]
    assert not any(p in h for h in hints for p in others), hints
    if own is not None:
        assert hints and all(CHAPTER04_HINTS[own] in h for h in hints), hints


LOCAL = {"pow": "a ** k: the local derivative", "exp": "a.exp(): the local derivative"}
LOCAL["relu"] = "a.relu(): the local derivative"
SHARED = {  # the mistakes every operation can make, the check that catches each, its hint
    "assign": ("{op} + {op}: a node used twice", "replaced"),
    "no_chain": ("gradients scale by out.grad", "unscaled"),
    "no_parents": ("the operation applied to its own result: backward reaches a", "unreached"),
}
NAME = {"pow": "a ** k", "exp": "a.exp()", "relu": "a.relu()"}
AT_ZERO = "a ** k at a = 0, for k = 1, 2, 3"
RULES = [
    (op, rule, {check.format(op=NAME[op])}, hint)
    for op in ("pow", "exp", "relu")
    for rule, (check, hint) in SHARED.items()
] + [
    ("pow", "nothing", {LOCAL["pow"], AT_ZERO}, "never added"),
    ("pow", "k_times_power", {LOCAL["pow"], AT_ZERO}, "k times power"),
    ("pow", "no_factor", {LOCAL["pow"]}, "no factor"),
    ("pow", "itself", {LOCAL["pow"], AT_ZERO}, "power itself"),
    ("pow", "divides", {AT_ZERO}, "divides"),
    ("exp", "input", {LOCAL["exp"]}, "exp input"),
    ("exp", "a_times", {LOCAL["exp"]}, "exp a times"),
    ("exp", "one", {LOCAL["exp"]}, "exp one"),
    ("relu", "height", {LOCAL["relu"]}, "relu height"),
    ("relu", "at_zero", {"a.relu() at 0 and below: no gradient"}, "relu zero"),
    ("relu", "no_clamp", {"a.relu(): the value"}, None),
]


@pytest.mark.parametrize("op, rule, failing, hint", RULES, ids=[f"{r[0]}-{r[1]}" for r in RULES])
def test_each_operation_mistake_gets_its_own_hint_and_no_other(op, rule, failing, hint):
    result = grade(f"04.{op}", {"MyValue": make_value_class(**{op: rule})})
    assert failed_checks(result) == failing
    assert_own_hint(result, hint)
    if result.checks[0].passed:  # partial credit: the other checks hold
        assert 0 < result.score < result.max_score


def test_a_relu_with_slope_one_everywhere_hears_about_negative_inputs():
    result = grade("04.relu", {"MyValue": make_value_class(relu="always")})
    assert "a.relu() at 0 and below: no gradient" in failed_checks(result)
    assert_own_hint(result, "relu negative")


@pytest.mark.parametrize("op", ["pow", "exp", "relu", "div"])
def test_each_operation_is_graded_on_its_own(op):
    for other in {"pow", "exp", "relu", "div"} - {op} - ({"pow"} if op == "div" else set()):
        assert grade(f"04.{op}", {"MyValue": make_value_class(**{other: "todo"})}).passed
    assert grade(f"04.{op}", {"MyValue": make_value_class(**{op: "todo"})}).status == (
        "not attempted"
    )


def test_division_with_a_rule_of_its_own_fails_only_the_method_check():
    result = grade("04.div", {"MyValue": make_value_class(div="own_rule")})
    assert failed_checks(result) == {"built from +, * and **: no backward rule of its own"}
    (check,) = [c for c in result.checks if not c.passed]
    assert "mul 0 times, pow 0 times" in check.reason
    assert_own_hint(result, None)


def test_reflected_operands_swapped_get_their_hint():
    result = grade("04.div", {"MyValue": make_value_class(div="swapped")})
    assert failed_checks(result) == {"a plain number on either side: c / a, a / c, c - a, a - c"}
    assert_own_hint(result, "swapped")


def test_division_names_a_wrong_power_as_the_cause():
    result = grade("04.div", {"MyValue": make_value_class(pow="k_times_power")})
    reasons = {c.name: c.reason for c in result.checks}
    for name in ("a / b: value and both gradients", "(a - b) / (a + b): nodes used twice"):
        assert reasons[name].startswith("a ** -1 is not right yet (exercise 04.pow)"), reasons
    assert reasons["-a and a - b"] == ""  # no division: the power is not blamed


def lecture_backward(root):  # right once, but stale on a second call
    root.grad = 1.0
    for node in reversed(topological_order(root)):
        node._backward()


def clearing_backward(root):  # every grad cleared, the inputs' too
    for node in topological_order(root):
        node.grad = 0.0
    lecture_backward(root)


def forward_order_backward(root):
    for node in topological_order(root):
        if node.parents:
            node.grad = 0.0
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


AGAIN = {
    "called twice: the inputs get twice the gradient",
    "grads an earlier backward left: inside the graph forgotten, inputs kept",
}
BACKWARDS = [
    (lecture_backward, AGAIN, "stale"),
    (clearing_backward, AGAIN, "leaves cleared"),
    (forward_order_backward, None, "forward order"),
    (unseeded_backward, None, None),
    (recursive_backward, None, None),
]


@pytest.mark.parametrize("wrong, failing, hint", BACKWARDS, ids=[b[0].__name__ for b in BACKWARDS])
def test_backward_mistakes_get_their_own_hint(wrong, failing, hint):
    result = grade("04.backward", {"backward": wrong})
    assert not result.passed
    assert explained(result) or hint is None
    if failing is not None:
        assert failed_checks(result) == failing
    assert_own_hint(result, hint)


def test_an_unseeded_backward_is_told_what_the_output_grad_was():
    result = grade("04.backward", {"backward": unseeded_backward})
    assert "the output's grad is 0" in result.checks[0].reason


def test_backward_fails_its_chain_check_when_recursive():
    result = grade("04.backward", {"backward": recursive_backward})
    assert "a chain of 3000 nodes" in failed_checks(result)


def test_backward_uses_the_supplied_topological_order():
    # a student whose topological_order is wrong still earns backward's points
    assert grade("04.backward", {"topological_order": pre_order}).passed


def numpy_fit(xs, ys):  # a polynomial by least squares: no MyValue, no gradient descent
    coefficients = np.polyfit(xs, ys, 7)
    return lambda x: float(np.polyval(coefficients, x))


def mean_only(xs, ys):
    value = CORRECT["MyValue"]
    mean = sum((value(y) for y in ys), value(0.0)) / len(ys)
    for _ in range(100 * len(xs)):
        value(0.0)
    return lambda x: mean.data


TRAINS = [
    (lambda xs, ys: train(xs, ys, activation=None), "straight"),
    (lambda xs, ys: train(xs, ys, lr=3.0, square=None), "blew up"),
    (mean_only, "flat"),
    (lambda xs, ys: train(xs, ys, lr=0.3, clear=False), "never cleared"),
]


@pytest.mark.parametrize(
    "wrong, hint", TRAINS, ids=["linear", "steps too large", "constant", "never cleared"]
)
def test_a_network_that_does_not_learn_the_curve_is_told_why(wrong, hint):
    result = grade("04.train", {"train": wrong})
    assert failed_checks(result) == {"fits the training points", "new points between them"}
    assert_own_hint(result, hint)


def test_steps_that_overflow_are_reported_once_where_they_raised():
    result = grade("04.train", {"train": lambda xs, ys: train(xs, ys, lr=3.0)})
    first, *rest = result.checks
    assert "raised OverflowError" in first.reason and "line" in first.reason
    assert all(not c.ran for c in rest) and result.score == 0


def test_training_without_myvalue_scores_nothing_for_the_method():
    result = grade("04.train", {"train": numpy_fit})
    assert failed_checks(result) == {"trained with MyValue"}
    assert "made 0 MyValues" in result.checks[0].reason
    assert result.score == 0  # the first check gates the others


def test_a_relu_network_trains_too():
    assert grade("04.train", {"train": lambda xs, ys: train(xs, ys, activation="relu")}).passed


def test_a_myvalue_made_by_a_factory_function_is_graded_like_the_class():
    """The grader backpropagates in the order the nodes were made, recorded on the class
    of the nodes, not on the name given: a factory works as the class does."""
    cls = make_value_class()
    for exercise_id in ("04.pow", "04.exp", "04.relu", "04.div"):
        assert grade(exercise_id, {"MyValue": lambda data, cls=cls: cls(data)}).passed
        assert cls.__init__.__name__ == "__init__"  # the recording wrapper is gone
