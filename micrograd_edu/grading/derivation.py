"""Checks of a backward pass the student derives (chapter 07's three, chapter 10's
weighted cross-entropy): the answer is compared with the engine's gradient to rounding,
which a derived formula meets and a difference quotient does not; a case of realistic
size (``runners/derivation.py``) is read along random directions, and must be done within
its time limit, where any method that evaluates the loss per entry of the gradient takes
minutes. The pieces here read an answer (small or large), judge it part by part, and
model the mistakes every such exercise shares; each chapter adds its own cases, oracle
and mistake models.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..tensor import Tensor, cross_entropy
from .arrays import compare, is_array, same, shape_name
from .registry import Case, Mistake
from .runners.derivation import directions
from .runners.derivation import inputs as _inputs

__all__ = [
    "EXACT",
    "given",
    "judge_parts",
    "model_is",
    "close_not_exact",
    "NUMERIC",
    "NUMERIC_KINK",
    "COMMON",
    "large",
    "softmax_right",
    "softmax_model",
    "softmax_mistakes",
    "engine_grads",
    "Logits",
    "logits_of",
    "right_parts",
]

Grads = dict[str, np.ndarray]

EXACT = 1e-12  # of the largest entry: rounding, not a difference quotient's error (1e-10)
CLOSE = 1e-5  # what a difference quotient does reach, away from a kink
ROUNDING = 1e-14  # what a derived formula's answer is off by (a failed check has more)

NUMERIC = (
    "your gradient is close to the right one but not equal to it: what a difference quotient "
    "gives. The check asks for the formula you derive, which is exact to rounding; a "
    "difference quotient is not"
)
# (the same, where a ReLU is on the way: its kinks are in the cases)
NUMERIC_KINK = (
    f"{NUMERIC}, even where the ReLU is smooth, and where a unit's input is within a hair of "
    "0 it steps across the ReLU's kink"
)
_PRODUCT = (
    "a matrix product in your function was given shapes that do not fit (the sizes in these "
    "cases are all different, so each product fits one way only): write down each factor's "
    "shape, and remember that a gradient has the shape of what it differentiates"
)
_IN_PLACE = (
    "an in-place update (*=, -=, /=, or an assignment into a slice) of an array you were "
    "given writes into the caller's array: compute into new arrays"
)


def given(exercise: tuple, case: Case) -> dict[str, np.ndarray]:
    name, names, _ = exercise
    return {k: np.asarray(v) for k, v in _inputs(name, names, case).items()}


def _size(exercise: tuple, case: Case) -> str:
    """The case's sizes, as a student reads them."""
    name, first = next(iter(given(exercise, case).items()))
    return f"{name} of shape {shape_name(first.shape)}"


# --- reading an answer, small or large ---------------------------------------------------


def agrees(case: Case, seen: dict, part: str, model: np.ndarray) -> bool:
    """Whether the answer's ``part`` is ``model`` (to a mistake model's precision, of the
    model's largest entry: a gradient whose entries are all near 0, as for logits in the
    hundreds, is not matched by any other array of tiny entries)."""
    if "seed" not in case:
        got = seen.get(part)
        return same(got, model) and _within(np.array(got, dtype=float), model, 1e-6)
    shape, read = seen.get(f"{part}.shape"), seen.get(f"{part}.read")
    if shape is None or tuple(shape) != model.shape or not isinstance(read, list):
        return False
    want = directions(case["seed"], model.size) @ model.reshape(-1)
    return np.shape(read) == want.shape and bool(np.allclose(read, want, rtol=1e-6, atol=1e-9))


def _compare_part(case: Case, seen: dict, part: str, want: np.ndarray, what: str, tol: float):
    if "seed" not in case:
        return compare(seen.get(part), want, what, tol, exact=True)
    shape = seen.get(f"{part}.shape")
    if not isinstance(shape, list):
        return f"{what} is not an array of numbers"
    if tuple(shape) != want.shape:
        must = shape_name(want.shape)
        return f"{what} has shape {shape_name(tuple(shape))}; it must have shape {must}"
    exact = directions(case["seed"], want.size) @ want.reshape(-1)
    problem = compare(seen.get(f"{part}.read"), exact, "it", 1e-9)
    return (
        problem
        and f"{what}, read along {len(exact)} random directions: " + problem.split(", but ", 1)[-1]
    )


def judge_parts(
    exercise: tuple,
    right: Callable[[Case], Grads],
    names: dict[str, str],
    tol: float = EXACT,
    unchanged: bool = False,
):
    """Each part of the answer, in order, against the engine's gradient; with
    ``unchanged``, the inputs also left as they were given."""

    def judge(case: Case, seen: dict) -> str | None:
        if seen.get("too_slow"):
            return (
                f"it took longer than {seen['too_slow']:g} s on {_size(exercise, case)}: a "
                "derived backward takes a few array operations there (milliseconds); a "
                "difference quotient takes two evaluations of the loss per entry"
            )
        if seen.get("parts") is False:
            if seen.get("length") is not None:
                return f"it returned {seen['length']} things; it must return {len(names)} arrays"
            return (
                f"it returned a {seen.get('kind')}; it must return a tuple of {len(names)} arrays"
            )
        want = right(case)
        reordered = _reordered(seen, want, list(names))
        if reordered:
            return (
                f"the arrays returned, for {_size(exercise, case)}, have the shapes of "
                f"({', '.join(reordered)}) in that order: return them as ({', '.join(names)})"
            )
        for part, what in names.items():
            where = f"{what}, for {_size(exercise, case)},"
            problem = _compare_part(case, seen, part, want[part], where, tol)
            if problem:
                return problem
        if unchanged and seen.get("changed"):
            changed = ", ".join(map(str, seen["changed"]))
            return (
                f"the {changed} passed in were different after the call: the caller's array changed"
            )
        return None

    return judge


def _reordered(seen: dict, want: Grads, parts: list[str]) -> list[str]:
    """The parts whose shapes the returned arrays have, in the order returned, where that
    is another order of all the parts and each shape belongs to one part alone; else []."""

    def shape(part: str) -> tuple | None:
        if f"{part}.shape" in seen:
            return tuple(seen[f"{part}.shape"]) if isinstance(seen[f"{part}.shape"], list) else None
        return np.shape(seen[part]) if is_array(seen.get(part)) else None

    owners = {}
    for part in parts:
        owners.setdefault(np.shape(want[part]), []).append(part)
    got = [owners.get(shape(part), []) for part in parts]
    if any(len(o) != 1 for o in got):
        return []
    order = [o[0] for o in got]
    return order if sorted(order) == sorted(parts) and order != parts else []


def _within(got: np.ndarray, want: np.ndarray, tol: float) -> bool:
    """Whether ``got`` is ``want`` within ``tol`` of ``want``'s largest entry."""
    largest = float(np.max(np.abs(want), initial=0.0))
    return bool(np.max(np.abs(got - want), initial=0.0) <= tol * largest)


def model_is(model: Callable[[Case], Grads], right: Callable[[Case], Grads]):
    """A mistake whose every part is ``model(case)``'s, where the model is not right."""

    def matches(case: Case, seen: dict) -> bool:
        wrong, correct = model(case), right(case)
        if all(
            np.shape(wrong[p]) == np.shape(correct[p]) and _within(wrong[p], correct[p], 1e-9)
            for p in correct
        ):
            # where the mistake gives the right answer (to the judge's rounding, of the
            # largest entry) it is not seen
            return False
        return all(agrees(case, seen, p, wrong[p]) for p in correct)

    return matches


def close_not_exact(right: Callable[[Case], Grads], smooth: Callable[[Case], dict]):
    """The answer agrees with the right one to a difference quotient's accuracy (of the
    gradients' largest entry) on every entry ``smooth(case)`` marks (those no kink
    reaches), but not to rounding; and on the large case it did not finish: what a
    difference quotient does (where only the large case failed, the slowness alone is the
    explanation, a mistake listed before this one)."""

    def matches(case: Case, seen: dict) -> bool:
        if "seed" in case:  # the large case: a difference quotient there does not finish
            return bool(seen.get("too_slow"))
        want, exact = right(case), True
        scale = max(float(np.max(np.abs(w))) for w in want.values()) or 1.0
        for part, mask in smooth(case).items():
            got = seen.get(part)
            if not isinstance(got, list) or np.shape(got) != want[part].shape:
                return False
            error = np.abs(np.array(got, dtype=float) - want[part]) / scale
            if not np.all(error[mask] <= CLOSE):
                return False
            exact = exact and bool(np.all(error <= ROUNDING))
        return not exact

    return matches


_TOO_SLOW = (
    "on the case of realistic size your function took longer than the limit: a backward "
    "written as a few array operations (products, sums, comparisons) takes milliseconds "
    "there, one that evaluates the loss for each entry of the gradient, or loops over the "
    "entries in Python, takes minutes"
)

COMMON = (
    Mistake(lambda case, seen: bool(seen.get("too_slow")), _TOO_SLOW, name="too slow"),
    Mistake(lambda case, seen: bool(seen.get("changed")), _IN_PLACE, name="in place"),
    Mistake(
        lambda case, seen: any(f in str(seen.get("error", "")) for f in ("matmul:", "not aligned")),
        _PRODUCT,
        name="shapes that do not fit",
    ),
)


def large(rng: random.Random) -> Case:
    return {"seed": rng.randrange(2**31)}


def engine_grads(loss: Callable[..., Tensor], *arrays: np.ndarray) -> list[np.ndarray]:
    """The gradient of the scalar ``loss(*tensors)`` with respect to each array, by the
    engine's backward (in the grader's process): the oracle, and what a mistake's model is
    built from (the answer is never written out here)."""
    tensors = [Tensor(np.asarray(a, dtype=float), requires_grad=True) for a in arrays]
    with np.errstate(all="ignore"):
        loss(*tensors).backward()
    return [np.array(t.grad.data, dtype=float) for t in tensors]


def softmax_right(exercise: tuple, case: Case) -> Grads:
    """The engine's gradient of the (weighted, when the exercise has weights) mean
    cross-entropy: the oracle of the softmax exercises."""
    inputs = given(exercise, case)
    (grad,) = engine_grads(
        lambda z: cross_entropy(z, inputs["labels"], weight=inputs.get("weight")),
        inputs["logits"],
    )
    return {"grad": grad}


@dataclass(frozen=True)
class Logits:
    """What a softmax mistake's model is made of, for one case, all from the engine: the
    right gradient; each row's softmax ``p`` and each column's ``pc``; the gradient of the
    (weighted) mean of the rows' log-sum-exp alone (``lse``: the loss without its label's
    term; ``lse_plain`` unweighted) and of the plain mean cross-entropy (``plain``); each
    row's weight ``rw`` (a column), their ``total``, the class weights ``w`` (all 1 without
    weights); N and C."""

    right: np.ndarray
    p: np.ndarray
    pc: np.ndarray
    lse: np.ndarray
    lse_plain: np.ndarray
    plain: np.ndarray
    rw: np.ndarray
    total: float
    w: np.ndarray
    n: int
    c: int


def logits_of(exercise: tuple, case: Case) -> Logits:
    inputs = given(exercise, case)
    z, labels = inputs["logits"].astype(float), np.asarray(inputs["labels"])
    w = np.asarray(inputs.get("weight", np.ones(z.shape[1])), dtype=float)
    rw = w[labels][:, None]
    (lse,) = engine_grads(lambda t: (t.logsumexp(-1) * Tensor(rw[:, 0])).sum() / rw.sum(), z)
    (lse_plain,) = engine_grads(lambda t: t.logsumexp(-1).mean(), z)
    (plain,) = engine_grads(lambda t: cross_entropy(t, labels), z)
    return Logits(
        softmax_right(exercise, case)["grad"],
        np.array(Tensor(z).softmax(-1).data, dtype=float),
        np.array(Tensor(z).softmax(0).data, dtype=float),
        lse,
        lse_plain,
        plain,
        rw,
        float(rw.sum()),
        w,
        *z.shape,
    )


def softmax_model(
    exercise: tuple, wrong: Callable[[Logits], np.ndarray]
) -> Callable[[Case, dict], bool]:
    """A softmax mistake: the gradient ``wrong(parts)`` gives from the case's
    :class:`Logits`."""

    def model(case: Case) -> Grads:
        return {"grad": wrong(logits_of(exercise, case))}

    return model_is(model, lambda case: softmax_right(exercise, case))


def softmax_mistakes(exercise: tuple) -> tuple[Mistake, ...]:
    """The mistakes of a softmax cross-entropy backward that do not depend on how the rows
    are weighted (without weights, every row's weight is 1)."""
    right = lambda case: softmax_right(exercise, case)  # noqa: E731
    return (
        Mistake(
            None,
            "it has the opposite sign: raising the label's own logit must lower the loss",
            name="sign",
            factor=-1.0,
        ),
        Mistake(
            # each row normalised down the batch: the right gradient, with the column's
            # softmax where the row's belongs
            softmax_model(exercise, lambda k: k.right + k.rw * (k.pc - k.p) / k.total),
            "each row is one example: its probabilities are normalised over its own classes, "
            "along the row, not down the batch",
            name="down the batch",
        ),
        Mistake(
            lambda case, seen: (
                isinstance(seen.get("grad"), list)
                and not np.all(np.isfinite(np.array(seen["grad"], dtype=float)))
            ),
            "exp of a logit in the hundreds overflows to inf, and inf / inf is nan. The "
            "softmax of a row does not change when the same number is added to all its logits",
            name="overflow",
        ),
        Mistake(
            close_not_exact(right, lambda case: {"grad": np.ones(np.shape(case["logits"]), bool)}),
            NUMERIC,
            name="difference quotient",
        ),
    )


def right_parts(exercise: tuple, right: Callable[[Case], Grads]) -> Callable[[Case], dict]:
    """``Check.right`` of a derivation: the right arrays of a small case. A large case's
    answer is read along random directions, and a slow one has none: the plain
    explanations (a wrong shape, a constant factor) are read from the small cases."""

    def right_of(case: Case) -> dict:
        if "seed" in case:
            raise ValueError("a large case's answer is read along directions")
        return {part: array.tolist() for part, array in right(case).items()}

    return right_of
