"""What the grader runs next to the submission for chapter05: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import functions as F
from ...scalar.value import Value
from ...tensor import Tensor
from ..registry import Case
from .chapter04 import _calls
from .served import counted


def _run_cost(functions: dict, case: Case) -> dict:
    got = functions["jacobian_cost"](case["n"], case["m"], case["ops"])
    return {"cost": list(got) if isinstance(got, tuple) else got}


def _run_choice(functions: dict, case: Case) -> dict:
    return {"mode": functions["choose_mode"](case["n"], case["m"])}


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


def _run_vjp(functions: dict, case: Case) -> dict:
    f = counted(case, FUNCTIONS[case["f"]][1])

    def run() -> Any:
        return functions["vjp"](f, list(case["xs"]), list(case["v"]))

    # the backward passes, of Values or Tensors
    (got, on_tensors), on_values = _calls(
        Value, ("backward",), lambda: _calls(Tensor, ("backward",), run)
    )
    passes = on_values["backward"] + on_tensors["backward"]
    return {"vjp": list(got) if isinstance(got, tuple) else got, "backward": passes}
