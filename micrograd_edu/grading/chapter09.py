"""Chapter 09's exercises: mini-batches, recovering β, training to a target loss.

Graded by what the student's code *achieves* on data the grader draws from its
own seeds: every row in exactly one batch, the distance of the learned β from
the true one, and the mean squared error of the trained model on held-out
points the student never sees (noise variance 0.01 is the floor).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from ..course.data import piecewise_truth
from .plain import as_floats, describe
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter09 import _features, _run_batches, _run_linear, _run_retrain, _run_train
from .steps import reference_steps

# --- 1. minibatch_indices -----------------------------------------------------


def _batch_cases(divides: bool):
    def cases(rng: random.Random) -> list[Case]:
        out = []
        for _ in range(4):
            batch_size = rng.randint(2, 40)
            n = batch_size * rng.randint(2, 12) + (0 if divides else rng.randint(1, batch_size - 1))
            out.append({"n": n, "batch_size": batch_size, "seed": rng.randrange(2**31)})
        return out

    return cases


def _epochs(seen: dict) -> tuple[list[list[list]], str | None]:
    epochs = [seen.get("epoch0"), seen.get("epoch1")]
    for epoch in epochs:
        if not isinstance(epoch, list) or not all(isinstance(b, list) for b in epoch):
            return [], f"returned {describe(epoch)}, not a list of index arrays"
    return epochs, None


def _judge_cover(case: Case, seen: dict) -> str | None:
    epochs, problem = _epochs(seen)
    if problem:
        return problem
    for epoch in epochs:
        rows = sorted(i for batch in epoch for i in batch)
        if rows != list(range(case["n"])):
            return f"an epoch over n={case['n']} rows did not use each row exactly once"
    return None


def _judge_sizes(case: Case, seen: dict) -> str | None:
    epochs, problem = _epochs(seen)
    if problem:
        return problem
    n, size = case["n"], case["batch_size"]
    want = [size] * (n // size) + ([n % size] if n % size else [])
    if [len(b) for b in epochs[0]] != want:
        return f"for n={n} and batch_size={size} the batch sizes should be {want[:3]}... {want[-1]}"
    return None


def _judge_shuffled(case: Case, seen: dict) -> str | None:
    epochs, problem = _epochs(seen)
    if problem:
        return problem
    first, second = ([i for b in epoch for i in b] for epoch in epochs)
    if first == sorted(first):
        return "the rows come in their stored order: shuffle them"
    if first == second:
        return "two epochs in a row used the same order"
    return None


def _judge_from_rng(case: Case, seen: dict) -> str | None:
    epochs, problem = _epochs(seen)
    if problem:
        return problem
    if _order(seen, 2) != _order(seen):
        return "two generators in the same state gave two different epochs"
    return None


def _order(seen: dict, k: int = 0) -> list:
    epoch = seen.get(f"epoch{k}")
    return [i for b in epoch for i in b] if isinstance(epoch, list) else []


_BATCH_MISTAKES = (
    Mistake(
        lambda case, seen: len(_order(seen)) == case["n"] and len(set(_order(seen))) < case["n"],
        "some rows come twice in an epoch and others never: the order is drawn with replacement",
    ),
    Mistake(
        lambda case, seen: (
            len(_order(seen)) == case["n"] - case["n"] % case["batch_size"]
            and case["n"] % case["batch_size"] != 0
        ),
        "the last, smaller batch is missing: its rows are never used",
    ),
    Mistake(
        lambda case, seen: (
            len(seen.get("epoch0") or []) == -(-case["n"] // case["batch_size"])
            and len({len(b) for b in seen.get("epoch0") or []}) > 1
            and max(len(b) for b in seen["epoch0"]) < case["batch_size"]
        ),
        "the batches have nearly equal sizes: every batch but the last holds exactly "
        "batch_size rows",
    ),
    Mistake(
        lambda case, seen: _order(seen) == sorted(_order(seen)) != [],
        "the rows come in their stored order: an epoch visits them in a random order",
    ),
    Mistake(
        lambda case, seen: _order(seen) == _order(seen, 1) != [],
        "two epochs in a row used the same order: each call must draw a new one from the "
        "generator it is given",
    ),
)


MINIBATCHES = register(
    Exercise(
        "09.minibatch_indices",
        "Mini-batches",
        1,
        "minibatch_indices(n, batch_size, rng) returns one epoch as a list of index arrays: "
        "the rows 0..n-1 shuffled by rng, cut into batches of batch_size (the last may be "
        "smaller).",
        ("minibatch_indices",),
        (
            Check(
                "every row exactly once per epoch",
                "",
                _batch_cases(divides=False),
                _run_batches,
                _judge_cover,
                mistakes=_BATCH_MISTAKES,
            ),
            Check(
                "batches of batch_size, the last one smaller",
                "",
                _batch_cases(divides=False),
                _run_batches,
                _judge_sizes,
                mistakes=_BATCH_MISTAKES,
            ),
            Check(
                "shuffled, and differently every epoch",
                "",
                _batch_cases(divides=True),
                _run_batches,
                _judge_shuffled,
                mistakes=_BATCH_MISTAKES,
            ),
            Check(
                "the order is drawn from rng: the same generator state, the same epoch",
                "the order must come from the generator rng you are given, not from numpy's "
                "global one or a generator of your own: that is what makes a run repeatable",
                _batch_cases(divides=True),
                _run_batches,
                _judge_from_rng,
            ),
        ),
        withheld=("micrograd_edu.course.data.Batches",),
        answers=(
            "rng.permutation(n)",
            "order[start : start + batch_size]",
            "range(0, n, batch_size)",
        ),
    )
)


# --- 2. fit_linear: recover β by gradient descent --------------------------------

_BETA_TOLERANCE = 0.02


def _linear_cases(column: bool, scaled: bool):
    """X comes from a seed, y as data; the β that made y stays with the judge (HELD)."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for _ in range(2):
            m = rng.randint(2, 8)
            case = {
                "seed": rng.randrange(2**31),
                "n": 1000,
                "scales": [rng.uniform(0.5, 3) if scaled else 1.0 for _ in range(m)],
                "column": column,
            }
            beta = np.array([rng.gauss(-1, 1) for _ in range(m)])
            noise = np.random.default_rng(rng.randrange(2**31)).normal(0, 0.05, case["n"])
            case["y"] = (_features(case) @ beta + noise).tolist()
            out.append({**case, HELD: {"beta": beta.tolist()}})
        return out

    return cases


def _judge_linear(case: Case, seen: dict) -> str | None:
    beta = case[HELD]["beta"]
    m = len(beta)
    got = as_floats(seen.get("beta"), m)
    if got is None:
        return f"returned {describe(seen.get('beta'))}; expected {m} coefficients, shape ({m},)"
    error = float(np.max(np.abs(np.array(got) - beta)))
    if error <= _BETA_TOLERANCE:
        return None
    return f"max |β̂ - β| = {error:.3g} for {m} features (needs at most {_BETA_TOLERANCE})"


def _beta_grew(case: Case, seen: dict) -> bool:
    return np.size(seen.get("beta")) == len(case["scales"]) * case["n"]


def _diverged(case: Case, seen: dict) -> bool:
    if seen.get("beta") is None:  # it raised, or returned nothing: not a descent seen
        return False
    got = np.array(seen["beta"], dtype=float).reshape(-1)
    return not np.all(np.isfinite(got)) or float(np.max(np.abs(got))) > 1e6


_LINEAR_MISTAKES = (
    Mistake(
        _beta_grew,
        "your β̂ has one coefficient per feature and per row: subtracting an (n, 1) column "
        "from an (n,) vector broadcasts to (n, n)",
    ),
    Mistake(
        _diverged,
        "your descent diverged: a step that suits features of one scale is too long for "
        "larger ones. The safe step depends on the data's curvature",
    ),
)


FIT_LINEAR = register(
    Exercise(
        "09.fit_linear",
        "Recovering β",
        2,
        "fit_linear(X, y) fits y ≈ X β (no intercept) by gradient descent on the mean "
        "squared error and returns β̂ with shape (m,); y is given as (n,) or (n, 1). The "
        "closed-form solvers (numpy.linalg's lstsq, solve, pinv and inv, and scipy) are "
        "withheld while it is graded: the exercise is the descent.",
        ("fit_linear",),
        (
            Check(
                "recovers β when y is a column (n, 1)",
                "",
                _linear_cases(column=True, scaled=False),
                _run_linear,
                _judge_linear,
                mistakes=_LINEAR_MISTAKES,
            ),
            Check(
                "recovers β when y is flat (n,)",
                "",
                _linear_cases(column=False, scaled=False),
                _run_linear,
                _judge_linear,
                mistakes=_LINEAR_MISTAKES,
            ),
            Check(
                "recovers β when the features have different scales",
                "",
                _linear_cases(column=False, scaled=True),
                _run_linear,
                _judge_linear,
                mistakes=_LINEAR_MISTAKES,
            ),
        ),
        withheld=(
            "numpy.linalg.lstsq",
            "numpy.linalg.solve",
            "numpy.linalg.pinv",
            "numpy.linalg.inv",
            "scipy",
        ),
        answers=(
            "y.reshape(-1)",
            "eigvalsh",
            "X.T @ (X @ beta - y)",
            "1.0 / np.linalg",
            r"\frac{2}{n} X^\top (Xb - y)",
        ),
    )
)


# --- 3. train_model: reach a target loss on held-out data ----------------------

_NOISE = 0.1
# name: (function, target MSE on held-out points, half-width of the band around 0 left out)
TARGETS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], float, float]] = {
    # The course's piecewise function jumps by 2 at 0. No ReLU network jumps: its error
    # within a few hundredths of 0 depends on the draw of points there, not on the training,
    # so the held-out error is measured away from the jump.
    "piecewise": (piecewise_truth, 0.05, 0.05),
    "wave": (lambda x: np.sin(4.0 * x) + 0.5 * x**2, 0.03, 0.0),
    "kink": (lambda x: 2.0 * np.abs(x) - np.cos(6.0 * x), 0.03, 0.0),
}


def _train_cases(names: tuple[str, ...]):
    """The training points and the held-out inputs go to the student's code; the held-out
    targets stay with the judge (under HELD), so no frame of the child ever holds them."""

    def cases(rng: random.Random) -> list[Case]:
        target = rng.choice(names)
        data = np.random.default_rng(rng.randrange(2**31))
        x = data.uniform(-1, 1, size=(1500, 1))
        y = TARGETS[target][0](x) + data.normal(0, _NOISE, size=x.shape)
        return [
            {
                "target": target,
                "seed": rng.randrange(1000),
                "x": x[:1000].tolist(),
                "y": y[:1000].tolist(),
                "x_test": x[1000:].tolist(),
                HELD: y[1000:, 0].tolist(),
            }
        ]

    return cases


def _judge_train(case: Case, seen: dict) -> str | None:
    x, x_test, y_test = (np.array(case[key], dtype=float) for key in ("x", "x_test", HELD))
    got = as_floats(seen.get("prediction"), len(y_test))
    if got is None:
        return (
            f"predict(x_test) returned {describe(seen.get('prediction'))}; expected one "
            f"number per row of x_test ({len(y_test)} rows)"
        )
    _, target, band = TARGETS[case["target"]]
    # Scored where the training data say something: inside the range of the training x
    # (a steep edge a few thousandths beyond the last training point is a guess, not a fit).
    inside = (x_test[:, 0] >= x.min()) & (x_test[:, 0] <= x.max())
    kept = inside & (np.abs(x_test[:, 0]) > band)
    mse = float(np.mean((np.array(got)[kept] - y_test[kept]) ** 2))
    if mse <= target:
        return None
    return f"held-out MSE {mse:.3g} on the '{case['target']}' data; the target is {target}"


def _judge_repeated(case: Case, seen: dict) -> str | None:
    first, again = (as_floats(seen.get(k), len(case["x_test"])) for k in ("prediction", "again"))
    if first is None or again is None:
        return f"predict(x_test) returned {describe(seen.get('again'))}; expected numbers"
    if np.allclose(first, again, rtol=1e-9, atol=1e-12):
        return None
    return "train_model(x, y, seed) called twice with the same seed gave two different models"


_TRAIN_MISTAKES = (
    Mistake(
        lambda case, seen: seen.get("backward", 0) > 1 and seen.get("cleared") == 0,
        "your loop never clears the gradients: each backward adds to .grad, so every step "
        "follows the sum of all the gradients so far",
    ),
    Mistake(
        lambda case, seen: float(np.ptp(np.array(seen.get("prediction"), dtype=float))) < 1e-3,
        "your predictions are (nearly) the same for every x: check that the training loss "
        "falls, and that the model can bend (a non-linearity between its layers)",
    ),
)


TRAIN_MODEL = register(
    Exercise(
        "09.train_model",
        "Training to a target loss",
        3,
        "train_model(x, y, seed) trains a model on x (n, 1), y (n, 1) and returns "
        "predict(x_new) -> predictions; graded by the mean squared error on held-out points "
        "(noise variance 0.01) inside the range of the training x (for the piecewise data, "
        "away from its jump at 0), within the grader's time limit.",
        ("train_model",),
        (
            Check(
                "held-out MSE within target on the piecewise data (away from the jump)",
                "",
                _train_cases(("piecewise",)),
                _run_train,
                _judge_train,
                mistakes=_TRAIN_MISTAKES,
            ),
            Check(
                "held-out MSE within target on another function",
                "",
                _train_cases(("wave", "kink")),
                _run_train,
                _judge_train,
                mistakes=_TRAIN_MISTAKES,
            ),
            Check(
                "the same seed, the same model",
                "two trainings with the same seed gave different predictions: draw every "
                "random choice (the initial weights, the order of the mini-batches) from seed",
                _train_cases(("wave", "kink")),
                _run_retrain,
                _judge_repeated,
                same_cases_as="held-out MSE within target on another function",
            ),
        ),
        requires=reference_steps(minibatch_indices="minibatch_indices"),
        withheld=("micrograd_edu.course.data.Batches",),
        answers=("lr=5e-3", "opt.lr = 5e-4", "nn.Linear(width, width"),
    )
)
