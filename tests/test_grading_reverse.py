"""Chapter 05's checks: correct answers pass on any seed, each mistake fails the check
aimed at it (with its own hint and no other)."""

import pytest
from grading_helpers import failed_checks
from grading_helpers import grade as grade_directly

import micrograd_edu as mg
from micrograd_edu.grading import chapter


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
    "jacobian_cost": jacobian_cost,
    "choose_mode": choose_mode,
    "vjp": vjp,
}


def grade(exercise_id, functions, seed="test"):
    """Grade with the correct answers standing in for the functions not given."""
    return grade_directly(exercise_id, {**CORRECT, **functions}, seed)


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(6)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("05"):
        result = grade(ex.id, {}, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


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
    "rows": "a backward pass per output",
    "no sweep": "no backward pass",
    "square": "with as many inputs as outputs",
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
            {
                "a curve: one input, many outputs",
                "wide and tall Jacobians",
                "square ones, and one with two inputs more than outputs",
            },
            ("one input", "square"),
        ),
        (lambda n, m: "forward", None, ("one output", None)),
        (lambda n, m: "forward" if m < 1 + n else "reverse", None, ("one output", "one input")),
        (lambda n, m: "Reverse mode", None, None),
        (
            lambda n, m: "forward" if n < m else "reverse",
            {"square ones, and one with two inputs more than outputs"},
            ("square", None),
        ),
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


def vjp_by_rows(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    outputs = f(*inputs)  # one call, then one sweep per output: the Jacobian, row by row
    rows = []
    for y in outputs:
        for x in inputs:
            x.grad = 0.0
        y.backward()
        rows.append([x.grad for x in inputs])
    return [sum(w * row[j] for w, row in zip(v, rows, strict=True)) for j in range(len(xs))]


def vjp_weighted_right(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    total = sum((w * y for w, y in zip(v, f(*inputs), strict=True)), mg.Value(0.0))
    total.backward()
    return [x.grad * 1.01 for x in inputs]  # weighted by v, then spoiled: no model fits


@pytest.mark.parametrize(
    "wrong, failing, hint",
    [
        (
            vjp_ignoring_v,
            {"vᵀJ matches a numerical Jacobian", "one backward pass"},
            ("unweighted", "rows"),
        ),
        (vjp_last_output, {"vᵀJ matches a numerical Jacobian"}, "one output only"),
        (
            vjp_by_columns,
            {"one evaluation of f", "one backward pass"},
            ("calls per input", "no sweep"),
        ),
        (
            vjp_per_output,
            {"one evaluation of f", "one backward pass"},
            ("calls per output", "rows"),
        ),
        (vjp_by_rows, {"one backward pass"}, "rows"),
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
    own = hint if isinstance(hint, tuple) else (hint,)
    assert "one evaluation of f" not in failed_checks(result) or own[0].startswith("calls")
