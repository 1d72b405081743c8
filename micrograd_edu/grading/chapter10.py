"""Chapter 10's exercises: the cross-entropy backward, and a classifier trained to a
held-out accuracy.

The gradient is compared with central differences of the mean cross-entropy, which
the grader computes stably itself. Each typical mistake has a model: the output that
mistake gives on the same case (N times too large, the softmax alone, the wrong sign,
normalised over the batch), so its hint appears only when the student made it.

The classifier is trained on data the case carries and judged on held-out rows
whose labels stay with the judge (``HELD``): a data set the grader draws from its
secret seed (clusters of classes whose best possible accuracy the judge computes),
then scikit-learn's handwritten digits, split by the grader.
"""

from __future__ import annotations

import random

import numpy as np

from .arrays import compare, numerical_gradients, random_matrix, same
from .plain import describe
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter10 import _arrays, _run_backward, _run_classifier

# --- 1. weighted_cross_entropy_backward ---------------------------------------------
# The lecture derived the gradient of the plain mean; the exercise is the next case,
# PyTorch's class weights: L = Σᵢ w[yᵢ] ℓᵢ / Σᵢ w[yᵢ].


def _loss(logits: np.ndarray, labels: np.ndarray, weight: np.ndarray) -> float:
    """The weighted mean cross-entropy, computed stably (the grader's, for its oracle)."""
    top = logits.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
    losses = log_norm - logits[np.arange(len(labels)), labels]
    return float(np.sum(weight[labels] * losses) / np.sum(weight[labels]))


def _gradient(case: Case) -> np.ndarray:
    logits, labels, weight = _arrays(case)
    (grad,) = numerical_gradients(lambda z: _loss(z, labels, weight), logits)
    return grad


def _logit_cases(scale: float = 1.0, batch_one: bool = False, count: int = 3):
    def cases(rng: random.Random) -> list[Case]:
        out = []
        for _ in range(count):
            n, c = rng.sample(range(2, 8), 2)
            n = 1 if batch_one else n
            out.append(
                {
                    "logits": (np.array(random_matrix(rng, n, c)) * scale).tolist(),
                    "labels": [rng.randrange(c) for _ in range(n)],
                    "weight": [rng.uniform(0.2, 3.0) for _ in range(c)],
                    "as_lists": batch_one,
                }
            )
        return out

    return cases


def _judge_backward(case: Case, seen: dict) -> str | None:
    want = _gradient(case)
    return compare(
        seen.get("grad"),
        want,
        "the gradient for {} row{} of {} logits".format(
            want.shape[0], "" if want.shape[0] == 1 else "s", want.shape[1]
        ),
    )


def _judge_unchanged(case: Case, seen: dict) -> str | None:
    if seen.get("changed"):
        return "the logits passed in were different after the call: the caller's array changed"
    return _judge_backward(case, seen)


def _is(model):
    """A mistake whose output on ``case`` is ``model(*parts)``: matches when the answer
    equals it."""

    def matches(case: Case, seen: dict) -> bool:
        return same(seen.get("grad"), model(*_parts(case)))

    return matches


def _parts(case: Case) -> tuple[np.ndarray, ...]:
    """(softmax by row, softmax by column, one-hot labels, each row's weight, weight total)."""
    z, labels, weight = _arrays(case)
    by_row, by_column = (np.exp(z - z.max(axis=a, keepdims=True)) for a in (1, 0))
    by_row, by_column = by_row / by_row.sum(1, keepdims=True), by_column / by_column.sum(0)
    onehot = np.eye(z.shape[1])[labels]
    row_weight = weight[labels][:, None]
    return by_row, by_column, onehot, row_weight, row_weight.sum(), weight


def _any(*models):
    return lambda case, seen: any(_is(m)(case, seen) for m in models)


_MISTAKES = (
    Mistake(
        _any(lambda p, pc, y, rw, total, w: len(y) * rw * (p - y) / total),
        "it is N times the gradient, for a batch of N rows: L is a weighted mean of the "
        "rows' losses, so how much does one row's loss count in L?",
    ),
    Mistake(
        _any(lambda p, pc, y, rw, total, w: (p - y) / len(y)),
        "it is the gradient of the plain mean: a row's loss counts in L in proportion to "
        "the weight of its label",
    ),
    Mistake(
        _any(
            lambda p, pc, y, rw, total, w: rw * (p - y) / len(y),
            lambda p, pc, y, rw, total, w: rw * (p - y),
        ),
        "the weighted losses are divided by the total weight of the rows' labels, not by "
        "the number of rows",
    ),
    Mistake(
        _any(lambda p, pc, y, rw, total, w: w * (p - y) / total),
        "a row is weighted by the weight of its own label, the same for all C entries of the "
        "row, not entry by entry with the class weights",
    ),
    Mistake(
        _any(lambda p, pc, y, rw, total, w: rw * p / total, lambda p, pc, y, rw, t, w: p / len(y)),
        "every entry of your answer is positive, so raising any logit would raise the loss; "
        "but raising the label's own logit must lower it. That logit appears in the loss a "
        "second time, not only inside the normalising sum",
    ),
    Mistake(
        _any(lambda p, pc, y, rw, total, w: -rw * (p - y) / total),
        "it has the opposite sign: raising the label's own logit must lower the loss",
    ),
    Mistake(
        _any(lambda p, pc, y, rw, total, w: rw * (pc - y) / total),
        "each row is one example: its probabilities are normalised over its own classes, "
        "along the row, not down the batch",
    ),
    Mistake(
        lambda case, seen: not np.all(np.isfinite(np.array(seen["grad"], dtype=float))),
        "exp of a logit in the hundreds overflows to inf, and inf / inf is nan. The softmax "
        "of a row does not change when the same number is added to all its logits",
    ),
)

BACKWARD = register(
    Exercise(
        "10.weighted_cross_entropy_backward",
        "The backward of cross-entropy with class weights",
        3,
        "weighted_cross_entropy_backward(logits, labels, weight) returns ∂L/∂logits, with the "
        "shape (N, C) of logits, for L = Σᵢ weight[labels[i]] ℓᵢ / Σᵢ weight[labels[i]], where "
        "ℓᵢ is the cross-entropy of row i (as torch.nn.CrossEntropyLoss(weight=weight) "
        "computes). labels (N integers in 0..C-1) and weight (C positive numbers) may be "
        "arrays or lists. Use numpy: autograd records nothing while this is graded.",
        ("weighted_cross_entropy_backward",),
        (
            Check(
                "matches central differences on batches of several sizes",
                "",
                _logit_cases(),
                _run_backward,
                _judge_backward,
                weight=2.0,
                mistakes=_MISTAKES,
            ),
            Check(
                "finite and right for logits in the hundreds",
                "",
                _logit_cases(scale=400.0),
                _run_backward,
                _judge_backward,
                mistakes=_MISTAKES,
            ),
            Check(
                "a batch of one, labels and weight given as lists, the logits left unchanged",
                "",
                _logit_cases(batch_one=True, count=2),
                _run_backward,
                _judge_unchanged,
                mistakes=(
                    Mistake(
                        lambda case, seen: bool(seen.get("changed")),
                        "an in-place update (-=, /=) of the array you were given writes into "
                        "the caller's logits: compute into new arrays",
                    ),
                    *_MISTAKES,
                ),
            ),
        ),
        answers=(
            "p - onehot",
            "softmax(z) - onehot",
            "- onehot",
            "-= 1",
            "row_weight[:, None] * p / row_weight.sum()",
            "/ row_weight.sum()",
            "w[y]/Σw",
            "weight[labels] / weight[labels].sum()",
        ),
        withheld=(
            "micrograd_edu.scalar.numerical.gradient",
            "micrograd_edu.scalar.numerical.jacobian",
            "micrograd_edu.grading.arrays.numerical_gradients",
        ),
    )
)


# --- 2. train_classifier: a held-out accuracy ---------------------------------------

_GAP = 0.05  # below the best possible accuracy on the grader's clusters
_DIGITS_TARGET = 0.95


def _cluster_cases(rng: random.Random) -> list[Case]:
    """Three classes, each four clusters in 4-D (no straight line separates them), the
    features then scaled and shifted each its own way. The held-out labels stay with
    the judge, with the accuracy of the best possible rule (the class whose clusters
    give the point the highest density, from the centres only the grader knows)."""
    draw = np.random.default_rng(rng.randrange(2**31))
    classes, per, dim, spread, n, test = 3, 4, 4, 0.7, 800, 400
    centres = draw.normal(0, 3, size=(classes * per, dim))
    which = draw.integers(0, classes * per, size=n + test)
    u = centres[which] + draw.normal(0, spread, size=(n + test, dim))
    x = u * draw.uniform(0.2, 5, size=dim) + draw.normal(0, 3, size=dim)
    labels = which % classes
    density = -((u[n:, None, :] - centres[None]) ** 2).sum(axis=-1) / (2 * spread**2)
    scores = [np.logaddexp.reduce(density[:, c::classes], axis=1) for c in range(classes)]
    best = float(np.mean(np.argmax(scores, axis=0) == labels[n:]))
    return [
        {
            "data": "the grader's clusters",
            "X": x[:n].tolist(),
            "labels": labels[:n].tolist(),
            "X_test": x[n:].tolist(),
            "seed": rng.randrange(1000),
            HELD: {
                "labels": labels[n:].tolist(),
                "target": best - _GAP,
                "why": f"{_GAP} below the {best:.3f} of the best possible rule, which knows "
                "how the grader drew the clusters",
            },
        }
    ]


def _digit_cases(rng: random.Random) -> list[Case]:
    """scikit-learn's 1,797 digits (8 × 8 pixels, 0-16), a fifth of each class held out,
    drawn by the grader."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as error:
        raise ImportError(
            "10.train_classifier grades on scikit-learn's digits: pip install scikit-learn "
            "(make install does)"
        ) from error
    digits = load_digits()
    draw = np.random.default_rng(rng.randrange(2**31))
    test = np.zeros(len(digits.target), dtype=bool)
    for c in range(10):
        rows = np.flatnonzero(digits.target == c)
        test[draw.choice(rows, size=len(rows) // 5, replace=False)] = True
    return [
        {
            "data": "the handwritten digits",
            "X": digits.data[~test].astype(int).tolist(),
            "labels": digits.target[~test].tolist(),
            "X_test": digits.data[test].astype(int).tolist(),
            "seed": rng.randrange(1000),
            HELD: {
                "labels": digits.target[test].tolist(),
                "target": _DIGITS_TARGET,
                "why": "the lecture's network reaches about 0.98",
            },
        }
    ]


def _judge_classifier(case: Case, seen: dict) -> str | None:
    labels, target = np.array(case[HELD]["labels"]), case[HELD]["target"]
    got = seen.get("predicted")
    if not isinstance(got, list) or len(got) != len(labels):
        return (
            f"predict(X_test) returned {describe(got)}; expected one class label per row of "
            f"X_test ({len(labels)} rows)"
        )
    if not all(isinstance(v, (int, float)) and float(v).is_integer() for v in got):
        return "predict(X_test) must return class labels (whole numbers), not scores"
    accuracy = float(np.mean(np.array(got) == labels))
    if accuracy >= target:
        return None
    return (
        f"held-out accuracy {accuracy:.3f} on {case['data']}; the target is {target:.3f} "
        f"({case[HELD].get('why', '')})"
    )


_ONE_CLASS = Mistake(
    lambda case, seen: len(set(seen.get("predicted") or [])) == 1,
    "every prediction is the same class: check that the loss falls while you train, and "
    "that predict does to the new rows what training did to X (the same scaling)",
)


CLASSIFIER = register(
    Exercise(
        "10.train_classifier",
        "A classifier trained to a held-out accuracy",
        3,
        "train_classifier(X, labels, seed) trains a classifier on X (n, d) and its integer "
        "class labels (n,), and returns predict(X_new) -> one class label per row. Graded by "
        "the accuracy on held-out rows: of a data set the grader draws (within 0.05 of the "
        "best possible accuracy there), and of the handwritten digits, with the raw pixels "
        f"0-16 (at least {_DIGITS_TARGET}), within the grader's time limit.",
        ("train_classifier",),
        (
            Check(
                "held-out accuracy on data the grader draws (clusters, features on their own "
                "scales)",
                "",
                _cluster_cases,
                _run_classifier,
                _judge_classifier,
                mistakes=(_ONE_CLASS,),
            ),
            Check(
                f"held-out accuracy at least {_DIGITS_TARGET} on the handwritten digits",
                "",
                _digit_cases,
                _run_classifier,
                _judge_classifier,
                mistakes=(_ONE_CLASS,),
            ),
        ),
        answers=("nn.Linear(X.shape[1], 128", "StepLR(optimizer, step_size=10"),
        withheld=("sklearn", "torch"),
    )
)
