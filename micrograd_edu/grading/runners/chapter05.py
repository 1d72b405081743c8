"""What the grader runs next to the submission for chapter05: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py): the f of 05.vjp is the grader's (served.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...scalar.value import Value
from ...tensor.tensor import Tensor
from ..registry import Case
from .served import remote_values


def _run_work(functions: dict, case: Case) -> dict:
    return {"work": functions["work"](case["n"], case["m"])}


def _run_choice(functions: dict, case: Case) -> dict:
    return {"mode": functions["choose_mode"](case["n"], case["m"])}


def _run_segment(functions: dict, case: Case) -> dict:
    return {"k": functions["segment_length"](case["T"], case["s"])}


@contextmanager
def _counting_backward() -> Iterator[list[int]]:
    """How many times the engines' ``backward`` (Value's, Tensor's) ran inside the block:
    one reverse sweep is the method of a vector-Jacobian product."""
    count = [0]
    originals = {cls: cls.__dict__["backward"] for cls in (Value, Tensor)}

    def counted(original: Any) -> Any:
        def backward(self: Any, *args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            return original(self, *args, **kwargs)

        return backward

    for cls, original in originals.items():
        cls.backward = counted(original)
    try:
        yield count
    finally:
        for cls, original in originals.items():
            cls.backward = original


def _run_vjp(functions: dict, case: Case) -> dict:
    f = remote_values(case, len(case["xs"]))  # evaluated, and counted, by the grader
    with _counting_backward() as backwards:
        vjp = functions["vjp"](f, list(case["xs"]), list(case["v"]))
    return {"vjp": vjp, "backwards": backwards[0]}
