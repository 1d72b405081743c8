"""Chapter 08's optimiser exercises beyond the mistakes of tests/mistakes/chapter08.py (which
test_grading_mistakes.py grades): the oracle, the engine's optimisers stepped one parameter
group at a time, is the engine's optimisers used as a student uses them (and so PyTorch's,
tests/test_pytorch_nn_optim.py); correct optimisers written in several ways pass on any
seed; a wrong step is described without the answer; the package's optimisers are withheld."""

import numpy as np
import pytest
from grading_helpers import grade
from mistakes.chapter08 import CORRECT, MyAdam, MySGD, PaperAdam, PaperAdamEpsInside, TensorSGD

from micrograd_edu import Tensor, nn, no_grad, optim
from micrograd_edu.grading import chapter, check
from micrograd_edu.grading.chapter08_optim import _cases, _simulate


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


@pytest.mark.parametrize("seed", ["seed0", "seed1", "seed2"])
def test_adam_in_the_papers_own_order_scores_full_marks(seed):
    # issue 28: it scored 0/3 with no hint; it is Adam, as the paper writes it
    result = grade("08.adam", {"MyAdam": PaperAdam}, seed)
    assert result.score == 3, [(c.name, c.reason) for c in result.checks]
    assert grade("08.adam", {"MyAdam": PaperAdamEpsInside}, seed).score < 3


def test_the_optimisers_internals_are_withheld_by_any_path():
    # Adam's own step, reached without a public name and kept before the check began
    import importlib

    adam_step = importlib.import_module("micrograd_edu.optim.adam").Adam.step

    class Inside(optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

        def step(self):
            adam_step(self)

    feedback = check("08.adam", {"MyAdam": Inside}, time_limit=None)
    assert feedback.result.score == 0, [c.reason for c in feedback.result.checks]
    assert "withheld while grading" in feedback.result.checks[0].reason
