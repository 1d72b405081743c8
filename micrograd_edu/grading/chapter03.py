"""Chapter 03's exercises: forward mode with dual numbers.

The lecture builds the product, sin and log of dual numbers; the exercises ask for the
next pieces, derived by the student: division and powers. The oracles are closed forms
computed here with ``math``: the derivative of each expression along its tangents, and
the Jacobian of a family of functions ℝⁿ → ℝᵐ written out by hand. The forward passes are
the grader's: ``f(x) = d ⊙ g(c ⊙ x)`` with scales only the grader knows, evaluated here on
the dual numbers the student's code sends (runners/served.py's ``remote_duals``), so the
count is made here and the student's process can run no pass without asking.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from .. import functions as F
from ..scalar.dual import Dual
from .plain import as_float, as_floats, close, describe, ratio
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter03 import _run_expression, _run_jacobian, _run_unchanged
from .runners.served import draw_scales, scaled

# The package's own answers to this chapter; the batch grader withholds them.
WITHHELD = ("micrograd_edu.scalar.dual.jacobian_forward", "micrograd_edu.scalar.dual.jvp")
# Division and powers of duals are graded in a process of their own, from which the rule
# table's derivatives (with which the package's own Dual divides) are absent; the notebook's
# other cells and 03.jacobian_forward run the package's Dual in the first process.
RULES_WITHHELD = (*WITHHELD, "micrograd_edu.rules._rule(*partials)")


# --- 1 and 2: division and powers of dual numbers ------------------------------------
#
# Every oracle is the closed-form derivative of the expression along the tangents: for
# u(t) = a + ȧt and v(t) = b + ḃt, the tangent of u / v is d/dt (u / v) at t = 0.

Parts = tuple[float, float, float, float, float]  # a, ȧ, b, ḃ, c


def _parts(case: Case) -> Parts:
    return case["a"], case["da"], case["b"], case["db"], case["c"]


EXACT: dict[str, Callable[..., tuple[float, float]]] = {
    "x / y": lambda a, da, b, db, c: (a / b, (da * b - a * db) / b**2),
    "x / c": lambda a, da, b, db, c: (a / c, da / c),
    "c / x": lambda a, da, b, db, c: (c / a, -c * da / a**2),
    "(x / y) / x": lambda a, da, b, db, c: (1 / b, -db / b**2),
    "x / x": lambda a, da, b, db, c: (1.0, 0.0),
    "x ** c": lambda a, da, b, db, c: (a**c, c * a ** (c - 1) * da),
    "c ** x": lambda a, da, b, db, c: (c**a, c**a * math.log(c) * da),
    "x ** y": lambda a, da, b, db, c: (a**b, a**b * (db * math.log(a) + b * da / a)),
    "(x ** 2) ** 0.5": lambda a, da, b, db, c: (abs(a), math.copysign(1.0, a) * da),
    "x ** x": lambda a, da, b, db, c: (a**a, a**a * (math.log(a) + 1) * da),
}


def _shown(case: Case) -> str:
    names = {"a": "a", "da": "ȧ", "b": "b", "db": "ḃ", "c": "c"}
    used = case["expr"]
    keys = [k for k in ("a", "da") if "x" in used] + [k for k in ("b", "db") if "y" in used]
    keys += ["c"] if "c" in used else []
    return ", ".join(f"{names[k]} = {case[k]:.3g}" for k in keys)


def _seen_pair(seen: dict) -> tuple[float, float] | None:
    primal, tangent = as_float(seen.get("primal")), as_float(seen.get("tangent"))
    return None if primal is None or tangent is None else (primal, tangent)


def _judge_expression(case: Case, seen: dict) -> str | None:
    expr, got = case["expr"], _seen_pair(seen)
    if got is None:
        found = describe(seen.get("primal")), describe(seen.get("tangent"))
        return f"{expr} has primal {found[0]} and tangent {found[1]}; expected two numbers"
    want = EXACT[expr](*_parts(case))
    for what, g, w in zip(("primal", "tangent"), got, want, strict=True):
        if not close(g, w, _EXACT, _EXACT):
            return f"wrong {what} for {expr} at {_shown(case)}{_how_far(g, w)}"
    return None


# A rule from its formula is right to the last few bits; a difference quotient, however
# small its h, keeps 10 or 11 digits at best (rounding over h).
_EXACT = 1e-12


def _approximated(case: Case, seen: dict) -> bool:
    """The primal right and the tangent right to between 4 and 12 digits: a difference
    quotient."""
    got = _seen_pair(seen)
    want = EXACT[case["expr"]](*_parts(case))
    return (
        got is not None
        and close(got[0], want[0], _EXACT, _EXACT)
        and close(got[1], want[1], 1e-4, 1e-9)
        and not close(got[1], want[1], _EXACT, _EXACT)
    )


_APPROXIMATION = Mistake(
    _approximated,
    "right to many digits but not all of them: an approximation (a difference quotient?), "
    "where the rule's formula, with ε² = 0, gives the tangent exactly",
    name="approximation",
)


def _how_far(got: float, want: float) -> str:
    """What a wrong number is, next to the right one, without the right one."""
    if want != 0 and close(got, -want, 1e-10, 1e-10):
        return ": its sign is wrong"
    if want != 0 and got != want and close(got, want, 1e-6):
        return (
            f": it agrees with the right one to {int(-math.log10(abs(got / want - 1)))} digits only"
        )
    if want != 0 and got != 0:
        return f": it is {ratio(got, want)} times the right one"
    return ""


def _tangent_is(models: dict[str, Callable[..., float]]) -> Callable[[Case, dict], bool]:
    """The mistake whose tangent for an expression is ``models[expr]`` (primal right)."""

    def matches(case: Case, seen: dict) -> bool:
        got, model = _seen_pair(seen), models.get(case["expr"])
        if got is None or model is None:
            return False
        primal, _ = EXACT[case["expr"]](*_parts(case))
        return close(got[0], primal, 1e-10, 1e-10) and close(
            got[1], model(*_parts(case)), 1e-10, 1e-10
        )

    return matches


def _primal_is(models: dict[str, Callable[..., float]]) -> Callable[[Case, dict], bool]:
    def matches(case: Case, seen: dict) -> bool:
        got, model = _seen_pair(seen), models.get(case["expr"])
        return (
            got is not None
            and model is not None
            and close(got[0], model(*_parts(case)), 1e-10, 1e-10)
        )

    return matches


def _cases(spec: Callable[[random.Random], list[tuple[str, float, float]]]) -> Callable:
    """Cases from ``spec(rng)``: (expression, a, c) triples; ȧ, b, ḃ drawn here."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for expr, a, c in spec(rng):
            b = (
                rng.choice((-1, 1)) * rng.uniform(0.5, 3)
                if "x ** y" != expr
                else rng.uniform(-2, 2)
            )
            out.append(
                {
                    "expr": expr,
                    "a": a,
                    "da": rng.uniform(-2, 2),
                    "b": b,
                    "db": rng.uniform(-2, 2),
                    "c": c,
                }
            )
        return out

    return cases


def _right_pair(case: Case) -> dict:
    primal, tangent = EXACT[case["expr"]](*_parts(case))
    return {"primal": primal, "tangent": tangent}


def _not_a_dual(what: str) -> Mistake:
    """The result of one operation cannot take part in the next: it is not a MyDual."""
    return Mistake(
        lambda case, seen: "not a MyDual" in str(seen.get("error", "")),
        f"a {what} is a MyDual that can take part in the next operation: return one",
        name="not a dual",
    )


def _away_from_zero(rng: random.Random) -> float:
    return rng.choice((-1, 1)) * rng.uniform(0.5, 3)


def _judge_unchanged(case: Case, seen: dict) -> str | None:
    after = as_floats(seen.get("after"), 4)
    before = [case["a"], case["da"], case["b"], case["db"]]
    if after is not None and all(close(s, b, 0, 0) for s, b in zip(after, before, strict=True)):
        return None
    return f"{case['expr']} changed x or y: the operands must keep their primal and tangent"


_IN_PLACE = Mistake(
    lambda case, seen: as_floats(seen.get("after"), 4) is not None,
    "x / y changed x or y: return a new MyDual; do not write the result into self or other",
    name="in place",
)


SWAPPED = (
    "{expr} calls your {method} with x as self: the operands arrive the other way round "
    "from {plain}, so it cannot be the same method"
)

DIVIDE = register(
    Exercise(
        "03.dual_divide",
        "Dividing dual numbers",
        2,
        "MyDual.__truediv__ and __rtruediv__ return the dual number of x / y, where either "
        "operand may be a MyDual or a plain number.",
        ("MyDual",),
        (
            Check(
                "the quotient of two duals",
                "",
                _cases(lambda rng: [("x / y", _away_from_zero(rng), 0.0) for _ in range(5)]),
                _run_expression,
                _judge_expression,
                right=_right_pair,
                mistakes=(
                    Mistake(
                        _tangent_is({"x / y": lambda a, da, b, db, c: (a * db - da * b) / b**2}),
                        "the tangent has the right size and the wrong sign: when only the "
                        "numerator grows, should the quotient grow or shrink?",
                        name="sign",
                    ),
                    Mistake(
                        _tangent_is({"x / y": lambda a, da, b, db, c: (da * b + a * db) / b**2}),
                        "a growing denominator makes the quotient smaller: its tangent "
                        "cannot enter with the same sign as the numerator's",
                        name="plus",
                    ),
                    Mistake(
                        _tangent_is({"x / y": lambda a, da, b, db, c: (da * b - a * db) / b}),
                        "the tangent is b times the right one: once top and bottom are "
                        "multiplied by b - ḃε, what is the denominator?",
                        name="b times",
                    ),
                    Mistake(
                        _tangent_is({"x / y": lambda a, da, b, db, c: da / db}),
                        "tangents do not divide as primals do: write the quotient as one dual "
                        "number and let ε² = 0 decide its tangent",
                        name="quotient of tangents",
                    ),
                    Mistake(
                        _tangent_is({"x / y": lambda a, da, b, db, c: da / b}),
                        "the denominator's tangent counts too: y varies along with x",
                        name="denominator ignored",
                    ),
                ),
            ),
            Check(
                "a plain number on either side",
                "",
                _cases(
                    lambda rng: [
                        (expr, _away_from_zero(rng), _away_from_zero(rng))
                        for expr in ("x / c", "c / x", "c / x", "x / c")
                    ]
                ),
                _run_expression,
                _judge_expression,
                right=_right_pair,
                mistakes=(
                    Mistake(
                        _primal_is({"c / x": lambda a, da, b, db, c: a / c}),
                        SWAPPED.format(expr="c / x", method="__rtruediv__", plain="x / c"),
                        name="swapped",
                    ),
                    Mistake(
                        _tangent_is(
                            {
                                "x / c": lambda a, da, b, db, c: (da * c - a) / c**2,
                                "c / x": lambda a, da, b, db, c: (a - c * da) / a**2,
                            }
                        ),
                        "a plain number is a constant: its tangent is 0, not 1",
                        name="number tangent 1",
                    ),
                ),
            ),
            Check(
                "quotients compose: (x / y) / x, and x / x",
                "",
                _cases(
                    lambda rng: [
                        (expr, _away_from_zero(rng), 0.0)
                        for expr in ("(x / y) / x", "x / x", "(x / y) / x")
                    ]
                ),
                _run_expression,
                _judge_expression,
                right=_right_pair,
                mistakes=(_not_a_dual("quotient"),),
            ),
            Check(
                "leaves its operands unchanged",
                "",
                _cases(lambda rng: [("x / y", _away_from_zero(rng), 0.0) for _ in range(2)]),
                _run_unchanged,
                _judge_unchanged,
                mistakes=(_IN_PLACE,),
            ),
        ),
        withheld=RULES_WITHHELD,
        alone=True,
    )
)


def _domain_error(case: Case, seen: dict) -> bool:
    """A logarithm of a negative base: x ** c for a whole c where x < 0."""
    return case["a"] < 0 and "domain" in str(seen.get("error", ""))


POWER = register(
    Exercise(
        "03.dual_power",
        "Powers of dual numbers",
        3,
        "MyDual.__pow__ and __rpow__ return the dual number of x ** c for a number c, "
        "c ** x for a positive number c, and x ** y for a MyDual y (x > 0).",
        ("MyDual",),
        (
            Check(
                "x ** c for a number c",
                "",
                _cases(
                    lambda rng: [
                        ("x ** c", rng.uniform(0.3, 3), 0.5),
                        ("x ** c", rng.uniform(0.3, 3), -1.0),
                        ("x ** c", rng.uniform(0.3, 3), 2.5),
                        ("x ** c", -rng.uniform(0.3, 3), 3.0),
                        ("x ** c", -rng.uniform(0.3, 3), -2.0),
                    ]
                ),
                _run_expression,
                _judge_expression,
                right=_right_pair,
                mistakes=(
                    Mistake(
                        _tangent_is({"x ** c": lambda a, da, b, db, c: c * a ** (c - 1)}),
                        "that is the derivative of the power alone: the chain rule multiplies "
                        "it by the tangent of the base",
                        name="no chain rule",
                    ),
                    Mistake(
                        _tangent_is({"x ** c": lambda a, da, b, db, c: c * a**c * da}),
                        "the power rule lowers the exponent by one",
                        name="exponent not lowered",
                    ),
                    Mistake(
                        _domain_error,
                        "x ** 3 is defined at a negative x, but the logarithm of x is not: for "
                        "a number exponent, differentiate the power itself",
                        name="through log",
                    ),
                    _APPROXIMATION,
                ),
            ),
            Check(
                "c ** x for a number c",
                "",
                _cases(
                    lambda rng: [
                        ("c ** x", rng.uniform(-2, 2), rng.uniform(0.3, 4)) for _ in range(4)
                    ]
                ),
                _run_expression,
                _judge_expression,
                right=_right_pair,
                mistakes=(
                    Mistake(
                        lambda case, seen: (
                            _primal_is({"c ** x": lambda a, da, b, db, c: a**c})(case, seen)
                            or (case["a"] < 0 and "complex" in str(seen.get("error", "")))
                        ),  # x ** c, which at a negative x is complex
                        SWAPPED.format(expr="c ** x", method="__rpow__", plain="x ** c"),
                        name="swapped",
                    ),
                    Mistake(
                        _tangent_is({"c ** x": lambda a, da, b, db, c: a * c ** (a - 1) * da}),
                        "c ** x is an exponential in x, not a power of x: the power rule does "
                        "not apply; how does the lecture differentiate exp?",
                        name="power rule on an exponential",
                    ),
                    Mistake(
                        _tangent_is({"c ** x": lambda a, da, b, db, c: c**a * da}),
                        "your tangent is c ** x times the input's: that is the slope of e ** x. "
                        "Write c ** x as e ** (x log c): what does the chain rule bring down?",
                        name="no log c",
                    ),
                    _APPROXIMATION,
                ),
            ),
            Check(
                "x ** y for a dual y",
                "",
                _cases(lambda rng: [("x ** y", rng.uniform(0.3, 3), 0.0) for _ in range(4)]),
                _run_expression,
                _judge_expression,
                right=_right_pair,
                mistakes=(
                    Mistake(
                        _tangent_is({"x ** y": lambda a, da, b, db, c: b * a ** (b - 1) * da}),
                        "the exponent is a dual too: its tangent changes the result as well",
                        name="exponent ignored",
                    ),
                    Mistake(
                        _tangent_is({"x ** y": lambda a, da, b, db, c: a**b * math.log(a) * db}),
                        "the base is a dual too: its tangent changes the result as well",
                        name="base ignored",
                    ),
                    _APPROXIMATION,
                ),
            ),
            Check(
                "powers compose: (x ** 2) ** 0.5, and x ** x",
                "",
                _cases(
                    lambda rng: [
                        ("(x ** 2) ** 0.5", -rng.uniform(0.5, 3), 0.0),  # |x|, at x < 0
                        ("x ** x", rng.uniform(0.3, 2), 0.0),
                        ("x ** x", rng.uniform(0.3, 2), 0.0),
                    ]
                ),
                _run_expression,
                _judge_expression,
                right=_right_pair,
                mistakes=(_not_a_dual("power"),),
            ),
        ),
        withheld=RULES_WITHHELD,
        alone=True,
    )
)


# --- 3: the forward Jacobian ------------------------------------------------


def _family(case: Case) -> Callable[..., list]:
    """y_i = sin(Σ_j A_ij x_j) + x_p x_q with p = i mod n, q = (i + 1) mod n."""
    a, n = case["A"], case["n"]

    def f(*xs: Dual) -> list:
        out = []
        for i, row in enumerate(a):
            s = 0.0
            for coefficient, x in zip(row, xs, strict=True):
                s = s + coefficient * x
            out.append(F.sin(s) + xs[i % n] * xs[(i + 1) % n])
        return out

    return f


def _lecture(x1: Dual, x2: Dual) -> list:
    return [F.log(x1) + x1 * x2 - F.sin(x2), x1 * x2, F.exp(x1)]


def _forward_pass(case: Case, pairs: list[list[float]]) -> list[list[float]]:
    """One call of the case's f (``Check.serve``): its outputs' primals and tangents at
    the primals and tangents the student's code sent (runners/served.py checked them)."""
    g = _lecture if case["lecture"] else _family(case)
    outputs = scaled(g, case[HELD])(*(Dual(p, t) for p, t in pairs))
    return [[y.primal, y.tangent] for y in outputs]


def _family_jacobian(case: Case, x: list[float]) -> list[list[float]]:
    a, n = case["A"], case["n"]
    rows = []
    for i, row in enumerate(a):
        c = math.cos(sum(aij * xj for aij, xj in zip(row, x, strict=True)))
        p, q = i % n, (i + 1) % n
        rows.append([c * row[j] + (j == p) * x[q] + (j == q) * x[p] for j in range(n)])
    return rows


def _lecture_jacobian(case: Case, x: list[float]) -> list[list[float]]:
    x1, x2 = x
    return [[1 / x1 + x2, x1 - math.cos(x2)], [x2, x1], [math.exp(x1), 0.0]]


def _exact_jacobian(case: Case) -> list[list[float]]:
    """The Jacobian of f(x) = d ⊙ g(c ⊙ x): d_i ∂g_i/∂x_j (c ⊙ x) c_j."""
    c, d = case[HELD]["c"], case[HELD]["d"]
    inner = [ci * xi for ci, xi in zip(c, case["xs"], strict=True)]
    rows = (_lecture_jacobian if case["lecture"] else _family_jacobian)(case, inner)
    return [
        [di * r * cj for r, cj in zip(row, c, strict=True)] for di, row in zip(d, rows, strict=True)
    ]


def _shape_cases(rng: random.Random) -> list[Case]:
    cases = [{"lecture": True, "n": 2, "m": 3, "xs": [2.0, 5.0]}]
    for n, m in ((1, 3), (4, 2), (3, 1), (5, 3), (2, 4)):
        cases.append(
            {
                "lecture": False,
                "n": n,
                "m": m,
                "A": [[rng.uniform(-1, 1) for _ in range(n)] for _ in range(m)],
                "xs": [rng.uniform(-2, 2) for _ in range(n)],
            }
        )
    return [{**case, HELD: draw_scales(rng, case["n"], case["m"])} for case in cases]


def _judge_jacobian(case: Case, seen: dict) -> str | None:
    n, m, got = case["n"], case["m"], seen.get("J")
    rows = [as_floats(r, n) for r in got] if isinstance(got, list) and len(got) == m else None
    if rows is None or any(r is None for r in rows):
        transposed = isinstance(got, list) and len(got) == n and n != m
        shape = "an n × m (transposed) table" if transposed else describe(got)
        return f"returned {shape} for f: ℝ^{n} → ℝ^{m}; expected {m} rows of {n} numbers"
    want = _exact_jacobian(case)
    for i in range(m):
        for j in range(n):
            if not close(rows[i][j], want[i][j], 1e-10, 1e-10):
                return (
                    f"wrong entry J[{i}][{j}] = ∂y_{i + 1}/∂x_{j + 1} for f: ℝ^{n} → ℝ^{m}"
                    + _how_far(rows[i][j], want[i][j])
                )
    return None


def _judge_passes(case: Case, seen: dict) -> str | None:
    calls, n = seen.get("calls"), case["n"]
    if calls == n and type(calls) is int:
        return None
    return f"f was called {calls} times for {n} inputs; forward mode needs exactly {n} passes"


def _table(seen: dict) -> list[list[float]] | None:
    got = seen.get("J")
    if not isinstance(got, list) or not got or not isinstance(got[0], list):
        return None
    rows = [as_floats(r, len(got[0])) for r in got]
    return None if any(r is None for r in rows) else rows


def _jacobian_is(
    model: Callable[[list[list[float]]], list[list[float]]], tolerance: float = 1e-10
) -> Callable[[Case, dict], bool]:
    """The mistake whose table, made from the right Jacobian J, the student returned (to
    ``tolerance``), where it is not the right one (to 1e-10)."""

    def matches(case: Case, seen: dict) -> bool:
        rows, right = _table(seen), _exact_jacobian(case)
        want = model(right)
        return rows is not None and _equal(rows, want, tolerance) and not _equal(rows, right, 1e-10)

    return matches


def _equal(rows: list[list[float]], want: list[list[float]], tolerance: float) -> bool:
    return (
        len(rows) == len(want)
        and all(len(r) == len(w) for r, w in zip(rows, want, strict=True))
        and all(
            close(a, b, tolerance, tolerance)
            for r, w in zip(rows, want, strict=True)
            for a, b in zip(r, w, strict=True)
        )
    )


def _seeded_all_ones(j: list[list[float]]) -> list[list[float]]:
    # every pass seeded every input with tangent 1: each column is J's row sums
    return [[sum(row)] * len(row) for row in j]


def _never_reset(j: list[list[float]]) -> list[list[float]]:
    # pass k seeded input k and left the earlier inputs' tangents at 1: column k is the sum
    # of columns 0 to k
    return [[sum(row[: k + 1]) for k in range(len(row))] for row in j]


def _columns_shifted(step: int) -> Callable[[list[list[float]]], list[list[float]]]:
    # pass k seeded input k + step (an index off by one): the columns in a rotated order
    return lambda j: [[row[(k + step) % len(row)] for k in range(len(row))] for row in j]


def _primals_returned(case: Case, seen: dict) -> bool:
    """Every column holds f's values at xs (the primals), not their tangents."""
    rows = _table(seen)
    g = _lecture if case["lecture"] else _family(case)
    values = [y.primal for y in scaled(g, case[HELD])(*(Dual(x, 0.0) for x in case["xs"]))]
    want = [[v] * case["n"] for v in values]
    return rows is not None and _equal(rows, want, 1e-10)


# (A table transposed has the wrong shape on every case, none square: a plain explanation
# the judge's reason gives, "an n × m (transposed) table", with no hint.)
_JACOBIAN_MISTAKES = (
    Mistake(
        _jacobian_is(_seeded_all_ones),
        "all your columns are equal: a pass in which every input's tangent is 1 gives the "
        "sum of the columns. Which tangents single out input j?",
        name="all ones",
    ),
    Mistake(
        _jacobian_is(_never_reset),
        "column j holds the sum of the right columns 0 to j: the tangent 1 an earlier pass "
        "gave its input was still there. In each pass only input j has tangent 1",
        name="never reset",
    ),
    Mistake(
        lambda case, seen: any(
            _jacobian_is(_columns_shifted(step))(case, seen) for step in (1, -1)
        ),
        "your columns are the right ones, each in its neighbour's place: pass j must seed "
        "input j (an index off by one?)",
        name="shifted",
    ),
    Mistake(
        _primals_returned,
        "your table holds f's values, the primals, not the derivatives: they ride in the "
        "outputs' tangents",
        name="primals",
    ),
)
_PASSES_MISTAKES = (
    Mistake(
        lambda case, seen: seen.get("calls") in (case["n"] * case["m"], case["n"] * case["m"] + 1),
        "you called f once per entry of the Jacobian: one pass already gives the tangents "
        "of all m outputs",
        name="per entry",
    ),
    Mistake(
        lambda case, seen: seen.get("calls") == case["n"] + 1,
        "one call more than there are inputs: the outputs of the first pass already tell you m",
        name="extra call",
    ),
    Mistake(
        lambda case, seen: seen.get("calls") in (2 * case["n"], 2 * case["n"] + 1),
        "2n calls, as finite differences make: one forward pass seeded with e_j gives "
        "column j exactly",
        name="differences",
    ),
)


JACOBIAN = register(
    Exercise(
        "03.jacobian_forward",
        "The Jacobian in forward mode",
        3,
        "jacobian_forward(f, xs) returns the m × n Jacobian of f at xs as a list of m rows: "
        "f takes n Duals, f(*duals), and returns a list of m Duals; pass j seeds the tangent "
        "e_j.",
        ("jacobian_forward",),
        (
            Check(
                "the Jacobian of f: ℝⁿ → ℝᵐ",
                "",
                _shape_cases,
                _run_jacobian,
                _judge_jacobian,
                mistakes=(
                    *_JACOBIAN_MISTAKES,
                    Mistake(  # finite differences, right to 5 digits only
                        _jacobian_is(lambda j: j, 1e-5),
                        "right to many digits but not all of them: an approximation "
                        "(finite differences?); one forward pass seeded with e_j gives column "
                        "j exactly",
                        name="approximation",
                    ),
                ),
                serve=_forward_pass,
                right=lambda case: {"J": _exact_jacobian(case)},
            ),
            Check(
                "one forward pass per input",
                "",
                _shape_cases,
                _run_jacobian,
                _judge_passes,
                mistakes=_PASSES_MISTAKES,
                serve=_forward_pass,
            ),
        ),
        withheld=WITHHELD,
    )
)
