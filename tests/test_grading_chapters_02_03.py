"""Chapters 02 and 03's checks: correct answers pass on any seed, each mistake fails its check."""

import math
from pathlib import Path
from types import SimpleNamespace

import pytest
from grading_helpers import explained, failed_checks, grade

from micrograd_edu.forward import Dual
from micrograd_edu.grading import chapter, gradebook
from micrograd_edu.grading.chapter02 import evaluate, tree_size
from micrograd_edu.grading.notebook import dumps, read_notebook
from micrograd_edu.grading.runners.chapter02 import build, encode
from micrograd_edu.symbolic import Apply, Constant, Symbol, size

# --- reference answers -------------------------------------------------------


def product_rule(u, du, v, dv):
    return u * dv + v * du


def quotient_rule(u, du, v, dv):
    return (du * v - u * dv) / v**2


def my_diff(expr, var, other_symbols_vary=False):
    if isinstance(expr, Constant):
        return Constant(0)
    if isinstance(expr, Symbol):
        return Constant(1 if expr.name == var.name or other_symbols_vary else 0)
    a = expr.args
    d = [my_diff(arg, var, other_symbols_vary) for arg in a]
    if expr.op == "add":
        return d[0] + d[1]
    if expr.op == "sub":
        return d[0] - d[1]
    if expr.op == "neg":
        return -d[0]
    if expr.op == "mul":
        return product_rule(a[0], d[0], a[1], d[1])
    if expr.op == "div":
        return quotient_rule(a[0], d[0], a[1], d[1])
    if expr.op == "pow":
        return a[1] * a[0] ** (a[1] - 1) * d[0]
    local = {"sin": a[0].cos(), "cos": -a[0].sin(), "exp": expr, "log": 1 / a[0]}[expr.op]
    return local * d[0]


def my_size(expr):
    return 1 + sum(my_size(arg) for arg in expr.args)


def fold_constants(expr):
    if not isinstance(expr, Apply):
        return expr
    args = tuple(fold_constants(a) for a in expr.args)
    folded = Apply(expr.op, args)
    return Constant(folded.evaluate()) if all(isinstance(a, Constant) for a in args) else folded


class MyDual:
    def __init__(self, primal, tangent=0.0):
        self.primal, self.tangent = float(primal), float(tangent)

    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(
            self.primal * other.primal, self.primal * other.tangent + self.tangent * other.primal
        )

    __rmul__ = __mul__

    def sin(self):
        return MyDual(math.sin(self.primal), math.cos(self.primal) * self.tangent)

    def exp(self):
        return MyDual(math.exp(self.primal), math.exp(self.primal) * self.tangent)

    def log(self):
        return MyDual(math.log(self.primal), self.tangent / self.primal)


def jacobian_forward(f, xs):
    columns = []
    for j in range(len(xs)):
        ys = f(*[Dual(x, float(k == j)) for k, x in enumerate(xs)])
        columns.append([y.tangent for y in ys])
    return [list(row) for row in zip(*columns, strict=True)]


CORRECT = {
    "product_rule": product_rule,
    "quotient_rule": quotient_rule,
    "my_diff": my_diff,
    "my_size": my_size,
    "fold_constants": fold_constants,
    "MyDual": MyDual,
    "jacobian_forward": jacobian_forward,
}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(8)])
@pytest.mark.parametrize("number", ["02", "03"])
def test_reference_answers_pass_every_check_on_any_seed(number, seed):
    for ex in chapter(number):
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])
        assert result.score == ex.points


# --- the plain trees the grader reads ----------------------------------------


def test_encode_build_round_trip_keeps_sharing_and_value():
    x = Symbol("x")
    shared = x.sin() + 1
    expr = shared * shared / (x**2 + 3)
    nodes = encode(expr)
    assert tree_size(nodes) == size(expr) == size(build(nodes))
    assert evaluate(nodes, {"x": 0.7}) == pytest.approx(expr.evaluate(x=0.7), rel=1e-15)
    assert build(nodes) == expr


def test_encode_reads_only_the_packages_node_classes():
    class Lying(Constant):
        pass

    with pytest.raises(TypeError, match="Lying"):
        encode(Symbol("x") + Lying(2))
    with pytest.raises(TypeError, match="str"):
        encode("x + 1")
    loop = Apply("neg", ())
    loop.args = (loop,)  # a cycle must end in an error, not an endless walk
    with pytest.raises(ValueError, match="contains itself"):
        encode(loop)


def test_a_returned_string_or_number_is_named_in_the_reason():
    result = grade("02.product_rule", {"product_rule": lambda u, du, v, dv: "u dv + v du"})
    assert not result.passed and "str" in result.checks[0].reason
    # a plain number is a constant expression: wrong, but readable
    result = grade("02.product_rule", {"product_rule": lambda u, du, v, dv: 1.0})
    assert "wrong derivative" in result.checks[0].reason


# --- each mistake fails the check aimed at it --------------------------------

MISTAKES = [
    (
        "02.product_rule",
        "product_rule",
        lambda u, du, v, dv: du * dv,
        {"d(uv) when u and v both depend on x", "d(u c) = c du for a constant factor"},
    ),
    (
        "02.product_rule",
        "product_rule",
        lambda u, du, v, dv: u * dv,
        {"d(uv) when u and v both depend on x", "d(u c) = c du for a constant factor"},
    ),
    (
        "02.quotient_rule",
        "quotient_rule",
        lambda u, du, v, dv: (u * dv - du * v) / v**2,
        {"d(u/v) when u and v both depend on x", "d(c/v) = -c dv / v² for a constant numerator"},
    ),
    (
        "02.quotient_rule",
        "quotient_rule",
        lambda u, du, v, dv: (du * v - u * dv) / v,
        {"d(u/v) when u and v both depend on x", "d(c/v) = -c dv / v² for a constant numerator"},
    ),
    (
        "02.my_diff",
        "my_diff",
        lambda e, var: my_diff(e, var, other_symbols_vary=True),
        {"other symbols are constants"},
    ),
    ("02.my_size", "my_size", lambda e: sum(1 for _ in e.args) + 1, None),
    (
        "02.fold_constants",
        "fold_constants",
        lambda e: (
            Apply(
                e.op,
                tuple(Constant(a.evaluate()) if not isinstance(a, Symbol) else a for a in e.args),
            )
            if isinstance(e, Apply)
            else e
        ),
        None,
    ),
    (
        "02.fold_constants",
        "fold_constants",
        lambda e: e,
        {"folds nested constant subtrees"},
    ),
]


@pytest.mark.parametrize("exercise_id, name, wrong, failing", MISTAKES)
def test_each_symbolic_mistake_fails_its_check(exercise_id, name, wrong, failing):
    result = grade(exercise_id, {**CORRECT, name: wrong})
    assert not result.passed and result.score < result.max_score
    if failing is not None:
        assert failed_checks(result) == failing
    assert explained(result)


def test_my_diff_without_the_chain_rule_fails_the_chain_rule_check():
    def no_chain(expr, var):
        if isinstance(expr, Apply) and expr.op in ("sin", "cos", "exp", "log"):
            a = expr.args[0]
            return {"sin": a.cos(), "cos": -a.sin(), "exp": expr, "log": 1 / a}[expr.op]
        if isinstance(expr, Apply) and expr.op not in ("sin", "cos", "exp", "log"):
            return my_diff(expr, var)
        return my_diff(expr, var)

    result = grade("02.my_diff", {**CORRECT, "my_diff": no_chain})
    assert "chain rule through sin, cos, exp and log" in failed_checks(result)


def test_counting_distinct_nodes_fails_only_the_shared_subtree_check():
    def distinct(expr, seen=None):
        seen = set() if seen is None else seen
        if id(expr) in seen:
            return 0
        seen.add(id(expr))
        return 1 + sum(distinct(a, seen) for a in expr.args)

    result = grade("02.my_size", {**CORRECT, "my_size": distinct})
    assert failed_checks(result) == {"counts a shared subexpression each time it is used"}


class TangentProduct(MyDual):
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return TangentProduct(self.primal * other.primal, self.tangent * other.tangent)

    __rmul__ = __mul__


class ConstantHasTangentOne(MyDual):
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other, 1.0)
        return MyDual.__mul__(self, other)

    __rmul__ = __mul__


class InPlace(MyDual):
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        self.tangent = self.primal * other.tangent + self.tangent * other.primal
        self.primal *= other.primal
        return self


class NoChainRule(MyDual):
    def sin(self):
        return MyDual(math.sin(self.primal), math.cos(self.primal))

    def exp(self):
        return MyDual(math.exp(self.primal), math.exp(self.tangent))

    def log(self):
        return MyDual(math.log(self.primal), 1 / self.primal)


class ProductNotADual(MyDual):  # right numbers, but the result cannot be multiplied again
    def __mul__(self, other):
        out = MyDual.__mul__(self, other)
        return SimpleNamespace(primal=out.primal, tangent=out.tangent)

    __rmul__ = __mul__


class FunctionsDropTheirType(MyDual):  # right numbers, but exp(x) is no longer a dual
    def exp(self):
        out = MyDual.exp(self)
        return SimpleNamespace(primal=out.primal, tangent=out.tangent)


COMPOSE_MUL = "products compose: (x * y) * z, and x * x"
COMPOSE = "they compose: log(exp(sin(exp(x))))"


@pytest.mark.parametrize(
    "cls, exercise_id, failing",
    [
        (
            TangentProduct,
            "03.dual_mul",
            {"product rule on the tangents", "a plain number is a constant", COMPOSE_MUL},
        ),
        (ConstantHasTangentOne, "03.dual_mul", {"a plain number is a constant"}),
        (InPlace, "03.dual_mul", {"leaves its operands unchanged", COMPOSE_MUL}),
        (ProductNotADual, "03.dual_mul", {COMPOSE_MUL}),
        (
            NoChainRule,
            "03.dual_functions",
            {"sin: chain rule", "exp: chain rule", "log: chain rule", COMPOSE},
        ),
        (FunctionsDropTheirType, "03.dual_functions", {COMPOSE}),
    ],
)
def test_each_dual_mistake_fails_its_check(cls, exercise_id, failing):
    result = grade(exercise_id, {"MyDual": cls})
    assert failed_checks(result) == failing and result.score < result.max_score


def per_entry(f, xs):
    n = len(xs)
    m = len(f(*xs))
    return [
        [f(*[Dual(x, float(k == j)) for k, x in enumerate(xs)])[i].tangent for j in range(n)]
        for i in range(m)
    ]


def transposed(f, xs):
    return [list(col) for col in zip(*jacobian_forward(f, xs), strict=True)]


@pytest.mark.parametrize(
    "wrong, failing",
    [
        (per_entry, {"one forward pass per input"}),
        (transposed, {"the Jacobian of f: ℝⁿ → ℝᵐ"}),
    ],
)
def test_each_jacobian_mistake_fails_its_check(wrong, failing):
    result = grade("03.jacobian_forward", {"jacobian_forward": wrong})
    assert failed_checks(result) == failing
    assert any("transposed" in c.reason for c in result.checks) == (wrong is transposed)


def test_a_mydual_derived_from_the_packages_dual_is_refused():
    class Borrowed(Dual):
        pass

    for exercise_id in ("03.dual_mul", "03.dual_functions"):
        result = grade(exercise_id, {"MyDual": Borrowed})
        assert result.score == 0 and "derived from" in result.checks[0].reason


# --- the notebooks, through the batch grader (full marks: test_grading_notebooks.py) ---

ROOT = Path(__file__).resolve().parents[1]


def test_the_packages_own_answers_are_withheld_while_grading(tmp_path):
    pytest.importorskip("resource")
    borrowed = {
        "02_symbolic.ipynb": "from micrograd_edu.symbolic import diff as my_diff, size as my_size",
        "03_forward.ipynb": "from micrograd_edu import jacobian_forward",
    }
    paths = []
    for name, line in borrowed.items():
        nb = read_notebook(ROOT / "exercises" / name)
        nb["cells"].append({"cell_type": "code", "id": "borrow", "metadata": {}, "outputs": []})
        nb["cells"][-1] |= {"execution_count": None, "source": line}
        paths.append(tmp_path / name)
        paths[-1].write_text(dumps(nb), encoding="utf-8")
    rows = gradebook.grade_all(paths, csv_path=tmp_path / "g.csv")
    for row in rows:
        for result in row.results:
            assert result.score == 0
            if result.id in ("02.my_diff", "02.my_size", "03.jacobian_forward"):
                assert "withheld" in " ".join(c.reason for c in result.checks), result


def test_a_mydual_that_hands_the_work_to_the_package_dual_scores_nothing():
    """A factory returning the package's Dual, or operations that return one, are not
    the student's rules (issue 10)."""

    class Borrows:
        def __init__(self, a, da=0.0):
            self.primal, self.tangent = a, da

        def _dual(self):
            return Dual(self.primal, self.tangent)

        def __mul__(self, other):
            other = other if isinstance(other, Borrows) else Borrows(other)
            return self._dual() * other._dual()

        __rmul__ = __mul__

        def sin(self):
            return self._dual().sin()

        def exp(self):
            return self._dual().exp()

        def log(self):
            return self._dual().log()

    for mydual in (lambda a, da=0.0: Dual(a, da), Borrows):
        for exercise_id in ("03.dual_mul", "03.dual_functions"):
            result = grade(exercise_id, {"MyDual": mydual})
            assert result.score == 0, (exercise_id, result)
            assert "micrograd_edu's Dual" in str(result), result


def test_fold_cases_are_drawn_where_the_expression_has_a_value():
    # A tree that overflows at a point (exp of exp of ...) judged every folding wrong there:
    # the reference failed on 7 seeds in 300 before the cases were drawn finite.
    from micrograd_edu.grading import exercise
    from micrograd_edu.grading.registry import draw_cases

    ex = exercise("02.fold_constants")
    for i in range(300):
        for check_cases in draw_cases(ex, f"seed{i}"):
            for case in check_cases:
                assert all(math.isfinite(evaluate(case["tree"], p)) for p in case["points"])
