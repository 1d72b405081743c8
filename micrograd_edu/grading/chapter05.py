"""Chapter 05's exercises: forward or reverse mode, and the vector-Jacobian product.

The cost model is the lecture's, measured there by counting elementary
operations: for f: ℝⁿ → ℝᵐ whose program has ``ops`` operations, the Jacobian
costs ``n · ops`` by forward mode (one pass per input) and ``(1 + m) · ops`` by
reverse mode (one pass recording the graph, then one backward sweep per output).
The ``vjp`` oracle is a Jacobian by central differences of the same functions
evaluated on floats.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import functions as F
from ..numerical import jacobian
from .counting import Counted
from .plain import as_float, as_floats, close, describe
from .registry import Case, Check, Exercise, register

# --- 05.jacobian_cost ------------------------------------------------------------


def _reference_cost(n: int, m: int, ops: int) -> tuple[int, int]:
    return n * ops, (1 + m) * ops


def _shapes(rng: random.Random) -> list[Case]:
    return [
        {"n": rng.randint(1, 400), "m": rng.randint(1, 400), "ops": rng.randint(5, 5000)}
        for _ in range(6)
    ]


def _run_cost(functions: dict, case: Case) -> dict:
    got = functions["jacobian_cost"](case["n"], case["m"], case["ops"])
    return {"cost": list(got) if isinstance(got, tuple) else got}


def _judge_cost(which: int) -> Callable[[Case, dict], str | None]:
    def judge(case: Case, seen: dict) -> str | None:
        cost = as_floats(seen.get("cost"), 2)
        if cost is None:
            return f"returned {describe(seen.get('cost'))}; expected (forward, reverse)"
        n, m, ops = case["n"], case["m"], case["ops"]
        want = _reference_cost(n, m, ops)[which]
        if cost[which] == want:
            return None
        mode = ("forward", "reverse")[which]
        return f"wrong {mode} cost for n={n} inputs, m={m} outputs, {ops} operations"

    return judge


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
                "forward mode: one pass per input",
                "forward mode seeds one input direction per pass, so n passes of ops "
                "operations each; the number of outputs does not matter",
                _shapes,
                _run_cost,
                _judge_cost(0),
            ),
            Check(
                "reverse mode: one recording pass, then one sweep per output",
                "reverse mode runs f once to record the graph (ops operations), then one "
                "backward sweep (ops operations) per output: (1 + m) · ops",
                _shapes,
                _run_cost,
                _judge_cost(1),
            ),
        ),
    )
)


# --- 05.choose_mode --------------------------------------------------------------


def _run_choice(functions: dict, case: Case) -> dict:
    return {"mode": functions["choose_mode"](case["n"], case["m"])}


def _judge_choice(case: Case, seen: dict) -> str | None:
    n, m, mode = case["n"], case["m"], seen.get("mode")
    if mode not in ("forward", "reverse"):
        return f"returned {describe(mode)}; answer the string 'forward' or 'reverse'"
    want = "forward" if n < 1 + m else "reverse"
    if mode == want:
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


CHOOSE_MODE = register(
    Exercise(
        "05.choose_mode",
        "Forward or reverse?",
        2,
        "choose_mode(n, m) returns 'forward' or 'reverse', whichever computes the "
        "Jacobian of f: ℝⁿ → ℝᵐ with fewer operations.",
        ("choose_mode",),
        (
            Check(
                "a loss: many inputs, one output",
                "one reverse sweep gives the whole gradient of f: ℝⁿ → ℝ; forward mode "
                "would need n passes",
                lambda rng: [{"n": rng.randint(20, 100_000), "m": 1} for _ in range(4)],
                _run_choice,
                _judge_choice,
            ),
            Check(
                "a curve: one input, many outputs",
                "for f: ℝ → ℝᵐ a single forward pass gives every output's derivative; "
                "reverse mode would need m sweeps. Don't answer 'reverse' every time",
                lambda rng: [{"n": 1, "m": rng.randint(20, 100_000)} for _ in range(4)],
                _run_choice,
                _judge_choice,
            ),
            Check(
                "wide and tall Jacobians",
                "compare the costs: forward mode n passes, reverse mode 1 + m; "
                "n counts inputs (columns of J), m outputs (rows)",
                _clear_shapes,
                _run_choice,
                _judge_choice,
            ),
        ),
        requires={"jacobian_cost": _reference_cost},
    )
)


# --- 05.vjp -------------------------------------------------------------------------

# Functions ℝⁿ → ℝᵐ written once with micrograd_edu.functions, so that the
# student's code runs them on Values and the judge on floats.
FUNCTIONS: dict[str, tuple[int, Callable[..., list[Any]]]] = {
    "polar": (2, lambda r, t: [r * F.cos(t), r * F.sin(t)]),
    "lecture": (2, lambda a, b: [F.log(a) + a * b - F.sin(b)]),
    "layer": (
        3,
        lambda x, y, z: [F.tanh(0.5 * x - y + 0.3 * z), F.tanh(x * y + z), x * y * z, y],
    ),
    "mixer": (4, lambda a, b, c, d: [a * b + c * d, F.exp(0.3 * a) - d, F.sin(b * c)]),
    "curve": (1, lambda t: [F.cos(t), F.sin(2 * t), t * t, F.exp(-t)]),
}


def _point(rng: random.Random, name: str) -> Case:
    n, f = FUNCTIONS[name]
    xs = [round(rng.uniform(0.5, 2.0), 4) for _ in range(n)]
    m = len(f(*xs))
    return {"f": name, "xs": xs, "v": [round(rng.uniform(-2, 2), 4) for _ in range(m)]}


def _run_vjp(functions: dict, case: Case) -> dict:
    f = Counted(FUNCTIONS[case["f"]][1])
    xs = list(case["xs"])
    got = functions["vjp"](f, xs, list(case["v"]))
    return {"vjp": list(got) if isinstance(got, tuple) else got, "calls": f.calls}


def _numerical_vjp(case: Case, h: float = 1e-6) -> list[float]:
    """vᵀJ with J from central differences of the float function."""
    J = jacobian(FUNCTIONS[case["f"]][1], case["xs"], h).jacobian
    return (np.array(case["v"]) @ J).tolist()


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
    calls = seen.get("calls")
    if as_float(calls) is not None and calls <= 1:
        return _judge_vjp(case, seen)
    return f"f was called {calls} times; one call (and one backward sweep) is enough"


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
                "weigh each output by its v_i: backpropagate Σ v_i f_i(x) once (calling "
                "backward on each output adds them with weight 1 and ignores v)",
                lambda rng: [_point(rng, name) for name in ("polar", "layer", "mixer", "curve")],
                _run_vjp,
                _judge_vjp,
            ),
            Check(
                "m = 1, v = [1]: the gradient",
                "for a single output vᵀJ with v = [1] is the gradient: wrap the inputs "
                "in Value, call f, backward, and read each input's .grad",
                lambda rng: [{**_point(rng, "lecture"), "v": [1.0]} for _ in range(3)],
                _run_vjp,
                _judge_vjp,
            ),
            Check(
                "one evaluation of f",
                "reverse mode needs f once: don't build the Jacobian column by column "
                "(n calls) or by finite differences",
                lambda rng: [_point(rng, name) for name in ("layer", "mixer")],
                _run_vjp,
                _judge_once,
            ),
        ),
    )
)
