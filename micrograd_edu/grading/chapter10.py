"""Chapter 10's exercises: the cross-entropy backward with class weights, and a
classifier trained to a held-out accuracy.

The gradient is compared with the engine's, to rounding, and on a batch of realistic size
within a time limit (``derivation.py``): a difference quotient earns nothing. Each typical
mistake has a model: the output that mistake gives on the same case (N times too large,
the softmax alone, the wrong sign, normalised over the batch), so its hint appears only
when the student made it.

The classifier is the network the student's loop trained: the grader runs it itself on
held-out rows the submission never holds, of a data set it draws from its secret seed
(clusters of more than ten classes whose best possible accuracy the judge computes) and
of scikit-learn's handwritten digits, split by the grader.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from .arrays import random_matrix
from .chapter07 import WITHHELD
from .derivation import (
    COMMON,
    Grads,
    Logits,
    judge_parts,
    large,
    right_parts,
    softmax_mistakes,
    softmax_model,
    softmax_right,
)
from .networks import forward, network_problem, only_linear, same_network, untrained
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.derivation import LARGE, LARGE_SECONDS, WEIGHTED, run_backward
from .runners.networks import run_training

# --- 1. weighted_cross_entropy_backward ---------------------------------------------
# The lecture derived the gradient of the plain mean; the exercise is the next case,
# PyTorch's class weights: L = Σᵢ w[yᵢ] ℓᵢ / Σᵢ w[yᵢ].


def _logit_cases(batch_one: bool = False, count: int = 3, large_logits: bool = False):
    """``count`` small cases (and, without ``large_logits``, a large one). With
    ``large_logits`` every logit is above 709, where exp overflows, and a row's logits
    spread over a few units, so its softmax is not one-hot and its gradient not 0."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        # no two cases of a check share a batch size: an answer off by N is then off by a
        # different factor on each case, which no constant is
        for n, c in zip(
            rng.sample(range(2, 9), count), rng.sample(range(2, 9), count), strict=True
        ):
            n = 1 if batch_one else n
            out.append(
                {
                    "logits": (
                        np.array(random_matrix(rng, n, c)) * (2.0 if large_logits else 1.0)
                        + (rng.uniform(720.0, 900.0) if large_logits else 0.0)
                    ).tolist(),
                    "labels": [rng.randrange(c) for _ in range(n)],
                    "weight": [rng.uniform(0.2, 3.0) for _ in range(c)],
                    "as_list": batch_one,
                }
            )
        return out + ([] if large_logits or batch_one else [large(rng)])

    return cases


def _right(case: Case) -> Grads:
    return softmax_right(WEIGHTED, case)


def _is(*wrong: Callable[[Logits], np.ndarray]) -> Callable[[Case, dict], bool]:
    """Any of the mistakes whose gradients ``wrong(parts)`` give (:class:`Logits`)."""
    models = [softmax_model(WEIGHTED, w) for w in wrong]
    return lambda case, seen: any(model(case, seen) for model in models)


def _engine_asked(case: Case, seen: dict) -> bool:
    """The engine asked for the gradient: it is withheld while graded (a path to it that
    escapes withholding still finds autograd recording nothing, and backward refuses)."""
    error = str(seen.get("error", ""))
    withheld = "micrograd_edu.tensor" in error and "is withheld while grading" in error
    return withheld or any(f in error for f in ("does not require grad", "no grad_fn"))


_MISTAKES = (
    *COMMON,
    Mistake(
        _engine_asked,
        "the package's Tensor engine (its losses and backward) is withheld while this "
        "exercise is graded, however autograd's recording is switched: the exercise is the "
        "derivation. Compute ∂L/∂logits from what you derived, with array operations",
        name="engine asked",
    ),
    Mistake(
        _is(lambda k: k.right * k.n),
        "it is N times the gradient, for a batch of N rows: L is a weighted mean of the "
        "rows' losses, so how much does one row's loss count in L?",
        name="summed",
    ),
    Mistake(
        _is(lambda k: k.plain),
        "it is the gradient of the plain mean: a row's loss counts in L in proportion to "
        "the weight of its label",
        name="unweighted",
    ),
    Mistake(
        _is(lambda k: k.right * k.total / k.n, lambda k: k.right * k.total),
        "the weighted losses are divided by the total weight of the rows' labels, not by "
        "the number of rows",
        name="over the rows",
    ),
    *(
        Mistake(
            _is(lambda k: k.right * k.total / k.w.sum()),
            "the weighted losses are divided by the sum of the class weights, not by the "
            "total weight of the rows' labels: L is a weighted mean over the batch's rows",
            name="over the class weights",
            factor=factor,
        )
        # (one failing case alone shows a constant factor)
        for factor in (None, lambda c: c > 0)
    ),
    Mistake(
        _is(lambda k: k.right + k.p * (1 - k.rw) / k.total),
        "a row's class weight multiplies its whole loss, so both terms of its gradient: "
        "yours weights the label's term alone",
        name="label's term weighted",
    ),
    Mistake(
        # the plain mean's gradient, each entry weighted by its own column's class weight
        _is(lambda k: k.w * k.plain * k.n / k.total),
        "a row is weighted by the weight of its own label, the same for all C entries of the "
        "row, not entry by entry with the class weights",
        name="weights by column",
    ),
    Mistake(
        _is(lambda k: k.lse, lambda k: k.lse_plain),
        "every entry of your answer is positive, so raising any logit would raise the loss; "
        "but raising the label's own logit must lower it. That logit appears in the loss a "
        "second time, not only inside the normalising sum",
        name="softmax alone",
    ),
    *softmax_mistakes(WEIGHTED),
)

_WHAT = {"grad": "the gradient"}

BACKWARD = register(
    Exercise(
        "10.weighted_cross_entropy_backward",
        "The backward of cross-entropy with class weights",
        3,
        "weighted_cross_entropy_backward(logits, labels, weight) returns ∂L/∂logits, with the "
        "shape (N, C) of logits, for L = Σᵢ weight[labels[i]] ℓᵢ / Σᵢ weight[labels[i]], where "
        "ℓᵢ is the cross-entropy of row i (as torch.nn.CrossEntropyLoss(weight=weight) "
        "computes). labels (N integers in 0..C-1) and weight (C positive numbers) may be "
        "arrays or lists. Use numpy, and derive it: the package's Tensor engine (and torch) "
        "is withheld while this is graded, and the check compares with the engine's "
        "gradient to rounding, which a difference quotient does not reach, also on "
        f"{LARGE[WEIGHTED[0]][0]:,} rows of {LARGE[WEIGHTED[0]][1]} logits within "
        f"{LARGE_SECONDS:g} s.",
        (WEIGHTED[0],),
        (
            Check(
                "exact on batches of several sizes, and on a large one",
                "",
                _logit_cases(),
                run_backward(WEIGHTED[0]),
                judge_parts(WEIGHTED, _right, _WHAT, 1e-13),
                weight=2.0,
                mistakes=_MISTAKES,
                right=right_parts(WEIGHTED, _right),
            ),
            Check(
                "finite and right for logits in the hundreds",
                "",
                _logit_cases(large_logits=True),
                run_backward(WEIGHTED[0]),
                judge_parts(WEIGHTED, _right, _WHAT, 1e-9),
                mistakes=_MISTAKES,
                right=right_parts(WEIGHTED, _right),
            ),
            Check(
                "a batch of one, labels and weight given as lists, the logits left unchanged",
                "",
                _logit_cases(batch_one=True, count=2),
                run_backward(WEIGHTED[0]),
                judge_parts(WEIGHTED, _right, _WHAT, 1e-13, unchanged=True),
                mistakes=_MISTAKES,
                right=right_parts(WEIGHTED, _right),
            ),
        ),
        # the engine whole, as for chapter 07's derivations (no_grad can be switched off)
        withheld=WITHHELD,
        alone=True,  # the classifier, graded beside it, trains with the engine
    )
)


# --- 2. train_classifier: a held-out accuracy ---------------------------------------

_GAP = 0.05  # below the best possible accuracy on the grader's clusters
_DIGITS_TARGET = 0.95


def _cluster_cases(rng: random.Random) -> list[Case]:
    """11 to 13 classes (more than the digits' ten), each two clusters in 4-D (no straight
    line separates them), the features then scaled by factors from 0.03 to 30 and shifted
    far from 0, each its own way: a network trained on them as they come learns little.
    The held-out rows and labels stay with the judge, with the accuracy of the best
    possible rule (the class whose clusters give the point the highest density, from the
    centres only the grader knows)."""
    draw = np.random.default_rng(rng.randrange(2**31))
    classes = int(draw.integers(11, 14))
    per, dim, spread, n, test = 2, 4, 0.7, 1500, 500
    centres = draw.normal(0, 3, size=(classes * per, dim))
    which = draw.integers(0, classes * per, size=n + test)
    u = centres[which] + draw.normal(0, spread, size=(n + test, dim))
    scale = 10 ** draw.uniform(-1.5, 1.5, size=dim)
    x = (u + draw.normal(0, 30, size=dim)) * scale
    labels = which % classes
    density = -((u[n:, None, :] - centres[None]) ** 2).sum(axis=-1) / (2 * spread**2)
    scores = [np.logaddexp.reduce(density[:, c::classes], axis=1) for c in range(classes)]
    best = float(np.mean(np.argmax(scores, axis=0) == labels[n:]))
    return [
        {
            "X": x[:n].tolist(),
            "labels": labels[:n].tolist(),
            "seed": rng.randrange(1000),
            HELD: {
                "data": f"the grader's clusters ({classes} classes)",
                "X": x[n:].tolist(),
                "labels": labels[n:].tolist(),
                "target": best - _GAP,
                "why": f"{_GAP} below the {best:.3f} of the best possible rule, which knows "
                "how the grader drew the clusters",
            },
        }
    ]


def _digit_cases(rng: random.Random) -> list[Case]:
    """scikit-learn's 1,797 digits (8 × 8 pixels, 0-16), a fifth of each class held out,
    drawn by the grader; the held-out images and labels stay with the judge."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as error:
        raise ImportError(
            "10.train_classifier grades on scikit-learn's digits, which the course's "
            'install brings: pip install "micrograd-edu[course]" (or pip install scikit-learn)'
        ) from error
    digits = load_digits()
    draw = np.random.default_rng(rng.randrange(2**31))
    test = np.zeros(len(digits.target), dtype=bool)
    for c in range(10):
        rows = np.flatnonzero(digits.target == c)
        test[draw.choice(rows, size=len(rows) // 5, replace=False)] = True
    return [
        {
            "X": digits.data[~test].astype(int).tolist(),
            "labels": digits.target[~test].tolist(),
            "seed": rng.randrange(1000),
            HELD: {
                "data": "the handwritten digits",
                "X": digits.data[test].astype(int).tolist(),
                "labels": digits.target[test].tolist(),
                "target": _DIGITS_TARGET,
                "why": "the lecture's network reaches about 0.98",
            },
        }
    ]


def _predicted(case: Case, seen: dict) -> tuple[np.ndarray | None, str | None]:
    """The classes the network predicts for the held-out rows, run by the grader, or why
    it could not."""
    X = np.array(case[HELD]["X"], dtype=float)
    problem = network_problem(seen, X.shape[1])
    if problem:
        return None, problem
    logits = forward(seen, X)
    if logits.ndim != 2 or logits.shape[0] != len(X):
        return (
            None,
            f"the network gives {logits.shape[1:]} numbers per row; it must give one per class",
        )
    if not np.all(np.isfinite(logits)):
        return None, "the network's outputs for new rows are inf or nan"
    return np.argmax(logits, axis=1), None


def _judge_classifier(case: Case, seen: dict) -> str | None:
    predicted, problem = _predicted(case, seen)
    if problem:
        return problem
    held = case[HELD]
    accuracy = float(np.mean(predicted == np.array(held["labels"])))
    if accuracy >= held["target"]:
        return untrained(seen, f"held-out accuracy {accuracy:.3f} on {held['data']}")
    return (
        f"held-out accuracy {accuracy:.3f} on {held['data']}; the target is "
        f"{held['target']:.3f} ({held['why']})"
    )


def _reached(case: Case, seen: dict) -> str:
    """What a passing training reached, said beside its ✔."""
    predicted, _ = _predicted(case, seen)
    held = case[HELD]
    accuracy = float(np.mean(predicted == np.array(held["labels"])))
    return f"held-out accuracy {accuracy:.3f} on {held['data']}; target {held['target']:.3f}"


def _judge_repeated(case: Case, seen: dict) -> str | None:
    again = {k[len("again.") :]: v for k, v in seen.items() if k.startswith("again.")}
    inputs = np.shape(case["X"])[1]
    problem = network_problem(seen, inputs) or network_problem(again, inputs)
    if problem:
        return problem
    if same_network(seen, again):
        return None
    return "train_classifier called twice with the same seed gave two different networks"


def _one_class(case: Case, seen: dict) -> bool:
    predicted, problem = _predicted(case, seen)
    return problem is None and len(set(predicted.tolist())) == 1


_CLASSIFIER_MISTAKES = (
    Mistake(
        lambda case, seen: "is not a class index" in str(seen.get("error", "")),
        "the network has fewer outputs than the data have classes: take the number of classes "
        "from the labels you are given",
        name="too few outputs",
    ),
    Mistake(
        lambda case, seen: (
            seen.get("backward", 0) > 1 and seen.get("stale") == seen["backward"] - 1
        ),
        "your loop never clears the gradients: each backward adds to .grad, so every step "
        "follows the sum of all the gradients so far",
        name="never cleared",
    ),
    Mistake(
        _one_class,
        "every prediction is the same class: check that the loss falls while you train, and "
        "that the network sees new rows as training saw X (the same scaling)",
        name="one class",
    ),
    Mistake(
        lambda case, seen: only_linear(seen) and _predicted(case, seen)[1] is None,
        "your network has no activation between its layers: a stack of linear layers is one "
        "linear function, so straight lines separate its classes, and no straight line "
        "separates classes made of several clusters",
        name="no activation",
    ),
)


CLASSIFIER = register(
    Exercise(
        "10.train_classifier",
        "A classifier trained to a held-out accuracy",
        3,
        "train_classifier(X, labels, seed) trains a network on X (n, d) and its integer class "
        "labels (n,) with a loop you write, and returns it: an nn.Sequential of nn.Linear "
        "layers and activations whose outputs are one logit per class, or (network, centre, "
        "scale) when you standardised the inputs (the grader predicts the class of the "
        "largest logit of network((X_new - centre) / scale)). The grader runs that network "
        "itself on held-out rows your code never sees, and grades the accuracy there: on a "
        "data set it draws, with more than ten classes and features on scales of their own "
        "(within 0.05 of the best possible accuracy), and on the handwritten digits, with the "
        f"raw pixels 0-16 (at least {_DIGITS_TARGET}), within the grader's time limit. The "
        "same seed gives the same network.",
        ("train_classifier",),
        (
            Check(
                "held-out accuracy on data the grader draws (more than ten classes, features "
                "on scales of their own)",
                "",
                _cluster_cases,
                run_training("train_classifier"),
                _judge_classifier,
                mistakes=_CLASSIFIER_MISTAKES,
                note=_reached,
            ),
            Check(
                f"held-out accuracy at least {_DIGITS_TARGET} on the handwritten digits",
                "",
                _digit_cases,
                run_training("train_classifier"),
                _judge_classifier,
                mistakes=_CLASSIFIER_MISTAKES,
                note=_reached,
            ),
            Check(
                "the same seed, the same network",
                "",
                _cluster_cases,
                run_training("train_classifier", True),
                _judge_repeated,
                same_cases_as="held-out accuracy on data the grader draws (more than ten "
                "classes, features on scales of their own)",
                mistakes=(
                    Mistake(
                        lambda case, seen: network_problem(seen, np.shape(case["X"])[1]) is None,
                        "draw every random choice (the initial weights, the order of the "
                        "mini-batches) from seed: that is what makes a training repeatable",
                        name="unseeded",
                    ),
                ),
            ),
        ),
        withheld=(
            "sklearn",
            "torch",
            "micrograd_edu.course.experiments",
            "micrograd_edu.course.experiments.train",
        ),
    )
)
