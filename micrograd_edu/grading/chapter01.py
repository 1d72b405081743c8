"""Chapter 01's exercises 1-3: a one-sided quotient of second order, the second
difference, and Richardson's extrapolation. The lecture derives the forward and the
central quotient; each exercise asks the student to derive the next one.

Every oracle here is a closed form, never a finite difference computed the way the
solution computes it: what each quotient gives on a polynomial (exact up to some degree,
then off by what Taylor predicts), the derivatives of ``exp``/``sinh``/..., and the
error ratio a quotient of a given order must show when ``h`` is halved.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from ..scalar.numerical import central_difference as central_quotient
from .explain import REAL
from .plain import as_float, close, describe
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter01 import _function, _run_halving, _run_quotient
from .steps import reference_steps

# The package's own answers to this chapter; the batch grader withholds them.
WITHHELD = (
    "micrograd_edu.scalar.numerical.forward_difference",
    "micrograd_edu.scalar.numerical.backward_difference",
    "micrograd_edu.scalar.numerical.central_difference",
    "micrograd_edu.scalar.numerical.gradient",
    "micrograd_edu.scalar.numerical.jacobian",
    "micrograd_edu.grading.references.central_quotient",
)

# Closed forms the judges compare with: f' for the first-derivative order checks, f'' for
# the second difference's order check and for the step size's judge (chapter01_gradient.py).
DERIVATIVES: dict[str, Callable[[float], float]] = {"exp": math.exp, "sinh": math.cosh}
SECOND_DERIVATIVES: dict[str, Callable[[float], float]] = {
    "sin": lambda x: -math.sin(x),
    "exp": math.exp,
    "cosh": math.cosh,
    "tanh": lambda x: -2.0 * math.tanh(x) * (1.0 - math.tanh(x) ** 2),
    "atan": lambda x: -2.0 * x / (1.0 + x * x) ** 2,
    "log": lambda x: -1.0 / (x * x),
    "pow2.5": lambda x: 3.75 * math.sqrt(x),
    "sqrt": lambda x: -0.25 * x**-1.5,
    "exp∘sin": lambda x: (math.cos(x) ** 2 - math.sin(x)) * math.exp(math.sin(x)),
}


def number_in(seen: dict[str, Any], key: str) -> tuple[float | None, str | None]:
    """The number observed under ``key``, or the reason it is not one."""
    value = as_float(seen.get(key))
    if value is None:
        return None, f"returned {describe(seen.get(key))} where a number was expected"
    return value, None


# --- quotients on polynomials, against what they must give --------------------

Exact = Callable[[list[float], float, float], float]  # (coefficients, x, h) -> value


def _polynomial_cases(degree: int, right_only: bool = False) -> Callable:
    """A constant, a line, then three polynomials of ``degree``: a wrong combination
    fails first where its mistake is plainest. ``right_only``: f is nan left of x."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for top in (0, 1, degree, degree, degree):
            case = {
                "coefficients": [
                    rng.uniform(-2, 2) if k <= top else 0.0 for k in range(degree + 1)
                ],
                "x": rng.uniform(-2, 2),
                "h": rng.uniform(0.05, 0.5),
            }
            out.append({**case, "right_only": True} if right_only else case)
        return out

    return cases


def _degree(case: Case) -> int:
    return max((k for k, c in enumerate(case["coefficients"]) if c), default=0)


def _where(case: Case) -> str:
    return f"a polynomial of degree {_degree(case)} at x={case['x']:.3g}, h={case['h']:.3g}"


def _judge_right_only(case: Case, seen: dict) -> str | None:
    """f is nan left of x: a quotient that looks there returns nan (its value is the
    first check's business)."""
    got, problem = number_in(seen, "value")
    if problem:
        return problem
    if math.isnan(got):
        return (
            f"returned nan for {_where(case)}, where f is nan left of x (as √t is left "
            "of 0): it evaluated f somewhere left of x"
        )
    return None


def _judge_exact(exact: Exact, what: str) -> Callable:
    def judge(case: Case, seen: dict) -> str | None:
        got, problem = number_in(seen, "value")
        if problem:
            return problem
        want = exact(case["coefficients"], case["x"], case["h"])
        if close(got, want, 1e-8, 1e-8):
            return None
        where = _where(case)
        if not math.isfinite(got):
            return f"returned {got} for {where}"
        if want == 0:
            return f"returned {got:.3g} for {where}, whose {what} is 0"
        scale = _scale(got, want, case["h"])
        if scale:
            return f"wrong value for {where}: it is {scale} times the right one"
        error = abs(got - want) / abs(want)
        return f"wrong value for {where}: relative error {error:.1g} (1e-08 allowed)"

    return judge


def _quotient_is(model: Callable[[Callable[[float], float], float, float], float]) -> Callable:
    """A mistake whose value on the case's polynomial p is ``model(p, x, h)``."""

    def matches(case: Case, seen: dict) -> bool:
        got = as_float(seen.get("value"))
        want = model(_function(case), case["x"], case["h"])
        return got is not None and close(got, want, 1e-8, 1e-8)

    return matches


_SCALES = [(j, k) for j in range(-2, 3) for k in range(-2, 3) if (j, k) != (0, 0)]


def _scale(got: float, want: float, h: float) -> str | None:
    """``got / want`` named when it is 2^j h^k (j, k from -2 to 2) or -1: what dividing by
    the wrong amount, or flipping the sign, makes of a right value."""
    if want == 0 or not math.isfinite(got):
        return None
    if close(got / want, -1.0, 1e-8):
        return "-1"
    for j, k in _SCALES:
        if close(got / want, 2.0**j * h**k, 1e-8):
            up = "".join([str(2**j) if j > 0 else "", {1: "h", 2: "h²"}.get(k, "")])
            down = "".join([str(2**-j) if j < 0 else "", {-1: "h", -2: "h²"}.get(k, "")])
            return f"{up or 1}/{down}" if down else up
    return None


def _scaled(exact: Exact, which: Callable[[str], bool]) -> Callable:
    """A mistake whose value is the right one times a scale ``which`` accepts (see
    :func:`_scale`)."""

    def matches(case: Case, seen: dict) -> bool:
        got = as_float(seen.get("value"))
        if got is None:
            return False
        scale = _scale(got, exact(case["coefficients"], case["x"], case["h"]), case["h"])
        return scale is not None and which(scale)

    return matches


_DIVISOR = (
    "the combination of f's values is right, but not what it is divided by: once the "
    "other terms cancel, which power of h (and which number) is left in front of the "
    "derivative you want?"
)


def _power_of_two(c: float) -> bool:
    return c > 0 and abs(math.log2(c) - round(math.log2(c))) < 1e-9 and round(math.log2(c)) != 0


def _wrong_divisor(exact: Exact) -> tuple[Mistake, Mistake]:
    """The right combination of f's values divided by the wrong amount: by a wrong number
    (the same factor on every case, a power of 2), or by a wrong power of h (a factor
    that changes with h from case to case)."""
    return (
        Mistake(None, _DIVISOR, name="divisor", factor=_power_of_two),
        Mistake(_scaled(exact, lambda scale: "h" in scale), _DIVISOR, name="divisor"),
    )


_SIGN = "it has the opposite sign: try your weights on f(t) = t (or t² for f'') by hand"
_OPPOSITE = Mistake(None, _SIGN, name="sign", factor=-1.0)


def _value_right(exact: Exact) -> Callable[[Case], dict]:
    return lambda case: {"value": exact(case["coefficients"], case["x"], case["h"])}


def _is_nan(value: Any) -> bool:
    number = as_float(value)
    return number is not None and math.isnan(number)


def _one_sided_exact(c: list[float], x: float, h: float) -> float:
    # exact up to quadratics; on t³ the three points give 3x² - 2h²
    return c[1] + 2 * c[2] * x + c[3] * (3 * x * x - 2 * h * h)


def _second_exact(c: list[float], x: float, h: float) -> float:
    # exact up to cubics; on t⁴ the three points give 12x² + 2h²
    return 2 * c[2] + 6 * c[3] * x + c[4] * (12 * x * x + 2 * h * h)


def _quartic_derivative(c: list[float], x: float, h: float) -> float:
    return c[1] + 2 * c[2] * x + 3 * c[3] * x**2 + 4 * c[4] * x**3


_TWO_POINTS = (
    "that is a two-point quotient, first order: its error still has a term in h f''(x). "
    "The third point is there to cancel that term too"
)
_LOOKS_LEFT = Mistake(
    lambda case, seen: _is_nan(seen.get("value")),
    "at the edge of a domain (√t at 0, a simulation at its start time) f has no values "
    "left of x: this quotient may use only x, x + h and x + 2h",
    name="left of x",
)


def _offsets(seen: dict) -> set[float]:
    """Where the quotient evaluated f, in steps of h from x (the runner notes it)."""
    offsets = seen.get("offsets")
    return {o for o in offsets if as_float(o) is not None} if isinstance(offsets, list) else set()


_SHIFTED = Mistake(
    lambda case, seen: _offsets(seen) == {1.0, 2.0, 3.0},
    "your quotient evaluates f at x + h, x + 2h and x + 3h: shifted by h, it estimates the "
    "slope near x + h, not at x. Use f(x), f(x + h) and f(x + 2h)",
    name="shifted",
)
_BEYOND = Mistake(
    lambda case, seen: (
        min(_offsets(seen), default=0.0) >= 0
        and not _offsets(seen) <= {0.0, 1.0, 2.0}
        and _offsets(seen) != {1.0, 2.0, 3.0}
    ),
    "your quotient evaluates f at a point other than x, x + h and x + 2h (further right, "
    "or between them): the statement allows these three only",
    name="other points",
)
ONE_SIDED_MISTAKES = (
    _SHIFTED,
    _BEYOND,
    Mistake(_quotient_is(lambda p, x, h: (p(x + h) - p(x)) / h), _TWO_POINTS, name="two points"),
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + 2 * h) - p(x)) / (2 * h)),
        _TWO_POINTS,
        name="two points",
    ),
    Mistake(
        _quotient_is(central_quotient),
        "that is the central quotient, which needs f left of x; this one may use only "
        "x, x + h and x + 2h",
        name="central",
    ),
    *_wrong_divisor(_one_sided_exact),
    _OPPOSITE,
)
SECOND_MISTAKES = (
    Mistake(
        _quotient_is(central_quotient),
        "that estimates f'(x), the first derivative; this one is f''(x)",
        name="first derivative",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + 2 * h) - 2 * p(x + h) + p(x)) / h**2),
        "that combination is centred on x + h, not on x, so its error is proportional to h; "
        "use the points x - h, x and x + h",
        name="off centre",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: (p(x + 2 * h) - 2 * p(x) + p(x - 2 * h)) / (4 * h * h)),
        "that uses x ± 2h (a central quotient of central quotients, each of step h); "
        "use x - h, x and x + h, which make the error four times smaller",
        name="wide",
    ),
    *_wrong_divisor(_second_exact),
    _OPPOSITE,
)


_ONE_CENTRAL = (
    "that is a single central difference, with its h² error; combine the two steps so "
    "that error cancels"
)
_HALF_STEPS = {-1.0, -0.5, 0.5, 1.0}  # where central differences at h and h / 2 evaluate f


def _other_steps(case: Case, seen: dict) -> bool:
    """A value from f evaluated nowhere, or somewhere other than x ± h and x ± h / 2."""
    return "value" in seen and not (_offsets(seen) and _offsets(seen) <= _HALF_STEPS)


def _judge_half_steps(case: Case, seen: dict) -> str | None:
    """The combination of central differences at h and h / 2: exact on a quartic, and
    from f at x ± h and x ± h / 2 only (a step of its own, or an exact derivative, is
    exact too, but not what the statement asks)."""
    if _other_steps(case, seen):
        where = sorted(_offsets(seen))
        said = ", ".join(f"x {'+' if o >= 0 else '-'} {abs(o):g}h" for o in where) or "nowhere"
        return f"for {_where(case)}, f was evaluated at {said}"
    return _judge_exact(_quartic_derivative, "derivative")(case, seen)


RICHARDSON_MISTAKES = (
    Mistake(
        _other_steps,
        "your quotient evaluates f at points other than x ± h and x ± h/2: combine "
        "central_difference(f, x, h) and central_difference(f, x, h / 2), with the h you "
        "are given",
        name="other steps",
    ),
    Mistake(_quotient_is(central_quotient), _ONE_CENTRAL, name="single central"),
    Mistake(
        _quotient_is(lambda p, x, h: central_quotient(p, x, h / 2)),
        _ONE_CENTRAL,
        name="single central",
    ),
    Mistake(
        _quotient_is(lambda p, x, h: 2 * central_quotient(p, x, h / 2) - central_quotient(p, x, h)),
        "those weights cancel an error proportional to h, as a one-sided quotient has; "
        "the central difference's error starts at h²",
        name="first-order weights",
    ),
    Mistake(
        _quotient_is(
            lambda p, x, h: (4 * central_quotient(p, x, h) - central_quotient(p, x, h / 2)) / 3
        ),
        "the h² terms do not cancel: which of the two steps has the smaller error, and "
        "which weight does it get?",
        name="swapped",
    ),
    _OPPOSITE,
    # exact on these polynomials, the combination is off by a constant factor when its
    # weights do not add up to what one central difference's weight is
    Mistake(
        None,
        "both central differences are exact on a constant or a line, so the combination "
        "must give back the same value: what must its weights add up to?",
        name="weights add up",
        factor=lambda c: c != -1.0,
    ),
)


# --- the order of a quotient: how its error responds to halving h --------------


def _error_ratio(
    exact: dict[str, Callable[[float], float]], case: Case, seen: dict
) -> float | None:
    """How many times smaller the error got when h was halved (None: not numbers)."""
    coarse, fine = as_float(seen.get("coarse")), as_float(seen.get("fine"))
    if coarse is None or fine is None:
        return None
    want = exact[case["f"]](case["x"])
    before, after = abs(coarse - want), abs(fine - want)
    return before / after if after else math.inf


def _near(found: float | None, ratio: float) -> bool:
    return found is not None and math.isfinite(found) and 0.75 < found / ratio < 1.3


# What the error's response to halving h says about the quotient that was computed.
_RATIO_MISTAKES = {
    0.25: "the error grows 4x when h halves: a term divided by h² did not cancel (do your "
    "weights give 0 on a constant?)",
    0.5: "the error doubles when h halves: a term divided by h did not cancel (do your "
    "weights give 0 on a constant?)",
    1: "the error stays the same when h halves: part of it does not come from the step "
    "(a constant factor or term, or a step other than the h you were given?)",
    2: "the error halves with h, as a first-order quotient's does: a term in h was not cancelled",
    4: "the error falls 4x when h halves, as a second-order quotient's does: the h² "
    "terms were not cancelled",
}


def _order_check(
    name: str,
    functions: tuple[str, ...],
    h: float,
    ratio: float,
    seen: tuple[float, ...],
    exact: dict[str, Callable[[float], float]] = DERIVATIVES,
    points: tuple[Mistake, ...] = (),
) -> Check:
    """Halving h must divide the error by ``ratio`` (4, 16): the order of the method.
    ``seen``: the wrong ratios this quotient's typical mistakes give, each named by its
    mistake model. ``exact`` holds what ``name`` estimates, in closed form. ``points``:
    mistakes seen in where f was evaluated, which explain a ratio before it does."""

    def cases(rng: random.Random) -> list[Case]:
        return [{"f": f, "x": rng.uniform(-2, 2), "h": h} for f in functions]

    def judge(case: Case, seen: dict) -> str | None:
        _, problem = number_in(seen, "coarse")
        _, problem2 = number_in(seen, "fine")
        if problem or problem2:
            return problem or problem2
        found = _error_ratio(exact, case, seen)
        if _near(found, ratio):
            return None
        return (
            f"halving h (from {case['h']:g}) should divide the error by about {ratio:g} "
            f"for {case['f']} at x={case['x']:.3g}; yours changed it by a factor {found:.3g}"
        )

    mistakes = points + tuple(
        Mistake(
            lambda case, seen, r=r: _near(_error_ratio(exact, case, seen), r),
            hint,
            name=f"error ratio {r:g}",
        )
        for r, hint in _RATIO_MISTAKES.items()
        if r in seen
    )
    return Check(
        f"error shrinks {ratio:g}x when h halves",
        "",
        cases,
        _run_halving(name),
        judge,
        mistakes=mistakes,
        right=lambda case: {"coarse": REAL, "fine": REAL},
    )


ONE_SIDED = register(
    Exercise(
        "01.one_sided_difference",
        "A one-sided quotient of second order",
        2,
        "one_sided_difference(f, x, h) estimates f'(x) from f(x), f(x + h) and f(x + 2h) "
        "only, with an error proportional to h².",
        ("one_sided_difference",),
        (
            Check(
                "exact on the polynomials its order promises, off by what Taylor predicts beyond",
                "",
                _polynomial_cases(3),
                _run_quotient("one_sided_difference"),
                _judge_exact(_one_sided_exact, "derivative"),
                mistakes=ONE_SIDED_MISTAKES,
                right=_value_right(_one_sided_exact),
            ),
            Check(
                "uses no point left of x",
                "",
                _polynomial_cases(3, right_only=True),
                _run_quotient("one_sided_difference"),
                _judge_right_only,
                mistakes=(_LOOKS_LEFT,),
                right=lambda case: {"value": REAL},
            ),
            _order_check(
                "one_sided_difference",
                ("exp", "sinh"),
                1e-2,
                4,
                (0.5, 1, 2),
                points=(_SHIFTED, _BEYOND),
            ),
        ),
        withheld=WITHHELD,
    )
)

SECOND = register(
    Exercise(
        "01.second_difference",
        "The second difference",
        2,
        "second_difference(f, x, h) estimates f''(x) from f(x - h), f(x) and f(x + h), "
        "with an error proportional to h².",
        ("second_difference",),
        (
            Check(
                "exact on low-degree polynomials, off by what Taylor predicts beyond them",
                "",
                _polynomial_cases(4),
                _run_quotient("second_difference"),
                _judge_exact(_second_exact, "second derivative"),
                mistakes=SECOND_MISTAKES,
                right=_value_right(_second_exact),
            ),
            _order_check(
                "second_difference", ("exp", "cosh"), 5e-2, 4, (0.25, 0.5, 1, 2), SECOND_DERIVATIVES
            ),
        ),
        withheld=WITHHELD,
    )
)

RICHARDSON = register(
    Exercise(
        "01.extrapolated_difference",
        "Richardson extrapolation",
        2,
        "extrapolated_difference(f, x, h) combines central_difference(f, x, h) and "
        "central_difference(f, x, h / 2) into an estimate of f'(x) whose error is "
        "proportional to h⁴.",
        ("extrapolated_difference",),
        (
            Check(
                "exact on low-degree polynomials",
                "",
                _polynomial_cases(4),
                _run_quotient("extrapolated_difference"),
                _judge_half_steps,
                mistakes=RICHARDSON_MISTAKES,
                right=_value_right(_quartic_derivative),
            ),
            _order_check("extrapolated_difference", ("exp", "sinh"), 0.2, 16, (1, 4)),
        ),
        requires=reference_steps(central_difference="central_quotient"),
        withheld=WITHHELD,
    )
)
