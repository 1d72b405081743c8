"""Chapter 01's exercises 4 and 5: the numerical gradient, and choosing h for the
second difference.

The oracles are closed forms: the gradient of a quadratic form and of a ring of
sines, the count of evaluations a gradient needs, and for the step size the error
a given h achieves (against f'' in closed form) next to the best error any h achieves.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from typing import Any

from .chapter01 import SECOND_DERIVATIVES, WITHHELD, number_in
from .explain import REAL
from .plain import as_float, as_floats, close, describe
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter01 import SMOOTH
from .runners.chapter01_gradient import _run_gradient, _run_step
from .steps import reference_steps

# --- the gradient ------------------------------------------------------------


# f is the grader's: a quadratic whose coefficients only the judge knows (HELD), or a
# ring of sines, evaluated in the grader's process at every call (runners/served.py).


def _value(case: Case, x: list[float]) -> float:
    n = len(x)
    if case["ring"]:
        return sum(math.sin(x[i]) * x[(i + 1) % n] for i in range(n))
    a, b = case[HELD]["A"], case[HELD]["b"]
    return sum(0.5 * a[i][j] * x[i] * x[j] for i in range(n) for j in range(n)) + sum(
        b[i] * x[i] for i in range(n)
    )


def _evaluate(case: Case, point: Any) -> float:
    x = as_floats(point, len(case["xs"]))
    if x is None:
        raise ValueError(f"f takes {len(case['xs'])} numbers; it was given {describe(point)}")
    return _value(case, x)


def _quadratic_gradient(case: Case) -> list[float]:
    a, b, x, n = case[HELD]["A"], case[HELD]["b"], case["xs"], len(case["xs"])
    return [sum(0.5 * (a[k][j] + a[j][k]) * x[j] for j in range(n)) + b[k] for k in range(n)]


def _ring_gradient(case: Case) -> list[float]:
    x, n = case["xs"], len(case["xs"])
    return [math.cos(x[k]) * x[(k + 1) % n] + math.sin(x[k - 1]) for k in range(n)]


def _gradient_cases(sizes: tuple[int, int], ring: bool = False) -> Callable:
    """Three points xs, each with a ring of sines or a quadratic whose matrix is symmetric
    with every entry at least 0.7 in size and whose gradient is at most 4 in size: a
    coordinate left moved by h (1e-5) then shifts the second partial derivative by at least
    7e-6, and a one-sided quotient every one by 3.5e-6, far beyond the judge's tolerance
    (1e-7 of at most 4), on any seed."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for _ in range(3):
            n = rng.randint(*sizes)
            half = 2.0 if ring else 0.5  # |gradient| <= 6 * 0.5 + 1 for the quadratic
            case: Case = {"xs": [rng.uniform(-half, half) for _ in range(n)], "ring": ring}
            if not ring:
                a = [[0.0] * n for _ in range(n)]
                for i in range(n):
                    for j in range(i + 1):
                        a[i][j] = a[j][i] = rng.choice((-1, 1)) * rng.uniform(0.7, 1.0)
                case[HELD] = {"A": a, "b": [rng.uniform(-1, 1) for _ in range(n)]}
            out.append(case)
        return out

    return cases


_H = 1e-5  # the step the runner passes


def _mistaken_gradient(case: Case, mistake: str) -> tuple[list[float], list[float]]:
    """The gradient, and xs after the call, of a typical wrong numerical_gradient run on
    the case with the grader's f."""
    x, grad = list(case["xs"]), []
    for i in range(len(x)):
        base = _value(case, x)
        x[i] += _H
        up = _value(case, x)
        x[i] -= 2 * _H
        down = _value(case, x)
        if mistake == "forward":
            grad.append((up - base) / _H)
        elif mistake == "sign":
            grad.append((down - up) / (2 * _H))
        elif mistake == "over h":
            grad.append((up - down) / _H)
        else:  # "not restored": the coordinate is left at x - h
            grad.append((up - down) / (2 * _H))
        if mistake != "not restored":
            x[i] += _H
    return grad, x


def _gradient_is(mistake: str) -> Callable[[Case, dict], bool]:
    def matches(case: Case, seen: dict) -> bool:
        grad = as_floats(seen.get("grad"), len(case["xs"]))
        model, _ = _mistaken_gradient(case, mistake)
        return grad is not None and all(
            close(g, m, 1e-7, 1e-9) for g, m in zip(grad, model, strict=True)
        )

    return matches


def _left_moved(case: Case, seen: dict) -> bool:
    after = as_floats(seen.get("xs_after"), len(case["xs"]))
    _, moved = _mistaken_gradient(case, "not restored")
    return after is not None and all(
        close(a, m, 1e-9, 1e-12) for a, m in zip(after, moved, strict=True)
    )


def _only_at_xs(case: Case, seen: dict) -> bool:
    """f was only ever evaluated at xs itself (the grader logs each point asked): the
    point moved and moved back before f saw it, as `p = xs` (a second name for the same
    list, not a copy) does."""
    points = seen.get("requests") or []
    xs = [float(x) for x in case["xs"]]
    return bool(points) and all(as_floats(p, len(xs)) == xs for p in points)


_GRADIENT_MISTAKES = (
    Mistake(
        _only_at_xs,
        "f was only ever evaluated at xs itself: the point you moved was xs under another "
        "name (`p = xs` names the same list, it makes no copy), moved back before f saw it",
        name="same list",
        factor=0.0,  # every partial derivative 0: the plain explanation, and this model
    ),
    Mistake(
        _gradient_is("not restored"),
        "each partial derivative after the first is off by a little: when you differentiate "
        "along one coordinate, where do the coordinates you already handled stand?",
        name="not restored",
    ),
    Mistake(
        _gradient_is("forward"),
        "your partial derivatives are off by about h: a one-sided quotient leaves an error "
        "proportional to h, where the lecture's central quotient cancels it",
        name="one-sided",
    ),
    Mistake(
        None,
        "every partial derivative has the wrong sign: which of the two points comes first "
        "in your difference?",
        name="sign",
        factor=-1.0,
    ),
    Mistake(
        None,
        "every partial derivative is twice the right one: how far apart are the two "
        "points your quotient compares?",
        name="over h",
        factor=2.0,
    ),
    Mistake(
        lambda case, seen: "not f(*point)" in str(seen.get("error", "")),
        "f takes the point as one list, f(point): the statement's calling convention, which "
        "the functions you will differentiate later (a loss of all the weights) follow too",
        name="f(*xs)",
    ),
)


def _right_gradient(case: Case) -> dict:
    return {"grad": _ring_gradient(case) if case["ring"] else _quadratic_gradient(case)}


def _judge_gradient(case: Case, seen: dict) -> str | None:
    n = len(case["xs"])
    grad = as_floats(seen.get("grad"), n)
    if grad is None:
        return f"returned {describe(seen.get('grad'))} for {n} variables; expected {n} numbers"
    want = _ring_gradient(case) if case["ring"] else _quadratic_gradient(case)
    # A central difference with h = 1e-5 is within about 1e-9 here (rounding, and h² times
    # the third derivative); a one-sided one, or a point left moved, is off by 1e-6 or more.
    if all(close(g, w, 1e-7, 1e-7) for g, w in zip(grad, want, strict=True)):
        return None
    worst = max(range(n), key=lambda k: abs(grad[k] - want[k]) / max(abs(want[k]), 1.0))
    return (
        f"wrong gradient for a function of {n} variables: partial derivative {worst + 1} is "
        f"off by {abs(grad[worst] - want[worst]):.1e}, where 1e-7 is allowed"
    )


def _central_with(case: Case) -> list[float]:
    """The central differences of the case's f at xs with the case's own (large) step h."""
    x, h, grad = case["xs"], case["h"], []
    for i in range(len(x)):
        up, down = list(x), list(x)
        up[i], down[i] = x[i] + h, x[i] - h
        grad.append((_value(case, up) - _value(case, down)) / (2 * h))
    return grad


def _with_a_large_step(rng: random.Random) -> list[Case]:
    # h = 0.2 to 0.4 on the ring of sines: its central difference is off the derivative by
    # about h²/6 (1e-2), so a quotient that ignores h and takes its own small step is told
    # apart from one that takes the h it was given
    return [{**case, "h": rng.uniform(0.2, 0.4)} for case in _gradient_cases((2, 5), True)(rng)]


def _judge_step_given(case: Case, seen: dict) -> str | None:
    n = len(case["xs"])
    grad = as_floats(seen.get("grad"), n)
    if grad is None:
        return f"returned {describe(seen.get('grad'))} for {n} variables; expected {n} numbers"
    want = _central_with(case)
    if all(close(g, w, 1e-9, 1e-9) for g, w in zip(grad, want, strict=True)):
        return None
    return (
        f"with h = {case['h']:.3g}, the partial derivatives are not the central differences "
        "with that step"
    )


def _own_step(case: Case, seen: dict) -> bool:
    """The exact gradient where h was large: a step of its own, not the h passed in."""
    grad = as_floats(seen.get("grad"), len(case["xs"]))
    return grad is not None and all(
        close(g, w, 1e-6, 1e-6) for g, w in zip(grad, _ring_gradient(case), strict=True)
    )


def _judge_unchanged(case: Case, seen: dict) -> str | None:
    after = as_floats(seen.get("xs_after"), len(case["xs"]))
    if after is not None and after == [float(x) for x in case["xs"]]:
        return None
    return "the list xs passed in was changed by the call"


def _rounded_back(case: Case, seen: dict) -> bool:
    # moved by h and back: the same number, but for a rounding error
    after = as_floats(seen.get("xs_after"), len(case["xs"]))
    return after is not None and all(
        close(a, x, 1e-12, 1e-12) for a, x in zip(after, case["xs"], strict=True)
    )


def _judge_calls(case: Case, seen: dict) -> str | None:
    n, calls = len(case["xs"]), seen.get("calls")
    if type(calls) is int and calls <= 2 * n + 1:
        return None
    return f"f was evaluated {calls} times for {n} variables; 2n = {2 * n} is enough"


def _calls_per_coordinate(case: Case, seen: dict) -> bool:
    n, calls = len(case["xs"]), seen.get("calls")
    return type(calls) is int and calls > 2 * n + 1 and calls % n == 0 and calls < 2 * n * n


_CALL_MISTAKES = (
    Mistake(
        lambda case, seen: seen.get("calls") == 2 * len(case["xs"]) ** 2,
        "2n² evaluations: the whole gradient was computed again for each coordinate; two "
        "evaluations of f per partial derivative are enough",
        name="gradient per coordinate",
    ),
    Mistake(
        _calls_per_coordinate,
        "more than two evaluations of f per coordinate: the central quotient needs f at "
        "two points only, and f at xs itself not at all",
        name="extra calls per coordinate",
    ),
)


GRADIENT = register(
    Exercise(
        "01.numerical_gradient",
        "Numerical gradient",
        3,
        "numerical_gradient(f, xs, h) returns the list of partial derivatives of f at xs, "
        "each a central difference in one coordinate. f takes one argument, a list of n "
        "numbers: call f(point).",
        ("numerical_gradient",),
        (
            Check(
                "gradient of a quadratic with cross terms",
                "",
                _gradient_cases((2, 6)),
                _run_gradient,
                _judge_gradient,
                mistakes=_GRADIENT_MISTAKES,
                serve=_evaluate,
                log_requests=True,
                right=_right_gradient,
            ),
            Check(
                "gradient of a non-polynomial function",
                "",
                _gradient_cases((1, 6), ring=True),
                _run_gradient,
                _judge_gradient,
                mistakes=_GRADIENT_MISTAKES,
                serve=_evaluate,
                log_requests=True,
                right=_right_gradient,
            ),
            Check(
                "leaves xs unchanged",
                "",
                _gradient_cases((2, 5)),
                _run_gradient,
                _judge_unchanged,
                mistakes=(
                    Mistake(
                        _left_moved,
                        "each coordinate ends h below where it started: the caller's point "
                        "must be exactly as it was after the call",
                        name="moved",
                    ),
                    Mistake(
                        _rounded_back,
                        "the point came back changed in its last digits: adding h and then "
                        "subtracting it does not always give back the same float. Keep the "
                        "value and put it back, or move a copy",
                        name="rounded back",
                    ),
                ),
                serve=_evaluate,
                right=lambda case: {"xs_after": list(case["xs"])},
            ),
            Check(
                "takes the step h it is given",
                "",
                _with_a_large_step,
                _run_gradient,
                _judge_step_given,
                mistakes=(
                    Mistake(
                        _own_step,
                        "with a large h passed in, your gradient came out as if the step were "
                        "tiny: use the argument h, not a step of your own",
                        name="own step",
                    ),
                ),
                serve=_evaluate,
                right=lambda case: {"grad": _central_with(case)},
            ),
            Check(
                "evaluates f O(n) times",
                "",
                _gradient_cases((5, 8)),
                _run_gradient,
                _judge_calls,
                mistakes=_CALL_MISTAKES,
                serve=_evaluate,
            ),
        ),
        requires=reference_steps(central_difference="central_quotient"),
        withheld=WITHHELD,
    )
)


# --- the step size -----------------------------------------------------------

_TOLERANCE = 50  # times the smallest error any h achieves


def _second_quotient(f: Callable[[float], float], x: float, h: float) -> float:
    """The second difference, whose error the step is judged by."""
    return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h)


def _error(name: str, x: float, h: float) -> float:
    """The relative error of the second difference of ``name`` at x with step h."""
    f, d2f = SMOOTH[name], SECOND_DERIVATIVES[name]
    try:
        return abs(_second_quotient(f, x, h) - d2f(x)) / abs(d2f(x))
    except (ValueError, ZeroDivisionError, OverflowError):
        return math.inf


def _best(name: str, x: float) -> tuple[float, float]:
    """The smallest relative error over a fine grid of h (smoothed: rounding is noisy)."""
    scale = max(1.0, abs(x))
    steps = [scale * 10 ** (-14 + 13 * i / 260) for i in range(261)]
    errors = [_error(name, x, h) for h in steps]
    smooth = [statistics.median(errors[max(0, i - 5) : i + 6]) for i in range(len(errors))]
    i = min(range(len(smooth)), key=smooth.__getitem__)
    return max(smooth[i], 1e-12), steps[i]


def _step_cases(spec: tuple[tuple[str, float, float], ...]) -> Callable:
    def cases(rng: random.Random) -> list[Case]:
        return [{"f": f, "x": rng.uniform(lo, hi)} for f, lo, hi in spec]

    return cases


def _judge_step(case: Case, seen: dict) -> str | None:
    """Fail when the error h gives is far above the best, saying which side h errs on."""
    h, problem = number_in(seen, "h")
    if problem:
        return problem
    if not (math.isfinite(h) and h > 0):
        return f"step_size({case['x']:.3g}) returned {h!r}; a step must be positive"
    best, best_h = _best(case["f"], case["x"])
    error = _error(case["f"], case["x"], h)
    if error <= _TOLERANCE * best:
        return None
    what = "small" if h < best_h else "large"
    return (
        f"h = {h:.3g} at x = {case['x']:.3g} is too {what}: its error is {error / best:.3g} "
        f"times the smallest any step gives ({_TOLERANCE} allowed)"
    )


def _step_below(limit: float) -> Callable[[Case, dict], bool]:
    """The mistake of a positive step below ``limit`` (or of a step that is 0)."""

    def matches(case: Case, seen: dict) -> bool:
        h = as_float(seen.get("h"))
        return h is not None and 0 <= h < limit

    return matches


def _too(direction: str) -> Callable[[Case, dict], bool]:
    """The mistake of a step whose error is far above the best because it is too small
    (rounding dominates) or too large (truncation does)."""

    def matches(case: Case, seen: dict) -> bool:
        h = as_float(seen.get("h"))
        if h is None or not (math.isfinite(h) and h > 0):
            return False
        best, best_h = _best(case["f"], case["x"])
        far = _error(case["f"], case["x"], h) > _TOLERANCE * best
        return far and (h < best_h) == (direction == "small")

    return matches


_TOO_SMALL = Mistake(
    _too("small"),
    "h too small: the values of f agree in almost every digit, and the division blows up "
    "what rounding left; where do this quotient's two errors balance?",
    name="too small",
)
_TOO_LARGE = Mistake(
    _too("large"),
    "h too large: the truncation error, which grows with h, dominates; where do this "
    "quotient's two errors balance?",
    name="too large",
)
_A_STEP = {"h": REAL}


# where each f'' stays clear of 0 (a relative error needs it)
_MODERATE = (
    ("sin", 0.5, 1.5),
    ("exp", -2, 2),
    ("tanh", 0.3, 1),
    ("atan", 0.5, 2),
    ("log", 0.5, 4),
    ("pow2.5", 0.5, 4),
    ("sqrt", 0.5, 4),
)

STEP = register(
    Exercise(
        "01.step_size",
        "Choosing h",
        2,
        "step_size(x) returns the h for second_difference at x that keeps the total "
        "error (truncation + rounding) near its minimum.",
        ("step_size",),
        (
            Check(
                "near the smallest error any step gives",
                "",
                _step_cases(_MODERATE),
                _run_step,
                _judge_step,
                weight=2.0,
                mistakes=(_TOO_SMALL, _TOO_LARGE),
                right=lambda case: _A_STEP,
            ),
            Check(
                "scales with |x|",
                "",
                _step_cases((("log", 1e3, 1e6), ("pow2.5", 1e3, 1e5), ("sqrt", 1e4, 1e6))),
                _run_step,
                _judge_step,
                mistakes=(
                    Mistake(
                        _step_below(1e-2),  # grown with |x| >= 1e3, a good step is >= 0.1
                        "for large |x|, x + h keeps only the digits of h above ε|x|: the step "
                        "must grow with |x|",
                        name="does not grow",
                    ),
                ),
                right=lambda case: _A_STEP,
            ),
            Check(
                "works at x = 0",
                "",
                _step_cases((("exp", 0, 0), ("exp∘sin", 0, 0))),
                _run_step,
                _judge_step,
                mistakes=(
                    Mistake(
                        lambda case, seen: as_float(seen.get("h")) == 0.0,
                        "a step proportional to |x| is 0 at x = 0: the step needs a floor",
                        name="no floor",
                    ),
                    _TOO_SMALL,  # a floor far too low (2 ** -52) is not a missing one
                    _TOO_LARGE,
                ),
                right=lambda case: _A_STEP,
            ),
        ),
        withheld=WITHHELD,
    )
)
