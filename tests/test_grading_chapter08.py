"""Chapter 08's checks: correct answers pass on any seed, each mistake fails its check."""

import numpy as np
import pytest
from grading_helpers import failed_checks, grade

from micrograd_edu import nn, optim
from micrograd_edu.grading import chapter
from micrograd_edu.grading.chapter08 import _build, _draw_tree, _expected_names


def named_parameters(module, prefix="", seen=None):
    seen = set() if seen is None else seen
    if id(module) in seen:
        return []
    seen.add(id(module))
    pairs = []
    for name, p in module._parameters.items():
        if id(p) not in seen:
            seen.add(id(p))
            pairs.append((prefix + name, p))
    for name, child in module.named_children():
        pairs += named_parameters(child, f"{prefix}{name}.", seen)
    return pairs


def adam_step(param, grad, m, v, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    m = betas[0] * m + (1 - betas[0]) * grad
    v = betas[1] * v + (1 - betas[1]) * grad**2
    m_hat, v_hat = m / (1 - betas[0] ** t), v / (1 - betas[1] ** t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


def freeze(model, names):
    modules = dict(model.named_modules())
    for name in names:
        modules[name].requires_grad_(False)


CORRECT = {"named_parameters": named_parameters, "adam_step": adam_step, "freeze": freeze}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(8)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("08"):
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


def test_the_tree_oracle_agrees_with_the_package_walk(monkeypatch):
    # the package's Module.named_parameters is an independent walk of the same tree
    import random

    from micrograd_edu.grading import chapter08

    monkeypatch.setattr(chapter08._Block, "named_modules", nn.Module.named_modules)
    for k in range(30):
        spec = _draw_tree(random.Random(k), 3, frozen=True, shared=True)
        module, created = _build(spec)
        index = {id(p): i for i, p in enumerate(created)}
        package = [(n, index[id(p)]) for n, p in nn.Module.named_parameters(module)]
        assert package
        assert package == list(zip(*_expected_names(spec), strict=True))


def test_the_adam_oracle_agrees_with_the_package_optimiser():
    from types import SimpleNamespace

    rng = np.random.default_rng(0)
    p = SimpleNamespace(data=rng.normal(size=4), grad=None)
    start = p.data.copy()
    opt = optim.Adam([p], lr=0.01, betas=(0.8, 0.99))
    param, m, v = start, np.zeros(4), np.zeros(4)
    for t in range(1, 11):
        p.grad = rng.normal(size=4)
        opt.step()
        param, m, v = adam_step(param, p.grad, m, v, t, 0.01, (0.8, 0.99), 1e-8)
    assert np.allclose(p.data, param, rtol=1e-12)


def wrong_walks():
    def no_recursion(module):
        return list(module._parameters.items())

    def no_dot(module, prefix=""):
        pairs = [(prefix + n, p) for n, p in module._parameters.items()]
        for name, child in module.named_children():
            pairs += no_dot(child, prefix + name)
        return pairs

    def duplicates(module, prefix=""):
        pairs = [(prefix + n, p) for n, p in module._parameters.items()]
        for name, child in module._modules.items():
            pairs += duplicates(child, f"{prefix}{name}.")
        return pairs

    def only_trainable(module):
        return [(n, p) for n, p in named_parameters(module) if p.requires_grad]

    def children_first(module, prefix=""):
        pairs = []
        for name, child in module.named_children():
            pairs += children_first(child, f"{prefix}{name}.")
        return pairs + [(prefix + n, p) for n, p in module._parameters.items()]

    return [
        (
            no_recursion,
            {
                "nested modules get dotted names",
                "a shared module or parameter is listed once",
                "frozen parameters are still parameters",
            },
        ),
        (no_dot, {"nested modules get dotted names"}),
        (duplicates, {"a shared module or parameter is listed once"}),
        (only_trainable, {"frozen parameters are still parameters"}),
        (children_first, {"nested modules get dotted names"}),
    ]


@pytest.mark.parametrize("wrong, failing", wrong_walks())
def test_each_walk_mistake_fails_the_check_aimed_at_it(wrong, failing):
    result = grade("08.named_parameters", {"named_parameters": wrong})
    assert failing <= failed_checks(result), failed_checks(result)
    # a one-module tree is right for all of them: the mistakes show only in deeper trees
    assert "a module's own parameters" not in failed_checks(result)


def test_the_walk_of_the_package_modules_is_withheld_from_the_student():
    result = grade("08.named_parameters", {"named_parameters": lambda m: m.named_parameters()})
    assert not result.passed
    assert "PermissionError" in result.checks[0].reason


def adam_variant(change):
    def step(param, grad, m, v, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        b1, b2 = betas
        m = b1 * m + (1 - b1) * grad
        v = b2 * v + (1 - b2) * grad**2
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        if change == "no bias correction":
            m_hat, v_hat = m, v
        if change == "returns corrected moments":
            m, v = m_hat, v_hat
        if change == "t off by one":
            m_hat, v_hat = m / (1 - b1 ** (t + 1)), v / (1 - b2 ** (t + 1))
        root = np.sqrt(v_hat + eps) if change == "eps inside" else np.sqrt(v_hat) + eps
        return param - lr * m_hat / root, m, v

    return step


@pytest.mark.parametrize(
    "change, failing",
    [
        ("no bias correction", {"the first step has length lr", "twenty steps in a row"}),
        (
            "returns corrected moments",
            {"the moments are running averages", "twenty steps in a row"},
        ),
        ("t off by one", {"the first step has length lr", "twenty steps in a row"}),
        ("eps inside", {"eps is added outside the square root"}),
    ],
)
def test_each_adam_mistake_fails_the_check_aimed_at_it(change, failing):
    result = grade("08.adam_step", {"adam_step": adam_variant(change)})
    assert failing <= failed_checks(result)
    assert all(c.hint for c in result.checks if not c.passed)


def test_the_first_adam_step_has_length_lr():
    step, _, _ = adam_step(
        np.zeros(3), np.array([3.0, -0.2, 1e3]), np.zeros(3), np.zeros(3), 1, 0.1
    )
    assert np.allclose(step, [-0.1, 0.1, -0.1])


def test_each_freeze_mistake_fails_the_check_aimed_at_it():
    def attribute_only(model, names):
        modules = dict(model.named_modules())
        for name in names:
            modules[name].requires_grad = False  # a new attribute: nothing changes

    def by_prefix(model, names):
        for full, p in model.named_parameters():
            if any(full.startswith(n) for n in names):
                p.requires_grad_(False)

    def zeroed(model, names):
        modules = dict(model.named_modules())
        for name in names:
            for p in modules[name].parameters():
                p.data[...] = 0.0  # "frozen" at zero: what flows through it changes
                p.requires_grad_(False)

    def detached(model, names):
        modules = dict(model.named_modules())
        for name in names:
            forward = modules[name].forward
            modules[name].forward = lambda x, f=forward: f(x.detach())

    assert failed_checks(grade("08.freeze", {"freeze": attribute_only})) == {
        "frozen layers get no gradient",
        "a name means a whole module ('1' is not '10')",
    }
    assert failed_checks(grade("08.freeze", {"freeze": by_prefix})) == {
        "a name means a whole module ('1' is not '10')"
    }
    assert failed_checks(grade("08.freeze", {"freeze": zeroed})) == {
        "the other layers still get their full gradient"
    }
    assert "the other layers still get their full gradient" in failed_checks(
        grade("08.freeze", {"freeze": detached})
    )
