"""Chapter 05's exercises: what a Jacobian costs each mode, as the engines do it.

The lecture counts the work by watching the package's engines (course/work.py): forward
mode, one unit per operation on dual numbers; reverse mode, one per operation recorded
and one per operation a backward sweep passes through (a sweep walks only what its
output depends on). The exercises ask the student to derive, not to measure:

* 05.work: the work of both modes on the notebook's ``program(n, m)``, for shapes far
  too large to measure. The oracle is the engines themselves: their work measured on
  small shapes, where it is exactly a quadratic in n and m, extended by that quadratic
  (the grader holds no formula of its own).
* 05.choose_mode: the cheaper mode on that program, by that work.
* 05.segment_length: the segment length that makes checkpointed reverse mode's peak
  memory smallest; the oracle tries every length.
* 05.vjp: vᵀJ from one evaluation of f. The f is the grader's (runners/served.py's
  ``remote_values``): each call sends the point, the grader answers with f's values and
  its Jacobian there, and counts the call. Nothing the child holds evaluates f.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import functions as F
from ..course.work import count_work
from ..scalar.dual import jacobian_forward
from .explain import REAL, Kind
from .plain import as_float, as_floats, close, describe, ratio
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter05 import _run_choice, _run_segment, _run_vjp, _run_work
from .runners.served import draw_scales, scaled
from .steps import reference_steps

# --- 05.work: the program's work, derived ------------------------------------------


def _program(n: int, m: int) -> Callable[..., list]:
    """The exercise notebook's program(n, m), as it is written there."""

    def f(*xs: Any) -> list:
        s = xs[0] * xs[0]
        for x in xs[1:]:
            s = s + x * x
        return [F.tanh(s * c) for c in range(1, m + 1)]

    return f


_SMALL = [(n, m) for n in range(1, 5) for m in range(1, 5)]
_COUNTS = ("forward", "recorded", "swept")


def _basis(n: int, m: int) -> list[int]:
    return [1, n, m, n * n, n * m, m * m]


@functools.cache
def _fitted() -> dict[str, np.ndarray]:
    """The quadratic in (n, m) through the engines' counts on program(n, m) at 16 small
    shapes. A count each pass or sweep adds per input or output is at most quadratic;
    the fit must reproduce every measurement exactly, or this raises."""
    measured = [count_work(_program(n, m), [0.1 * (i + 1) for i in range(n)]) for n, m in _SMALL]
    rows = np.array([_basis(n, m) for n, m in _SMALL], dtype=float)
    fitted = {}
    for name in _COUNTS:
        values = np.array([getattr(w, name) for w in measured], dtype=float)
        coefficients = np.linalg.lstsq(rows, values, rcond=None)[0]
        if not np.allclose(rows @ coefficients, values, rtol=0, atol=1e-6):
            raise RuntimeError(f"05.work: the engines' {name} count is not quadratic in n, m")
        fitted[name] = coefficients
    return fitted


def _measured(n: int, m: int) -> dict[str, int]:
    """The engines' counts on program(n, m): forward, recorded, swept."""
    basis = np.array(_basis(n, m), dtype=float)
    return {name: round(float(basis @ c)) for name, c in _fitted().items()}


def _engine_work(n: int, m: int) -> tuple[int, int]:
    """(forward, reverse): the work count_work counts on program(n, m)."""
    counts = _measured(n, m)
    return counts["forward"], counts["recorded"] + counts["swept"]


def _operations(n: int, m: int) -> tuple[int, int]:
    """(the program's operations, the operations below one output), as the engine sees them."""
    counts = _measured(n, m)
    return counts["recorded"], counts["swept"] // m


def _shapes(rng: random.Random) -> list[Case]:
    """Two small shapes (one with a single output), then shapes no one would measure."""
    small = [{"n": rng.randint(2, 6), "m": 1}, {"n": rng.randint(1, 4), "m": rng.randint(2, 6)}]
    large = [{"n": rng.randint(50, 5000), "m": rng.randint(50, 5000)} for _ in range(3)]
    return small + large


def _work_is(which: int, model: Callable[[int, int], int]) -> Callable[[Case, dict], bool]:
    def matches(case: Case, seen: dict) -> bool:
        got, right = as_floats(seen.get("work"), 2), _engine_work(case["n"], case["m"])
        want = model(case["n"], case["m"])
        return got is not None and want != right[which] and got[which] == want

    return matches


def _judge_work(case: Case, seen: dict) -> str | None:
    n, m = case["n"], case["m"]
    got = as_floats(seen.get("work"), 2)
    if got is None:
        return f"returned {describe(seen.get('work'))}; expected (forward, reverse)"
    for which, mode in enumerate(("forward", "reverse")):
        want = _engine_work(n, m)[which]
        if got[which] != want:
            ratio = f": {got[which] / want:.4g} times the engine's" if got[which] else ""
            return f"wrong {mode} work for program({n}, {m}){ratio}"
    return None


def _swapped(case: Case, seen: dict) -> bool:
    got, right = as_floats(seen.get("work"), 2), list(_engine_work(case["n"], case["m"]))
    return got is not None and right[0] != right[1] and got == right[::-1]


_WORK_MISTAKES = (
    Mistake(
        _swapped,
        "your two counts are right, in the other order: work returns (forward, reverse)",
        name="swapped",
    ),
) + tuple(
    Mistake(_work_is(which, model), hint, name=name)
    for name, which, model, hint in (
        (
            "whole graph",
            1,
            lambda n, m: (1 + m) * _operations(n, m)[0],
            "your reverse count charges every sweep the whole program: a sweep starts at its "
            "output and passes only through the operations that output depends on",
        ),
        (
            "no recording",
            1,
            lambda n, m: m * _operations(n, m)[1],
            "the sweeps need a recorded graph to walk: what does the first, forward pass "
            "of reverse mode cost?",
        ),
        (
            "one sweep",
            1,
            lambda n, m: sum(_operations(n, m)),
            "one sweep gives the derivatives of one output: with m outputs, how many sweeps?",
        ),
        (
            "per output",
            0,
            lambda n, m: m * _operations(n, m)[0],
            "that counts a forward pass per output: a pass carries the derivative along one "
            "input direction, for every output at once",
        ),
        (
            "extra pass",
            0,
            lambda n, m: (1 + n) * _operations(n, m)[0],
            "one pass too many: forward mode computes values and tangents together, with no "
            "separate pass to record anything",
        ),
    )
)

WORK = register(
    Exercise(
        "05.work",
        "Predicting the work of each mode",
        2,
        "work(n, m) returns (forward, reverse): the units of work the package's engines "
        "spend on the full Jacobian of the notebook's program(n, m), as count_work counts "
        "them, for any n, m >= 1, including shapes with thousands of inputs and outputs, far "
        "too large to measure: derive it from the program.",
        ("work",),
        (
            Check(
                "both modes, small and large shapes",
                "",
                _shapes,
                _run_work,
                _judge_work,
                mistakes=_WORK_MISTAKES,
                right=lambda case: {"work": list(_engine_work(case["n"], case["m"]))},
            ),
        ),
    )
)


# --- 05.choose_mode ------------------------------------------------------------------


def _right_mode(case: Case) -> str | None:
    """The cheaper mode on program(n, m), or None on a tie."""
    forward, reverse = _engine_work(case["n"], case["m"])
    return None if forward == reverse else ("forward" if forward < reverse else "reverse")


def _judge_choice(case: Case, seen: dict) -> str | None:
    n, m, mode = case["n"], case["m"], seen.get("mode")
    if isinstance(mode, str) and mode.strip().lower() in ("forward", "reverse"):
        if mode not in ("forward", "reverse"):
            return f"returned {mode!r}; answer in lower case, 'forward' or 'reverse'"
    if mode not in ("forward", "reverse"):
        return f"returned {describe(mode)}; answer the string 'forward' or 'reverse'"
    want = _right_mode(case)
    if want is None or mode == want:
        return None
    return f"{mode} mode does more work than {want} mode on program({n}, {m})"


def _near_the_boundary(rng: random.Random) -> list[Case]:
    """Shapes on both sides of where the modes trade places, away from the diagonal n = m
    that a count of whole-graph sweeps would put it on."""
    cases = []
    for n in rng.sample(range(3, 40), 3):
        edge = (2 * n - 1) * (n - 1) / 3  # forward mode wins for m above this
        cases.append({"n": n, "m": max(n + 1, math.floor(edge * rng.uniform(0.3, 0.9)))})
        cases.append({"n": n, "m": math.ceil(edge * rng.uniform(1.1, 3.0))})
    return cases


def _diagonal(case: Case, seen: dict) -> bool:
    n, m, mode = case["n"], case["m"], seen.get("mode")
    return mode != _right_mode(case) and mode in (
        "forward" if n < m else "reverse",
        "forward" if n < 1 + m else "reverse",
    )


_MODES = Kind("'forward' or 'reverse'", lambda v: v in ("forward", "reverse"))

CHOOSE_MODE = register(
    Exercise(
        "05.choose_mode",
        "Forward or reverse?",
        2,
        "choose_mode(n, m) returns 'forward' or 'reverse', whichever mode's engine does "
        "less work on the Jacobian of program(n, m) (on a tie, either). While this is "
        "checked the grader supplies its own work.",
        ("choose_mode",),
        (
            Check(
                "where the modes trade places",
                "",
                _near_the_boundary,
                _run_choice,
                _judge_choice,
                weight=2.0,
                mistakes=(
                    Mistake(
                        _diagonal,
                        "the boundary is not the diagonal here: a sweep walks only what its "
                        "output depends on, and all of them share the sum of squares. Compare "
                        "the two counts of your work(n, m)",
                        name="diagonal",
                    ),
                ),
                right=lambda case: {"mode": _MODES},
            ),
            Check(
                "a loss and a curve",
                "",
                lambda rng: [
                    {"n": rng.randint(20, 100_000), "m": 1},
                    {"n": 1, "m": rng.randint(20, 100_000)},
                ],
                _run_choice,
                _judge_choice,
                right=lambda case: {"mode": _MODES},
            ),
        ),
        requires=reference_steps(work="work_reference"),
    )
)


# --- 05.segment_length: checkpointing --------------------------------------------------
#
# T steps, each recording s operations. The forward pass runs on plain numbers and stores
# the state at the start of every segment of k steps; the backward pass rebuilds one
# segment at a time from its stored state and sweeps it. The peak memory, in stored
# states and recorded operations: ceil(T / k) + s·min(k, T).


def _peak(t: int, s: int, k: int) -> int:
    return -(-t // k) + s * min(k, t)


def _best(t: int, s: int) -> int:
    """The smallest peak over every segment length (those near √(T/s), and the ends)."""
    centre = max(1, round(math.sqrt(t / s)))
    lengths = {1, t, *range(max(1, centre // 4), min(t, 4 * centre + 8) + 1)}
    return min(_peak(t, s, k) for k in lengths)


def _segment_cases(rng: random.Random) -> list[Case]:
    """Steps of one and of several operations; a few steps (the statement's "any T ≥ 1":
    T = 1, 2, 3, 9 of one operation, and a short run of several); and, for each whole number
    next to √(T/s), a case where it is not the best (the peak jumps where T / k rounds up)."""
    cases = [{"T": rng.randint(1_000, 200_000), "s": s} for s in (1, 3, rng.randint(20, 60))]
    cases += [{"T": t, "s": 1} for t in (1, 2, 3, 9)]
    cases.append({"T": rng.randint(4, 40), "s": rng.randint(2, 12)})
    for pick in (math.floor, math.ceil):
        while True:
            t, s = rng.randint(1_000, 200_000), rng.randint(1, 12)
            if _peak(t, s, max(1, pick(math.sqrt(t / s)))) != _best(t, s):
                cases.append({"T": t, "s": s})
                break
    return cases


def _length(seen: dict) -> int | None:
    k = as_float(seen.get("k"))
    return int(k) if k is not None and math.isfinite(k) and k == int(k) else None


def _judge_segment(case: Case, seen: dict) -> str | None:
    t, s, k = case["T"], case["s"], _length(seen)
    if k is None or not 1 <= k <= t:
        got = k if k is not None else describe(seen.get("k"))
        return (
            f"returned {got} for T = {t} steps of {s} operations; expected a whole number "
            "of steps, 1 to T"
        )
    peak, best = _peak(t, s, k), _best(t, s)
    if peak == best:
        return None
    return (
        f"for T = {t} steps of {s} operations, segments of {k} steps peak at {peak:,} "
        f"stored items, {ratio(peak, best)} times the least any length gives"
    )


def _chose(model: Callable[[int, int], list[float]]) -> Callable[[Case, dict], bool]:
    def matches(case: Case, seen: dict) -> bool:
        k, t, s = _length(seen), case["T"], case["s"]
        return k is not None and _peak(t, s, k) != _best(t, s) and k in model(t, s)

    return matches


def _rounded(x: float) -> list[float]:
    return [math.floor(x), math.ceil(x), round(x)]


_SEGMENT_MISTAKES = (
    Mistake(
        _chose(lambda t, s: _rounded(math.sqrt(t))),
        "√T balances the stored states against the steps of a segment, but a step records "
        "s operations: count a segment's memory in operations",
        name="square root of T",
    ),
    Mistake(
        _chose(lambda t, s: _rounded(math.sqrt(t * s))),
        "the more operations a step records, the shorter its segments should be: check "
        "which way s moves your length",
        name="inverted",
    ),
    Mistake(
        _chose(lambda t, s: [1]),
        "a segment of one step stores every state: the states alone are then T items",
        name="every step",
    ),
    Mistake(
        _chose(lambda t, s: [t]),
        "one segment of all T steps is the whole recording: no checkpoint saves anything",
        name="one segment",
    ),
    Mistake(
        _chose(lambda t, s: [math.floor(math.sqrt(t / s)), math.ceil(math.sqrt(t / s))]),
        "close, but not the least: the number of segments rounds up, so compare the whole "
        "numbers near your length",
        name="rounding",
    ),
)

SEGMENT = register(
    Exercise(
        "05.segment_length",
        "A checkpointing schedule",
        2,
        "segment_length(T, s) returns the number of steps per segment that makes the peak "
        "memory of checkpointed reverse mode smallest, for T steps that record s operations "
        "each, counted as the lecture's checkpointed_gradient counts it (a stored state and "
        "a recorded operation are one item each).",
        ("segment_length",),
        (
            Check(
                "the least peak memory, for any T and s",
                "",
                _segment_cases,
                _run_segment,
                _judge_segment,
                mistakes=_SEGMENT_MISTAKES,
                right=lambda case: {"k": REAL},
            ),
        ),
    )
)


# --- 05.vjp -------------------------------------------------------------------------

# Functions ℝⁿ → ℝᵐ written once with micrograd_edu.functions: the grader runs them on
# dual numbers (their exact Jacobian) and on floats (their values), at the points asked.
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


def _f(case: Case) -> Callable[..., list[Any]]:
    return scaled(FUNCTIONS[case["f"]][1], case[HELD])


def _point(rng: random.Random, name: str) -> Case:
    n, f = FUNCTIONS[name]
    xs = [round(rng.uniform(0.5, 2.0), 4) for _ in range(n)]
    m = len(f(*xs))
    v = [round(rng.choice((-1, 1)) * rng.uniform(0.5, 2), 4) for _ in range(m)]
    return {"f": name, "xs": xs, "v": v, HELD: draw_scales(rng, n, m)}


def _evaluate(case: Case, point: Any) -> list[Any]:
    """One call of the case's f (``Check.serve``): its values and Jacobian at ``point``."""
    xs = as_floats(point, len(case["xs"]))
    if xs is None:
        raise ValueError(f"f takes {len(case['xs'])} numbers; it was given {describe(point)}")
    values = [float(y) for y in _f(case)(*xs)]
    return [values, jacobian_forward(_f(case), xs).jacobian.reshape(len(values), -1).tolist()]


def _jacobian(case: Case) -> np.ndarray:
    return np.array(_evaluate(case, case["xs"])[1])


def _right_vjp(case: Case) -> dict:
    return {"vjp": (np.array(case["v"]) @ _jacobian(case)).tolist()}


def _judge_vjp(case: Case, seen: dict) -> str | None:
    n, m, calls = len(case["xs"]), len(case["v"]), seen.get("calls")
    got = as_floats(seen.get("vjp"), n)
    if got is None:
        return f"returned {describe(seen.get('vjp'))}; expected {n} numbers (one per input)"
    want = _right_vjp(case)["vjp"]
    if not all(close(g, w, 1e-10, 1e-12) for g, w in zip(got, want, strict=True)):
        return f"vᵀJ is wrong for a function ℝ^{n} → ℝ^{m}"
    if calls != 1:
        return f"the answer is right, but f was called {calls} times; one call is the method"
    backwards = seen.get("backwards")
    if type(backwards) is int and backwards > 1:
        return (
            f"the answer is right, but backward ran {backwards} times; one backward pass is "
            "the method"
        )
    return None


def _vjp_is(model: Callable[[np.ndarray, np.ndarray], Any]) -> Callable:
    def matches(case: Case, seen: dict) -> bool:
        got = as_floats(seen.get("vjp"), len(case["xs"]))
        want = model(_jacobian(case), np.array(case["v"]))
        right = _right_vjp(case)["vjp"]
        return (
            got is not None
            and not np.allclose(want, right, rtol=1e-9, atol=1e-12)
            and np.allclose(got, want, rtol=1e-9, atol=1e-12)
        )

    return matches


def _vjp_approximately(case: Case, seen: dict) -> bool:
    got = as_floats(seen.get("vjp"), len(case["xs"]))
    right = _right_vjp(case)["vjp"]
    n = len(case["xs"])  # central or one-sided differences: 2n or n + 1 calls of f
    return (
        got is not None
        and seen.get("calls") in (2 * n, n + 1)
        and np.allclose(got, right, rtol=1e-4, atol=1e-6)
    )


def _calls_are(count: Callable[[int, int], set[int]]) -> Callable:
    def matches(case: Case, seen: dict) -> bool:
        return seen.get("calls") in count(len(case["xs"]), len(case["v"]))

    return matches


_VJP_MISTAKES = (
    Mistake(
        _vjp_is(lambda J, v: J.sum(axis=0)),
        "that is the sum of the outputs' gradients, each with weight 1: v says how much each "
        "output counts",
        name="unweighted",
    ),
    Mistake(
        lambda case, seen: any(
            _vjp_is(lambda J, v, i=i: v[i] * J[i])(case, seen) for i in range(len(case["v"]))
        ),
        "only one output's contribution: every output adds its share, weighted by its v",
        name="one output",
    ),
    Mistake(
        _vjp_approximately,
        "right to a few digits, not exactly: an approximation (differences of f), where "
        "one call of f on Values and one backward pass give vᵀJ exactly",
        name="approximation",
    ),
    Mistake(
        None,
        "every entry is 0: backward never reached the inputs you read. Is the scalar you "
        "call backward on built from f's outputs, as Values, and are the inputs you read "
        "the Values you passed to f?",
        name="cut graph",
        factor=0.0,
    ),
    Mistake(
        _calls_are(lambda n, m: {n}),
        "one call of f per input, as forward mode makes: one call on Values records "
        "everything a backward sweep needs",
        name="call per input",
    ),
    Mistake(
        _calls_are(lambda n, m: {m}),
        "one call of f per output: a single call gives all the outputs, and backward can "
        "start from a combination of them",
        name="call per output",
    ),
    Mistake(
        lambda case, seen: seen.get("calls") == 1 and seen.get("backwards") == len(case["v"]) > 1,
        "one backward per output: a single backward, from the scalar Σ vᵢ yᵢ, gives every "
        "input its share of vᵀJ at once",
        name="backward per output",
    ),
)

VJP = register(
    Exercise(
        "05.vjp",
        "Vector-Jacobian product",
        3,
        "vjp(f, xs, v) returns vᵀ J(xs) (a list of n numbers) for f: ℝⁿ → ℝᵐ, from one "
        "call of f on Values, f(*values), and one backward pass. The package's "
        "jacobian_reverse is withheld while it is checked.",
        ("vjp",),
        (
            Check(
                "vᵀJ, exactly, from one call of f",
                "",
                lambda rng: [_point(rng, name) for name in ("polar", "layer", "mixer", "curve")],
                _run_vjp,
                _judge_vjp,
                weight=2.0,
                mistakes=_VJP_MISTAKES,
                serve=_evaluate,
                right=_right_vjp,
            ),
            Check(
                "m = 1, v = [1]: the gradient",
                "",
                lambda rng: [{**_point(rng, "lecture"), "v": [1.0]} for _ in range(3)],
                _run_vjp,
                _judge_vjp,
                mistakes=_VJP_MISTAKES,
                serve=_evaluate,
                right=_right_vjp,
            ),
        ),
        # in a child of its own (the notebook's other cells use jacobian_reverse)
        withheld=("micrograd_edu.scalar.value.jacobian_reverse",),
        alone=True,
    )
)
