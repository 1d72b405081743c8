"""Chapter 08's optimiser exercises: the oracle agrees with the package's optimisers (and
so with PyTorch, tests/test_pytorch_nn_optim.py), correct optimisers written in several
ways pass on any seed, and each typical mistake gets its own hint and no other."""

import numpy as np
import pytest
from grading_helpers import failed_checks, grade, spoilers

from micrograd_edu import Tensor, nn, no_grad, optim
from micrograd_edu.grading import chapter, check, exercise
from micrograd_edu.grading.chapter08_optim import _cases, _simulate


class MySGD(optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "velocity" not in state:
                    state["velocity"] = p.grad.data.copy()
                else:
                    state["velocity"] = group["momentum"] * state["velocity"] + p.grad.data
                p.data -= group["lr"] * state["velocity"]


class MyAdam(optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g, state = p.grad.data, self.state[p]
                if not state:
                    state.update(t=0, m=np.zeros_like(p.data), v=np.zeros_like(p.data))
                state["t"] += 1
                state["m"] = beta1 * state["m"] + (1 - beta1) * g
                state["v"] = beta2 * state["v"] + (1 - beta2) * g * g
                self.move(p, state, group)

    @staticmethod
    def move(p, state, group):
        (beta1, beta2), t = group["betas"], state["t"]
        m_hat = state["m"] / (1 - beta1**t)
        v_hat = state["v"] / (1 - beta2**t)
        p.data -= group["lr"] * m_hat / (np.sqrt(v_hat) + group["eps"])


class TensorSGD(optim.Optimizer):
    """Another correct way: tensor arithmetic in place under no_grad, a zero-started
    velocity kept in a dict of the optimiser's own."""

    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))
        self.velocities = {}

    def step(self):
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        v = self.velocities.get(id(p), 0.0)
                        v = group["momentum"] * v + p.grad
                        self.velocities[id(p)] = v
                        p -= group["lr"] * v


CORRECT = {"MySGD": MySGD, "MyAdam": MyAdam}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(6)])
@pytest.mark.parametrize("exercise_id", ["08.sgd_momentum", "08.adam"])
def test_correct_optimisers_pass_every_check_on_any_seed(exercise_id, seed):
    result = grade(exercise_id, CORRECT, seed)
    assert result.passed, [(c.name, c.reason) for c in result.checks]
    if exercise_id == "08.sgd_momentum":  # and another correct way of writing it
        assert grade(exercise_id, {"MySGD": TensorSGD}, seed).passed


@pytest.mark.parametrize("kind", ["steady", "several", "none", "groups", "tiny"])
@pytest.mark.parametrize("name", ["MySGD", "MyAdam"])
def test_the_oracle_agrees_with_the_package_optimisers(name, kind):
    import random

    package = {"MySGD": optim.SGD, "MyAdam": optim.Adam}[name]
    for case in _cases(name, kind)(random.Random(kind)):
        params = [
            nn.Parameter(np.reshape(v, s))
            for v, s in zip(case["init"], case["shapes"], strict=True)
        ]
        groups = [
            {
                **{k: v for k, v in g.items() if k != "params"},
                "params": [params[i] for i in g["params"]],
            }
            for g in case["groups"]
        ]
        opt = package(groups, **case["defaults"])
        for step, (grads, want) in enumerate(zip(case["grads"], _simulate(case), strict=True)):
            for k, group in enumerate(opt.param_groups):
                if case["lrs"]:
                    group["lr"] = case["lrs"][step][k]
            for p, g in zip(params, grads, strict=True):
                p.grad = None if g is None else Tensor(np.reshape(g, p.shape))
            opt.step()
            for p, w in zip(params, want, strict=True):
                np.testing.assert_allclose(p.data.ravel(), w, rtol=1e-12, atol=1e-15)


def sgd_variant(change):
    class Variant(optim.Optimizer):
        def __init__(self, params, lr=0.01, momentum=0.9):
            self.fixed_lr, self.shared = lr, {}
            super().__init__(params, dict(lr=lr, momentum=momentum))

        @no_grad()
        def step(self):
            for group in self.param_groups:
                hyper = self.defaults if change == "groups ignored" else group
                lr, mu = hyper["lr"], hyper["momentum"]
                lr = self.fixed_lr if change == "lr fixed" else lr
                for p in group["params"]:
                    g = p.grad.data if p.grad is not None else None
                    if g is None:
                        if change != "no gradient as zero":
                            continue
                        g = np.zeros_like(p.data)
                    state = self.shared if change.startswith("one velocity") else self.state[p]
                    if change == "one velocity, restarted" and np.shape(state.get("v")) != g.shape:
                        state.clear()  # a new shape: the shared velocity started again
                    v = state.get("v", np.zeros_like(p.data))
                    if change == "no momentum":
                        p.data -= lr * g
                        continue
                    if change == "stale":
                        p.data -= lr * v
                    new = {
                        "dampened": mu * v + (1 - mu) * g,
                        "dampened from g": mu * v + (1 - mu) * g if "v" in state else g,
                        "lr inside": mu * v + lr * g,
                    }.get(change, mu * v + g)
                    state["v"] = new
                    if change == "lr inside":
                        p.data -= new
                    elif change != "stale":
                        p.data -= lr * new

    return Variant


SGD_HINTS = {  # the mistake -> a phrase of its one hint, and the checks it fails
    "no momentum": ("depends on this step's gradient alone", None),
    "one velocity": ("one velocity serves every parameter", None),  # (issue 28: it was
    "one velocity, restarted": ("one velocity serves every parameter", None),  # no momentum)
    "dampened": ("too short from the first one on", None),
    "dampened from g": ("the steps never grow", None),
    "stale": ("did not move at the first step", None),
    "lr inside": (
        "your steps still carry the old one for a while",
        {"each group's own lr and momentum, read at every step"},
    ),
    "no gradient as zero": (
        "whose .grad is None moved",
        {"a parameter without a gradient is left alone"},
    ),
    "groups ignored": (
        "moved with the optimiser's defaults",
        {"each group's own lr and momentum, read at every step"},
    ),
    "lr fixed": (
        "keep the learning rate given to __init__",
        {"each group's own lr and momentum, read at every step"},
    ),
}


def adam_variant(change):
    class Variant(optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
            self.fixed_lr, self.calls, self.updates = lr, 0, 0
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

        @no_grad()
        def step(self):
            self.calls += 1
            for group in self.param_groups:
                hyper = self.defaults if change == "groups ignored" else group
                (b1, b2), eps = hyper["betas"], hyper["eps"]
                lr = self.fixed_lr if change == "lr fixed" else hyper["lr"]
                for p in group["params"]:
                    g = None if p.grad is None else p.grad.data
                    if g is None:
                        if change != "no gradient as zero":
                            continue
                        g = np.zeros_like(p.data)
                    self.updates += 1
                    s = self.state[p]
                    if not s:
                        s.update(t=0, m=np.zeros_like(p.data), v=np.zeros_like(p.data))
                    s["t"] += 1
                    t = {
                        "t off by one": s["t"] + 1,
                        "t never grows": 1,
                        "t counts step calls": self.calls,
                        "t counts every update": self.updates,
                    }.get(change, s["t"])
                    s["m"] = b1 * s["m"] + (1 - b1) * g
                    s["v"] = b2 * s["v"] + (1 - b2) * (g if change == "not squared" else g**2)
                    m_hat, v_hat = s["m"] / (1 - b1**t), s["v"] / (1 - b2**t)
                    if change in ("no bias correction", "m not corrected"):
                        m_hat = s["m"]
                    if change in ("no bias correction", "v not corrected"):
                        v_hat = s["v"]
                    if change == "keeps corrected moments":
                        s["m"], s["v"] = m_hat, v_hat
                    if change == "eps inside":
                        root = np.sqrt(v_hat + eps)
                    else:
                        root = np.sqrt(np.abs(v_hat)) + eps
                    p.data -= lr * m_hat / root

    return Variant


ADAM_HINTS = {
    "no bias correction": ("not about lr long", None),
    "m not corrected": ("far shorter than lr", None),
    "v not corrected": ("far longer than lr", None),
    "keeps corrected moments": ("the bias-corrected ones", None),
    "t off by one": ("depends on the step number", None),
    "t never grows": ("depends on the step number", None),
    "t counts step calls": (
        "is not the parameter's own",
        {"a parameter without a gradient is left alone, and so is its step count"},
    ),
    "t counts every update": ("is not the parameter's own", None),
    "eps inside": ("where eps enters", None),
    "not squared": ("must not lower", None),
    "no gradient as zero": (
        "whose .grad is None moved",
        {"a parameter without a gradient is left alone, and so is its step count"},
    ),
    "groups ignored": (
        "moved with the optimiser's defaults",
        {"each group's own lr and betas, read at every step"},
    ),
    "lr fixed": (
        "keep the learning rate given to __init__",
        {"each group's own lr and betas, read at every step"},
    ),
}


MISTAKES = [  # (exercise, class name, the mistake, its hints, the wrong class)
    *[("08.sgd_momentum", "MySGD", change, SGD_HINTS, sgd_variant) for change in SGD_HINTS],
    *[("08.adam", "MyAdam", change, ADAM_HINTS, adam_variant) for change in ADAM_HINTS],
]


@pytest.mark.parametrize("seed", ["test", "other", "third"])
@pytest.mark.parametrize(
    "exercise_id, name, change, hints, variant", MISTAKES, ids=[m[2] for m in MISTAKES]
)
def test_each_mistake_gets_its_own_hint_and_no_other(
    exercise_id, name, change, hints, variant, seed
):
    result = grade(exercise_id, {name: variant(change)}, seed)
    phrase, failing = hints[change]
    failed = [c for c in result.checks if not c.passed and c.ran]  # (not: a raise above)
    assert failed and all(phrase in c.hint for c in failed), [
        (c.name, c.hint, c.reason) for c in failed
    ]
    others = {p for p, _ in hints.values() if p != phrase}
    assert not any(p in c.hint for c in failed for p in others)
    if failing is not None:
        assert failed_checks(result) == failing
    shown = [c.hint + c.reason for c in result.checks if not c.reason.startswith("raised")]
    assert not spoilers(exercise(exercise_id), shown)  # (a raise shows the student's own line)


def test_a_wrong_step_is_described_without_the_answer():
    def half(cls):
        class Half(cls):
            @no_grad()
            def step(self):
                before = [p.data.copy() for p in self.params]
                super().step()
                for p, b in zip(self.params, before, strict=True):
                    p.data[...] = b + 0.5 * (p.data - b)

        return Half

    result = grade("08.adam", {"MyAdam": half(MyAdam)})
    reasons = [c.reason for c in result.checks if not c.passed]
    assert reasons and all("points the right way but is 0.5 times as long" in r for r in reasons)
    frozen = grade(
        "08.sgd_momentum", {"MySGD": type("Still", (MySGD,), {"step": lambda self: None})}
    )
    assert "did not move, although it had a gradient" in frozen.checks[0].reason


def test_the_package_optimisers_are_withheld_while_checked():
    class Borrowed(optim.SGD):
        pass

    class BorrowedAdam(optim.Adam):
        pass

    for exercise_id, name, cls in [
        ("08.sgd_momentum", "MySGD", Borrowed),
        ("08.adam", "MyAdam", BorrowedAdam),
    ]:
        feedback = check(exercise_id, {name: cls}, time_limit=None)
        assert feedback.result.score == 0
        assert "withheld while grading" in feedback.result.checks[0].reason
    assert check("08.adam", dict(CORRECT), time_limit=None).passed
    w = Tensor([1.0], requires_grad=True)  # and the package's optimisers work again after
    (w * 2.0).sum().backward()
    optim.SGD([w], lr=0.5, momentum=0.9).step()
    assert w.data[0] == 0.0


def test_the_optimisers_are_the_chapters_last_exercises():
    assert [ex.id for ex in chapter("08")][-2:] == ["08.sgd_momentum", "08.adam"]


class PaperAdam(MyAdam):
    """Kingma & Ba's algorithm 1 written in the order of their section 2: the step size
    corrected once, ε added to √v before the correction (where ε matters, optim.Adam's
    order differs from this one; both are Adam)."""

    @staticmethod
    def move(p, state, group):
        (beta1, beta2), t = group["betas"], state["t"]
        alpha = group["lr"] * np.sqrt(1 - beta2**t) / (1 - beta1**t)
        p.data -= alpha * state["m"] / (np.sqrt(state["v"]) + group["eps"])


class PaperAdamEpsInside(PaperAdam):
    @no_grad()
    def step(self):
        for group in self.param_groups:
            group["eps_kept"], group["eps"] = group["eps"], 0.0
        super().step()  # then ε where it does not belong: inside the square root
        for group in self.param_groups:
            group["eps"] = group.pop("eps_kept")


@pytest.mark.parametrize("seed", ["seed0", "seed1", "seed2"])
def test_adam_in_the_papers_own_order_scores_full_marks(seed):
    # issue 28: it scored 0/3 with no hint; it is Adam, as the paper writes it
    result = grade("08.adam", {"MyAdam": PaperAdam}, seed)
    assert result.score == 3, [(c.name, c.reason) for c in result.checks]
    assert grade("08.adam", {"MyAdam": PaperAdamEpsInside}, seed).score < 3
