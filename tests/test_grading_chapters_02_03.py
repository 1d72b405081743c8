"""Chapters 02 and 03's checks: correct answers pass on any seed, each mistake fails its check."""

import math
from pathlib import Path

import pytest
from grading_helpers import failed_checks, grade
from mistakes.chapter02 import CORRECT as CHAPTER02
from mistakes.chapter02 import my_diff
from mistakes.chapter03 import CORRECT as CHAPTER03

from micrograd_edu.grading import chapter, exercise, gradebook
from micrograd_edu.grading.notebook import dumps, read_notebook
from micrograd_edu.grading.runners.chapter02 import build, encode
from micrograd_edu.grading.trees import evaluate, tree_size
from micrograd_edu.scalar.dual import Dual
from micrograd_edu.scalar.symbolic import Apply, Constant, Symbol, size

CORRECT = {**CHAPTER02, **CHAPTER03}


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
    result = grade("02.quotient_rule", {"quotient_rule": lambda u, du, v, dv: "du v - u dv"})
    assert not result.passed and "str" in result.checks[0].reason
    # a number is not an expression, and the reason says so (no hint claims a cause)
    result = grade("02.quotient_rule", {"quotient_rule": lambda u, du, v, dv: 1.0})
    assert "returned a number, not an expression" in result.checks[0].reason
    assert not any(c.hint for c in result.checks)


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


def test_a_mydual_derived_from_the_packages_dual_is_refused():
    class Borrowed(Dual):
        pass

    for exercise_id in ("03.dual_divide", "03.dual_power"):
        result = grade(exercise_id, {"MyDual": Borrowed})
        assert result.score == 0 and "derived from" in result.checks[0].reason


# --- the notebooks, through the batch grader (full marks: test_grading_notebooks.py) ---

ROOT = Path(__file__).resolve().parents[1]


def test_the_packages_own_answers_are_withheld_while_grading(tmp_path):
    pytest.importorskip("resource")
    borrowed = {
        "02_symbolic.ipynb": (
            "from micrograd_edu.scalar.symbolic import diff as my_diff, size as my_size"
        ),
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

        def __truediv__(self, other):
            other = other if isinstance(other, Borrows) else Borrows(other)
            return self._dual() / other._dual()

        def __rtruediv__(self, other):
            return other / self._dual()

        def __pow__(self, other):
            return self._dual() ** (other._dual() if isinstance(other, Borrows) else other)

        def __rpow__(self, other):
            return other ** self._dual()

    for mydual in (lambda a, da=0.0: Dual(a, da), Borrows):
        for exercise_id in ("03.dual_divide", "03.dual_power"):
            result = grade(exercise_id, {"MyDual": mydual})
            assert result.score == 0, (exercise_id, result)
            assert "micrograd_edu's Dual" in str(result), result


def test_fold_cases_are_drawn_where_the_expression_has_a_value():
    # A tree that overflows at a point (exp of exp of ...) judged every folding wrong there:
    # the reference failed on 7 seeds in 300 before the cases were drawn finite.
    from micrograd_edu.grading.registry import draw_cases

    ex = exercise("02.fold_constants")
    for i in range(300):
        for check_cases in draw_cases(ex, f"seed{i}"):
            for case in check_cases:
                assert all(math.isfinite(evaluate(case["tree"], p)) for p in case["points"])


def test_a_ratio_near_1_is_not_rounded_to_1():
    # the review's: a product rule missing a term, once said to be "1 times the right one"
    def one_term(expr, var):
        if getattr(expr, "op", "") == "mul":
            a, b = expr.args
            return a * one_term(b, var)
        if getattr(expr, "op", "") in ("add", "sub", "neg"):
            d = [one_term(arg, var) for arg in expr.args]
            return {"add": lambda: d[0] + d[1], "sub": lambda: d[0] - d[1], "neg": lambda: -d[0]}[
                expr.op
            ]()
        return my_diff(expr, var)

    for seed in ("seed0", "seed1", "seed2", "seed3"):
        result = grade("02.my_diff", {"my_diff": one_term}, seed)
        reasons = [c.reason for c in result.checks]
        assert not any(" 1 times" in r or "wrong the" in r for r in reasons), reasons
