"""What the grader runs next to the submission for chapter03: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import functions as F
from ...forward import Dual
from ..registry import Case, runner_factory
from .served import counted


def _own_dual(functions: dict) -> Callable[..., Any]:
    """The submission's MyDual, refused if it is, or makes, the package's ``Dual``
    (a subclass that inherits its operations, or a factory that returns one)."""
    make = functions["MyDual"]
    if isinstance(make, type) and issubclass(make, Dual):
        raise TypeError("MyDual is derived from micrograd_edu's Dual: write its operations")

    def own(*args: Any) -> Any:
        made = make(*args)
        if isinstance(made, Dual):
            raise TypeError("MyDual(...) made micrograd_edu's Dual: write its operations")
        return made

    return own


def _read(*duals: Any) -> dict:
    """The primal and tangent of each result, refused if an operation of MyDual handed
    the work to the package's ``Dual``."""
    if any(isinstance(d, Dual) for d in duals):
        raise TypeError("an operation of MyDual returned micrograd_edu's Dual: write its rules")
    if len(duals) == 1:
        return {"primal": duals[0].primal, "tangent": duals[0].tangent}
    return {"primal": [d.primal for d in duals], "tangent": [d.tangent for d in duals]}


def _run_mul(functions: dict, case: Case) -> dict:
    make = _own_dual(functions)
    return _read(make(case["a"], case["da"]) * make(case["b"], case["db"]))


def _run_constant(functions: dict, case: Case) -> dict:
    x = _own_dual(functions)(case["a"], case["da"])
    return _read(case["c"] * x if case["left"] else x * case["c"])


def _run_unchanged(functions: dict, case: Case) -> dict:
    make = _own_dual(functions)
    x, y = make(case["a"], case["da"]), make(case["b"], case["db"])
    x * y
    return {"after": [x.primal, x.tangent, y.primal, y.tangent]}


def _run_composed_mul(functions: dict, case: Case) -> dict:
    make = _own_dual(functions)
    x, y, z = (make(case[k], case["d" + k]) for k in "abc")
    return _read((x * y) * z, x * x)


def _run_composed_functions(functions: dict, case: Case) -> dict:
    x = _own_dual(functions)(case["a"], case["da"])
    return _read(x.exp().sin().exp().log())  # log(exp(sin(exp(x)))) = sin(exp(x))


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
    f = counted(case, _lecture if case["lecture"] else _family(case))
    return {"J": functions["jacobian_forward"](f, list(case["xs"]))}


@runner_factory
def _run_function(name: str) -> Callable[[dict, Case], dict]:
    """MyDual's method ``name`` (sin, exp, log) on a dual number."""

    def run(functions: dict, case: Case) -> dict:
        return _read(getattr(_own_dual(functions)(case["a"], case["da"]), name)())

    return run
