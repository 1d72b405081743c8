"""Auto-graded exercises: one registry, feedback in the notebook, a batch grader.

* :func:`check` (in a notebook): ``check("01.second_difference")``;
* ``micrograd-edu release``: ``exercises/`` from ``solutions/``;
* ``micrograd-edu grade``: a folder of submissions into a gradebook;
* ``micrograd-edu gradescope-bundle``: the autograder zip for Gradescope.
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
