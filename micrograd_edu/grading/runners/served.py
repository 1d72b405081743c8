"""Functions the grader evaluates for the student's code, so that it counts the calls.

A check that grades how often ``f`` is evaluated (a numerical gradient needs 2n
evaluations, a forward Jacobian n passes, a vector-Jacobian product one) gives the
student an ``f`` that is the grader's: each call is a request to the grader's
process (``case["ask"]``, see ``registry.Served``), which answers and counts it. The
answer is what ``f`` gives at the point asked, never what the grader computes it from
(secret scales, coefficients), so the student's process can evaluate ``f`` nowhere
without asking:

* :func:`remote`: ``f(point)`` of a list of n numbers returns a number;
* :func:`remote_duals`: ``f(*duals)`` on n dual numbers returns m ``Dual``s, their
  tangents one Jacobian-vector product (one forward pass);
* :func:`remote_values`: ``f(*values)`` on n ``Value``-like nodes returns m nodes built
  from them with their own ``+`` and ``*``, whose gradients are f's Jacobian at that
  point (one evaluation: one node per output, its local derivatives exact).

A chapter's ``Check.serve`` answers these requests in the grader's process (it gets the
full case, held entries included). :func:`scaled` and :func:`draw_scales` help it build a
family of functions ``d ⊙ g(c ⊙ x)`` from a public ``g`` and scales only it knows.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ...scalar.dual import Dual
from ..plain import as_float, to_plain
from ..registry import Case


def _numbers(values: Any, n: int, what: str) -> list[float]:
    """``values`` read as n plain numbers (any sequence, any real type), or a TypeError
    that says what f takes."""
    plain = to_plain(values)
    numbers = [as_float(v) for v in plain] if isinstance(plain, list) else None
    if numbers is None or len(numbers) != n or any(v is None for v in numbers):
        raise TypeError(f"{what}; it was given {_kinds(values)}")
    return numbers


def _kinds(values: Any) -> str:
    if isinstance(values, tuple | list):
        more = ", ..." if len(values) > 4 else ""
        return f"{len(values)} items: " + ", ".join(type(v).__name__ for v in values[:4]) + more
    return f"a {type(values).__name__}"


def remote(case: Case, n: int) -> Callable[[Any], float]:
    """The case's ``f`` of n numbers, called as ``f(point)`` with one sequence of n
    numbers (as the statement says), evaluated by the grader."""

    def f(*args: Any) -> float:
        takes = f"f takes one argument, a list of {n} number{'s' * (n != 1)}: call f(point)"
        if len(args) != 1 or as_float(to_plain(args[0])) is not None:  # f(*point), or f(x)
            raise TypeError(f"{takes}, not f(*point); it was given {_kinds(args)}")
        numbers = f"f takes a list of {n} plain number{'s' * (n != 1)} (floats, not nodes)"
        return case["ask"](_numbers(args[0], n, numbers))

    return f


def remote_duals(case: Case, n: int) -> Callable[..., list[Dual]]:
    """The case's ``f`` on n dual numbers (anything with a ``primal`` and a ``tangent``;
    a plain number has tangent 0): the grader returns each output's primal and tangent."""

    def f(*duals: Any) -> list[Dual]:
        if len(duals) != n:
            raise TypeError(f"f takes {n} dual numbers, f(*duals); it was given {len(duals)}")
        pairs = []
        for d in duals:
            number = as_float(to_plain(d))
            pair = (
                [number, 0.0]
                if number is not None
                else [getattr(d, "primal", None), getattr(d, "tangent", None)]
            )
            pairs.append(_numbers(pair, 2, "f takes dual numbers (a primal and a tangent each)"))
        return [Dual(p, t) for p, t in case["ask"](pairs)]

    return f


def remote_values(case: Case, n: int) -> Callable[..., list[Any]]:
    """The case's ``f`` on n reverse-mode nodes (``mg.Value``s, or anything with ``.data``
    and arithmetic with numbers): the grader returns f's values and Jacobian at the
    nodes' data, and each output is built from the inputs as y + Σⱼ Jᵢⱼ (xⱼ - xⱼ.data)."""

    def f(*nodes: Any) -> list[Any]:
        if len(nodes) != n:
            raise TypeError(f"f takes {n} Values, f(*values); it was given {len(nodes)}")
        point = _numbers([getattr(x, "data", x) for x in nodes], n, "f takes Values")
        ys, jacobian = case["ask"](point)
        outputs = []
        for y, row in zip(ys, jacobian, strict=True):
            out = nodes[0] * row[0]
            for node, slope in zip(nodes[1:], row[1:], strict=True):
                out = out + node * slope
            outputs.append(out + (y - sum(s * x for s, x in zip(row, point, strict=True))))
        return outputs

    return f


def scaled(g: Callable[..., list[Any]], scales: dict[str, list[float]]) -> Callable[..., list]:
    """``d ⊙ g(c ⊙ x)`` for the scales ``{"c": c, "d": d}`` (the grader's side)."""
    c, d = scales["c"], scales["d"]

    def f(*xs: Any) -> list[Any]:
        if len(xs) != len(c):
            raise TypeError(f"f takes {len(c)} inputs; it was given {len(xs)}")
        ys = g(*(ci * x for ci, x in zip(c, xs, strict=True)))
        return [di * y for di, y in zip(d, ys, strict=True)]

    return f


def draw_scales(rng: random.Random, n: int, m: int) -> dict[str, list[float]]:
    """Scales for ``f: ℝⁿ → ℝᵐ``, positive (a logarithm's argument keeps its sign)."""
    return {
        "c": [round(rng.uniform(0.5, 2.0), 6) for _ in range(n)],
        "d": [round(rng.uniform(0.5, 2.0), 6) for _ in range(m)],
    }
