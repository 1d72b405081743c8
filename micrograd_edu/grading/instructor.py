"""Exercises an instructor adds without editing the package.

Next to a solution notebook (``solutions/11_softplus.ipynb``, solutions between the
usual markers) goes a small check file named after it, ``solutions/11_softplus.checks.py``::

    import math
    from micrograd_edu.grading.instructor import exercise

    def cases(rng):  # plain data: a tuple of arguments per case (rng: the grader's seed)
        return [(0.0,), (-30.0,), (30.0,)] + [(rng.uniform(-50, 50),) for _ in range(7)]

    def right(args, got):  # the property: True, or what is wrong
        (x,) = args
        want = max(x, 0.0) + math.log1p(math.exp(-abs(x)))
        return math.isclose(got, want, rel_tol=1e-9) or f"softplus({x:.3g}) gave {got!r}"

    exercise("11.softplus", title="softplus without overflow", points=2,
             function="softplus", cases=cases, check=right,
             hint="for a large x, log(1 + e^x) is x plus a small part")

``release`` grades the solution with it and copies it next to the exercise notebook,
so that ``check("11.softplus")`` works in the student's notebook; ``grade --solutions
solutions`` (the default) loads every ``*.checks.py`` there, and the Gradescope bundle
carries the chapter's. The student's function runs in the sandbox like any other;
``got`` is what it returned, as plain data (numbers, lists for arrays and tuples), and
the property runs in the grader. The check file reaches students: a property that
computes the answer shows it, so prefer one that checks a property of the answer (an
identity, a derivative against differences), and draw secret cases from ``rng``.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .plain import describe
from .registry import EXERCISES, Case, Check, Exercise, register
from .runners.instructor import call

__all__ = ["exercise", "load_checks", "load_file", "loaded_files", "SUFFIX"]

SUFFIX = ".checks.py"
_LOADED: dict[Path, str] = {}  # check file -> its module's name
_OWN: set[str] = set()  # the exercises check files registered (a package exercise stays)


def _cases(cases: Sequence[Sequence[Any]] | Callable[[random.Random], Sequence[Any]]) -> Callable:
    def draw(rng: random.Random) -> list[Case]:
        drawn = cases(rng) if callable(cases) else cases
        return [
            {"args": list(args) if isinstance(args, list | tuple) else [args]} for args in drawn
        ]

    return draw


def _judge(check: Callable[[tuple, Any], Any]) -> Callable[[Case, dict], str | None]:
    def judge(case: Case, seen: dict) -> str | None:
        args, got = tuple(case["args"]), seen.get("value")
        if isinstance(got, dict):  # {"unsupported": type} or {"too_long": n}
            return f"returned {describe(got)} for the arguments {args}"
        verdict = check(args, got)
        if verdict is True or verdict is None:
            return None
        if isinstance(verdict, str) and verdict:
            return verdict
        return f"returned {got!r} for the arguments {args}"

    return judge


def exercise(
    exercise_id: str,
    *,
    title: str,
    points: float,
    function: str,
    cases: Sequence[Sequence[Any]] | Callable[[random.Random], Sequence[Any]],
    check: Callable[[tuple, Any], Any],
    hint: str = "",
    statement: str = "",
    withheld: Sequence[str] = (),
) -> Exercise:
    """Register an instructor's exercise: the student's ``function`` is called on each
    case's arguments, and ``check(args, got)`` says whether what it returned is right
    (True or None) or what is wrong (False, or a sentence shown to the student)."""
    if not isinstance(points, int | float) or points <= 0:
        raise ValueError(f"{exercise_id}: points must be a positive number, not {points!r}")
    one = Check(title, hint, _cases(cases), call(function), _judge(check))
    if exercise_id in _OWN:  # the same check file loaded again (from another folder): it wins
        EXERCISES.pop(exercise_id, None)
    _OWN.add(exercise_id)
    return register(
        Exercise(
            exercise_id,
            title,
            float(points),
            statement or title,
            (function,),
            (one,),
            withheld=tuple(withheld),
        )
    )


def load_file(path: str | Path) -> str:
    """Load one check file (once); return its module's name."""
    path = Path(path).resolve()
    if path in _LOADED:
        return _LOADED[path]
    name = f"micrograd_edu_checks.{path.name.removesuffix(SUFFIX).replace('.', '_')}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        sys.modules.pop(name, None)
        raise ValueError(f"{path.name}: {type(error).__name__}: {error}") from error
    _LOADED[path] = name
    return name


def load_checks(folder: str | Path, required: bool = False) -> list[Path]:
    """Load every check file in ``folder``; return them. A folder that is missing is
    an error only when ``required`` (the default ``solutions`` may well be absent)."""
    folder = Path(folder)
    if not folder.is_dir():
        if required:
            raise ValueError(f"no folder {folder} (--solutions: where the *.checks.py files are)")
        return []
    files = sorted(folder.glob(f"*{SUFFIX}"))
    for path in files:
        load_file(path)
    return files


def loaded_files() -> list[str]:
    """The check files loaded in this process (the judging processes load them too)."""
    return [str(path) for path in _LOADED]
