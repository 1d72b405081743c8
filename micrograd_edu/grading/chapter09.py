"""Chapter 09's exercises: mini-batches, recovering β, training to a target loss.

Graded by what the student's code *achieves* on data the grader draws from its
own seeds: every row in exactly one batch, the distance of the learned β from
the true one, and the mean squared error of the trained network, which the grader
runs itself, on held-out points the student's code never holds (noise variance 0.01
is the floor). The training data come from functions whose parameters the grader
draws (a family, not a list the package publishes), so no choice among known
functions fits them.
"""

from __future__ import annotations

import random

import numpy as np

from .arrays import is_array
from .networks import forward, network_problem, only_linear, same_network, untrained
from .plain import as_floats, describe
from .registry import HELD, Case, Check, Exercise, Mistake, register
from .runners.chapter09 import _features, _run_batches, _run_linear
from .runners.networks import run_training
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
    n, size, want = case["n"], case["batch_size"], _right_sizes(case)
    got = [len(b) for b in epochs[0]]
    if got != want:
        last = f"and a last one of {want[-1]}" if want[-1] != size else "and no smaller last one"
        return (
            f"for n={n} and batch_size={size} there should be {len(want)} batches, each of "
            f"{size} rows but the last, {last}; yours were {len(got)} batches of sizes "
            f"{_listed(got)}"
        )
    return None


def _listed(sizes: list[int]) -> str:
    """A list of sizes, its middle left out when it is long."""
    return str(sizes) if len(sizes) <= 6 else f"{sizes[:3]}".rstrip("]") + f", ..., {sizes[-1]}]"


def _runs_only(seen: dict) -> bool:
    """Every batch of the first epoch is rows stored next to each other, in their order, and
    more than one batch: only the order of the batches was shuffled, never the rows."""
    epoch = seen.get("epoch0")
    if not isinstance(epoch, list) or len(epoch) < 2:
        return False
    return all(
        isinstance(b, list)
        and len(b) > 0
        and all(isinstance(i, (int, float)) and i - b[0] == k for k, i in enumerate(b))
        for b in epoch
    )


def _judge_shuffled(case: Case, seen: dict) -> str | None:
    epochs, problem = _epochs(seen)
    if problem:
        return problem
    first, second = ([i for b in epoch for i in b] for epoch in epochs)
    if first == sorted(first):
        return "the rows come in their stored order: shuffle them"
    if _runs_only(seen):
        return "each batch holds rows stored next to each other: only the batches' order changed"
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


def _right_sizes(case: Case) -> list[int]:
    n, size = case["n"], case["batch_size"]
    return [size] * (n // size) + ([n % size] if n % size else [])


def _even(case: Case) -> list[int]:
    """The sizes of the right number of batches, cut as evenly as they go."""
    count = len(_right_sizes(case))
    return [len(b) for b in np.array_split(np.arange(case["n"]), count)]


def _sizes(seen: dict) -> list[int]:
    epoch = seen.get("epoch0")
    return [len(b) for b in epoch] if isinstance(epoch, list) else []


def _order(seen: dict, k: int = 0) -> list:
    epoch = seen.get(f"epoch{k}")
    return [i for b in epoch for i in b] if isinstance(epoch, list) else []


def _runs_only_seen(case: Case, seen: dict) -> bool:
    return _runs_only(seen)


_BATCH_MISTAKES = (
    Mistake(
        lambda case, seen: len(_order(seen)) == case["n"] and len(set(_order(seen))) < case["n"],
        "some rows come twice in an epoch and others never: the order is drawn with replacement",
        name="with replacement",
    ),
    Mistake(
        lambda case, seen: (
            len(_order(seen)) == case["n"] - case["n"] % case["batch_size"]
            and case["n"] % case["batch_size"] != 0
        ),
        "the last, smaller batch is missing: its rows are never used",
        name="last batch dropped",
    ),
    Mistake(
        # as many batches as the right cut, their sizes as even as they go (array_split)
        lambda case, seen: _sizes(seen) == _even(case) != _right_sizes(case),
        "the batches have nearly equal sizes: every batch but the last holds exactly "
        "batch_size rows",
        name="even sizes",
    ),
    Mistake(
        lambda case, seen: _order(seen) == sorted(_order(seen)) != [],
        "the rows come in their stored order: an epoch visits them in a random order",
        name="stored order",
    ),
    Mistake(
        _runs_only_seen,
        "the same rows always share a batch: you shuffled the order of the batches, not the "
        "rows. Each epoch's batches must mix rows from anywhere in the data",
        name="batches shuffled",
    ),
    Mistake(
        lambda case, seen: _order(seen) == _order(seen, 1) != [] and not _runs_only(seen),
        "two epochs in a row used the same order: each call must draw a new one from the "
        "generator it is given",
        name="same order",
    ),
    Mistake(
        # both epochs are orders of all the rows, yet a generator in the same state gave
        # another: the order came from elsewhere
        lambda case, seen: (
            sorted(_order(seen)) == sorted(_order(seen, 2)) == list(range(case["n"]))
            and _order(seen) != _order(seen, 2)
        ),
        "the order must come from the generator rng you are given, not from numpy's "
        "global one or a generator of your own: that is what makes a run repeatable",
        name="not from rng",
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
                "",
                _batch_cases(divides=True),
                _run_batches,
                _judge_from_rng,
                mistakes=_BATCH_MISTAKES,
            ),
        ),
        withheld=("micrograd_edu.course.data.Batches",),
    )
)


# --- 2. fit_linear: recover β by gradient descent --------------------------------

_BETA_TOLERANCE = 0.02


# Features a few hundredths long in one check's data sets, tens long in another's. A
# learning rate that does not diverge on the second moves a million times too slowly on
# the first: no single one suits both, as the lecture says.
_UNIT, _SMALL, _LARGE = (1.0, 1.0), (0.01, 0.04), (10.0, 40.0)
_LARGE_CHECK = "recovers β when the features are tens long"


def _linear_cases(column: bool, scales: tuple[float, float] = _UNIT):
    """X comes from a seed, y as data; the β that made y stays with the judge (HELD). The
    noise is in proportion to the smallest feature, so β is as well determined at any scale."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        low, high = scales
        for _ in range(2):
            m = rng.randint(2, 8)
            case = {
                "seed": rng.randrange(2**31),
                "n": 1000,
                "scales": [rng.uniform(low, high) for _ in range(m)],
                "column": column,
            }
            beta = np.array([rng.gauss(-1, 1) for _ in range(m)])
            noise = np.random.default_rng(rng.randrange(2**31)).normal(
                0, 0.05 * min(case["scales"]), case["n"]
            )
            case["y"] = (_features(case) @ beta + noise).tolist()
            out.append({**case, HELD: {"beta": beta.tolist()}})
        return out

    return cases


def _judge_linear(case: Case, seen: dict) -> str | None:
    beta = case[HELD]["beta"]
    m = len(beta)
    got = as_floats(seen.get("beta"), m)
    if got is None:
        shape = np.shape(seen.get("beta")) if is_array(seen.get("beta")) else None
        found = f"an array of shape {shape}" if shape else describe(seen.get("beta"))
        return f"returned {found}; expected {m} coefficients, shape ({m},)"
    error = float(np.max(np.abs(np.array(got) - beta)))
    if error <= _BETA_TOLERANCE:
        return None
    return f"max |β̂ - β| = {error:.3g} for {m} features (needs at most {_BETA_TOLERANCE})"


def _recovered(case: Case, seen: dict) -> str:
    error = np.max(
        np.abs(np.array(as_floats(seen["beta"], len(case[HELD]["beta"]))) - case[HELD]["beta"])
    )
    return f"max |β̂ - β| = {error:.2g} for {len(case[HELD]['beta'])} features"


def _judge_unchanged(case: Case, seen: dict) -> str | None:
    changed = seen.get("changed") or []
    if changed:
        return f"the {' and '.join(map(str, changed))} passed in were different after the call"
    return None


def _column_beta(case: Case, seen: dict) -> bool:
    """β̂ kept as a column (m, 1), or grown from one to (m, n) by a flat y."""
    m = len(case["scales"])
    return np.shape(seen.get("beta")) in ((m, 1), (m, case["n"]))


def _diverged(case: Case, seen: dict) -> bool:
    if seen.get("beta") is None:  # it raised, or returned nothing: not a descent seen
        return False
    got = np.array(seen["beta"], dtype=float).reshape(-1)
    return not np.all(np.isfinite(got)) or float(np.max(np.abs(got))) > 1e6


def _stopped_short(case: Case, seen: dict) -> bool:
    """β̂ on its way from 0 to β and far from it: every coefficient of β's sign or 0, and
    smaller (a descent whose steps are too short for these features)."""
    beta = np.array(case[HELD]["beta"])
    got = as_floats(seen.get("beta"), len(beta))
    if got is None:
        return False
    got = np.array(got)
    short = (got * np.sign(beta) >= -_BETA_TOLERANCE) & (np.abs(got) <= np.abs(beta))
    return bool(np.all(short)) and float(np.max(np.abs(got - beta))) > _BETA_TOLERANCE


def _column_y_broadcast(case: Case, seen: dict) -> bool:
    """y given as a column (n, 1) and used as it came: X @ b - y is (n, n), and numpy then
    refuses to take that from b (the error names an axis of n)."""
    error = str(seen.get("error", "")).replace(" ", "")
    return bool(case["column"]) and "broadcast" in error and f",{case['n']})" in error


_LINEAR_MISTAKES = (
    Mistake(
        _column_beta,
        "your β̂ is a column (m, 1), or grew from one: X @ β̂ is then a column (n, 1), and "
        "subtracting a flat y (n,) from it broadcasts to (n, n). Keep β̂ flat, shape (m,), "
        "and y flat too",
        name="β as a column",
    ),
    Mistake(
        _column_y_broadcast,
        "y came as a column (n, 1): X @ b - y with a flat X @ b (n,) broadcasts to an (n, n) "
        "array, and the update then has the wrong shape. Make y flat, shape (n,), first",
        name="y as a column",
    ),
    Mistake(
        _diverged,
        "your descent diverged: a step that suits features of one scale is too long for "
        "larger ones. The safe step depends on the data's curvature",
        name="diverged",
    ),
    Mistake(
        _stopped_short,
        "your descent stopped short of β, each coefficient still on its way from 0: on "
        "features this small the gradient is tiny, and a step that suits larger features "
        "barely moves here. The safe step depends on the data's curvature",
        name="stopped short",
    ),
)


def _linear_mistakes(*names: str) -> tuple[Mistake, ...]:
    """The mistakes a check's data can show: a step too long diverges only where features are
    large, one too short stops short only where they are small."""
    return tuple(m for m in _LINEAR_MISTAKES if m.name in names)


FIT_LINEAR = register(
    Exercise(
        "09.fit_linear",
        "Recovering β",
        2,
        "fit_linear(X, y) fits y ≈ X β (no intercept) by gradient descent on the mean "
        "squared error and returns β̂ with shape (m,); y is given as (n,) or (n, 1), and both "
        "are left as they were given. numpy.linalg's solvers and factorisations (lstsq, "
        "solve, pinv, inv, svd, qr, cholesky, eig, eigh, det, slogdet, tensorsolve, "
        "tensorinv) and scipy are withheld while it is graded: the exercise is the descent "
        "(what gives eigenvalues alone stays).",
        ("fit_linear",),
        (
            Check(
                "recovers β when y is flat (n,)",
                "",
                _linear_cases(column=False),
                _run_linear,
                _judge_linear,
                mistakes=_LINEAR_MISTAKES,
                note=_recovered,
            ),
            Check(
                "recovers β when y is a column (n, 1)",
                "",
                _linear_cases(column=True),
                _run_linear,
                _judge_linear,
                mistakes=_LINEAR_MISTAKES,
                note=_recovered,
            ),
            Check(
                "recovers β when the features are a few hundredths long",
                "",
                _linear_cases(column=False, scales=_SMALL),
                _run_linear,
                _judge_linear,
                mistakes=_linear_mistakes("β as a column", "stopped short"),
                note=_recovered,
            ),
            Check(
                _LARGE_CHECK,
                "",
                _linear_cases(column=False, scales=_LARGE),
                _run_linear,
                _judge_linear,
                mistakes=_linear_mistakes("β as a column", "diverged"),
                note=_recovered,
            ),
            Check(
                "X and y left as they were given",
                "",
                _linear_cases(column=False, scales=_LARGE),
                _run_linear,
                _judge_unchanged,
                same_cases_as=_LARGE_CHECK,
                mistakes=(
                    Mistake(
                        lambda case, seen: bool(seen.get("changed")),
                        "an in-place update (X /= ..., X -= ...) of an array you were given "
                        "writes into the caller's data: scale into a new array",
                        name="in place",
                    ),
                ),
            ),
        ),
        withheld=(
            *(
                f"numpy.linalg.{name}"
                for name in (
                    "lstsq",
                    "solve",
                    "pinv",
                    "inv",
                    "svd",
                    "qr",
                    "cholesky",
                    "eig",
                    "eigh",
                    "det",
                    "slogdet",
                    "tensorsolve",
                    "tensorinv",
                )
            ),
            "scipy",
        ),
    )
)


# --- 3. train_model: a network trained to a target loss on held-out data ----------------

_NOISE = 0.1
_POINTS, _HELD_OUT = 1000, 500


def _draw_function(rng: random.Random, kind: str) -> dict:
    """A target function of ``kind``, by its parameters, drawn from the grader's seed: no
    function the package publishes gives the data, and none is the same twice.

    * ``jump``: a parabola left of a point c in [-0.4, 0.4], a growing oscillation right of
      it, with a jump at c (the lecture's piecewise function is one of these);
    * ``smooth``: three sine waves of their own frequencies, phases and sizes, and a
      parabola;
    * ``kink``: a V of its own slope at a point c, and a sine wave."""
    u = rng.uniform
    if kind == "jump":
        return {
            "kind": kind,
            "c": u(-0.4, 0.4),
            "a": rng.choice([-1, 1]) * u(1, 4),
            "d0": u(-3, 1),
            "A": u(0.5, 1.5),
            "b": u(0, 1.5),
            "w": u(6, 12),
            "p": u(0, 2 * np.pi),
            "d1": u(-1, 1),
        }
    if kind == "smooth":
        waves = [[u(0.3, 1), u(1, 7), u(0, 2 * np.pi)] for _ in range(3)]
        return {"kind": kind, "waves": waves, "q": u(-1, 1)}
    c, a = u(-0.5, 0.5), rng.choice([-1, 1]) * u(1, 3)
    return {"kind": kind, "c": c, "a": a, "wave": [u(0.3, 1), u(3, 8), u(0, 2 * np.pi)]}


def _function(f: dict, x: np.ndarray) -> np.ndarray:
    """The target function ``f`` (from :func:`_draw_function`) at ``x``."""
    if f["kind"] == "jump":
        s = x - f["c"]
        wave = f["A"] * np.exp(f["b"] * s) * np.sin(f["w"] * s + f["p"]) + f["d1"]
        return np.where(s < 0, f["a"] * s**2 + f["d0"], wave)
    if f["kind"] == "smooth":
        return sum(a * np.sin(w * x + p) for a, w, p in f["waves"]) + f["q"] * x**2
    a, w, p = f["wave"]
    return f["a"] * np.abs(x - f["c"]) + a * np.sin(w * x + p)


# kind: (what it is called in feedback, the target MSE on held-out points, the half-width of
# the band around a jump left out: no network jumps, and its error within a few hundredths
# of one depends on the draw of points there, not on the training)
TARGETS = {
    "jump": ("a function with a jump (measured away from it)", 0.05, 0.05),
    "smooth": ("a smooth function", 0.03, 0.0),
    "kink": ("a function with a kink", 0.03, 0.0),
}


def _train_cases(kinds: tuple[str, ...]):
    """The training points go to the student's code; the function, and the held-out points
    and their targets, stay with the judge (under HELD): the network the student returns
    is run by the grader on points the submission's process never holds."""

    def cases(rng: random.Random) -> list[Case]:
        f = _draw_function(rng, rng.choice(kinds))
        data = np.random.default_rng(rng.randrange(2**31))
        x = data.uniform(-1, 1, size=(_POINTS + _HELD_OUT, 1))
        y = _function(f, x) + data.normal(0, _NOISE, size=x.shape)
        held = {"function": f, "x": x[_POINTS:, 0].tolist(), "y": y[_POINTS:, 0].tolist()}
        train = {"x": x[:_POINTS].tolist(), "y": y[:_POINTS].tolist()}
        return [{"seed": rng.randrange(1000), **train, HELD: held}]

    return cases


def _predictions(case: Case, seen: dict) -> tuple[np.ndarray | None, str | None]:
    """The network's predictions at the held-out points, run by the grader, or why not."""
    problem = network_problem(seen, 1)
    if problem:
        return None, problem
    x = np.array(case[HELD]["x"])[:, None]
    out = forward(seen, x)
    if out.shape not in ((len(x), 1), (len(x),)):
        return None, f"the network gives {out.shape[1:]} numbers per point; it must give one"
    return out.reshape(-1), None


def _held_out_mse(case: Case, prediction: np.ndarray) -> float:
    held = case[HELD]
    x, y, f = np.array(held["x"]), np.array(held["y"]), held["function"]
    inside = (x >= np.min(case["x"])) & (x <= np.max(case["x"]))  # where the data say something
    kept = inside & (np.abs(x - f.get("c", np.inf)) > TARGETS[f["kind"]][2])
    return float(np.mean((prediction[kept] - y[kept]) ** 2))


def _judge_train(case: Case, seen: dict) -> str | None:
    prediction, problem = _predictions(case, seen)
    if problem:
        return problem
    what, target, _ = TARGETS[case[HELD]["function"]["kind"]]
    if not np.all(np.isfinite(prediction)):
        return f"on {what}, the network's predictions at new points are inf or nan"
    mse = _held_out_mse(case, prediction)
    if mse <= target:
        return untrained(seen, f"held-out MSE {mse:.3g} on {what}")
    return f"held-out MSE {mse:.3g} on {what}; the target is {target} (the noise alone gives 0.01)"


def _reached(case: Case, seen: dict) -> str:
    """What a passing training reached, said beside its ✔."""
    prediction, _ = _predictions(case, seen)
    what, target, _ = TARGETS[case[HELD]["function"]["kind"]]
    return f"held-out MSE {_held_out_mse(case, prediction):.3g} on {what}; target {target}"


def _judge_repeated(case: Case, seen: dict) -> str | None:
    problem = network_problem(seen, 1) or network_problem(_again(seen), 1)
    if problem:
        return problem
    if same_network(seen, _again(seen)):
        return None
    return "train_model(x, y, seed) called twice with the same seed gave two different networks"


def _again(seen: dict) -> dict:
    return {k[len("again.") :]: v for k, v in seen.items() if k.startswith("again.")}


def _flat(case: Case, seen: dict) -> bool:
    prediction, problem = _predictions(case, seen)
    return (
        problem is None
        and bool(np.all(np.isfinite(prediction)))
        and float(np.ptp(prediction)) < 1e-3
    )


def _blew_up(case: Case, seen: dict) -> bool:
    prediction, problem = _predictions(case, seen)
    return problem is None and not (
        np.all(np.isfinite(prediction)) and np.max(np.abs(prediction)) < 1e6
    )


_TRAIN_MISTAKES = (
    Mistake(
        lambda case, seen: (
            seen.get("backward", 0) > 1 and seen.get("stale") == seen["backward"] - 1
        ),
        "your loop never clears the gradients: each backward adds to .grad, so every step "
        "follows the sum of all the gradients so far",
        name="never cleared",
    ),
    Mistake(
        _flat,
        "your network predicts (nearly) the same number for every x: check that the training "
        "loss falls, and that the network can bend (a non-linearity between its layers)",
        name="flat",
    ),
    Mistake(
        lambda case, seen: only_linear(seen) and network_problem(seen, 1) is None,
        "your network has no activation between its layers: a stack of linear layers is one "
        "linear function, a straight line, whatever its width",
        name="no activation",
    ),
    Mistake(
        _blew_up,
        "your network's outputs blew up: the steps were too long for this network (a "
        "learning rate that suits Adam's steps of about lr each is far smaller than 1)",
        name="blew up",
    ),
)


TRAIN_MODEL = register(
    Exercise(
        "09.train_model",
        "Training a network to a target loss",
        3,
        "train_model(x, y, seed) trains a network on x (n, 1), y (n, 1) with a training loop "
        "you write, and returns the trained network: an nn.Sequential of nn.Linear layers and "
        "activations. The grader runs that network itself on held-out points your code never "
        "sees, fed the raw x as train_model was given it (if you standardised the inputs, "
        "return (network, centre, scale): the grader then feeds it (x - centre) / scale; its "
        "output is taken as y itself), and grades its mean squared error there (the noise "
        "alone gives 0.01), inside "
        "the range of the training x: at most 0.05 for a function with a jump (away from the "
        "jump), 0.03 for one without, within the grader's time limit. The same seed gives the "
        "same network.",
        ("train_model",),
        (
            Check(
                "held-out MSE within target on a function with a jump",
                "",
                _train_cases(("jump",)),
                run_training("train_model"),
                _judge_train,
                mistakes=_TRAIN_MISTAKES,
                note=_reached,
            ),
            Check(
                "held-out MSE within target on a function without one",
                "",
                _train_cases(("smooth", "kink")),
                run_training("train_model"),
                _judge_train,
                mistakes=_TRAIN_MISTAKES,
                note=_reached,
            ),
            Check(
                "the same seed, the same network",
                "",
                _train_cases(("smooth", "kink")),
                run_training("train_model", True),
                _judge_repeated,
                same_cases_as="held-out MSE within target on a function without one",
                mistakes=(
                    Mistake(
                        lambda case, seen: (
                            network_problem(seen, 1) is None
                            and network_problem(_again(seen), 1) is None
                        ),
                        "draw every random choice (the initial weights, the order of the "
                        "mini-batches) from seed: that is what makes a training repeatable",
                        name="unseeded",
                    ),
                ),
            ),
        ),
        requires=reference_steps(minibatch_indices="minibatch_indices"),
        # the course's own training loop (experiments.train) is not a loop the student wrote
        withheld=(
            "micrograd_edu.course.data.Batches",
            "micrograd_edu.course.experiments",
            "micrograd_edu.course.experiments.train",
        ),
    )
)
