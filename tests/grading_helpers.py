"""How the grading tests grade a function directly, without a notebook or a process:
draw a check's cases, observe the functions on them, judge the observations."""

import re

from micrograd_edu.grading import exercise
from micrograd_edu.grading.references.answers import ANSWERS
from micrograd_edu.grading.registry import draw_cases, judge, observe


def grade(exercise_id, functions, seed="test"):
    ex = exercise(exercise_id)
    cases = draw_cases(ex, seed)
    return judge(ex, cases, observe(ex, dict(functions), cases))


def failed_checks(result):
    """The checks whose property does not hold (one that holds but waits for another,
    Check.after, earns nothing yet and has not failed)."""
    return {c.name for c in result.checks if c.failed}


def explained(result):
    """Every failed check says why: a hint for a mistake it saw, the student's line for a
    raise, or that a raise above stopped it (no hint: that mistake was not seen)."""
    return all(
        c.hint or c.reason.startswith("raised ") or not c.ran for c in result.checks if c.failed
    )


def answers(ex):
    """The reference solution's key expressions for ``ex``: the grader keeps them
    (grading/references, never in the wheel)."""
    return ANSWERS.get(ex.id, ())


def spoilers(ex, texts):
    """The (answer, text) pairs where a text shown to the student contains one of the
    exercise's key answer expressions (spaces and case ignored)."""

    def plain(text):
        return re.sub(r"\s+", "", text).lower()

    return [(a, t) for t in texts for a in answers(ex) if plain(a) in plain(t)]
