"""Chapter 04's checks beyond the mistakes of tests/mistakes/chapter04.py (which
test_grading_mistakes.py grades): what reasons say, that the exercises stay independent,
that the package's answer stays withheld, that the student's own MyValue trains a network."""

import csv

import pytest
from grading_helpers import grade as grade_directly
from mistakes.chapter04 import (
    CORRECT,
    make_value_class,
    no_visited_set,
    pre_order,
    recursive_order,
    unseeded_backward,
)


def grade(exercise_id, functions, seed="test"):
    """Grade with the correct answers standing in for the functions not given."""
    return grade_directly(exercise_id, {**CORRECT, **functions}, seed)


def test_a_recursive_walk_earns_nothing_and_is_told_why():
    result = grade("04.topological_order", {"topological_order": recursive_order})
    main, *_, chain = result.checks
    assert result.score == 0 and "calls deep in Python's call stack: it recurses" in main.reason
    assert "RecursionError" in chain.reason and "keep your own stack" in chain.hint


def test_a_node_listed_repeatedly_is_named_even_past_the_length_the_grader_reads():
    # without a visited set the chain's shared constant is listed once per step:
    # over 10,000 items, more than the grader reads, reported by length
    result = grade("04.topological_order", {"topological_order": no_visited_set})
    reasons = {c.name: c.reason for c in result.checks}
    chain = reasons["a chain of 5000 nodes"]
    assert chain.startswith("returned ") and int(chain.split()[1]) > 10_000
    assert chain.endswith("items for a graph of 5002 nodes: each node must appear once")
    assert "each node must appear once" in reasons["diamonds: shared nodes once, without recursion"]


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


@pytest.mark.parametrize("op", ["pow", "exp", "relu", "div"])
def test_each_operation_is_graded_on_its_own(op):
    for other in {"pow", "exp", "relu", "div"} - {op} - ({"pow"} if op == "div" else set()):
        assert grade(f"04.{op}", {"MyValue": make_value_class(**{other: "todo"})}).passed
    assert grade(f"04.{op}", {"MyValue": make_value_class(**{op: "todo"})}).status == (
        "not attempted"
    )


def test_division_names_a_wrong_power_as_the_cause():
    result = grade("04.div", {"MyValue": make_value_class(pow="k_times_power")})
    reasons = {c.name: c.reason for c in result.checks}
    for name in ("a / b: value and both gradients", "(a - b) / (a + b): nodes used twice"):
        assert reasons[name].startswith("a ** -1 is not right yet (exercise 04.pow)"), reasons
    # no division: the power is not blamed (the check holds, and waits for a / b)
    assert reasons["-a and a - b"].startswith("not counted until")


def test_an_unseeded_backward_is_told_what_the_output_grad_was():
    result = grade("04.backward", {"backward": unseeded_backward})
    assert "the output's grad is 0" in result.checks[0].reason


def test_backward_uses_the_supplied_topological_order():
    # a student whose topological_order is wrong still earns backward's points
    assert grade("04.backward", {"topological_order": pre_order}).passed


def test_a_myvalue_made_by_a_factory_function_is_graded_like_the_class():
    """The grader backpropagates in the order the nodes were made, recorded on the class
    of the nodes, not on the name given: a factory works as the class does."""
    cls = make_value_class()
    for exercise_id in ("04.pow", "04.exp", "04.relu", "04.div"):
        assert grade(exercise_id, {"MyValue": lambda data, cls=cls: cls(data)}).passed
        assert cls.__init__.__name__ == "__init__"  # the recording wrapper is gone


def test_checking_train_twice_in_one_session_counts_the_second_training_too():
    # the two checks of one observation share a training; a second check() in the same
    # kernel must train again, or the grader counts no backward call at all
    for _ in range(2):
        result = grade("04.train", {})
        assert result.passed, [(c.name, c.reason) for c in result.checks]


@pytest.mark.parametrize("op", ["pow", "exp", "relu"])
def test_assigning_a_grad_instead_of_adding_costs_the_accumulation_points(op):
    # `self.grad = ...` in _backward: right on a tree, wrong wherever a node is used twice,
    # which is the lecture's point about reverse mode: it keeps at most 60% of the exercise
    result = grade(f"04.{op}", {"MyValue": make_value_class(**{op: "assign"})}, "seed0")
    assert result.score <= 0.6 * result.max_score + 1e-9, [(c.name, c.score) for c in result.checks]
    assert result.score > 0  # the local derivative and the value are right, and count


@pytest.mark.parametrize("seed", ["seed0", "seed1", "seed2"])
def test_a_wrong_rule_of_its_own_earns_nothing_for_being_built_from_the_others(seed):
    # the second review's a - b with a _backward of its own and b's sign wrong: the check
    # of being built from +, * and ** tests every operation, not -a or a - b by chance
    result = grade("04.div", {"MyValue": make_value_class(div="own_sub")}, seed)
    built = next(c for c in result.checks if c.name.startswith("built from"))
    assert not built.passed and "for a - b" in built.reason


@pytest.mark.parametrize("op", ["pow", "exp", "relu"])
def test_a_node_cut_from_its_operand_earns_nothing(op):
    # the second review's __pow__ with parents=() scored 1.8/2: its rule is right, but
    # backward never runs it
    result = grade(f"04.{op}", {"MyValue": make_value_class(**{op: "no_parents"})})
    assert result.score == 0, [(c.name, c.reason) for c in result.checks]
    assert "backward(out) would never reach a" in result.checks[0].reason
