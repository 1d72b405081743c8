"""What the grader runs next to the submission for an instructor's own exercise
(:mod:`..instructor`): the student's function on a case's arguments. No answer here."""

from __future__ import annotations

from collections.abc import Callable

from ..registry import Case, runner_factory


@runner_factory
def call(name: str) -> Callable[[dict, Case], dict]:
    def run(functions: dict, case: Case) -> dict:
        return {"value": functions[name](*case["args"])}

    return run
