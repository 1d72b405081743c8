"""Chapter 01's exercises: numerical differentiation.

Every oracle here is a closed form, never a finite difference computed the
way the solution computes it: the exact difference quotients of polynomials,
the derivatives of ``exp``/``sinh``/... and the error ratios a forward,
central or extrapolated difference must show when ``h`` is halved.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from typing import Any

from .plain import as_float, as_floats, close, describe
from .registry import Case, Check, Exercise, register

EPS = 2.0**-52

# Smooth functions with their derivatives in closed form.
SMOOTH: dict[str, tuple[Callable[[float], float], Callable[[float], float]]] = {
    "sin": (math.sin, math.cos),
    "exp": (math.exp, math.exp),
    "sinh": (math.sinh, math.cosh),
    "cosh": (math.cosh, math.sinh),
    "tanh": (math.tanh, lambda x: 1.0 - math.tanh(x) ** 2),
    "atan": (math.atan, lambda x: 1.0 / (1.0 + x * x)),
    "log": (math.log, lambda x: 1.0 / x),
    "pow2.5": (lambda x: x**2.5, lambda x: 2.5 * x**1.5),
    "sqrt": (math.sqrt, lambda x: 0.5 / math.sqrt(x)),
    "exp∘sin": (lambda x: math.exp(math.sin(x)), lambda x: math.cos(x) * math.exp(math.sin(x))),
}


def _polynomial(coefficients: list[float]) -> Callable[[float], float]:
    """The polynomial sum(c[k] * x**k), Horner's way."""

    def p(x: float) -> float:
        total = 0.0
        for c in reversed(coefficients):
            total = total * x + c
        return total

    return p


def _function(case: Case) -> Callable[[float], float]:
    if "coefficients" in case:
        return _polynomial(case["coefficients"])
    return SMOOTH[case["f"]][0]


def _number(seen: dict[str, Any], key: str) -> tuple[float | None, str | None]:
    value = as_float(seen.get(key))
    if value is None:
        return None, f"returned {describe(seen.get(key))} where a number was expected"
    return value, None


# --- the quotient exercises: forward, central, extrapolated -----------------


def _exact_cases(degree: int, h_range: tuple[float, float]) -> Callable[[random.Random], list]:
    def cases(rng: random.Random) -> list[Case]:
        return [
            {
                "coefficients": [rng.uniform(-2, 2) for _ in range(degree + 1)],
                "x": rng.uniform(-2, 2),
                "h": rng.uniform(*h_range),
            }
            for _ in range(4)
        ]

    return cases


def _run_quotient(name: str) -> Callable[[dict, Case], dict]:
    def run(functions: dict, case: Case) -> dict:
        return {"value": functions[name](_function(case), case["x"], case["h"])}

    return run


def _judge_exact(exact: Callable[[list[float], float, float], float]) -> Callable:
    def judge(case: Case, seen: dict) -> str | None:
        got, problem = _number(seen, "value")
        if problem:
            return problem
        want = exact(case["coefficients"], case["x"], case["h"])
        if close(got, want, 1e-8, 1e-8):
            return None
        degree = len(case["coefficients"]) - 1
        return (
            f"wrong value for a degree-{degree} polynomial at x={case['x']:.3g}, h={case['h']:.3g}"
        )

    return judge


def _forward_cubic(c: list[float], x: float, h: float) -> float:
    # ((x+h)^k - x^k) / h expanded for k = 1, 2, 3
    return c[1] + c[2] * (2 * x + h) + c[3] * (3 * x * x + 3 * x * h + h * h)


def _central_cubic(c: list[float], x: float, h: float) -> float:
    return c[1] + 2 * c[2] * x + c[3] * (3 * x * x + h * h)


def _quartic_derivative(c: list[float], x: float, h: float) -> float:
    return c[1] + 2 * c[2] * x + 3 * c[3] * x**2 + 4 * c[4] * x**3


def _order_check(name: str, functions: tuple[str, ...], h: float, ratio: float, hint: str):
    """Halving h must divide the error by ``ratio`` (2, 4, 16): the order of the method."""

    def cases(rng: random.Random) -> list[Case]:
        return [{"f": f, "x": rng.uniform(-2, 2), "h": h} for f in functions]

    def run(fns: dict, case: Case) -> dict:
        f, x = SMOOTH[case["f"]][0], case["x"]
        return {"coarse": fns[name](f, x, case["h"]), "fine": fns[name](f, x, case["h"] / 2)}

    def judge(case: Case, seen: dict) -> str | None:
        coarse, problem = _number(seen, "coarse")
        fine, problem2 = _number(seen, "fine")
        if problem or problem2:
            return problem or problem2
        exact = SMOOTH[case["f"]][1](case["x"])
        before, after = abs(coarse - exact), abs(fine - exact)
        if math.isfinite(before) and 0 < after and 0.75 < before / after / ratio < 1.3:
            return None
        return (
            f"halving h (from {case['h']:g}) should divide the error by about {ratio:g} "
            f"for {case['f']} at x={case['x']:.3g}; yours changed it by a factor "
            f"{before / after if after else float('inf'):.3g}"
        )

    return Check(f"error shrinks {ratio:g}x when h halves", hint, cases, run, judge)


FORWARD = register(
    Exercise(
        "01.forward_difference",
        "Forward difference",
        1,
        "forward_difference(f, x, h) returns (f(x + h) - f(x)) / h.",
        ("forward_difference",),
        (
            Check(
                "exact quotient of a cubic",
                "step forward from x and divide by h: (f(x + h) - f(x)) / h "
                "(not 2h, and not the central difference)",
                _exact_cases(3, (0.05, 0.5)),
                _run_quotient("forward_difference"),
                _judge_exact(_forward_cubic),
            ),
            _order_check(
                "forward_difference",
                ("exp", "cosh"),
                1e-3,
                2,
                "a forward difference is first order: its error is about h f''(x) / 2",
            ),
        ),
    )
)


def _central(f: Callable[[float], float], x: float, h: float) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


CENTRAL = register(
    Exercise(
        "01.central_difference",
        "Central difference",
        2,
        "central_difference(f, x, h) returns (f(x + h) - f(x - h)) / (2h).",
        ("central_difference",),
        (
            Check(
                "exact quotient of a cubic",
                "use both sides of x and divide by 2h: dividing by h doubles the answer",
                _exact_cases(3, (0.05, 0.5)),
                _run_quotient("central_difference"),
                _judge_exact(_central_cubic),
            ),
            _order_check(
                "central_difference",
                ("exp", "sinh"),
                1e-2,
                4,
                "a one-sided step leaves an error proportional to h; "
                "stepping to both sides of x cancels it, leaving h² f'''(x) / 6",
            ),
        ),
    )
)

RICHARDSON = register(
    Exercise(
        "01.extrapolated_difference",
        "Richardson extrapolation",
        2,
        "extrapolated_difference(f, x, h) returns (4 D(h/2) - D(h)) / 3, "
        "D being central_difference(f, x, ·).",
        ("extrapolated_difference",),
        (
            Check(
                "exact derivative of a quartic",
                "weigh the two central differences 4 and -1, then divide by 3, "
                "so their h² errors cancel",
                _exact_cases(4, (0.1, 1.0)),
                _run_quotient("extrapolated_difference"),
                _judge_exact(_quartic_derivative),
            ),
            _order_check(
                "extrapolated_difference",
                ("exp", "sinh"),
                0.2,
                16,
                "with the h² terms cancelled the error is of order h⁴; "
                "check that the finer difference uses h / 2",
            ),
        ),
        requires={"central_difference": _central},
    )
)


# --- the gradient ------------------------------------------------------------


class _Counted:
    """``f`` that counts its calls (the grader's, so a submission cannot reset it)."""

    def __init__(self, f: Callable[[Any], float]) -> None:
        self.f, self.calls = f, 0

    def __call__(self, xs: Any) -> float:
        self.calls += 1
        return self.f(xs)


def _quadratic(case: Case) -> Callable[[Any], float]:
    a, b, n = case["A"], case["b"], len(case["b"])

    def f(x: Any) -> float:
        return sum(0.5 * a[i][j] * x[i] * x[j] for i in range(n) for j in range(n)) + sum(
            b[i] * x[i] for i in range(n)
        )

    return f


def _quadratic_gradient(case: Case) -> list[float]:
    a, b, x, n = case["A"], case["b"], case["xs"], len(case["b"])
    return [sum(0.5 * (a[k][j] + a[j][k]) * x[j] for j in range(n)) + b[k] for k in range(n)]


def _ring(x: Any) -> float:
    n = len(x)
    return sum(math.sin(x[i]) * x[(i + 1) % n] for i in range(n))


def _ring_gradient(case: Case) -> list[float]:
    x, n = case["xs"], len(case["xs"])
    return [math.cos(x[k]) * x[(k + 1) % n] + math.sin(x[k - 1]) for k in range(n)]


def _gradient_cases(sizes: tuple[int, int], ring: bool = False) -> Callable:
    def cases(rng: random.Random) -> list[Case]:
        out = []
        for _ in range(3):
            n = rng.randint(*sizes)
            case: Case = {"xs": [rng.uniform(-2, 2) for _ in range(n)], "ring": ring}
            if not ring:
                case["A"] = [[rng.uniform(-1, 1) for _ in range(n)] for _ in range(n)]
                case["b"] = [rng.uniform(-1, 1) for _ in range(n)]
            out.append(case)
        return out

    return cases


def _run_gradient(functions: dict, case: Case) -> dict:
    f = _Counted(_ring if case["ring"] else _quadratic(case))
    xs = list(case["xs"])
    grad = functions["numerical_gradient"](f, xs, 1e-5)
    return {"grad": grad, "xs_after": xs, "calls": f.calls}


def _judge_gradient(case: Case, seen: dict) -> str | None:
    n = len(case["xs"])
    grad = as_floats(seen.get("grad"), n)
    if grad is None:
        return f"returned {describe(seen.get('grad'))} for {n} variables; expected {n} numbers"
    want = _ring_gradient(case) if case["ring"] else _quadratic_gradient(case)
    if all(close(g, w, 1e-6, 1e-6) for g, w in zip(grad, want, strict=True)):
        return None
    return f"wrong gradient for a function of {n} variables"


def _judge_unchanged(case: Case, seen: dict) -> str | None:
    after = as_floats(seen.get("xs_after"), len(case["xs"]))
    # a perturb-and-restore in place may leave a rounding error; forgetting to restore leaves h
    if after is not None and all(
        close(a, x, 1e-12, 1e-12) for a, x in zip(after, case["xs"], strict=True)
    ):
        return None
    return "the list xs passed in was changed by the call"


def _judge_calls(case: Case, seen: dict) -> str | None:
    n, calls = len(case["xs"]), seen.get("calls")
    if type(calls) is int and calls <= 2 * n + 1:
        return None
    return f"f was evaluated {calls} times for {n} variables; 2n = {2 * n} is enough"


GRADIENT = register(
    Exercise(
        "01.numerical_gradient",
        "Numerical gradient",
        3,
        "numerical_gradient(f, xs, h) returns the list of partial derivatives of f at xs, "
        "each a central difference in one coordinate.",
        ("numerical_gradient",),
        (
            Check(
                "gradient of a quadratic with cross terms",
                "perturb one coordinate at a time, put it back before the next, "
                "and return one partial derivative per variable",
                _gradient_cases((1, 6)),
                _run_gradient,
                _judge_gradient,
            ),
            Check(
                "gradient of a non-polynomial function",
                "use a central difference in each coordinate: a one-sided step leaves "
                "an error proportional to h",
                _gradient_cases((1, 6), ring=True),
                _run_gradient,
                _judge_gradient,
            ),
            Check(
                "leaves xs unchanged",
                "work on a copy of xs (list(xs)): the caller's point must not move",
                _gradient_cases((2, 5)),
                _run_gradient,
                _judge_unchanged,
            ),
            Check(
                "evaluates f O(n) times",
                "two evaluations of f per partial derivative are enough; do not "
                "recompute the whole gradient for each coordinate",
                _gradient_cases((5, 8)),
                _run_gradient,
                _judge_calls,
            ),
        ),
        requires={"central_difference": _central},
    )
)


# --- the step size -----------------------------------------------------------

_TOLERANCE = 50  # times the smallest error any h achieves


def _error(name: str, x: float, h: float) -> float:
    f, df = SMOOTH[name]
    try:
        return abs(_central(f, x, h) - df(x)) / abs(df(x))
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


def _run_step(functions: dict, case: Case) -> dict:
    return {"h": functions["step_size"](case["x"])}


def _judge_step(direction: str) -> Callable:
    """Fail when the error is far above the best and h errs in ``direction``."""

    def judge(case: Case, seen: dict) -> str | None:
        h, problem = _number(seen, "h")
        if problem:
            return problem
        if not (math.isfinite(h) and h > 0):
            return f"step_size({case['x']:.3g}) returned {h!r}; a step must be positive"
        best, best_h = _best(case["f"], case["x"])
        if _error(case["f"], case["x"], h) <= _TOLERANCE * best:
            return None
        if direction == "any" or (direction == "small") == (h < best_h):
            what = "small" if h < best_h else "large"
            return (
                f"h = {h:.3g} at x = {case['x']:.3g} is too {what}: the error is far above the best"
            )
        return None

    return judge


_MODERATE = (
    ("sin", -1.2, 1.2),
    ("exp", -2, 2),
    ("tanh", -1, 1),
    ("atan", -2, 2),
    ("log", 0.5, 4),
    ("pow2.5", 0.5, 4),
    ("sqrt", 0.5, 4),
)

STEP = register(
    Exercise(
        "01.step_size",
        "Choosing h",
        2,
        "step_size(x) returns the h for central_difference at x that keeps the total "
        "error (truncation + rounding) near its minimum.",
        ("step_size",),
        (
            Check(
                "not so small that rounding error dominates",
                "h too small: f(x + h) - f(x - h) cancels almost every digit, so the "
                "rounding error (about ε|f| / h) explodes; take h near ε^(1/3)",
                _step_cases(_MODERATE),
                _run_step,
                _judge_step("small"),
            ),
            Check(
                "not so large that truncation error dominates",
                "h too large: the truncation error h² f'''(x) / 6 dominates; take h near ε^(1/3)",
                _step_cases(_MODERATE),
                _run_step,
                _judge_step("large"),
            ),
            Check(
                "scales with |x|",
                "for large |x|, x + h keeps only the digits of h above ε|x|: scale the "
                "step, e.g. h = ε^(1/3) · max(1, |x|)",
                _step_cases((("log", 1e3, 1e6), ("pow2.5", 1e3, 1e5), ("sqrt", 1e4, 1e6))),
                _run_step,
                _judge_step("any"),
            ),
            Check(
                "works at x = 0",
                "a step proportional to |x| is 0 at x = 0: use max(1, |x|)",
                _step_cases((("exp", 0, 0), ("exp∘sin", 0, 0))),
                _run_step,
                _judge_step("any"),
            ),
        ),
    )
)
