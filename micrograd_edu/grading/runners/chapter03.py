"""What the grader runs next to the submission for chapter03: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import functions as F
from ...forward import Dual
from ..counting import Counted
from ..registry import Case, runner_factory


def _own_dual(functions: dict) -> Callable[..., Any]:
    """The submission's MyDual, refused if it only inherits the package's ``Dual``."""
    make = functions["MyDual"]
    if isinstance(make, type) and issubclass(make, Dual):
        raise TypeError("MyDual is derived from micrograd_edu's Dual: write its operations")
    return make


def _run_mul(functions: dict, case: Case) -> dict:
    make = _own_dual(functions)
    out = make(case["a"], case["da"]) * make(case["b"], case["db"])
    return {"primal": out.primal, "tangent": out.tangent}


def _run_constant(functions: dict, case: Case) -> dict:
    x = _own_dual(functions)(case["a"], case["da"])
    out = case["c"] * x if case["left"] else x * case["c"]
    return {"primal": out.primal, "tangent": out.tangent}


def _run_unchanged(functions: dict, case: Case) -> dict:
    make = _own_dual(functions)
    x, y = make(case["a"], case["da"]), make(case["b"], case["db"])
    x * y
    return {"after": [x.primal, x.tangent, y.primal, y.tangent]}


def _run_composed_mul(functions: dict, case: Case) -> dict:
    make = _own_dual(functions)
    x, y, z = (make(case[k], case["d" + k]) for k in "abc")
    out, square = (x * y) * z, x * x
    return {"primal": [out.primal, square.primal], "tangent": [out.tangent, square.tangent]}


def _run_composed_functions(functions: dict, case: Case) -> dict:
    x = _own_dual(functions)(case["a"], case["da"])
    out = x.exp().sin().exp().log()  # log(exp(sin(exp(x)))) = sin(exp(x))
    return {"primal": out.primal, "tangent": out.tangent}


def _family(case: Case) -> Callable[..., list[Any]]:
    """y_i = sin(Σ_j A_ij x_j) + x_p x_q with p = i mod n, q = (i + 1) mod n."""
    a, n = case["A"], case["n"]

    def f(*xs: Any) -> list[Any]:
        out = []
        for i, row in enumerate(a):
            s = 0.0
            for coefficient, x in zip(row, xs, strict=True):
                s = s + coefficient * x
            out.append(F.sin(s) + xs[i % n] * xs[(i + 1) % n])
        return out

    return f


def _lecture(x1: Any, x2: Any) -> list[Any]:
    return [F.log(x1) + x1 * x2 - F.sin(x2), x1 * x2, F.exp(x1)]


def _run_jacobian(functions: dict, case: Case) -> dict:
    f = Counted(_lecture if case["lecture"] else _family(case))
    jacobian = functions["jacobian_forward"](f, list(case["xs"]))
    return {"J": jacobian, "calls": f.calls}


@runner_factory
def _run_function(name: str) -> Callable[[dict, Case], dict]:
    """MyDual's method ``name`` (sin, exp, log) on a dual number."""

    def run(functions: dict, case: Case) -> dict:
        out = getattr(_own_dual(functions)(case["a"], case["da"]), name)()
        return {"primal": out.primal, "tangent": out.tangent}

    return run
