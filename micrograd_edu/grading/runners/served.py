"""Functions the grader evaluates for the student's code, so that it counts the calls.

A check that grades how often ``f`` is evaluated (a numerical gradient needs 2n
evaluations, a forward Jacobian n passes, a vector-Jacobian product one) gives the
student an ``f`` that is the grader's: each call is a request to the grader's
process (``case["ask"]``, see ``registry.Served``), which answers and counts it. The
student's process holds nothing it could evaluate ``f`` with uncounted:

* :func:`remote` for ``f`` on numbers: the grader computes each value;
* :func:`scaled` for ``f`` on the student's own numbers (duals, Values), which only
  the student's process can run: ``f(x) = d ⊙ g(c ⊙ x)`` with ``g`` public and the
  scales ``c``, ``d`` drawn for the case and kept by the grader, which sends them for
  one call at a time.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..registry import HELD, Case


def remote(case: Case, n: int) -> Callable[..., float]:
    """The case's ``f`` of ``n`` numbers, evaluated by the grader: callable as ``f(xs)``
    or ``f(*xs)`` (as micrograd_edu.scalar.numerical.gradient calls it)."""

    def f(*args: Any) -> float:
        xs = args
        if len(args) == 1:
            try:
                xs = tuple(args[0])
            except TypeError:  # one number: f(x) of one variable
                pass
        if len(xs) != n:
            raise TypeError(f"f takes {n} numbers (as f(xs) or f(*xs)); it was given {len(xs)}")
        try:
            point = [float(x) for x in xs]
        except (TypeError, ValueError):
            kinds = ", ".join(sorted({type(x).__name__ for x in xs}))
            raise TypeError(f"f takes plain numbers; it was given {kinds}") from None
        return case["ask"](point)

    return f


def scaled(g: Callable[..., list[Any]], scales: dict[str, list[float]]) -> Callable[..., list]:
    """``d ⊙ g(c ⊙ x)`` for the scales ``{"c": c, "d": d}``."""
    c, d = scales["c"], scales["d"]

    def f(*xs: Any) -> list[Any]:
        if len(xs) != len(c):
            raise TypeError(f"f takes {len(c)} inputs; it was given {len(xs)}")
        ys = g(*(ci * x for ci, x in zip(c, xs, strict=True)))
        return [di * y for di, y in zip(d, ys, strict=True)]

    return f


def counted(case: Case, g: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
    """The case's ``d ⊙ g(c ⊙ x)``, asking the grader for its scales at every call."""

    def f(*xs: Any) -> list[Any]:
        return scaled(g, case["ask"](None))(*xs)

    return f


def draw_scales(rng: random.Random, n: int, m: int) -> dict[str, list[float]]:
    """Scales for ``f: ℝⁿ → ℝᵐ``, positive (a logarithm's argument keeps its sign)."""
    return {
        "c": [round(rng.uniform(0.5, 2.0), 6) for _ in range(n)],
        "d": [round(rng.uniform(0.5, 2.0), 6) for _ in range(m)],
    }


def secret_scales(case: Case, request: object) -> dict[str, list[float]]:
    """The grader's answer to one call of :func:`counted`'s ``f`` (``Check.serve``):
    the scales kept with the judge's copy of the case."""
    return case[HELD]
