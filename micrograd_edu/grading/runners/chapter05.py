"""What the grader runs next to the submission for chapter05: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ... import functions as F
from ..registry import Case
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


@contextmanager
def _backward_counted() -> Iterator[dict[str, int]]:
    """How many backward passes (of Value or Tensor) run inside the block."""
    from ...engine import Value
    from ...tensor import Tensor

    counts = {"backward": 0}
    originals = {kind: kind.backward for kind in (Value, Tensor)}
    own = {kind: "backward" in vars(kind) for kind in originals}

    def counting(original: Callable) -> Callable:
        def backward(self: Any, *args: Any, **kwargs: Any) -> Any:
            counts["backward"] += 1
            return original(self, *args, **kwargs)

        return backward

    for kind, original in originals.items():
        kind.backward = counting(original)
    try:
        yield counts
    finally:
        for kind, original in originals.items():
            if own[kind]:
                kind.backward = original
            else:
                del kind.backward  # it was inherited


def _run_vjp(functions: dict, case: Case) -> dict:
    f = counted(case, FUNCTIONS[case["f"]][1])
    with _backward_counted() as passes:
        got = functions["vjp"](f, list(case["xs"]), list(case["v"]))
    return {"vjp": list(got) if isinstance(got, tuple) else got, **passes}
