"""The grader's references of the earlier steps an exercise builds on (``Exercise.requires``).

They are answers, so they live with the grader: ``grading/references`` is in the
repository and in an instructor's install from it, never in the wheel or sdist a student
installs (``pyproject.toml`` leaves it out) nor in a submission's view (:mod:`.view`).
Without them (a student's install), ``check()`` runs an exercise on the student's own
earlier steps, which the notebook already defines; the batch grader refuses to run.

>>> sorted(reference_steps(order="topological_order")) in ([], ["order"])
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from . import references as _references
except ImportError:  # a student's install
    _references = None

__all__ = ["reference_steps", "require_references"]


def reference_steps(**names: str) -> dict[str, Callable[..., Any]]:
    """``{name in the notebook: the reference of that name}``, or ``{}`` without them."""
    if _references is None:
        return {}
    return {name: getattr(_references, function) for name, function in names.items()}


def require_references() -> None:
    """Raise unless this install has the grader's references (the batch grader needs
    them: an exercise is graded on the reference of each step it builds on)."""
    if _references is None:
        raise RuntimeError(
            "grade: this install has no grading/references (a student's install leaves "
            "them out): grade from the course's repository (pip install -e .)"
        )
