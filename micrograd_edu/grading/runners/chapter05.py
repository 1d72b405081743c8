"""What the grader runs next to the submission for chapter05: it builds the inputs
from a case and calls the student's functions. No answer, oracle or expected value
lives here (see runners/__init__.py): the f of 05.vjp is the grader's (served.py)."""

from __future__ import annotations

from ..registry import Case
from .served import remote_values


def _run_work(functions: dict, case: Case) -> dict:
    return {"work": functions["work"](case["n"], case["m"])}


def _run_choice(functions: dict, case: Case) -> dict:
    return {"mode": functions["choose_mode"](case["n"], case["m"])}


def _run_segment(functions: dict, case: Case) -> dict:
    return {"k": functions["segment_length"](case["T"], case["s"])}


def _run_vjp(functions: dict, case: Case) -> dict:
    f = remote_values(case, len(case["xs"]))  # evaluated, and counted, by the grader
    return {"vjp": functions["vjp"](f, list(case["xs"]), list(case["v"]))}
