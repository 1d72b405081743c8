"""Chapter 02's exercises: symbolic differentiation on the package's expression trees.

A case carries its expression as plain data, a flat list of nodes in which
each node names its arguments by position (``["const", 2]``, ``["var", "x"]``,
``["mul", 0, 1]``). ``run`` builds the package's ``Expr`` from it, calls the
student's function and writes the returned tree back as such a list, reading
only nodes of the package's exact classes (a number returned stays a number: it is
not an expression). ``judge`` then evaluates those lists with its own arithmetic
(:mod:`.trees`, never the package's ``evaluate``) and compares with independent
oracles: the exact derivative of the original tree by forward mode, in floats and in
40-digit decimals (a derivative is earned by the rules: a difference quotient written
as an expression agrees in floats, never to 25 digits), and node counts from its own
traversal.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ..scalar.symbolic import Symbol
from .explain import Kind
from .plain import close, describe, ratio
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter02 import (
    _LIBRARY,
    _run_diff,
    _run_fold,
    _run_rule,
    _run_size,
    build,
    encode,
)
from .steps import reference_steps
from .trees import Nodes, evaluate, is_tree, tangent, tree_size, valid

# The package's own answers to this chapter; the batch grader withholds them (the
# statements say so).
WITHHELD = (
    "micrograd_edu.scalar.symbolic.diff",
    "micrograd_edu.scalar.symbolic.simplify",
    "micrograd_edu.scalar.symbolic.size",
    "micrograd_edu.grading.references.quotient_reference",
    # The rule table's derivatives, which the symbolic namespace turns into expressions
    # (the quotient and power rules, and a whole differentiator): absent from the child.
    "micrograd_edu.rules._rule(*partials)",
)
_WITHHELD_SAID = (
    " The package's diff, simplify and size are withheld while this chapter is checked."
)
EXPRESSION = Kind("an expression", is_tree)


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


def _random(
    rng: random.Random,
    depth: int,
    kinds: tuple[str, ...],
    names: tuple[str, ...],
    root: str | None = None,
):
    """A random tree of the operations ``kinds``; ``root`` fixes the top operation (whose
    arguments are then never bare leaves, so its rule meets a non-trivial inner one)."""
    tree = _Tree()

    def grow(level: int, force: bool = False) -> int:
        top = level == depth and root is not None
        if not (top or force) and (level == 0 or rng.random() < 0.2):
            return tree.leaf(rng, names)
        kind = root if top else rng.choice(kinds)

        def arg() -> int:
            return grow(level - 1, force=top)

        if kind in ("add", "sub", "mul"):
            return tree.add(kind, arg(), arg())
        if kind in ("neg", "sin", "cos", "exp"):
            return tree.add(kind, arg())
        if kind == "log":
            return tree.add("log", tree.positive(arg()))
        if kind == "div":
            return tree.add("div", arg(), tree.positive(arg()))
        # pow with a constant exponent, of a positive base so that 0.5 is defined
        base = tree.positive(arg())
        return tree.add("pow", base, tree.add("const", rng.choice([2, 3, 0.5, -1])))

    grow(depth)
    return tree.nodes


def _points(rng: random.Random, names: tuple[str, ...], lo: float = -1.5, hi: float = 1.5):
    return [{name: rng.uniform(lo, hi) for name in names} for _ in range(3)]


def _nodes(seen: dict, key: str) -> tuple[Nodes | None, str | None]:
    nodes = seen.get(key)
    problem = valid(nodes)
    return (None, problem) if problem else (nodes, None)


_EXACT = Decimal("1e-25")  # what a derivative by the rules keeps in 40-digit arithmetic


def _digits(got: Any, want: Any) -> float:
    """How many digits ``got`` shares with ``want`` (inf: all; 0 for NaN or far off)."""
    if not (math.isfinite(got) and math.isfinite(want)):
        return 0.0
    error = abs(got - want) / max(abs(want), type(want)(1e-300))
    return math.inf if error == 0 else max(0.0, -math.log10(float(error)))


def _compare(nodes: Nodes, tree: Nodes, points: list[dict], var: str) -> tuple[int, float] | None:
    """Where the derivative ``nodes`` differs from that of ``tree`` (the index of the
    point, and how many digits it keeps there), or None: right in floats (to 1e-9) at
    every point and then, in 40-digit arithmetic, to 25 digits."""
    for k, point in enumerate(points):
        got, want = evaluate(nodes, point), tangent(tree, point, var)
        if not close(got, want, 1e-9, 1e-9):
            return k, _digits(got, want)
    for k, point in enumerate(points):
        got, want = evaluate(nodes, point, exact=True), tangent(tree, point, var, exact=True)
        if not (got.is_finite() and abs(got - want) <= _EXACT * max(1, abs(want))):
            return k, _digits(got, want)
    return None


def _said(what: str, digits: float, got: float, want: float) -> str:
    """What is wrong with a derivative, without the right one."""
    if digits >= 3:
        return f"{what} agrees with the right one to {int(digits)} digits only"
    if want and close(-got, want, 1e-9, 1e-9):
        return f"{what} has the wrong sign"
    if want and got and math.isfinite(got):
        return f"{what} is {ratio(got, want)} times the right one"
    return f"{what} is 0, where the right one is not" if got == 0 else f"{what} is wrong"


def _approximate(tree_of: Callable[[Case], tuple[Nodes, list[dict], str]]) -> Mistake:
    """A derivative right in floats but not exactly: an approximation, such as a
    difference quotient written as an expression."""

    def matches(case: Case, seen: dict) -> bool:
        nodes, problem = _nodes(seen, "derivative")
        if problem:
            return False
        tree, points, var = tree_of(case)
        found = _compare(nodes, tree, points, var)
        return found is not None and all(
            _digits(evaluate(nodes, p), tangent(tree, p, var)) >= 3 for p in points
        )

    return Mistake(
        matches,
        "right to many digits but not exactly: a difference quotient written as an "
        "expression is an approximation; build the derivative from the rules, which give it "
        "exactly",
        name="approximation",
    )


# --- 1, 2: the quotient rule and the general power rule --------------------------

_VARYING = ("sin", "exp", "log", "cube", "x+2")
_WRITTEN = {"sin": "sin(x)", "exp": "exp(x)", "log": "log(x)", "cube": "x**3", "x+2": "x + 2"}
_WRITTEN["3"] = "3"
_POSITIVE = ("sin", "exp", "cube", "x+2")  # positive where the cases draw x, in [0.5, 2.5]

Rule = Callable[[float, float, float, float], float]  # (u, du, v, dv) at one x -> d/dx


def _rule_cases(pairs: Callable[[random.Random], list[tuple[str, str]]]) -> Callable:
    def cases(rng: random.Random) -> list[Case]:
        return [
            {"u": u, "v": v, "xs": [rng.uniform(0.5, 2.5) for _ in range(3)]} for u, v in pairs(rng)
        ]

    return cases


def _rule_values(case: Case, rule: Rule) -> list[float]:
    """``rule`` at each x of the case, for its u and v (NaN where it is undefined)."""
    out = []
    for x in case["xs"]:
        f, df, g, dg = (h(x) for h in _LIBRARY[case["u"]][2:] + _LIBRARY[case["v"]][2:])
        try:
            out.append(float(rule(f, df, g, dg)))
        except (ZeroDivisionError, ValueError, OverflowError):
            out.append(math.nan)
    return out


def _seen_values(case: Case, seen: dict) -> list[float] | None:
    nodes, problem = _nodes(seen, "derivative")
    return None if problem else [evaluate(nodes, {"x": x}) for x in case["xs"]]


def _rule_tree(function: str) -> Callable[[Case], tuple[Nodes, list[dict], str]]:
    """The tree of u / v or u ** v for the case's u and v, its points and its variable."""

    def tree_of(case: Case) -> tuple[Nodes, list[dict], str]:
        x = Symbol("x")
        u, v = (_LIBRARY[case[k]][0](x) for k in ("u", "v"))
        expr = u / v if function == "quotient_rule" else u**v
        return encode(expr), [{"x": t} for t in case["xs"]], "x"

    return tree_of


def _judge_rule(exact: Rule, what: str, function: str) -> Callable:
    tree_of = _rule_tree(function)

    def judge(case: Case, seen: dict) -> str | None:
        nodes, problem = _nodes(seen, "derivative")
        if problem:
            return problem
        tree, points, var = tree_of(case)
        found = _compare(nodes, tree, points, var)
        if found is None:
            return None
        point = points[found[0]]
        where = f"the derivative of {what} for u = {_WRITTEN[case['u']]}, v = {_WRITTEN[case['v']]}"
        return _said(where, found[1], evaluate(nodes, point), tangent(tree, point, var))

    return judge


def _rule_is(model: Rule, exact: Rule) -> Callable[[Case, dict], bool]:
    """The mistake whose derivative is ``model``: it gives the student's values on the case,
    and differs from the right ones there."""

    def matches(case: Case, seen: dict) -> bool:
        got = _seen_values(case, seen)
        mistaken, right = _rule_values(case, model), _rule_values(case, exact)
        return (
            got is not None
            and any(not close(m, r, 1e-9, 1e-9) for m, r in zip(mistaken, right, strict=True))
            and all(close(g, m, 1e-9, 1e-9) for g, m in zip(got, mistaken, strict=True))
        )

    return matches


def _pairs(names: tuple[str, ...] = _VARYING) -> Callable[[random.Random], list]:
    return lambda rng: [tuple(rng.sample(names, 2)) for _ in range(4)]


def _rule_check(
    name: str,
    pairs: Callable[[random.Random], list[tuple[str, str]]],
    function: str,
    exact: Rule,
    mistakes: tuple[Mistake, ...],
) -> Check:
    """A check of the rule ``function`` on the (u, v) ``pairs``, against ``exact``."""
    what = {"quotient_rule": "u / v", "power_rule": "u ** v"}[function]
    return Check(
        name,
        "",
        _rule_cases(pairs),
        _run_rule(function),
        _judge_rule(exact, what, function),
        mistakes=(*mistakes, _approximate(_rule_tree(function))),
        right=lambda case: {"derivative": EXPRESSION},
    )


def _quotient(f: float, df: float, g: float, dg: float) -> float:
    return (df * g - f * dg) / (g * g)


_QUOTIENT_MISTAKES = tuple(
    Mistake(_rule_is(model, _quotient), hint, name=name)
    for name, model, hint in (
        (
            "plus",
            lambda f, df, g, dg: (df * g + f * dg) / (g * g),
            "where v grows and u stays, u / v must shrink: your term for v's change has the "
            "wrong sign",
        ),
        (
            "sign",
            lambda f, df, g, dg: (f * dg - df * g) / (g * g),
            "your derivative has the opposite sign of the right one: which of the two terms "
            "carries the minus, the one where u changes or the one where v does?",
        ),
        (
            "v times",
            lambda f, df, g, dg: (df * g - f * dg) / g,
            "your derivative is v times too large: differentiate 1 / v on its own (a power of "
            "v, and the chain rule) and look at the power of v it leaves",
        ),
        (
            "quotient of derivatives",
            lambda f, df, g, dg: df / dg,
            "the derivative of a quotient is not the quotient of the derivatives: try u = v, "
            "whose quotient is the constant 1",
        ),
    )
)

QUOTIENT = register(
    Exercise(
        "02.quotient_rule",
        "The quotient rule",
        2,
        "quotient_rule(u, du, v, dv) returns an expression for d(u / v)/dx, given u, v and "
        "their derivatives du, dv." + _WITHHELD_SAID,
        ("quotient_rule",),
        tuple(
            _rule_check(name, pairs, "quotient_rule", _quotient, _QUOTIENT_MISTAKES)
            for name, pairs in (
                ("d(u/v) when u and v both depend on x", _pairs()),
                (
                    "d(c/v) for a constant numerator",
                    lambda rng: [("3", v) for v in rng.sample(_VARYING, 3)],
                ),
            )
        ),
        withheld=WITHHELD,
    )
)


def _power(f: float, df: float, g: float, dg: float) -> float:
    return f**g * (dg * math.log(f) + g * df / f)


_POWER_MISTAKES = tuple(
    Mistake(_rule_is(model, _power), hint, name=name)
    for name, model, hint in (
        (
            "power only",
            lambda f, df, g, dg: g * f ** (g - 1) * df,
            "your derivative is right only where the exponent is a constant: here v depends "
            "on x too, and its change moves u ** v as well",
        ),
        (
            "exponential only",
            lambda f, df, g, dg: f**g * math.log(f) * dg,
            "your derivative is right only where the base is a constant: here u depends on x "
            "too, and its change moves u ** v as well",
        ),
        (
            "u times",
            lambda f, df, g, dg: f**g * (dg * math.log(f) + g * df),
            # v * u**v * du, from the power rule with the power not lowered, or from
            # log(u) differentiated as 1: both give this, so the hint names both
            "your term for u's change is u times too large: differentiating u ** v in u "
            "brings v down and lowers the power of u by one (through the logarithm: the "
            "derivative of log(u) is not 1)",
        ),
        (
            "log only",
            lambda f, df, g, dg: dg * math.log(f) + g * df / f,
            "you found the derivative of log(u ** v), not of u ** v: what does the chain rule "
            "ask you to multiply by, to undo the logarithm?",
        ),
        (
            "no du",
            lambda f, df, g, dg: f**g * (dg * math.log(f) + g / f),
            "your term for u's change lacks du: log(u) changes by 1/u per unit of u, and u "
            "itself changes by du per unit of x (the chain rule, inside the logarithm)",
        ),
    )
)

POWER = register(
    Exercise(
        "02.power_rule",
        "The general power rule",
        2,
        "power_rule(u, du, v, dv) returns an expression for d(u ** v)/dx for a positive u, "
        "where u and v may both depend on x." + _WITHHELD_SAID,
        ("power_rule",),
        tuple(
            _rule_check(name, pairs, "power_rule", _power, _POWER_MISTAKES)
            for name, pairs in (
                (
                    "d(u**v) when u and v both depend on x",
                    lambda rng: [(u, rng.choice(_VARYING)) for u in rng.sample(_POSITIVE, 3)],
                ),
                (
                    "d(u**c) for a constant exponent",
                    lambda rng: [(u, "3") for u in rng.sample(_POSITIVE, 3)],
                ),
                (
                    "d(c**v) for a constant base",
                    lambda rng: [("3", v) for v in rng.sample(_VARYING, 3)],
                ),
            )
        ),
        withheld=WITHHELD,
    )
)


# --- 3: diff -------------------------------------------------------------------


def _diff_cases(kinds: tuple[str, ...], names: tuple[str, ...] = ("x",)) -> Callable:
    """One tree with each of ``kinds`` at its top (so that every rule of the check is met
    with an inner expression that is not the variable itself), then four random ones."""

    def case(root: str | None, rng: random.Random) -> Case:
        while True:  # a tree at whose points the mistakes its top rule invites show
            tree, points = _random(rng, 3, kinds, names, root), _points(rng, names)
            var = names[0] if root else rng.choice(names)
            shows = [*_SHOWN_BY.get(root or "", ()), *(["every symbol"] if len(names) > 1 else [])]
            right = [tangent(tree, p, var) for p in points]
            if (
                all(math.isfinite(r) for r in right)
                and _a_quotient_shows(tree, var)
                and all(
                    any(
                        not close(tangent(tree, p, var, m), r, 1e-6, 1e-6)
                        for p, r in zip(points, right, strict=True)
                    )
                    for m in shows
                )
            ):
                return {"tree": tree, "var": var, "points": points}

    return lambda rng: [case(root, rng) for root in [*kinds, *[None] * 4]]


def _a_quotient_shows(tree: Nodes, var: str) -> bool:
    """Whether a central difference quotient of the tree, written as an expression, is
    inexact: unless the tree is a polynomial in var of degree 2 or less (its third
    derivative 0), where the quotient is the derivative."""
    degree: list[float] = []
    for head, *rest in tree:
        if head == "const":
            degree.append(0)
        elif head == "var":
            degree.append(1 if rest[0] == var else 0)
        elif head in ("add", "sub"):
            degree.append(max(degree[i] for i in rest))
        elif head == "mul":
            degree.append(sum(degree[i] for i in rest))
        elif head == "neg":
            degree.append(degree[rest[0]])
        else:  # sin, exp, log, a quotient, a power: no polynomial of degree 2
            degree.append(math.inf if any(degree[i] for i in rest) else 0)
    return degree[-1] >= 3


# The mistakes a tree with this operation at its top must reveal (see _tangent).
_SHOWN_BY = {
    "mul": ("product of derivatives",),
    "sin": ("no chain rule",),
    "cos": ("no chain rule", "cos sign"),
    "exp": ("no chain rule",),
    "log": ("no chain rule",),
    "pow": ("no chain rule", "exponent kept"),
}


def _diff_tree(case: Case) -> tuple[Nodes, list[dict], str]:
    return case["tree"], case["points"], case["var"]


def _judge_diff(case: Case, seen: dict) -> str | None:
    nodes, problem = _nodes(seen, "derivative")
    if problem:
        return problem
    tree, points, var = _diff_tree(case)
    found = _compare(nodes, tree, points, var)
    if found is None:
        return None
    point = points[found[0]]
    shown = ", ".join(f"{name}={value:.3g}" for name, value in point.items())
    what = f"the derivative of {build(tree)} with respect to {var} at {shown}"
    return _said(what, found[1], evaluate(nodes, point), tangent(tree, point, var))


def _diff_is(mistake: str) -> Callable[[Case, dict], bool]:
    """The mistake whose derivative the student's tree computes at every point of the case
    (and which differs from the right derivative at one of them at least)."""

    def matches(case: Case, seen: dict) -> bool:
        nodes, problem = _nodes(seen, "derivative")
        if problem:
            return False
        tree, var, points = case["tree"], case["var"], case["points"]
        model = [tangent(tree, p, var, mistake) for p in points]
        right = [tangent(tree, p, var) for p in points]
        return any(not close(m, r, 1e-9, 1e-9) for m, r in zip(model, right, strict=True)) and all(
            close(evaluate(nodes, p), m, 1e-9, 1e-9) for p, m in zip(points, model, strict=True)
        )

    return matches


_CHAIN_HINT = (
    "a function of an inner expression changes as fast as the function's own derivative "
    "times how fast the inner expression changes: the chain rule, at every level"
)
# the chain rule forgotten in one function only (the others right): the same mistake
_ONE_UNCHAINED = tuple(
    Mistake(_diff_is(f"no chain rule in {op}"), _CHAIN_HINT, name="no chain rule")
    for op in ("sin", "cos", "exp", "log")
)
_DIFF_MISTAKES = _ONE_UNCHAINED + tuple(
    Mistake(_diff_is(mistake), hint, name=mistake)
    for mistake, hint in (
        ("no chain rule", _CHAIN_HINT),
        (
            "cos sign",
            "your derivative of cos has the wrong sign: where sin increases, cos decreases",
        ),
        (
            "product of derivatives",
            "the derivative of a product is not the product of the derivatives: try x * x",
        ),
        (
            "exponent kept",
            "your power rule keeps the exponent as it was: check it on x ** 2",
        ),
        (
            "every symbol",
            "another Symbol than var is a constant here: its derivative is 0, so compare "
            "names (or use ==), not just the node's class",
        ),
    )
)


def _zero_everywhere(case: Case, seen: dict) -> bool:
    nodes, problem = _nodes(seen, "derivative")
    return problem is None and all(evaluate(nodes, p) == 0 for p in case["points"])


# A derivative that is 0 at every point, whatever the tree: var was never recognised in it.
# `expr is var` does that (the var passed in is another Symbol object than the tree's x),
# as the statement warns.
_NEVER_VAR = Mistake(
    _zero_everywhere,
    "your derivative is 0 everywhere: var was never recognised in the tree. The Symbol "
    "passed as var is another object than the one inside expr: compare names (or use ==), "
    "not `is`",
    name="var never found",
)


def _diff_check(name: str, kinds: tuple[str, ...], names=("x",)) -> Check:
    return Check(
        name,
        "",
        _diff_cases(kinds, names),
        _run_diff,
        _judge_diff,
        mistakes=(*_DIFF_MISTAKES, _approximate(_diff_tree), _NEVER_VAR),
        right=lambda case: {"derivative": EXPRESSION},
    )


DIFF = register(
    Exercise(
        "02.my_diff",
        "Differentiating a tree",
        3,
        "my_diff(expr, var) returns the derivative of expr with respect to the Symbol var, "
        "for expressions made of +, -, *, /, unary -, ** with a constant exponent, "
        "sin, cos, exp and log." + _WITHHELD_SAID,
        ("my_diff",),
        (
            _diff_check("sums and products", ("add", "sub", "mul", "neg")),
            _diff_check(
                "chain rule through sin, cos, exp and log", ("sin", "cos", "exp", "log", "mul")
            ),
            _diff_check("quotients and constant powers", ("div", "pow", "add", "mul")),
            # sums and products only: a mistake in the other rules does not show here
            _diff_check("other symbols are constants", ("add", "sub", "mul", "neg"), ("x", "y")),
        ),
        requires=reference_steps(quotient_rule="quotient_reference"),
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
            # from l_4 on, no two typical wrong counts coincide
            return [{"tree": _logistic_tree(n)} for n in rng.sample(range(4, 8), 3)]
        unshared = ("add", "sub", "mul", "neg", "sin", "exp")  # log, div, pow reuse a node
        out: list[Case] = []
        while len(out) < 5:  # trees on which no two typical wrong counts coincide
            tree = _random(rng, 4, unshared, ("x", "y"))
            wrong = [n for n in _counts(tree).values() if n != tree_size(tree)]
            if len(set(wrong)) == len(wrong) >= 3:
                out.append({"tree": tree})
        return out

    return cases


def _counts(nodes: Nodes) -> dict[str, int]:
    """What typical wrong counts of a tree give: each distinct node once, the leaves or the
    operations written out, the top node and its arguments only."""
    leaves: list[int] = []
    ops: list[int] = []
    for head, *rest in nodes:
        leaf = head in ("const", "var")
        leaves.append(1 if leaf else sum(leaves[i] for i in rest))
        ops.append(0 if leaf else 1 + sum(ops[i] for i in rest))
    return {
        "distinct": len(nodes),
        "leaves": leaves[-1],
        "operations": ops[-1],
        "one level": len(nodes[-1]),  # the node and its arguments
    }


def _size_is(kind: str) -> Callable[[Case, dict], bool]:
    def matches(case: Case, seen: dict) -> bool:
        model = _counts(case["tree"])[kind]
        return model != tree_size(case["tree"]) and seen.get("size") == model

    return matches


_SIZE_MISTAKES = tuple(
    Mistake(_size_is(kind), hint, name=kind)
    for kind, hint in (
        (
            "distinct",
            "you counted each distinct node once: the tree written out repeats a shared "
            "subexpression every time it is used, so a node seen before counts again",
        ),
        ("leaves", "you counted only the leaves: an operation is a node too"),
        ("operations", "you counted only the operations: a constant or a symbol is a node too"),
        (
            "one level",
            "you counted only the top of the tree: each argument is a tree of its own, with "
            "its own nodes",
        ),
    )
)


def _judge_size(case: Case, seen: dict) -> str | None:
    got, want = seen.get("size"), tree_size(case["tree"])
    if type(got) is float and got.is_integer():  # a count is a count, whatever its type
        got = int(got)
    if type(got) is not int:
        return f"returned {describe(got)} where a whole number was expected"
    return None if got == want else f"counted {got} nodes in a tree of {want}"


def _size_right(case: Case) -> dict:
    return {"size": tree_size(case["tree"])}


SIZE = register(
    Exercise(
        "02.my_size",
        "The size of an expression",
        1,
        "my_size(expr) returns the number of nodes in the expression tree, "
        "counting a subexpression every time it occurs." + _WITHHELD_SAID,
        ("my_size",),
        (
            Check(
                "counts every node of a tree",
                "",
                _size_cases("random"),
                _run_size,
                _judge_size,
                mistakes=_SIZE_MISTAKES,
                right=_size_right,
            ),
            Check(
                "a constant or a symbol is one node",
                "",
                _size_cases("leaves"),
                _run_size,
                _judge_size,
                mistakes=_SIZE_MISTAKES,
                right=_size_right,
            ),
            Check(
                "counts a shared subexpression each time it is used",
                "",
                _size_cases("shared"),
                _run_size,
                _judge_size,
                mistakes=_SIZE_MISTAKES,
                right=_size_right,
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
    # ((2 + 3) * 4) * x: the constant subtree is two levels deep; without x, it all folds
    nested = [["const", 2], ["const", 3], ["add", 0, 1], ["const", 4], ["mul", 2, 3]]
    points = _points(rng, ("x", "y"))
    return [
        *cases,
        {"tree": [*nested, ["var", "x"], ["mul", 4, 5]], "points": points},
        {"tree": nested, "points": points},
    ]


def _folded_once(nodes: Nodes) -> Nodes:
    """``nodes`` with each operation whose arguments were constants *before* folding
    replaced by its value: the fold of one who looks at a node before its arguments."""
    out: Nodes = []
    for k, (head, *rest) in enumerate(nodes):
        if head not in ("const", "var") and all(nodes[i][0] == "const" for i in rest):
            out.append(["const", evaluate(nodes[: k + 1], {})])
        else:
            out.append([head, *rest])
    return out


def _folds_one_level(case: Case, seen: dict) -> bool:
    nodes, problem = _nodes(seen, "folded")
    once = _folded_once(case["tree"])
    return (
        not problem
        and _judge_folded({**case, "tree": once}, {"folded": once})
        is not None  # once is not enough
        and tree_size(nodes) == tree_size(once)
        and _judge_fold_value(case, seen) is None
    )


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
            article = "an" if head[0] in "aeiou" else "a"
            return f"{article} {head} node whose arguments are all constants is left unfolded"
    if tree_size(nodes) > tree_size(case["tree"]):
        return "the folded expression is larger than the original"
    # Folding is only folding if the value stays: this check is the main property.
    return _judge_fold_value(case, seen)


def _shape(nodes: Nodes) -> Any:
    """A tree as nested tuples (the same tree, however its nodes are numbered)."""
    made: list[Any] = []
    for head, *rest in nodes:
        made.append(
            (head, rest[0]) if head in ("const", "var") else (head, *(made[i] for i in rest))
        )
    return made[-1]


def _judge_unchanged(case: Case, seen: dict) -> str | None:
    after = seen.get("input_after")
    if is_tree(after) and valid(after) is None and _shape(after) == _shape(case["tree"]):
        return None
    return "the expression passed in was changed by the call"


def _changed_in_place(case: Case, seen: dict) -> bool:
    """The tree given was rebuilt, value kept: folded where it stood."""
    after = seen.get("input_after")
    return (
        is_tree(after)
        and valid(after) is None
        and _shape(after) != _shape(case["tree"])
        and all(
            close(evaluate(after, p), evaluate(case["tree"], p), 1e-9, 1e-12)
            for p in case["points"]
        )
    )


_TREE = {"folded": EXPRESSION}

FOLD = register(
    Exercise(
        "02.fold_constants",
        "Constant folding",
        2,
        "fold_constants(expr) returns an expression (an Expr; a Constant where everything "
        "folds) with the same value in which every subexpression without a Symbol has been "
        "replaced by one Constant, and leaves expr as it was." + _WITHHELD_SAID,
        ("fold_constants",),
        (
            Check(
                "folds nested constant subtrees",
                "",
                _fold_cases,
                _run_fold,
                _judge_folded,
                mistakes=(
                    Mistake(
                        _folds_one_level,
                        "a node whose arguments become constants only once they are folded "
                        "stays unfolded: fold a node's arguments first, then look at the node",
                        name="one level",
                    ),
                ),
                right=lambda case: _TREE,
            ),
            Check(
                "keeps the value",
                "",
                _fold_cases,
                _run_fold,
                _judge_fold_value,
                right=lambda case: _TREE,
            ),
            Check(
                "leaves the expression it was given unchanged",
                "",
                _fold_cases,
                _run_fold,
                _judge_unchanged,
                mistakes=(
                    Mistake(
                        _changed_in_place,
                        "the expression you were given was folded in place: build new nodes "
                        "(Apply, Constant) and leave the caller's tree as it was, since it may "
                        "be used again",
                        name="in place",
                    ),
                ),
            ),
        ),
        withheld=WITHHELD,
    )
)
