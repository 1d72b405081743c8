"""Partial credit, and what it must never reward; a raise reported once, where it happened."""

import pytest
from grading_helpers import grade

from micrograd_edu.course.cli import main
from micrograd_edu.grading import EXERCISES, check

FUNCTIONS = [ex for ex in EXERCISES.values() if all(n.islower() for n in ex.names)]
STUBS = {
    "zero": lambda *args, **kwargs: 0.0,
    "none": lambda *args, **kwargs: None,
    "empty": lambda *args, **kwargs: [],
    "echo": lambda *args, **kwargs: args[0] if args else None,
}


@pytest.mark.parametrize("stub", list(STUBS))
@pytest.mark.parametrize("ex", FUNCTIONS, ids=lambda ex: ex.id)
def test_a_stub_that_computes_nothing_earns_nothing(ex, stub):
    result = grade(ex.id, dict.fromkeys(ex.names, STUBS[stub]))
    assert result.score == 0, [(c.name, c.passed) for c in result.checks]
    # and no check shows a share it did not earn (the notebook, --checks, Gradescope)
    assert all(c.score == 0 for c in result.checks), [(c.name, c.score) for c in result.checks]


def one_sided_gradient(f, xs, h):
    # right on quadratics only to O(h)... and wrong on the non-polynomial check
    out = []
    for i in range(len(xs)):
        up = list(xs)
        up[i] += h
        out.append((f(up) - f(xs)) / h)
    return out


def test_partial_credit_shares_the_points_among_the_checks():
    # forward differences: the quadratic's gradient is off by h/2 * f'' (fails), so the
    # main property fails and nothing else counts; a central difference that also changes
    # xs in place passes the values and loses only that check's share.
    assert grade("01.numerical_gradient", {"numerical_gradient": one_sided_gradient}).score == 0

    def moves_xs(f, xs, h):
        grad = []
        for i in range(len(xs)):
            up, down = list(xs), list(xs)
            up[i] += h
            down[i] -= h
            grad.append((f(up) - f(down)) / (2 * h))
        xs[0] += 1.0  # right values, but the caller's point moved
        return grad

    result = grade("01.numerical_gradient", {"numerical_gradient": moves_xs})
    assert [c.passed for c in result.checks] == [True, True, False, True, True]
    assert result.score == pytest.approx(3 * 4 / 5)
    assert "2.4/3 points" in repr(check_feedback("01.numerical_gradient", moves_xs))


def check_feedback(exercise_id, function):
    return check(exercise_id, {EXERCISES[exercise_id].names[0]: function})


def test_a_raise_is_reported_once_with_the_students_line():
    def typo(f, xs, h):
        return [f(xs) for x in xz]  # noqa: F821  (the typo)

    result = grade("01.numerical_gradient", {"numerical_gradient": typo})
    first, *rest = result.checks
    assert first.reason.startswith("raised NameError")
    line = typo.__code__.co_firstlineno + 1
    assert f"line {line} of your" in first.reason and "for x in xz]" in first.reason
    assert first.hint == ""  # a typo is not the mistake the first check's hint names
    assert all(not c.ran and not c.hint and "not checked" in c.reason for c in rest)
    text = repr(check_feedback("01.numerical_gradient", typo))
    assert text.count("NameError") == 1 and "(not run)" in text


def test_all_or_nothing_keeps_the_old_scoring(tmp_path):
    notebook = tmp_path / "moves.ipynb"
    source = (
        "def numerical_gradient(f, xs, h):\n"
        "    grad = []\n"
        "    for i in range(len(xs)):\n"
        "        up, down = list(xs), list(xs)\n"
        "        up[i] += h\n"
        "        down[i] -= h\n"
        "        grad.append((f(up) - f(down)) / (2 * h))\n"
        "    xs[0] += 1.0\n"
        "    return grad\n"
    )
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nbformat.write(nb, notebook)
    scores = {}
    for flag in ([], ["--all-or-nothing"]):
        csv_path = tmp_path / f"g{len(flag)}.csv"
        args = ["grade", str(notebook), "--chapter", "01", "--csv", str(csv_path), *flag]
        assert main(args) == 0
        header, row = csv_path.read_text().splitlines()[:2]
        column = header.split(",").index("01.numerical_gradient")
        scores[bool(flag)] = float(row.split(",")[column])
    assert scores == {False: 2.4, True: 0.0}
