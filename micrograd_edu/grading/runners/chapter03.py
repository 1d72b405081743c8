"""What the grader runs next to the submission for chapter03: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...scalar.dual import Dual
from ..registry import Case
from .served import remote_duals


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


def _read(*duals: Any, what: str = "an operation of MyDual") -> dict:
    """The primal and tangent of each result, refused if an operation of MyDual handed
    the work to the package's ``Dual``, or returned no dual number at all (a tuple)."""
    if any(isinstance(d, Dual) for d in duals):
        raise TypeError("an operation of MyDual returned micrograd_edu's Dual: write its rules")
    for d in duals:
        if not (hasattr(d, "primal") and hasattr(d, "tangent")):
            raise TypeError(
                f"{what} returned a {type(d).__name__}, not a MyDual: return "
                "MyDual(primal, tangent)"
            )
    if len(duals) == 1:
        return {"primal": duals[0].primal, "tangent": duals[0].tangent}
    return {"primal": [d.primal for d in duals], "tangent": [d.tangent for d in duals]}


def _dual_again(result: Any, x: Any, what: str) -> Any:
    """``result`` of one operation, refused (with a TypeError saying so) if it is not of
    x's class: the next operation of the expression needs a MyDual."""
    if type(result) is not type(x):
        raise TypeError(f"{what} returned a {type(result).__name__}, not a MyDual")
    return result


# The expressions the checks evaluate on the student's MyDual x = a + ȧε, y = b + ḃε and a
# plain number c (the lecture's __add__, __mul__, exp and log are given; the student writes
# division and powers).
EXPRESSIONS: dict[str, Callable[[Any, Any, float], Any]] = {
    "x / y": lambda x, y, c: x / y,
    "x / c": lambda x, y, c: x / c,
    "c / x": lambda x, y, c: c / x,
    "(x / y) / x": lambda x, y, c: _dual_again(x / y, x, "x / y") / x,
    "x / x": lambda x, y, c: x / x,
    "x ** c": lambda x, y, c: x**c,
    "c ** x": lambda x, y, c: c**x,
    "x ** y": lambda x, y, c: x**y,
    "(x ** 2) ** 0.5": lambda x, y, c: _dual_again(x**2, x, "x ** 2") ** 0.5,
    "x ** x": lambda x, y, c: x**x,
}


def _operands(functions: dict, case: Case) -> tuple[Any, Any]:
    make = _own_dual(functions)
    return make(case["a"], case["da"]), make(case["b"], case["db"])


def _run_expression(functions: dict, case: Case) -> dict:
    x, y = _operands(functions, case)
    return _read(EXPRESSIONS[case["expr"]](x, y, case["c"]), what=case["expr"])


def _run_unchanged(functions: dict, case: Case) -> dict:
    x, y = _operands(functions, case)
    EXPRESSIONS[case["expr"]](x, y, case["c"])
    return {"after": [x.primal, x.tangent, y.primal, y.tangent]}


def _run_jacobian(functions: dict, case: Case) -> dict:
    f = remote_duals(case, case["n"])  # the grader evaluates f, one forward pass per call
    return {"J": functions["jacobian_forward"](f, list(case["xs"]))}
