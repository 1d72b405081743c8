"""Chapter 08's optimiser exercises: SGD with momentum and Adam, written as ``Optimizer``
subclasses and stepped through a training loop's ``zero_grad``, ``backward``, ``step``.

The oracle is PyTorch's update written out on numpy arrays, one parameter at a time
(tests/test_grading_chapter08_optim.py shows it agrees with ``optim.SGD`` and
``optim.Adam``, and those with PyTorch, step for step). The mistakes students make are
the same update with one thing changed, run on the same case.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from .plain import as_floats, describe
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter08_optim import _run_optimiser

Trajectory = list[list[np.ndarray]]


def _momentum(p: np.ndarray, g: np.ndarray, state: dict, hyper: dict, mistake: str) -> None:
    """PyTorch's SGD with momentum (no dampening), in place on ``p``."""
    mu, lr = hyper["momentum"], hyper["lr"]
    velocity = state.get("velocity")
    if mistake == "shared, restarted" and velocity is not None and velocity.shape != g.shape:
        velocity = None  # one velocity for every parameter, started again at a new shape
    if mistake == "no momentum":
        p -= lr * g
        return
    if mistake == "dampened":  # a running average of the gradients, from zero
        new = (1 - mu) * g if velocity is None else mu * velocity + (1 - mu) * g
    elif mistake == "dampened from g":  # PyTorch's dampening=momentum: from g, then averaged
        new = g.copy() if velocity is None else mu * velocity + (1 - mu) * g
    elif mistake == "lr inside":  # the velocity holds steps, not gradients
        new = lr * g if velocity is None else mu * velocity + lr * g
    else:
        new = g.copy() if velocity is None else mu * velocity + g
    if mistake == "stale":  # the step taken with the velocity of the step before
        p -= lr * (0 * g if velocity is None else velocity)
    elif mistake == "lr inside":
        p -= new
    else:
        p -= lr * new
    state["velocity"] = new


def _adam(
    p: np.ndarray, g: np.ndarray, state: dict, hyper: dict, mistake: str, counts: dict
) -> None:
    """PyTorch's Adam (no weight decay), in place on ``p``; ``counts`` holds the number of
    ``step`` calls and of parameter updates so far, which wrong step counts read."""
    beta1, beta2 = hyper["betas"]
    if not state:
        state.update(step=0, m=np.zeros_like(p), v=np.zeros_like(p))
    state["step"] += 1
    t = {
        "same t": 1,
        "t + 1": state["step"] + 1,
        "steps of the optimiser": counts["calls"],
        "updates of any parameter": counts["updates"],
    }.get(mistake, state["step"])
    m = beta1 * state["m"] + (1 - beta1) * g
    v = beta2 * state["v"] + (1 - beta2) * (g if mistake == "g not squared" else g * g)
    if mistake == "paper":  # Kingma & Ba's efficient order: ε added to √v, not to √v̂
        p -= hyper["lr"] * np.sqrt(1 - beta2**t) / (1 - beta1**t) * m / (np.sqrt(v) + hyper["eps"])
        state["m"], state["v"] = m, v
        return
    m_hat, v_hat = m / (1 - beta1**t), v / (1 - beta2**t)
    if mistake in ("no correction", "m not corrected"):
        m_hat = m
    if mistake in ("no correction", "v not corrected"):
        v_hat = v
    if mistake == "eps inside":
        root = np.sqrt(v_hat + hyper["eps"])
    else:
        root = np.sqrt(np.abs(v_hat)) + hyper["eps"]
    p -= hyper["lr"] * m_hat / root
    state["m"], state["v"] = (m_hat, v_hat) if mistake == "corrected kept" else (m, v)


def _simulate(case: Case, mistake: str = "") -> Trajectory:
    """The parameters after every step of the case, flattened; with ``mistake``, where a
    typical wrong optimiser leaves them instead (the models behind the hints)."""
    values = [np.array(v, dtype=float) for v in case["init"]]
    shared: dict = {}  # one state for every parameter: the mistakes that share it
    states: list[dict] = [shared if mistake.startswith("shared") else {} for _ in values]
    counts = {"calls": 0, "updates": 0}
    trajectory = []
    for step, grads in enumerate(case["grads"]):
        counts["calls"] += 1
        for k, group in enumerate(case["groups"]):
            hyper = {**case["defaults"], **group}
            if case["lrs"]:
                hyper["lr"] = case["lrs"][step][k]
            if mistake == "lr fixed":  # the lr given to __init__, kept in an attribute
                hyper["lr"] = case["defaults"]["lr"]
            if mistake == "groups ignored":
                hyper = dict(case["defaults"])
            for i in group["params"]:
                g = grads[i]
                if g is None and mistake != "no gradient as zero":
                    continue
                g = np.zeros_like(values[i]) if g is None else np.array(g, dtype=float)
                counts["updates"] += 1
                if case["optimiser"] == "MySGD":
                    _momentum(values[i], g, states[i], hyper, mistake)
                else:
                    _adam(values[i], g, states[i], hyper, mistake, counts)
        trajectory.append([v.copy() for v in values])
    return trajectory


def _same(got: list[float] | None, want: np.ndarray) -> bool:
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    return got is not None and np.allclose(got, want, rtol=1e-9, atol=1e-12 * scale)


def _read(seen: dict, trajectory: Trajectory) -> list[list[list[float] | None]] | None:
    """The student's parameters after each step, as the reference's sizes, or ``None``."""
    got = seen.get("trajectory")
    if not isinstance(got, list) or len(got) != len(trajectory):
        return None
    out = []
    for after, want in zip(got, trajectory, strict=True):
        if not isinstance(after, list) or len(after) != len(want):
            return None
        out.append([as_floats(a, w.size) for a, w in zip(after, want, strict=True)])
    return out


def _follows(mistake: str) -> Callable[[Case, dict], bool]:
    """The mistake whose trajectory on the case is the one the student's optimiser took."""

    def matches(case: Case, seen: dict) -> bool:
        model, right = _simulate(case, mistake), _simulate(case)
        got = _read(seen, model)
        differs = any(
            not np.allclose(a, b, rtol=1e-9, atol=1e-12)
            for after_a, after_b in zip(model, right, strict=True)
            for a, b in zip(after_a, after_b, strict=True)
        )
        return (
            differs
            and got is not None
            and all(
                _same(g, w)
                for after_g, after_w in zip(got, model, strict=True)
                for g, w in zip(after_g, after_w, strict=True)
            )
        )

    return matches


def _either(*mistakes: str) -> Callable[[Case, dict], bool]:
    return lambda case, seen: any(_follows(m)(case, seen) for m in mistakes)


def _judge(case: Case, seen: dict) -> str | None:
    """Step by step against PyTorch's update; on the first step that differs, what the
    student's parameter did there (moved or not, by how much), never where it should be.
    Adam as Kingma & Ba's paper orders it (ε added before the correction) passes too."""
    want = _simulate(case)
    if case["optimiser"] == "MyAdam" and _follows("paper")(case, seen):
        return None
    got = _read(seen, want)
    if got is None:
        return (
            f"the parameters after each of the {len(want)} steps could not be read "
            f"(got {describe(seen.get('trajectory'))}): does step() change p.data in place?"
        )
    start = [np.array(v, dtype=float) for v in case["init"]]
    for k, (after_got, after_want) in enumerate(zip(got, want, strict=True)):
        before = start if k == 0 else want[k - 1]
        for i, (g, w) in enumerate(zip(after_got, after_want, strict=True)):
            where = f"at step {k + 1}, parameter {i} (shape {tuple(case['shapes'][i])})"
            if g is None:
                return f"{where} holds no numbers of the right size"
            if _same(g, w):
                continue
            moved = np.asarray(g) - before[i]
            right = w - before[i]
            if case["grads"][k][i] is None:
                return f"{where} moved although its .grad was None"
            if not np.any(moved):
                return f"{where} did not move, although it had a gradient"
            return f"{where} took a wrong step{_how_far(moved, right)}"
    return None


def _how_far(moved: np.ndarray, right: np.ndarray) -> str:
    """How a wrong step compares with the right one, without the right one."""
    ratio = float(np.dot(moved, right) / np.dot(right, right))
    if np.allclose(moved, ratio * right, rtol=1e-6, atol=1e-14):
        shown = f"{ratio:.3g}" if abs(ratio - 1) > 1e-3 else f"{ratio:.7f}"
        return f": it points the right way but is {shown} times as long"
    error = np.linalg.norm(moved - right) / np.linalg.norm(right)
    return f": its relative error is {error:.1e}, where 1e-9 is expected"


# --- the cases ---------------------------------------------------------------------


def _cases(optimiser: str, kind: str) -> Callable[[random.Random], list[Case]]:
    """Cases for ``optimiser`` ("MySGD" or "MyAdam"): ``steady`` (one parameter, the same
    gradient every step), ``several`` parameters of different shapes, ``none`` (some
    gradients missing), ``groups`` (two groups with their own hyperparameters, and a
    learning rate that changes part way, as a scheduler changes it), ``tiny`` gradients
    the size of eps."""

    def hyper(rng: random.Random) -> dict:
        if optimiser == "MySGD":
            return {"lr": rng.choice([0.01, 0.05, 0.1]), "momentum": rng.choice([0.5, 0.9])}
        return {
            "lr": rng.choice([1e-3, 1e-2, 0.1]),
            "betas": [rng.choice([0.9, 0.8]), rng.choice([0.999, 0.99])],
            "eps": 1e-8,
        }

    def draw(rng: random.Random, kind: str = kind) -> Case:
        steps = {"steady": 6, "several": 20, "none": 8, "groups": 8, "tiny": 3}[kind]
        k = rng.randint(2, 4)  # two parameters of one shape: a velocity shared by all shows
        shapes = [[rng.randint(1, 5)]] if kind == "steady" else [[2, 3], [k], [k]]
        sizes = [int(np.prod(s)) for s in shapes]
        scale = 1e-8 if kind == "tiny" else 1.0

        def gradient(n: int) -> list[float]:
            return [rng.gauss(0, scale) * 10 ** rng.uniform(-1, 1) for _ in range(n)]

        first = [gradient(n) for n in sizes]
        grads = []
        for step in range(steps):
            row: list = (
                [list(g) for g in first] if kind == "steady" else [gradient(n) for n in sizes]
            )
            if kind == "none":  # parameter 1 waits for its first gradient; 2 misses some
                row[1] = None if step < 3 else row[1]
                row[2] = None if step in (2, 5, 6) else row[2]
            grads.append(row)
        defaults = hyper(rng)
        groups: list[dict] = [{"params": list(range(len(shapes)))}]
        lrs = None
        if kind == "groups":
            own = hyper(rng)
            while any(own[k] == defaults[k] for k in own if k != "eps"):  # each its own
                own = hyper(rng)
            groups = [{"params": [0, 2]}, {"params": [1], **own}]
            lrs = [
                [{**defaults, **g}["lr"] * (0.3 if step >= 4 else 1.0) for g in groups]
                for step in range(steps)
            ]
        return {
            "optimiser": optimiser,
            "shapes": shapes,
            "init": [[rng.uniform(-2, 2) for _ in range(n)] for n in sizes],
            "grads": grads,
            "defaults": defaults,
            "groups": groups,
            "lrs": lrs,
        }

    if kind == "steady then varying":  # a velocity that takes in part of g shows on the third
        return lambda rng: [draw(rng, "steady"), draw(rng, "steady"), draw(rng, "several")]
    return lambda rng: [draw(rng) for _ in range(3)]


# --- 08.sgd_momentum -------------------------------------------------------------------

_NO_GRADIENT = Mistake(
    _follows("no gradient as zero"),
    "a parameter whose .grad is None moved, or its state changed: no gradient reached it, "
    "so this step leaves it, and all it keeps, as it is",
)
_GROUPS = (
    Mistake(
        _follows("groups ignored"),
        "the parameters of the second group moved with the optimiser's defaults: each "
        "group in self.param_groups carries its own hyperparameters",
    ),
    Mistake(
        _follows("lr fixed"),
        "your steps keep the learning rate given to __init__, though a group's own lr, "
        "or a new one a scheduler set in param_groups[k]['lr'], differs: read the "
        "hyperparameters where step() finds them, at every step",
    ),
)
_SHARED = (
    "one velocity serves every parameter, so each parameter's step carries the others' "
    "gradients: what a parameter remembers from one step to the next is its own, in "
    "self.state[p]"
)


def _raises_like(mistake: str, *fragments: str) -> Callable[[Case, dict], bool]:
    """The student's step raised with one of ``fragments``, where ``mistake`` raises too."""

    def matches(case: Case, seen: dict) -> bool:
        if not any(f in str(seen.get("error", "")) for f in fragments):
            return False
        try:
            _simulate(case, mistake)
        except ValueError:
            return True
        return False

    return matches


_MOMENTUM_MISTAKES = (
    Mistake(_follows("shared"), _SHARED),
    Mistake(_follows("shared, restarted"), _SHARED),
    Mistake(_raises_like("shared", "broadcast"), _SHARED),
    Mistake(
        _follows("no momentum"),
        "each of your steps depends on this step's gradient alone: momentum carries a "
        "velocity from one step to the next",
    ),
    Mistake(
        _follows("dampened"),
        "your steps are too short from the first one on: look at how much of each new "
        "gradient your velocity takes in, in the lecture's form of the update",
    ),
    Mistake(
        _follows("dampened from g"),
        "your velocity takes in only part of each new gradient, so under a steady gradient "
        "the steps never grow: look at the lecture's form of the update (PyTorch's, without "
        "dampening)",
    ),
    Mistake(
        _follows("stale"),
        "your parameters did not move at the first step and lag one step behind after: "
        "the step uses the velocity that already includes this step's gradient",
    ),
    Mistake(
        _follows("lr inside"),
        "when the learning rate changes, your steps still carry the old one for a while: "
        "in the lecture's form the velocity accumulates gradients, not steps",
    ),
    _NO_GRADIENT,
    *_GROUPS,
)


def _checks(optimiser: str, names: list[tuple[str, str]], mistakes: tuple) -> tuple:
    return tuple(
        Check(name, "", _cases(optimiser, kind), _run_optimiser, _judge, mistakes=mistakes)
        for name, kind in names
    )


SGD_MOMENTUM = register(
    Exercise(
        "08.sgd_momentum",
        "SGD with momentum",
        3,
        "MySGD(params, lr, momentum) is an Optimizer whose step() moves every parameter as "
        "optim.SGD(params, lr=lr, momentum=momentum) does, step for step.",
        ("MySGD",),
        _checks(
            "MySGD",
            [
                ("a steady gradient: the steps grow", "steady then varying"),
                ("twenty steps on parameters of three shapes", "several"),
                ("a parameter without a gradient is left alone", "none"),
                ("each group's own lr and momentum, read at every step", "groups"),
            ],
            _MOMENTUM_MISTAKES,
        ),
        withheld=("micrograd_edu.optim.sgd.SGD.step", "torch"),
    )
)


# --- 08.adam ---------------------------------------------------------------------------

_ADAM_MISTAKES = (
    Mistake(
        _follows("no correction"),
        "your first step is not about lr long: m and v start at 0, so after one step they "
        "are only a small fraction of the gradient and of its square, each a different "
        "fraction. Adam undoes that pull towards 0, more at the first steps than later",
    ),
    Mistake(
        _follows("m not corrected"),
        "your first steps are far shorter than lr: one of the two running averages is still "
        "pulled towards the 0 it started from. Adam undoes that pull for both",
    ),
    Mistake(
        _follows("v not corrected"),
        "your first steps are far longer than lr: one of the two running averages is still "
        "pulled towards the 0 it started from. Adam undoes that pull for both",
    ),
    Mistake(
        _follows("corrected kept"),
        "the m and v you keep for the next step are the bias-corrected ones: the next step "
        "builds on the running averages themselves, which the correction only reads",
    ),
    Mistake(
        _either("same t", "t + 1"),
        "the correction depends on the step number: the t-th update of a parameter must use t",
    ),
    Mistake(
        _either("steps of the optimiser", "updates of any parameter"),
        "your step count is not the parameter's own: a parameter's correction counts the "
        "steps that updated that parameter, as PyTorch's state[p]['step'] does",
    ),
    Mistake(
        _follows("eps inside"),
        "with gradients as small as eps, your step differs: look at where eps enters the update",
    ),
    Mistake(
        _follows("g not squared"),
        "v averages the gradient's size, which a negative gradient must not lower",
    ),
    _NO_GRADIENT,
    *_GROUPS,
)

ADAM = register(
    Exercise(
        "08.adam",
        "Adam",
        3,
        "MyAdam(params, lr, betas, eps) is an Optimizer whose step() moves every parameter "
        "as optim.Adam(params, lr=lr, betas=betas, eps=eps) does, step for step (or as Kingma "
        "and Ba's paper orders the same computation, with ε added before the bias correction: "
        "the two differ only where ε matters, and either passes).",
        ("MyAdam",),
        _checks(
            "MyAdam",
            [
                ("twenty steps on parameters of three shapes", "several"),
                ("the first steps are about lr long, whatever the gradient's size", "steady"),
                ("tiny gradients, as small as eps", "tiny"),
                ("a parameter without a gradient is left alone, and so is its step count", "none"),
                ("each group's own lr and betas, read at every step", "groups"),
            ],
            _ADAM_MISTAKES,
        ),
        withheld=(
            "micrograd_edu.optim.adam.Adam.step",
            "micrograd_edu.optim.adam.Adam._update",
            "torch",
        ),
    )
)
