"""Chapter 04's typical mistakes, written as a student writes them."""

import math
import random

import numpy as np

from mistakes import Example


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


def breadth_first_reversed(root):  # the review's: levels from the root, reversed
    order, seen, queue = [], {id(root)}, [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        for parent in node.parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                queue.append(parent)
    return order[::-1]


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
            if pow == "composed" and k == int(k) and k > 0:  # a * a * ...: right through backward
                out = self
                for _ in range(int(k) - 1):
                    out = out * self
                return out
            a = self.data
            slope = k * a ** (k - 1)
            wrong = {
                "k_times_power": lambda: k * a**k,
                "no_factor": lambda: a ** (k - 1),
                "itself": lambda: a**k,
                "divides": lambda: k * a**k / a,  # right, except that it divides by a
                # the second review's: a central difference, h = 1e-6
                "differences": lambda: ((a + 1e-6) ** k - (a - 1e-6) ** k) / 2e-6,
            }
            return self._unary(pow, a**k, slope, wrong)

        def exp(self):
            a = self.data
            wrong = {
                "input": lambda: a,
                "a_times": lambda: a * math.exp(a),
                "one": lambda: 1.0,
                "differences": lambda: (math.exp(a + 1e-6) - math.exp(a - 1e-6)) / 2e-6,
            }
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
            if div == "cut":  # the review's: the value, as a node of its own
                return MyValue(-self.data)
            return self * -1

        def __sub__(self, other):
            if div == "todo":
                raise NotImplementedError()
            if div == "own_sub":  # the second review's: a rule of its own, other's sign wrong
                other = other if isinstance(other, MyValue) else MyValue(other)
                out = MyValue(self.data - other.data, (self, other), "sub")

                def _backward():
                    self.grad += out.grad
                    other.grad += out.grad

                out._backward = _backward
                return out
            return self + (-other)

        def __rsub__(self, other):
            if div == "todo":
                raise NotImplementedError()
            return self + (-other) if div == "swapped" else other + (-self)

        def __truediv__(self, other):
            if div == "todo":
                raise NotImplementedError()
            if div not in ("own_rule", "dummy_calls"):
                return self * other**-1
            other = other if isinstance(other, MyValue) else MyValue(other)
            if div == "dummy_calls":  # calls of the primitives, for show
                self + 0, self * 1, other**1
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


def train(xs, ys, hidden=8, steps=200, lr=0.1, value=None, clear=True, rebind=False, fresh=False):
    """The exercise's reference network, returning [w, b, v, c]; ``clear=False`` never
    clears the parameters' gradients, ``rebind=True`` writes each step into a new MyValue
    (`p = p - lr * p.grad`), leaving the network's own as they were; ``fresh=True`` (right)
    makes new parameters each step from the old ones' data and grads; a negative ``lr``
    climbs the gradient."""
    value = value or CORRECT["MyValue"]
    rng = random.Random(0)
    w1 = [value(rng.gauss(0, 1)) for _ in range(hidden)]
    b1 = [value(rng.gauss(0, 1)) for _ in range(hidden)]
    w2 = [value(rng.gauss(0, hidden**-0.5)) for _ in range(hidden)]
    b2 = value(0.0)
    params = [*w1, *b1, *w2, b2]

    def predict(x):
        return sum((v * (w * x + b).tanh() for w, b, v in zip(w1, b1, w2, strict=True)), b2)

    for _ in range(steps):
        loss = sum(((predict(x) - y) ** 2 for x, y in zip(xs, ys, strict=True)), value(0.0))
        backward(loss / len(xs))
        if fresh:
            w1, b1, w2 = ([value(p.data - lr * p.grad) for p in g] for g in (w1, b1, w2))
            b2 = value(b2.data - lr * b2.grad)
            continue
        for p in params:
            if rebind:
                p = p - lr * p.grad  # noqa: PLW2901  (the mistake: a new node, not p itself)
            else:
                p.data -= lr * p.grad
            if clear:
                p.grad = 0.0
    return [w1, b1, w2, b2]


CORRECT = {"topological_order": topological_order, "MyValue": make_value_class()}
CORRECT.update(backward=backward, train=train)


def first_parents_only(root):
    order, node = [], root
    while True:
        order.append(node)
        if not node.parents:
            return order[::-1]
        node = node.parents[0]


def without_root(root):
    return topological_order(root)[:-1]


def recursive_with_a_higher_limit(root):
    import sys

    sys.setrecursionlimit(100_000)
    return recursive_order(root)


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


def root_only_backward(root):  # the review's: only the root's rule runs
    root.grad = 1.0
    root._backward()


def unseeded_backward(root):
    for node in reversed(topological_order(root)):
        node._backward()


def numpy_network(xs, ys, hidden=8, steps=3000, lr=0.05):
    """The same network trained by hand-derived numpy gradients: no MyValue, no backward."""
    rng = np.random.default_rng(0)
    w, b, v, c = rng.normal(size=hidden), rng.normal(size=hidden), np.zeros(hidden), 0.0
    x, y = np.array(xs)[:, None], np.array(ys)
    for _ in range(steps):
        h = np.tanh(x * w + b)
        e = h @ v + c - y
        gh = (2 / len(xs)) * e[:, None] * v * (1 - h**2)
        w, b = w - lr * (gh * x).sum(0), b - lr * gh.sum(0)
        v, c = v - lr * (2 / len(xs)) * h.T @ e, c - lr * (2 / len(xs)) * e.sum()
    return [w, b, v, c]


def polynomial(xs, ys):  # a lookup in disguise: no network at all
    value = CORRECT["MyValue"]
    for _ in range(200 * len(xs)):
        value(0.0)
    return np.polyfit(xs, ys, 7)


def least_squares_with_dummy_backward(xs, ys, hidden=8):
    """The review's gaming: output weights by least squares on random tanh features, and
    backward called 200 times on a dummy value to be counted."""
    value, rng = CORRECT["MyValue"], random.Random(0)
    w = [rng.gauss(0, 2) for _ in range(hidden)]
    b = [rng.gauss(0, 2) for _ in range(hidden)]
    features = np.array(
        [[np.tanh(wj * x + bj) for wj, bj in zip(w, b, strict=True)] + [1.0] for x in xs]
    )
    solution = np.linalg.lstsq(features, np.array(ys), rcond=None)[0]
    p = value(1.0)
    for _ in range(200):
        backward(p * p)
        p.grad = 0.0
    return [w, b, list(solution[:hidden]), float(solution[hidden])]


def least_squares_then_backward(xs, ys, hidden=8):
    """Least squares, then backward on the real loss of the fitted network 30 times (more
    than the 20 a training needs), never stepping: the parameters are the loss's inputs,
    but no descent reached them."""
    value = CORRECT["MyValue"]
    w, b, v, c = least_squares_with_dummy_backward(xs, ys, hidden)
    params = [[value(p) for p in group] for group in (w, b, v)] + [value(c)]
    w, b, v, c = params
    for _ in range(30):
        loss = value(0.0)
        for x, y in zip(xs, ys, strict=True):
            out = sum((vj * (wj * x + bj).tanh() for wj, bj, vj in zip(w, b, v, strict=True)), c)
            loss = loss + (out - y) ** 2
        backward(loss)
    return params


def _network_loss(w, b, v, c, xs, ys, value):
    loss = value(0.0)
    for x, y in zip(xs, ys, strict=True):
        out = c + sum((vj * (wj * x + bj).tanh() for wj, bj, vj in zip(w, b, v, strict=True)))
        loss = loss + (out - y) ** 2
    return loss * (1.0 / len(xs))


def least_squares_then_tiny_steps(xs, ys, hidden=8):
    """The second review's gaming: least squares on tanh features, then 200 real steps of
    backward on the fitted network's loss with lr 1e-12: descent in name only."""
    value, rng = CORRECT["MyValue"], random.Random(0)
    w = [value(rng.gauss(0, 1)) for _ in range(hidden)]
    b = [value(rng.gauss(0, 1)) for _ in range(hidden)]
    features = [
        [math.tanh(wj.data * x + bj.data) for wj, bj in zip(w, b, strict=True)] + [1.0] for x in xs
    ]
    solution = np.linalg.lstsq(np.array(features), np.array(ys), rcond=None)[0]
    v, c = [value(s) for s in solution[:hidden]], value(solution[hidden])
    for _ in range(200):
        backward(_network_loss(w, b, v, c, xs, ys, value))
        for p in [*w, *b, *v, c]:
            p.data -= 1e-12 * p.grad
            p.grad = 0.0
    return [w, b, v, c]


def finite_difference_descent(xs, ys, hidden=8, steps=200, lr=0.1):
    """The second review's gaming: each step calls backward on the loss for show, then
    moves by central differences of a float loss."""
    value, rng = CORRECT["MyValue"], random.Random(0)
    w, b, v = ([value(rng.gauss(0, 1)) for _ in range(hidden)] for _ in range(3))
    c = value(0.0)
    params = [*w, *b, *v, c]

    def plain_loss():
        return sum(
            (
                c.data
                + sum(
                    vj.data * math.tanh(wj.data * x + bj.data)
                    for wj, bj, vj in zip(w, b, v, strict=True)
                )
                - y
            )
            ** 2
            for x, y in zip(xs, ys, strict=True)
        ) / len(xs)

    for _ in range(steps):
        backward(_network_loss(w, b, v, c, xs, ys, value))
        slopes = []
        for p in params:
            o = p.data
            p.data = o + 1e-5
            up = plain_loss()
            p.data = o - 1e-5
            down = plain_loss()
            p.data = o
            slopes.append((up - down) / 2e-5)
        for p, slope in zip(params, slopes, strict=True):
            p.data -= lr * slope
            p.grad = 0.0
    return [w, b, v, c]


def stochastic_descent(xs, ys, hidden=8, epochs=40, lr=0.05):
    """Right: gradient descent on one point at a time, the parameters updated in place."""
    value, rng = CORRECT["MyValue"], random.Random(0)
    w, b = ([value(rng.gauss(0, 1)) for _ in range(hidden)] for _ in range(2))
    v = [value(rng.gauss(0, hidden**-0.5)) for _ in range(hidden)]
    c = value(0.0)
    for _ in range(epochs):
        for x, y in zip(xs, ys, strict=True):
            backward(_network_loss(w, b, v, c, [x], [y], value))
            for p in [*w, *b, *v, c]:
                p.data -= lr * p.grad
                p.grad = 0.0
    return [w, b, v, c]


def linear_network(xs, ys, steps=200, lr=0.1, hidden=8):
    """The review's network without its tanh: the loss overflows and train raises."""
    value, rng = CORRECT["MyValue"], random.Random(0)
    w, b, v = ([value(rng.gauss(0, 1)) for _ in range(hidden)] for _ in range(3))
    c = value(0.0)
    for _ in range(steps):
        loss = value(0.0)
        for x, y in zip(xs, ys, strict=True):
            out = c + sum(
                (vj * (wj * x + bj) for wj, bj, vj in zip(w, b, v, strict=True)), value(0.0)
            )
            loss = loss + (out - y) ** 2
        backward(loss * (1.0 / len(xs)))
        for p in [*w, *b, *v, c]:
            p.data -= lr * p.grad
            p.grad = 0.0
    return [w, b, v, c]


def value_with(**rule):
    return {"MyValue": make_value_class(**rule)}


def one(name, mistake, functions, **options):
    return Example(name, mistake, functions, **options)


ORDER, POW, EXP, RELU, DIV = "04.topological_order", "04.pow", "04.exp", "04.relu", "04.div"
BACKWARD, TRAIN = "04.backward", "04.train"
SHARED = {"assign": "replaced", "no_chain": "unscaled", "no_parents": "unreached"}

EXAMPLES = [
    one(ORDER, "recursion", {"topological_order": recursive_order}),
    one(ORDER, "recursion", {"topological_order": recursive_with_a_higher_limit}, label="limit"),
    one(ORDER, "listed twice", {"topological_order": no_visited_set}),
    one(ORDER, "parent after", {"topological_order": pre_order}),
    one(
        ORDER,
        "parent after",
        {"topological_order": lambda root: topological_order(root)[::-1]},
        label="reversed",
    ),
    one(ORDER, "first parents", {"topological_order": first_parents_only}),
    one(ORDER, "parent after", {"topological_order": breadth_first_reversed}, label="levels"),
    one(ORDER, "no root", {"topological_order": without_root}),
    one(ORDER, None, {"topological_order": lambda root: root}, label="a node"),
    *[
        one(f"04.{op}", name, value_with(**{op: rule}), label=op)
        for op in ("pow", "exp", "relu")
        for rule, name in SHARED.items()
    ],
    *[
        one(f"04.{op}", "never added", value_with(**{op: "nothing"}), label=op)
        for op in ("pow", "exp", "relu")
    ],
    one(POW, "k times power", value_with(pow="k_times_power")),
    one(POW, "no factor", value_with(pow="no_factor")),
    one(POW, "itself", value_with(pow="itself")),
    one(POW, "divides by a", value_with(pow="divides")),
    one(POW, "composed", value_with(pow="composed")),
    one(POW, "approximation", value_with(pow="differences")),
    one(EXP, "approximation", value_with(exp="differences")),
    one(EXP, "input", value_with(exp="input")),
    one(EXP, "a times", value_with(exp="a_times")),
    one(EXP, "one", value_with(exp="one")),
    one(RELU, "height", value_with(relu="height")),
    one(RELU, "at zero", value_with(relu="at_zero")),
    one(RELU, "slope one", value_with(relu="always")),
    one(DIV, "own rule", value_with(div="own_rule")),
    one(DIV, None, value_with(div="own_sub"), label="own rule for a - b, wrong sign"),
    one(DIV, "swapped", value_with(div="swapped")),
    one(DIV, "cut by negation", value_with(div="cut")),
    one(BACKWARD, "stale", {"backward": lecture_backward}),
    one(BACKWARD, "leaves cleared", {"backward": clearing_backward}),
    one(BACKWARD, "forward order", {"backward": forward_order_backward}),
    one(BACKWARD, None, {"backward": unseeded_backward}, label="unseeded"),
    one(BACKWARD, "forward order", {"backward": root_only_backward}, label="root only"),
    one(TRAIN, "no backward", {"train": numpy_network}, seeds=1),
    one(TRAIN, None, {"train": polynomial}, label="a polynomial", seeds=1),
    one(
        TRAIN,
        "never moved",
        {"train": lambda xs, ys: train(xs, ys, steps=30, rebind=True)},
        seeds=1,
    ),
    one(
        TRAIN,
        "never cleared",
        {"train": lambda xs, ys: train(xs, ys, steps=40, lr=0.3, clear=False)},
        seeds=1,
    ),
    one(TRAIN, "diverged", {"train": lambda xs, ys: train(xs, ys, lr=2.5, steps=60)}, seeds=1),
    one(TRAIN, "diverged", {"train": linear_network}, label="overflows", seeds=1),
    one(TRAIN, "ascent", {"train": lambda xs, ys: train(xs, ys, lr=-0.1, steps=30)}, seeds=1),
    one(
        TRAIN,
        None,
        {"train": least_squares_with_dummy_backward},
        label="least squares, dummy backward",
        seeds=1,
    ),
    one(
        TRAIN,
        "never moved",
        {"train": least_squares_then_backward},
        label="least squares, backward without steps",
        seeds=1,
    ),
    one(
        TRAIN,
        None,
        {"train": least_squares_then_tiny_steps},
        label="least squares, steps of lr 1e-12",
        seeds=1,
    ),
    one(
        TRAIN,
        None,
        {"train": finite_difference_descent},
        label="finite differences, backward for show",
        seeds=1,
    ),
]

SLOW = {TRAIN}  # graded on one seed where a test grades the right answers on several

RIGHT = [
    one(ORDER, None, {"topological_order": marking_order}, label="marks nodes"),
    one(
        TRAIN,
        None,
        {"train": lambda xs, ys: train(xs, ys, fresh=True)},
        label="new parameters each step",
        seeds=1,
    ),
    one(TRAIN, None, {"train": stochastic_descent}, label="one point a step", seeds=1),
]
