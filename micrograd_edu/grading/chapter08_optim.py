"""Chapter 08's optimiser exercises: SGD with momentum and Adam, written as ``Optimizer``
subclasses and stepped through a training loop's ``zero_grad``, ``backward``, ``step``.

The oracle is the engine: ``optim.SGD`` and ``optim.Adam``, run by the grader on the case's
gradients (tests/test_grading_chapter08_optim.py shows they agree with PyTorch, step for
step). A typical mistake's model is the engine too wherever the mistake is a change of
what the engine is given: other hyperparameters at a step (a correction left out is a
learning rate and an ε that change with the step count), other gradients (a step late, a
missing one taken for 0). The few that no such change gives (one velocity for every
parameter, ε under the square root, v of the gradient not squared, the corrected moments
kept) are written out as the wrong update they are.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np

from .. import optim
from .explain import Kind
from .plain import as_floats, describe
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter08_optim import _run_optimiser

Trajectory = list[list[np.ndarray]]


def _order(case: Case) -> list[tuple[int, int]]:
    """(group, parameter) in the order a step updates them: group by group."""
    return [(k, i) for k, group in enumerate(case["groups"]) for i in group["params"]]


def _hyper(case: Case, step: int, k: int) -> dict:
    """Group ``k``'s hyperparameters at ``step`` (its own, or the defaults; the learning rate
    a scheduler set, when the case has one)."""
    hyper = {key: v for key, v in {**case["defaults"], **case["groups"][k]}.items()}
    hyper.pop("params", None)
    if case["lrs"]:
        hyper["lr"] = case["lrs"][step][k]
    return hyper


def _gradients(case: Case, mistake: str) -> list[list]:
    """Each step's gradients as the mistake's optimiser takes them in."""
    grads = [list(row) for row in case["grads"]]
    if mistake == "no gradient as zero":  # a missing gradient taken for 0
        return [
            [
                np.zeros(np.prod(s)) if g is None else g
                for g, s in zip(row, case["shapes"], strict=True)
            ]
            for row in grads
        ]
    if mistake == "stale":  # each step taken with the gradient of the parameter's step before
        before: list = [None] * len(case["shapes"])
        for row in grads:
            for i, g in enumerate(row):
                if g is not None:
                    row[i], before[i] = (np.zeros(len(g)) if before[i] is None else before[i]), g
    return grads


# The engine's hyperparameters for a mistake, from the right ones, the parameter's own count
# of updates t and the mistake's count u (Adam's bias corrections: with β₁ᵗ, √(1 − β₂ᵗ) the
# engine's, a step by other corrections is the engine's with another lr and ε).
def _adam_as_engine(hyper: dict, t: int, u: int, mistake: str) -> dict:
    (b1, b2), lr, eps = hyper["betas"], hyper["lr"], hyper["eps"]
    c1, s2 = 1 - b1**t, np.sqrt(1 - b2**t)
    if mistake == "no correction":
        return {**hyper, "lr": lr * c1 / s2, "eps": eps / s2}
    if mistake == "m not corrected":
        return {**hyper, "lr": lr * c1}
    if mistake == "v not corrected":
        return {**hyper, "lr": lr / s2, "eps": eps / s2}
    if mistake == "paper":  # Kingma & Ba's order: ε added to √v, not to √v̂
        return {**hyper, "eps": eps / s2}
    if mistake == "betas swapped":  # m with β₂'s rate and v with β₁'s
        return {**hyper, "betas": (b2, b1)}
    if u != t:  # corrected with another step count
        ratio = np.sqrt(1 - b2**u) / s2
        return {**hyper, "lr": lr * c1 / (1 - b1**u) * ratio, "eps": eps * ratio}
    return hyper


def _sgd_as_engine(hyper: dict, mistake: str) -> dict:
    mu = hyper["momentum"]
    if mistake == "no momentum":
        return {**hyper, "momentum": 0.0}
    if mistake == "dampened":  # a running average from 0: (1 − μ) times the velocity
        return {**hyper, "lr": hyper["lr"] * (1 - mu)}
    if mistake == "dampened from g":  # PyTorch's dampening = μ: from g, then averaged
        return {**hyper, "dampening": mu}
    if mistake == "lr inside":  # the velocity holds steps: lr 1, the gradients scaled
        return {**hyper, "lr": 1.0}
    return hyper


_STEP_COUNTS = {"same t", "t + 1", "steps of the optimiser", "updates of any parameter"}


def _engine(case: Case, mistake: str = "") -> Trajectory:
    """The parameters after every step, flattened, as the engine's optimiser moves them
    on the case; with ``mistake``, as the engine moves them given what that mistake
    changes. Each parameter is a group of its own, so that each step can give it the
    hyperparameters the mistake reads (the state is each parameter's own either way)."""
    adam = case["optimiser"] == "MyAdam"
    params = [SimpleNamespace(data=np.array(v, dtype=float), grad=None) for v in case["init"]]
    order = _order(case)
    engine = (optim.Adam if adam else optim.SGD)(
        [{"params": [params[i]]} for _, i in order], **_hyper(case, 0, 0)
    )
    own, calls, updates, trajectory = [0] * len(params), 0, 0, []
    for step, row in enumerate(_gradients(case, mistake)):
        calls += 1
        for group, (k, i) in zip(engine.param_groups, order, strict=True):
            hyper = _hyper(case, step, k)
            if mistake == "groups ignored":
                hyper = {key: v for key, v in case["defaults"].items()}
            elif mistake == "lr fixed":  # the lr given to __init__, kept in an attribute
                hyper["lr"] = case["defaults"]["lr"]
            elif mistake == "lr cached":  # each group's lr as __init__ found it, kept
                hyper["lr"] = _hyper(case, 0, k)["lr"]
            g = row[i]
            params[i].grad = None if g is None else np.array(g, dtype=float)
            if g is not None:
                own[i], updates = own[i] + 1, updates + 1
            if adam:
                u = {"same t": 1, "t + 1": own[i] + 1, "steps of the optimiser": calls,
                     "updates of any parameter": updates}.get(mistake, own[i])  # fmt: skip
                if g is not None:  # (a parameter without a gradient does not move)
                    hyper = _adam_as_engine(hyper, own[i], u, mistake)
            else:
                if mistake == "lr inside" and g is not None:
                    params[i].grad = params[i].grad * hyper["lr"]
                hyper = _sgd_as_engine(hyper, mistake)
            group.update({key: tuple(v) if key == "betas" else v for key, v in hyper.items()})
        engine.step()
        trajectory.append([p.data.copy() for p in params])
    return trajectory


def _by_hand(case: Case, mistake: str) -> Trajectory:
    """Where a typical wrong optimiser leaves the parameters, for the mistakes no change of
    what the engine is given makes: one velocity for every parameter (restarted or not when
    the shape changes), and Adam with ε under the square root, v averaging g rather than
    g², or the corrected moments kept."""
    values = [np.array(v, dtype=float) for v in case["init"]]
    shared: dict = {}
    by_shape: dict = {}  # "per shape": one velocity for all the parameters of a shape
    states: list[dict] = [
        shared
        if mistake.startswith("shared")
        else by_shape.setdefault(np.shape(v), {})
        if mistake == "per shape"
        else {}
        for v in values
    ]
    trajectory = []
    for step, grads in enumerate(case["grads"]):
        for k, i in _order(case):
            if grads[i] is None:
                continue
            hyper, g, state, p = _hyper(case, step, k), np.array(grads[i]), states[i], values[i]
            if case["optimiser"] == "MySGD":
                velocity = state.get("velocity")
                if mistake == "shared, restarted" and velocity is not None:
                    velocity = None if velocity.shape != g.shape else velocity
                sign = -1.0 if mistake == "gradient subtracted" else 1.0
                state["velocity"] = (
                    g if velocity is None else hyper["momentum"] * velocity + sign * g
                )
                p -= hyper["lr"] * state["velocity"]
                continue
            (b1, b2), eps = hyper["betas"], hyper["eps"]
            if not state:
                state.update(t=0, m=np.zeros_like(p), v=np.zeros_like(p))
            state["t"] += 1
            m = b1 * state["m"] + (1 - b1) * g
            size = {"g not squared": g, "size, no root": np.abs(g)}.get(mistake, g * g)
            v = b2 * state["v"] + (1 - b2) * size
            m_hat, v_hat = m / (1 - b1 ** state["t"]), v / (1 - b2 ** state["t"])
            root = np.sqrt(v_hat + eps) if mistake == "eps inside" else np.sqrt(np.abs(v_hat)) + eps
            root = v_hat + eps if mistake == "size, no root" else root
            p -= hyper["lr"] * m_hat / root
            state["m"], state["v"] = (m_hat, v_hat) if mistake == "corrected kept" else (m, v)
        trajectory.append([v.copy() for v in values])
    return trajectory


_BY_HAND = {
    "per shape",
    "size, no root",
    "shared",
    "shared, restarted",
    "gradient subtracted",
    "eps inside",
    "g not squared",
    "corrected kept",
}


def _aliased(case: Case) -> Trajectory | None:
    """Where the review's aliasing SGD leaves the parameters: a whole optimiser but for one
    copy, so it lives with the references, out of the wheel; a student's install has no
    model of it, and no hint for it."""
    try:
        from .references.aliased_sgd import AliasedSGD
    except ImportError:
        return None
    seen = _run_optimiser({"MySGD": AliasedSGD}, case)
    return [[np.asarray(v) for v in after] for after in seen["trajectory"]]


def _simulate(case: Case, mistake: str = "") -> Trajectory:
    """The parameters after every step of the case, flattened: the engine's (the oracle);
    with ``mistake``, where that typical wrong optimiser leaves them instead (the models
    behind the hints). Each is worked out once per case: every failing case is held
    against every model, in every check."""
    return _simulated(json.dumps(case, sort_keys=True), mistake)


@functools.lru_cache(maxsize=512)
def _simulated(case: str, mistake: str) -> Trajectory:
    plain = json.loads(case)
    if mistake == "aliased" and plain["optimiser"] == "MySGD":
        return _aliased(plain)
    return _by_hand(plain, mistake) if mistake in _BY_HAND else _engine(plain, mistake)


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
        if model is None:  # no model of it here (see _aliased)
            return False
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
        if ratio < 0:  # against the right step: not "the right way", whatever its length
            return f": it points the opposite way, {-ratio:.3g} times as long"
        shown = f"{ratio:.3g}" if abs(ratio - 1) > 1e-3 else f"{ratio:.7f}"
        return f": it points the right way but is {shown} times as long"
    error = np.linalg.norm(moved - right) / np.linalg.norm(right)
    return f": its relative error is {error:.1e}, where 1e-9 is expected"


# The package's optimisers whole (every function of their modules raises, by any path:
# SGD.step, Adam's _update and _moments, RMSprop's lerp_); Optimizer, the base class the
# student's optimiser builds on, stays.
_OPTIMISERS = (
    "micrograd_edu.optim.sgd",
    "micrograd_edu.optim.adam",
    "micrograd_edu.optim.rmsprop",
    # and in the sandbox's files, so that a module reloaded there holds them no more
    "micrograd_edu.optim.sgd.SGD.step",
    "micrograd_edu.optim.adam.Adam.step",
    "micrograd_edu.optim.adam.Adam._update",
    "torch",
)


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
        steps = {"steady": 6, "several": 20, "none": 8, "groups": 8, "tiny": 3, "in place": 8}[kind]
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
        if kind == "in place" and optimiser == "MySGD":
            # (at 0.5, a velocity that aliases .grad steps by 2 * 0.5 * g: no momentum's step)
            defaults["momentum"] = 0.9
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
            **({"in_place": True} if kind == "in place" else {}),
        }

    if kind == "steady then varying":  # a velocity that takes in part of g shows on the third
        return lambda rng: [draw(rng, "steady"), draw(rng, "steady"), draw(rng, "several")]
    return lambda rng: [draw(rng) for _ in range(3)]


# --- 08.sgd_momentum -------------------------------------------------------------------

_NO_GRADIENT = Mistake(
    _follows("no gradient as zero"),
    "a parameter whose .grad is None moved, or its state changed: no gradient reached it, "
    "so this step leaves it, and all it keeps, as it is",
    name="no gradient as zero",
)
_GROUPS = (
    Mistake(
        _follows("groups ignored"),
        "the parameters of the second group moved with the optimiser's defaults: each "
        "group in self.param_groups carries its own hyperparameters",
        name="groups ignored",
    ),
    *(
        Mistake(
            _follows(kept),
            "your steps keep the learning rate __init__ saw, though a new one a scheduler "
            "set in param_groups[k]['lr'] (or a group's own lr) differs: read the "
            "hyperparameters where step() finds them, at every step",
            name="lr fixed",
        )
        for kept in ("lr fixed", "lr cached")
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
    Mistake(_follows("shared"), _SHARED, name="one velocity"),
    Mistake(_follows("shared, restarted"), _SHARED, name="one velocity"),
    Mistake(_raises_like("shared", "broadcast"), _SHARED, name="one velocity"),
    Mistake(_follows("per shape"), _SHARED, name="one velocity"),
    Mistake(
        _follows("no momentum"),
        "each of your steps depends on this step's gradient alone: momentum carries a "
        "velocity from one step to the next",
        name="no momentum",
    ),
    Mistake(
        _follows("dampened"),
        "your steps are too short from the first one on: look at how much of each new "
        "gradient your velocity takes in, in the lecture's form of the update",
        name="dampened",
    ),
    Mistake(
        _follows("dampened from g"),
        "your velocity takes in only part of each new gradient, so under a steady gradient "
        "the steps never grow: look at the lecture's form of the update (PyTorch's, without "
        "dampening)",
        name="dampened from g",
    ),
    Mistake(
        _follows("gradient subtracted"),
        "your first step is right, and after it each new gradient pulls your velocity back "
        "instead of adding to it: the velocity gathers the gradients, and the step goes "
        "against the velocity",
        name="gradient subtracted",
    ),
    Mistake(
        _follows("stale"),
        "your parameters did not move at the first step and lag one step behind after: "
        "the step uses the velocity that already includes this step's gradient",
        name="stale",
    ),
    Mistake(
        _follows("lr inside"),
        "when the learning rate changes, your steps still carry the old one for a while: "
        "in the lecture's form the velocity accumulates gradients, not steps",
        name="lr inside",
    ),
    Mistake(
        _follows("aliased"),
        "your steps are right while each backward makes a new .grad, and wrong once the loop "
        "zeroes the gradients in place (zero_grad(set_to_none=False)): the velocity you keep "
        "is p.grad's own array, not a copy, so zeroing p.grad, and the next backward, write "
        "into it",
        name="aliased",
    ),
    _NO_GRADIENT,
    *_GROUPS,
)


# What a right answer observes: the parameters after each step (a wrong type is told so).
_TRAJECTORY = Kind("the parameters after each step", lambda v: isinstance(v, list))


def _checks(optimiser: str, names: list[tuple[str, str]], mistakes: tuple) -> tuple:
    return tuple(
        Check(
            name,
            "",
            _cases(optimiser, kind),
            _run_optimiser,
            _judge,
            mistakes=mistakes,
            right=lambda case: {"trajectory": _TRAJECTORY},
        )
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
                ("gradients zeroed in place between steps (set_to_none=False)", "in place"),
            ],
            _MOMENTUM_MISTAKES,
        ),
        withheld=_OPTIMISERS,
    )
)


# --- 08.adam ---------------------------------------------------------------------------

_ADAM_MISTAKES = (
    Mistake(
        _follows("no correction"),
        "your first step is not about lr long: m and v start at 0, so after one step they "
        "are only a small fraction of the gradient and of its square, each a different "
        "fraction. Adam undoes that pull towards 0, more at the first steps than later",
        name="no correction",
    ),
    Mistake(
        _follows("m not corrected"),
        "your first steps are far shorter than lr: one of the two running averages is still "
        "pulled towards the 0 it started from. Adam undoes that pull for both",
        name="m not corrected",
    ),
    Mistake(
        _follows("v not corrected"),
        "your first steps are far longer than lr: one of the two running averages is still "
        "pulled towards the 0 it started from. Adam undoes that pull for both",
        name="v not corrected",
    ),
    Mistake(
        _follows("corrected kept"),
        "the m and v you keep for the next step are the bias-corrected ones: the next step "
        "builds on the running averages themselves, which the correction only reads",
        name="corrected kept",
    ),
    Mistake(
        _either("same t", "t + 1"),
        "the correction depends on the step number: the t-th update of a parameter must use t",
        name="step number",
    ),
    Mistake(
        _either("steps of the optimiser", "updates of any parameter"),
        "your step count is not the parameter's own: a parameter's correction counts the "
        "steps that updated that parameter, as PyTorch's state[p]['step'] does",
        name="own step count",
    ),
    Mistake(
        _follows("eps inside"),
        "with gradients as small as eps, your step differs: look at where eps enters the update",
        name="eps inside",
    ),
    Mistake(
        _follows("betas swapped"),
        "your two running averages forget at each other's rates: betas gives m's rate "
        "first and v's second",
        name="betas swapped",
    ),
    Mistake(
        _follows("size, no root"),
        "your step divides by an average of |g|: v averages the squared gradient, and the "
        "step divides by the square root of its corrected average",
        name="size, no root",
    ),
    Mistake(
        _follows("g not squared"),
        "v averages the gradient's size, which a negative gradient must not lower",
        name="g not squared",
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
                ("gradients zeroed in place between steps (set_to_none=False)", "in place"),
            ],
            _ADAM_MISTAKES,
        ),
        withheld=_OPTIMISERS,
    )
)
