"""Chapter 05's exercises: forward or reverse mode, and the vector-Jacobian product.

The cost model is the lecture's, measured there by counting elementary
operations: for f: ℝⁿ → ℝᵐ whose program has ``ops`` operations, the Jacobian
costs ``n · ops`` by forward mode (one pass per input) and ``(1 + m) · ops`` by
reverse mode (one pass recording the graph, then one backward sweep per output).
The ``vjp`` oracle is a Jacobian by central differences of the same functions
evaluated on floats. Each call of ``f`` asks the grader's process for the secret
scales of ``f(x) = d ⊙ g(c ⊙ x)`` (runners/served.py), which counts the calls.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from ..scalar.numerical import jacobian
from .plain import as_floats, close, describe
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter05 import FUNCTIONS, _run_choice, _run_cost, _run_vjp
from .runners.served import draw_scales, scaled, secret_scales
from .steps import reference_steps

# --- 05.jacobian_cost ------------------------------------------------------------


def _shapes(rng: random.Random) -> list[Case]:
    return [
        {"n": rng.randint(1, 400), "m": rng.randint(1, 400), "ops": rng.randint(5, 5000)}
        for _ in range(6)
    ]


def _judge_cost(which: int) -> Callable[[Case, dict], str | None]:
    def judge(case: Case, seen: dict) -> str | None:
        cost = as_floats(seen.get("cost"), 2)
        if cost is None:
            return f"returned {describe(seen.get('cost'))}; expected (forward, reverse)"
        n, m, ops = case["n"], case["m"], case["ops"]
        want = (n * ops, (1 + m) * ops)[which]  # a pass per input; one forward, a sweep per output
        if cost[which] == want:
            return None
        mode = ("forward", "reverse")[which]
        return f"wrong {mode} cost for n={n} inputs, m={m} outputs, {ops} operations"

    return judge


def _cost_is(which: int, model: Callable[[int, int, int], int]) -> Callable:
    def matches(case: Case, seen: dict) -> bool:
        cost = as_floats(seen.get("cost"), 2)
        return cost is not None and cost[which] == model(case["n"], case["m"], case["ops"])

    return matches


_FORWARD_COST_MISTAKES = (
    Mistake(
        _cost_is(0, lambda n, m, ops: m * ops),
        "that counts one pass per output: a forward pass carries the derivative along one "
        "input direction",
    ),
    Mistake(
        _cost_is(0, lambda n, m, ops: (1 + n) * ops),
        "one pass too many: forward mode computes values and tangents together, with no "
        "separate pass to record anything",
    ),
    Mistake(
        _cost_is(0, lambda n, m, ops: n * m * ops),
        "a pass gives a whole column of the Jacobian, every output at once",
    ),
)
_REVERSE_COST_MISTAKES = (
    Mistake(
        _cost_is(1, lambda n, m, ops: m * ops),
        "the sweeps need a graph to walk: how does reverse mode get it before the first sweep?",
    ),
    Mistake(
        lambda case, seen: (
            _cost_is(1, lambda n, m, ops: n * ops)(case, seen)
            or _cost_is(1, lambda n, m, ops: (1 + n) * ops)(case, seen)
        ),
        "that counts one sweep per input: a backward sweep gives a whole row of the Jacobian, "
        "one output's derivative with respect to every input",
    ),
    Mistake(
        _cost_is(1, lambda n, m, ops: ops),
        "one sweep gives one output's derivatives: with m outputs, how many sweeps?",
    ),
)


JACOBIAN_COST = register(
    Exercise(
        "05.jacobian_cost",
        "The cost of a Jacobian",
        2,
        "jacobian_cost(n, m, ops) returns (forward, reverse): the elementary operations "
        "each mode spends on the full Jacobian of f: ℝⁿ → ℝᵐ whose program has ops operations.",
        ("jacobian_cost",),
        (
            Check(
                "forward mode, for any number of inputs",
                "",
                _shapes,
                _run_cost,
                _judge_cost(0),
                mistakes=_FORWARD_COST_MISTAKES,
            ),
            Check(
                "reverse mode, for any number of outputs",
                "",
                _shapes,
                _run_cost,
                _judge_cost(1),
                mistakes=_REVERSE_COST_MISTAKES,
            ),
        ),
        answers=("n * ops", "(1 + m) * ops", "(1 + m) · ops", "n · ops"),
    )
)


# --- 05.choose_mode --------------------------------------------------------------


def _judge_choice(case: Case, seen: dict) -> str | None:
    n, m, mode = case["n"], case["m"], seen.get("mode")
    if mode not in ("forward", "reverse"):
        return f"returned {describe(mode)}; answer the string 'forward' or 'reverse'"
    want = "forward" if n < 1 + m else "reverse"
    if mode == want or n == 1 + m:  # a tie: either mode does the same work
        return None
    return f"{mode} mode is the slower one for n={n} inputs and m={m} outputs"


def _clear_shapes(rng: random.Random) -> list[Case]:
    """Shapes where one mode is at least four times cheaper than the other."""
    cases = []
    while len(cases) < 6:
        n, m = rng.randint(1, 300), rng.randint(1, 300)
        if max(n, 1 + m) >= 4 * min(n, 1 + m):
            cases.append({"n": n, "m": m})
    return cases


def _square_shapes(rng: random.Random) -> list[Case]:
    """n = m, where the sizes alone suggest a tie that is not one, and n = m + 2."""
    sizes = rng.sample(range(2, 200), 3)
    return [{"n": k, "m": k} for k in sizes[:2]] + [{"n": sizes[2] + 2, "m": sizes[2]}]


# (One case cannot tell a constant answer from swapped sizes on a wide or tall Jacobian,
# so only the two clear shapes get a targeted hint; elsewhere the reason says what failed.)
_CHOICE_MISTAKES = (
    Mistake(
        lambda case, seen: seen.get("mode") == "reverse" and case["n"] == 1,
        "with a single input, how many passes does forward mode need for every output's "
        "derivative?",
    ),
    Mistake(
        lambda case, seen: seen.get("mode") == "forward" and case["m"] == 1,
        "with a single output, how many sweeps does reverse mode need for the whole gradient?",
    ),
)


CHOOSE_MODE = register(
    Exercise(
        "05.choose_mode",
        "Forward or reverse?",
        2,
        "choose_mode(n, m) returns 'forward' or 'reverse', whichever computes the "
        "Jacobian of f: ℝⁿ → ℝᵐ with fewer operations (on a tie, either).",
        ("choose_mode",),
        (
            Check(
                "a loss: many inputs, one output",
                "",
                lambda rng: [{"n": rng.randint(20, 100_000), "m": 1} for _ in range(4)],
                _run_choice,
                _judge_choice,
                mistakes=_CHOICE_MISTAKES,
            ),
            Check(
                "a curve: one input, many outputs",
                "",
                lambda rng: [{"n": 1, "m": rng.randint(20, 100_000)} for _ in range(4)],
                _run_choice,
                _judge_choice,
                mistakes=_CHOICE_MISTAKES,
            ),
            Check(
                "wide and tall Jacobians",
                "",
                _clear_shapes,
                _run_choice,
                _judge_choice,
                mistakes=_CHOICE_MISTAKES,
            ),
            Check(
                "square ones, and one with two inputs more than outputs",
                "",
                _square_shapes,
                _run_choice,
                _judge_choice,
                mistakes=(
                    Mistake(
                        lambda case, seen: case["n"] == case["m"] and seen.get("mode") == "reverse",
                        "with as many inputs as outputs the two modes differ by one pass: "
                        "which of them also pays for recording the graph?",
                    ),
                ),
            ),
        ),
        requires=reference_steps(jacobian_cost="jacobian_cost"),
        answers=("forward < reverse", "n < 1 + m"),
    )
)


# --- 05.vjp -------------------------------------------------------------------------


def _point(rng: random.Random, name: str) -> Case:
    n, f = FUNCTIONS[name]
    xs = [round(rng.uniform(0.5, 2.0), 4) for _ in range(n)]
    m = len(f(*xs))
    v = [round(rng.uniform(-2, 2), 4) for _ in range(m)]
    return {"f": name, "xs": xs, "v": v, HELD: draw_scales(rng, n, m)}


def _jacobian(case: Case) -> np.ndarray:
    """The m × n Jacobian of the case's f, by central differences of it on floats."""
    f = scaled(FUNCTIONS[case["f"]][1], case[HELD])
    return jacobian(f, case["xs"], 1e-6).jacobian.reshape(len(case["v"]), -1)


def _numerical_vjp(case: Case) -> list[float]:
    return (np.array(case["v"]) @ _jacobian(case)).tolist()


def _judge_vjp(case: Case, seen: dict) -> str | None:
    n = len(case["xs"])
    got = as_floats(seen.get("vjp"), n)
    if got is None:
        return f"returned {describe(seen.get('vjp'))}; expected {n} numbers (one per input)"
    want = _numerical_vjp(case)
    if all(close(g, w, 1e-5, 1e-5) for g, w in zip(got, want, strict=True)):
        return None
    return f"vᵀJ is wrong for a function ℝ^{n} → ℝ^{len(case['v'])}"


def _judge_once(case: Case, seen: dict) -> str | None:
    # Only the count: whether the numbers are right is the first check's business.
    calls = seen.get("calls")
    if calls == 1:
        return None
    if calls == 0:
        return "f was never called on the inputs"
    return f"f was called {calls} times"


def _calls_are(count: Callable[[int, int], set[int]]) -> Callable:
    def matches(case: Case, seen: dict) -> bool:
        n, m = len(case["xs"]), len(case["v"])
        return seen.get("calls") in count(n, m)

    return matches


def _vjp_is(model: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable:
    def matches(case: Case, seen: dict) -> bool:
        got = as_floats(seen.get("vjp"), len(case["xs"]))
        want = model(_jacobian(case), np.array(case["v"]))
        return got is not None and np.allclose(got, want, rtol=1e-5, atol=1e-5)

    return matches


_VJP_MISTAKES = (
    Mistake(
        _vjp_is(lambda J, v: J.sum(axis=0)),
        "that is the sum of the outputs' gradients, each with weight 1: v says how much each "
        "output counts",
    ),
    Mistake(
        lambda case, seen: (
            len(case["v"]) > 1
            and any(
                _vjp_is(lambda J, v, i=i: v[i] * J[i])(case, seen) for i in range(len(case["v"]))
            )
        ),
        "only one output's contribution: every output adds its share, weighted by its v",
    ),
)


def _judge_one_backward(case: Case, seen: dict) -> str | None:
    passes = seen.get("backward")
    if passes == 1:
        return None
    return f"{passes} backward passes for {len(case['v'])} outputs; one is enough"


_CALL_MISTAKES = (
    Mistake(
        _calls_are(lambda n, m: {n}),
        "one call per input, as forward mode does: reverse mode gets every input's "
        "derivative from one evaluation",
    ),
    Mistake(
        _calls_are(lambda n, m: {m}),
        "one call per output: a single call gives all the outputs, and backward can start "
        "from a combination of them",
    ),
    Mistake(
        _calls_are(lambda n, m: {2 * n, 2 * n + 1, n + 1}),
        "as many calls as finite differences need: reverse mode needs one",
    ),
)


VJP = register(
    Exercise(
        "05.vjp",
        "Vector-Jacobian product",
        3,
        "vjp(f, xs, v) returns vᵀ J(xs) (a list of n numbers) for f: ℝⁿ → ℝᵐ from one "
        "call of f on Values and one backward pass.",
        ("vjp",),
        (
            Check(
                "vᵀJ matches a numerical Jacobian",
                "",
                lambda rng: [_point(rng, name) for name in ("polar", "layer", "mixer", "curve")],
                _run_vjp,
                _judge_vjp,
                mistakes=_VJP_MISTAKES,
                serve=secret_scales,
            ),
            Check(
                "m = 1, v = [1]: the gradient",
                "",
                lambda rng: [{**_point(rng, "lecture"), "v": [1.0]} for _ in range(3)],
                _run_vjp,
                _judge_vjp,
                mistakes=_VJP_MISTAKES,
                serve=secret_scales,
            ),
            Check(
                "one evaluation of f",
                "",
                lambda rng: [_point(rng, name) for name in ("layer", "mixer")],
                _run_vjp,
                _judge_once,
                mistakes=_CALL_MISTAKES,
                serve=secret_scales,
            ),
            Check(
                "one backward pass",
                "",
                lambda rng: [_point(rng, name) for name in ("layer", "mixer")],
                _run_vjp,
                _judge_one_backward,
                mistakes=(
                    Mistake(
                        lambda case, seen: seen.get("backward") == len(case["v"]),
                        "a backward pass per output: that builds the Jacobian row by row. One "
                        "sweep from the right scalar gives vᵀJ directly",
                    ),
                    Mistake(
                        lambda case, seen: seen.get("backward") == 0,
                        "no backward pass: vᵀJ is what one reverse sweep computes",
                    ),
                ),
                serve=secret_scales,
            ),
        ),
        answers=("total + weight * y", "Σ v_i f_i", r"\sum_i v_i f_i", "weight * y"),
    )
)
