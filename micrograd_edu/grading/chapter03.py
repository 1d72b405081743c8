"""Chapter 03's exercises: forward mode with dual numbers.

The oracles are closed forms computed here with ``math``: the product rule
on numbers, the derivatives of sin, exp and log, and the Jacobian of a family
of functions ℝⁿ → ℝᵐ written out by hand. The number of forward passes is
counted in the grader's process: each call of ``f`` asks it for the secret scales of
``f(x) = d ⊙ g(c ⊙ x)`` (runners/served.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from .plain import as_float, as_floats, close, describe
from .registry import HELD, Case, Check, Exercise, register
from .runners.chapter03 import (
    _run_composed_functions,
    _run_composed_mul,
    _run_constant,
    _run_function,
    _run_jacobian,
    _run_mul,
    _run_unchanged,
)
from .runners.served import draw_scales, secret_scales

# The package's own answers to this chapter; the batch grader withholds them.
WITHHELD = ("micrograd_edu.forward.jacobian_forward", "micrograd_edu.forward.jvp")


def _pair(seen: dict, what: str) -> tuple[tuple[float, float] | None, str | None]:
    primal, tangent = as_float(seen.get("primal")), as_float(seen.get("tangent"))
    if primal is None or tangent is None:
        got = describe(seen.get("primal")), describe(seen.get("tangent"))
        return None, f"{what} has primal {got[0]} and tangent {got[1]}; expected two numbers"
    return (primal, tangent), None


def _judge_pair(exact: Callable[[Case], tuple[float, float]], what: str) -> Callable:
    def judge(case: Case, seen: dict) -> str | None:
        got, problem = _pair(seen, what)
        if problem:
            return problem
        want = exact(case)
        if not close(got[0], want[0], 1e-12, 1e-12):
            return f"wrong primal for {what} at {_shown(case)}"
        if not close(got[1], want[1], 1e-12, 1e-12):
            return f"wrong tangent for {what} at {_shown(case)}"
        return None

    return judge


def _shown(case: Case) -> str:
    return ", ".join(f"{k} = {v:.3g}" for k, v in case.items() if isinstance(v, float))


# --- 1: multiplication -------------------------------------------------------


def _two_duals(rng: random.Random) -> list[Case]:
    return [{name: rng.uniform(-3, 3) for name in ("a", "da", "b", "db")} for _ in range(5)]


def _product(case: Case) -> tuple[float, float]:
    a, da, b, db = case["a"], case["da"], case["b"], case["db"]
    return a * b, a * db + da * b


def _constant_cases(rng: random.Random) -> list[Case]:
    return [
        {"a": rng.uniform(-3, 3), "da": rng.uniform(-2, 2), "c": rng.uniform(-3, 3), "left": left}
        for left in (False, True, False)
    ]


def _judge_unchanged(case: Case, seen: dict) -> str | None:
    after = as_floats(seen.get("after"), 4)
    before = [case["a"], case["da"], case["b"], case["db"]]
    if after is not None and all(close(s, b, 0, 0) for s, b in zip(after, before, strict=True)):
        return None
    return "x * y changed x or y: the operands must keep their primal and tangent"


def _three_duals(rng: random.Random) -> list[Case]:
    names = ("a", "da", "b", "db", "c", "dc")
    return [{name: rng.uniform(-3, 3) for name in names} for _ in range(3)]


def _judge_composed_mul(case: Case, seen: dict) -> str | None:
    a, da, b, db, c, dc = (case[k] for k in ("a", "da", "b", "db", "c", "dc"))
    want = [a * b * c, a * a], [da * b * c + a * db * c + a * b * dc, 2 * a * da]
    got = [as_floats(seen.get(k), 2) for k in ("primal", "tangent")]
    if None in got:
        return "(x * y) * z or x * x did not give duals with a number primal and tangent"
    for what, g, w in zip(("primal", "tangent"), got, want, strict=True):
        for text, value, right in zip(("(x * y) * z", "x * x"), g, w, strict=True):
            if not close(value, right, 1e-12, 1e-12):
                return f"wrong {what} for {text} at {_shown(case)}"
    return None


MUL = register(
    Exercise(
        "03.dual_mul",
        "Multiplying dual numbers",
        2,
        "MyDual.__mul__ returns the dual number of the product: primals multiply, "
        "tangents follow the product rule; a plain number is a constant.",
        ("MyDual",),
        (
            Check(
                "product rule on the tangents",
                "(a + ȧε)(b + ḃε) = ab + (aḃ + ȧb)ε because ε² = 0: the tangent is "
                "a·ḃ + ȧ·b, not ȧ·ḃ",
                _two_duals,
                _run_mul,
                _judge_pair(_product, "x * y"),
            ),
            Check(
                "a plain number is a constant",
                "a number c is the dual c + 0ε (tangent 0, not 1): x * c has tangent c·ẋ; "
                "__rmul__ makes c * x work too",
                _constant_cases,
                _run_constant,
                _judge_pair(lambda c: (c["a"] * c["c"], c["da"] * c["c"]), "x * c"),
            ),
            Check(
                "products compose: (x * y) * z, and x * x",
                "a product is itself a MyDual that can be multiplied again; x * x uses the "
                "same dual twice, and each use contributes to the tangent",
                _three_duals,
                _run_composed_mul,
                _judge_composed_mul,
            ),
            Check(
                "leaves its operands unchanged",
                "return a new MyDual; do not write the result into self",
                _two_duals,
                _run_unchanged,
                _judge_unchanged,
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- 2: elementary functions ------------------------------------------------

_FUNCTIONS: dict[str, tuple[Callable[[float], float], Callable[[float], float]]] = {
    "sin": (math.sin, math.cos),
    "exp": (math.exp, math.exp),
    "log": (math.log, lambda a: 1 / a),
}


def _function_check(name: str, hint: str) -> Check:
    def cases(rng: random.Random) -> list[Case]:
        lo = 0.2 if name == "log" else -3.0
        tangents = (-1.5, 0.5, 2.0, 3.0)
        return [{"a": rng.uniform(lo, 3), "da": da} for da in tangents]

    f, df = _FUNCTIONS[name]
    exact = lambda c: (f(c["a"]), df(c["a"]) * c["da"])  # noqa: E731
    return Check(
        f"{name}: chain rule", hint, cases, _run_function(name), _judge_pair(exact, f"x.{name}()")
    )


def _composed_cases(rng: random.Random) -> list[Case]:
    return [{"a": rng.uniform(0.2, 1.5), "da": rng.uniform(-2, 2)} for _ in range(3)]


def _composed_exact(case: Case) -> tuple[float, float]:
    a, da = case["a"], case["da"]
    return math.sin(math.exp(a)), math.cos(math.exp(a)) * math.exp(a) * da


FUNCTIONS = register(
    Exercise(
        "03.dual_functions",
        "sin, exp and log of a dual number",
        2,
        "MyDual.sin, .exp and .log return f(a) + f'(a)·ȧ ε for the dual a + ȧε.",
        ("MyDual",),
        (
            _function_check(
                "sin",
                "sin(a + ȧε) = sin a + cos a · ȧ ε: multiply the derivative by the tangent ȧ",
            ),
            _function_check(
                "exp",
                "exp(a + ȧε) = exp a + exp a · ȧ ε: the tangent is exp(a)·ȧ, not exp(ȧ)",
            ),
            _function_check(
                "log",
                "log(a + ȧε) = log a + ȧ / a ε: divide the tangent by the primal",
            ),
            Check(
                "they compose: log(exp(sin(exp(x))))",
                "each function returns a MyDual whose tangent already carries the chain "
                "rule so far, so the next function multiplies its own derivative in",
                _composed_cases,
                _run_composed_functions,
                _judge_pair(_composed_exact, "x.exp().sin().exp().log()"),
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- 3: the forward Jacobian ------------------------------------------------


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
                return f"wrong entry J[{i}][{j}] = ∂y_{i + 1}/∂x_{j + 1} for f: ℝ^{n} → ℝ^{m}"
    return None


def _judge_passes(case: Case, seen: dict) -> str | None:
    calls, n = seen.get("calls"), case["n"]
    if calls == n and type(calls) is int:
        return None
    return f"f was called {calls} times for {n} inputs; forward mode needs exactly {n} passes"


JACOBIAN = register(
    Exercise(
        "03.jacobian_forward",
        "The Jacobian in forward mode",
        3,
        "jacobian_forward(f, xs) returns the m × n Jacobian of f at xs as a list of m rows: "
        "f takes n Duals and returns a list of m Duals; pass j seeds the tangent e_j.",
        ("jacobian_forward",),
        (
            Check(
                "the Jacobian of f: ℝⁿ → ℝᵐ",
                "seed the tangents with the unit vector e_j (1 for input j, 0 for the others); "
                "the output tangents are column j: J[i][j] = ∂y_i/∂x_j, one row per output",
                _shape_cases,
                _run_jacobian,
                _judge_jacobian,
                serve=secret_scales,
            ),
            Check(
                "one forward pass per input",
                "one call of f with tangent e_j gives a whole column: n calls in all, "
                "not one per entry, and no extra call to find m",
                _shape_cases,
                _run_jacobian,
                _judge_passes,
                serve=secret_scales,
            ),
        ),
        withheld=WITHHELD,
    )
)
