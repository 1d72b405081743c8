"""Auto-graded exercises: one registry, feedback in the notebook, a batch grader.

* :func:`check` (in a notebook): ``check("01.second_difference")``;
* ``micrograd-edu release``: ``exercises/`` from ``solutions/``, checked by the grader;
* ``micrograd-edu grade``: a class's submissions merged into the gradebook (a roster,
  a late policy, Canvas's import file, feedback pages);
* ``micrograd-edu gradescope-bundle``: the autograder zip for Gradescope;
* ``micrograd-edu similarity``, ``written``, ``marks``: a similarity report, written
  answers collected for marking, and their marks merged into the gradebook.

An instructor's own exercises come from check files next to their solution notebooks
(:mod:`.instructor`).
"""

# Importing a chapter's module registers its exercises.
from . import (  # noqa: F401
    chapter01,
    chapter01_gradient,
    chapter02,
    chapter03,
    chapter04,
    chapter05,
    chapter06,
    chapter06_engine,
    chapter06_function,
    chapter07,
    chapter08,
    chapter08_freeze,
    chapter08_optim,
    chapter09,
    chapter10,
)
from .feedback import check
from .registry import EXERCISES, Check, Exercise, chapter, exercise, register

__all__ = ["EXERCISES", "Check", "Exercise", "chapter", "check", "exercise", "register"]
