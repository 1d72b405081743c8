"""Chapter 02's exercises: symbolic differentiation on the package's expression trees.

A case carries its expression as plain data, a flat list of nodes in which
each node names its arguments by position (``["const", 2]``, ``["var", "x"]``,
``["mul", 0, 1]``). ``run`` builds the package's ``Expr`` from it, calls the
student's function and writes the returned tree back as such a list, reading
only nodes of the package's exact classes. ``judge`` then evaluates those
lists with its own small evaluator (``math``, never the package's
``evaluate``) and compares with independent oracles: closed-form derivatives,
central differences of the original expression, and node counts from its own
traversal.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from ..numerical import central_difference
from .plain import close, describe
from .references import product_reference, quotient_reference
from .registry import Case, Check, Exercise, register
from .runners.chapter02 import _LIBRARY, Nodes, _run_diff, _run_fold, _run_rule, _run_size

# The package's own answers to this chapter; the batch grader withholds them.
WITHHELD = (
    "micrograd_edu.symbolic.diff",
    "micrograd_edu.symbolic.simplify",
    "micrograd_edu.symbolic.size",
    "micrograd_edu.grading.references.product_reference",
    "micrograd_edu.grading.references.quotient_reference",
)

# The grader's own arithmetic: one entry per operation it can evaluate.
_BINARY: dict[str, Callable[[float, float], float]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}
_UNARY: dict[str, Callable[[float], float]] = {
    "neg": lambda a: -a,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "exp": math.exp,
    "log": math.log,
    "sqrt": math.sqrt,
    "tanh": math.tanh,
    "abs": abs,
}


# --- plain trees: built, read back, evaluated, counted ----------------------


def _valid(nodes: Any) -> str | None:
    """Why ``nodes`` (plain data from a submission) is not a node list, or None."""
    if not isinstance(nodes, list) or not nodes:
        return f"returned {describe(nodes)} where an expression was expected"
    for k, node in enumerate(nodes):
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            return "returned something that is not an expression"
        head, rest = node[0], node[1:]
        if head in ("const", "var"):
            ok = len(rest) == 1 and (
                type(rest[0]) in (int, float) if head == "const" else type(rest[0]) is str
            )
        elif head in _BINARY or head in _UNARY:
            arity = 2 if head in _BINARY else 1
            ok = len(rest) == arity and all(type(i) is int and 0 <= i < k for i in rest)
        else:
            return f"the result uses the operation {head!r}, which this exercise does not need"
        if not ok:
            return "returned a malformed expression"
    return None


def evaluate(nodes: Nodes, values: dict[str, float]) -> float:
    """The value of a node list at ``values``; NaN where it is undefined."""
    out: list[float] = []
    try:
        for head, *rest in nodes:
            if head == "const":
                out.append(float(rest[0]))
            elif head == "var":
                out.append(float(values[rest[0]]))
            elif head in _BINARY:
                out.append(float(_BINARY[head](out[rest[0]], out[rest[1]])))
            else:
                out.append(float(_UNARY[head](out[rest[0]])))
    except (ValueError, ZeroDivisionError, OverflowError, TypeError, KeyError):
        return math.nan
    return out[-1]


def tree_size(nodes: Nodes) -> int:
    """Nodes in the tree written out: a shared argument counts every time it is used."""
    sizes: list[int] = []
    for head, *rest in nodes:
        sizes.append(1 if head in ("const", "var") else 1 + sum(sizes[i] for i in rest))
    return sizes[-1]


class _Tree:
    """Writes a random expression as a node list while it is drawn."""

    def __init__(self) -> None:
        self.nodes: Nodes = []

    def add(self, *node: Any) -> int:
        self.nodes.append(list(node))
        return len(self.nodes) - 1

    def leaf(self, rng: random.Random, names: tuple[str, ...]) -> int:
        if rng.random() < 0.35:
            return self.add("const", rng.choice([1, 2, 3, -1, 0.5, -2.5]))
        return self.add("var", rng.choice(names))

    def positive(self, i: int) -> int:
        """``1 + i*i``: an argument where log, division and fractional powers are defined."""
        return self.add("add", self.add("const", 1), self.add("mul", i, i))


def _random(rng: random.Random, depth: int, kinds: tuple[str, ...], names: tuple[str, ...]):
    tree = _Tree()

    def grow(level: int) -> int:
        if level == 0 or rng.random() < 0.2:
            return tree.leaf(rng, names)
        kind = rng.choice(kinds)
        if kind in ("add", "sub", "mul"):
            return tree.add(kind, grow(level - 1), grow(level - 1))
        if kind in ("neg", "sin", "cos", "exp"):
            return tree.add(kind, grow(level - 1))
        if kind == "log":
            return tree.add("log", tree.positive(grow(level - 1)))
        if kind == "div":
            return tree.add("div", grow(level - 1), tree.positive(grow(level - 1)))
        # pow with a constant exponent, of a positive base so that 0.5 is defined
        base = tree.positive(grow(level - 1))
        return tree.add("pow", base, tree.add("const", rng.choice([2, 3, 0.5, -1])))

    grow(depth)
    return tree.nodes


def _points(rng: random.Random, names: tuple[str, ...], lo: float = -1.5, hi: float = 1.5):
    return [{name: rng.uniform(lo, hi) for name in names} for _ in range(3)]


def _nodes(seen: dict, key: str) -> tuple[Nodes | None, str | None]:
    nodes = seen.get(key)
    problem = _valid(nodes)
    return (None, problem) if problem else (nodes, None)


# --- 1, 2: the product and quotient rules -----------------------------------

_VARYING = ("sin", "exp", "log", "cube", "x+2")


def _rule_cases(pairs: Callable[[random.Random], list[tuple[str, str]]]) -> Callable:
    def cases(rng: random.Random) -> list[Case]:
        return [
            {"u": u, "v": v, "xs": [rng.uniform(0.5, 2.5) for _ in range(3)]} for u, v in pairs(rng)
        ]

    return cases


def _judge_rule(exact: Callable[[float, float, float, float], float], what: str) -> Callable:
    def judge(case: Case, seen: dict) -> str | None:
        nodes, problem = _nodes(seen, "derivative")
        if problem:
            return problem
        f, df, g, dg = _LIBRARY[case["u"]][2:] + _LIBRARY[case["v"]][2:]
        for x in case["xs"]:
            want = exact(f(x), df(x), g(x), dg(x))
            if not close(evaluate(nodes, {"x": x}), want, 1e-9, 1e-9):
                return f"wrong derivative of {what} for u = {case['u']}, v = {case['v']}"
        return None

    return judge


def _pairs(rng: random.Random) -> list[tuple[str, str]]:
    return [tuple(rng.sample(_VARYING, 2)) for _ in range(4)]


PRODUCT = register(
    Exercise(
        "02.product_rule",
        "The product rule",
        1,
        "product_rule(u, du, v, dv) returns an expression for d(u v)/dx, "
        "given u, v and their derivatives du, dv.",
        ("product_rule",),
        (
            Check(
                "d(uv) when u and v both depend on x",
                "each factor is differentiated once while the other stays: u dv + v du (not du dv)",
                _rule_cases(_pairs),
                _run_rule("product_rule"),
                _judge_rule(lambda f, df, g, dg: f * dg + g * df, "u v"),
            ),
            Check(
                "d(u c) = c du for a constant factor",
                "with v a constant, dv = 0 and only the term v du is left: do not drop it",
                _rule_cases(lambda rng: [(u, "3") for u in rng.sample(_VARYING, 3)]),
                _run_rule("product_rule"),
                _judge_rule(lambda f, df, g, dg: f * dg + g * df, "u v"),
            ),
        ),
        withheld=WITHHELD,
    )
)

QUOTIENT = register(
    Exercise(
        "02.quotient_rule",
        "The quotient rule",
        1,
        "quotient_rule(u, du, v, dv) returns an expression for d(u / v)/dx.",
        ("quotient_rule",),
        (
            Check(
                "d(u/v) when u and v both depend on x",
                "(du v - u dv) / v²: the order of the subtraction matters, and the "
                "denominator is squared",
                _rule_cases(_pairs),
                _run_rule("quotient_rule"),
                _judge_rule(lambda f, df, g, dg: (df * g - f * dg) / (g * g), "u / v"),
            ),
            Check(
                "d(c/v) = -c dv / v² for a constant numerator",
                "with u a constant, du = 0 and the derivative is -u dv / v²: mind the sign",
                _rule_cases(lambda rng: [("3", v) for v in rng.sample(_VARYING, 3)]),
                _run_rule("quotient_rule"),
                _judge_rule(lambda f, df, g, dg: (df * g - f * dg) / (g * g), "u / v"),
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- 3: diff -------------------------------------------------------------------


def _diff_cases(kinds: tuple[str, ...], names: tuple[str, ...] = ("x",)) -> Callable:
    def cases(rng: random.Random) -> list[Case]:
        return [
            {
                "tree": _random(rng, 3, kinds, names),
                "var": rng.choice(names),
                "points": _points(rng, names),
            }
            for _ in range(6)
        ]

    return cases


def _judge_diff(case: Case, seen: dict) -> str | None:
    nodes, problem = _nodes(seen, "derivative")
    if problem:
        return problem
    tree, var = case["tree"], case["var"]
    for point in case["points"]:
        x = point[var]
        want = central_difference(
            lambda t, point=point: evaluate(tree, {**point, var: t}), x, 1e-5 * max(1.0, abs(x))
        )
        if not close(evaluate(nodes, point), want, 1e-5, 1e-5):
            shown = ", ".join(f"{k}={v:.3g}" for k, v in point.items())
            return f"wrong derivative with respect to {var} at {shown}"
    return None


def _diff_check(name: str, hint: str, kinds: tuple[str, ...], names=("x",)) -> Check:
    return Check(name, hint, _diff_cases(kinds, names), _run_diff, _judge_diff)


DIFF = register(
    Exercise(
        "02.my_diff",
        "Differentiating a tree",
        3,
        "my_diff(expr, var) returns the derivative of expr with respect to the Symbol var, "
        "for expressions made of +, -, *, /, unary -, ** with a constant exponent, "
        "sin, cos, exp and log.",
        ("my_diff",),
        (
            _diff_check(
                "sums and products",
                "differentiate both arguments of a node and combine them with the sum or "
                "product rule; a constant's derivative is 0 and the variable's is 1",
                ("add", "sub", "mul", "neg"),
            ),
            _diff_check(
                "chain rule through sin, cos, exp and log",
                "d f(g) = f'(g) · dg: multiply by the derivative of the argument, "
                "and d cos(g) = -sin(g) dg",
                ("sin", "cos", "exp", "log", "mul"),
            ),
            _diff_check(
                "quotients and constant powers",
                "d(a / b) = (da b - a db) / b², d(a**c) = c a**(c - 1) da for a constant c",
                ("div", "pow", "add", "mul"),
            ),
            _diff_check(
                "other symbols are constants",
                "a Symbol other than var has derivative 0; compare names (or use ==), "
                "not just the node's class",
                ("add", "mul", "sin", "div"),
                ("x", "y"),
            ),
        ),
        requires={"product_rule": product_reference, "quotient_rule": quotient_reference},
        withheld=WITHHELD,
    )
)


# --- 4: size -------------------------------------------------------------------


def _logistic_tree(n: int) -> Nodes:
    """l_n of the logistic map, each l_k built once and used twice (a shared subtree)."""
    tree = _Tree()
    term = tree.add("var", "x")
    four, one = tree.add("const", 4), tree.add("const", 1)
    for _ in range(n - 1):
        term = tree.add("mul", tree.add("mul", four, term), tree.add("sub", one, term))
    return tree.nodes


def _size_cases(kind: str) -> Callable:
    def cases(rng: random.Random) -> list[Case]:
        if kind == "leaves":
            return [{"tree": [["var", "x"]]}, {"tree": [["const", rng.randint(1, 9)]]}]
        if kind == "shared":
            return [{"tree": _logistic_tree(n)} for n in rng.sample(range(2, 7), 3)]
        unshared = ("add", "sub", "mul", "neg", "sin", "exp")  # log, div, pow reuse a node
        return [{"tree": _random(rng, 4, unshared, ("x", "y"))} for _ in range(5)]

    return cases


def _judge_size(case: Case, seen: dict) -> str | None:
    got, want = seen.get("size"), tree_size(case["tree"])
    if type(got) is not int:
        return f"returned {describe(got)} where a whole number was expected"
    return None if got == want else f"counted {got} nodes in a tree of {want}"


SIZE = register(
    Exercise(
        "02.my_size",
        "The size of an expression",
        1,
        "my_size(expr) returns the number of nodes in the expression tree, "
        "counting a subexpression every time it occurs.",
        ("my_size",),
        (
            Check(
                "a constant or a symbol is one node",
                "a leaf has no args: its size is 1",
                _size_cases("leaves"),
                _run_size,
                _judge_size,
            ),
            Check(
                "counts every node of a tree",
                "count the node itself plus the sizes of all its args, at every level",
                _size_cases("random"),
                _run_size,
                _judge_size,
            ),
            Check(
                "counts a shared subexpression each time it is used",
                "the logistic map uses l_k twice in l_(k+1): the tree written out repeats it, "
                "so do not skip nodes you have seen before",
                _size_cases("shared"),
                _run_size,
                _judge_size,
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- 5: constant folding ----------------------------------------------------


def _fold_tree(rng: random.Random) -> Nodes:
    """A random tree whose leaves are often constants, so whole subtrees can be folded."""
    tree = _Tree()

    def grow(level: int, constant: bool) -> int:
        if level == 0 or rng.random() < 0.15:
            if constant or rng.random() < 0.5:
                return tree.add("const", rng.choice([1, 2, 3, 0.5, -1.5]))
            return tree.add("var", rng.choice(["x", "y"]))
        constant = constant or rng.random() < 0.4
        kind = rng.choice(["add", "sub", "mul", "div", "neg", "sin", "exp"])
        if kind in ("neg", "sin", "exp"):
            return tree.add(kind, grow(level - 1, constant))
        if kind == "div":
            return tree.add("div", grow(level - 1, constant), tree.positive(grow(level - 1, True)))
        return tree.add(kind, grow(level - 1, constant), grow(level - 1, constant))

    grow(4, False)
    return tree.nodes


def _finite_fold_case(rng: random.Random) -> Case:
    """A random tree and points where its value is a finite number: where the tree itself
    overflows (exp of exp of ...), no folding can be judged by its value."""
    while True:
        case = {"tree": _fold_tree(rng), "points": _points(rng, ("x", "y"))}
        if all(math.isfinite(evaluate(case["tree"], p)) for p in case["points"]):
            return case


def _fold_cases(rng: random.Random) -> list[Case]:
    cases = [_finite_fold_case(rng) for _ in range(6)]
    # ((2 + 3) * 4) * x: the constant subtree is two levels deep
    nested = [["const", 2], ["const", 3], ["add", 0, 1], ["const", 4], ["mul", 2, 3]]
    nested += [["var", "x"], ["mul", 4, 5]]
    return [*cases, {"tree": nested, "points": _points(rng, ("x", "y"))}]


def _judge_fold_value(case: Case, seen: dict) -> str | None:
    nodes, problem = _nodes(seen, "folded")
    if problem:
        return problem
    for point in case["points"]:
        if not close(evaluate(nodes, point), evaluate(case["tree"], point), 1e-9, 1e-12):
            return "the folded expression has a different value from the original"
    return None


def _judge_folded(case: Case, seen: dict) -> str | None:
    nodes, problem = _nodes(seen, "folded")
    if problem:
        return problem
    constant = [head == "const" for head, *_ in nodes]
    for head, *args in nodes:
        if head not in ("const", "var") and all(constant[i] for i in args):
            return f"a {head} node of constants is left unfolded"
    if tree_size(nodes) > tree_size(case["tree"]):
        return "the folded expression is larger than the original"
    # Folding is only folding if the value stays: this check is the main property.
    return _judge_fold_value(case, seen)


FOLD = register(
    Exercise(
        "02.fold_constants",
        "Constant folding",
        2,
        "fold_constants(expr) returns an expression with the same value in which every "
        "subexpression without a Symbol has been replaced by one Constant.",
        ("fold_constants",),
        (
            Check(
                "folds nested constant subtrees",
                "fold the arguments first (recursively), then fold the node if all its "
                "folded arguments are Constants: (2 + 3) * 4 becomes 20",
                _fold_cases,
                _run_fold,
                _judge_folded,
            ),
            Check(
                "keeps the value",
                "a folded Constant must hold the value of the subtree it replaces; "
                "keep every subtree that contains a Symbol",
                _fold_cases,
                _run_fold,
                _judge_fold_value,
            ),
        ),
        withheld=WITHHELD,
    )
)
