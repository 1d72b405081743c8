"""Chapter 08's checks: correct answers pass on any seed, each mistake fails its check."""

import numpy as np
import pytest
from grading_helpers import failed_checks, grade, spoilers

from micrograd_edu import nn
from micrograd_edu.grading import chapter, check, exercise
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


def freeze(model, names):
    modules = dict(model.named_modules())
    for name in names:
        modules[name].requires_grad_(False)


CORRECT = {"named_parameters": named_parameters, "freeze": freeze}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(8)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("08")[:2]:  # the optimisers: tests/test_grading_chapter08_optim.py
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


def test_the_tree_oracle_agrees_with_the_package_walk():
    # the package's Module.named_parameters is an independent walk of the same tree
    import random

    for k in range(30):
        spec = _draw_tree(random.Random(k), 3, frozen=True, shared=True)
        module, created = _build(spec)
        index = {id(p): i for i, p in enumerate(created)}
        package = [(n, index[id(p)]) for n, p in nn.Module.named_parameters(module)]
        assert package
        assert package == list(zip(*_expected_names(spec), strict=True))


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

    def leading_dot(module, prefix=""):
        pairs = [(f"{prefix}.{n}", p) for n, p in module._parameters.items()]
        for name, child in module.named_children():
            pairs += leading_dot(child, f"{prefix}.{name}" if prefix else name)
        return pairs

    return [  # the mistake, the checks it fails (at least), a phrase of its one hint
        (
            no_recursion,
            {
                "nested modules get dotted names",
                "a shared module or parameter is listed once",
                "frozen parameters are still parameters",
            },
            "only the top module's own parameters",
        ),
        # no_dot also lists a parameter shared by two modules twice: two mistakes, two hints
        (
            no_dot,
            {"nested modules get dotted names"},
            ("the names run together", "appears more than once"),
        ),
        (duplicates, {"a shared module or parameter is listed once"}, "appears more than once"),
        (
            only_trainable,
            {"frozen parameters are still parameters"},
            "frozen parameters are missing",
        ),
        # children_first lists shared parameters twice too
        (
            children_first,
            {"nested modules get dotted names"},
            ("in another order", "appears more than once"),
        ),
        (leading_dot, {"a module's own parameters"}, "starts with a dot"),
    ]


WALK_PHRASES = [p for _, _, phrase in wrong_walks() for p in np.atleast_1d(phrase)]


@pytest.mark.parametrize("wrong, failing, phrase", wrong_walks())
def test_each_walk_mistake_fails_its_check_with_its_own_hint(wrong, failing, phrase):
    result = grade("08.named_parameters", {"named_parameters": wrong})
    assert failing <= failed_checks(result), failed_checks(result)
    hints = [c.hint for c in result.checks if not c.passed]
    own = phrase if isinstance(phrase, tuple) else (phrase,)
    assert hints and all(any(p in h for p in own) for h in hints), hints
    assert not any(p in h for h in hints for p in WALK_PHRASES if p not in own)
    if wrong.__name__ != "leading_dot":
        # a one-module tree is right for the others: their mistakes show only in deeper trees
        assert "a module's own parameters" not in failed_checks(result)


def _by_state_dict(module):
    found = []
    for name in nn.Module.state_dict(module):
        obj = module
        for part in name.split("."):
            obj = getattr(obj, part)
        found.append((name, obj))
    return found


def _swapped(module):
    object.__setattr__(module, "__class__", nn.Module)
    return list(module.named_parameters())


@pytest.mark.parametrize(
    "borrow",
    [
        lambda m: list(m.named_parameters()),
        lambda m: list(nn.Module.named_parameters(m)),
        lambda m: [(n, p) for n, c in nn.Module.named_modules(m) for p in c._parameters.values()],
        lambda m: list(nn.Module._all_parameters(m)),
        _by_state_dict,
        _swapped,
    ],
    ids=["method", "unbound", "named_modules", "all_parameters", "state_dict", "class_swap"],
)
def test_the_walk_of_the_package_modules_is_withheld_from_the_student(borrow):
    # check() withholds the package's walks while it checks, as the batch grader does for
    # the whole process (and in the files that process can read: tests/test_grading_
    # answers_hidden.py). The student's own walk still works with the same tree.
    feedback = check("08.named_parameters", {"named_parameters": borrow}, time_limit=None)
    assert feedback.result.score == 0
    assert "withheld while grading" in feedback.result.checks[0].reason
    assert check("08.named_parameters", dict(CORRECT), time_limit=None).passed
    assert list(nn.Linear(2, 2).named_parameters())  # and the package's walk is back after


FROZEN = (
    "only the named modules stop learning (the layers inside a frozen block too); the others "
    "get their full gradient, and the model computes what it did"
)


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

    def own_only(model, names):  # the named module's own parameters, not its children's
        modules = dict(model.named_modules())
        for name in names:
            for p in modules[name]._parameters.values():
                p.requires_grad_(False)

    def grads_cleared(model, names):  # .grad = None: backward fills it again
        modules = dict(model.named_modules())
        for name in names:
            for p in modules[name].parameters():
                p.grad = None

    expected = [  # the mistake, the checks it fails, a phrase of the one hint it gets
        (
            attribute_only,
            {FROZEN, "a name means a whole module ('1' is not '10')"},
            "got an attribute called requires_grad",
        ),
        (by_prefix, {"a name means a whole module ('1' is not '10')"}, "merely start with"),
        (
            zeroed,
            {FROZEN, "a name means a whole module ('1' is not '10')"},
            "changed the parameters",
        ),
        (
            grads_cleared,
            {FROZEN, "a name means a whole module ('1' is not '10')"},
            "backward fills the .grad",
        ),
        (detached, None, "backward fills the .grad"),  # it switched nothing off either
        (own_only, {FROZEN}, "include those of the modules inside it"),  # issue 28: it scored 1/1
    ]
    phrases = [phrase for _, _, phrase in expected]
    for wrong, failing, phrase in expected:
        result = grade("08.freeze", {"freeze": wrong})
        # each fails the main property (by_prefix: the one it breaks, '1' is not '10')
        assert result.score < (1 if wrong is by_prefix else 1e-9), wrong.__name__
        if failing is not None:
            assert failed_checks(result) == failing, wrong.__name__
        hints = [c.hint for c in result.checks if not c.passed and c.hint]
        assert hints and all(phrase in h for h in hints), (wrong.__name__, hints)
        assert not any(p in h for h in hints for p in phrases if p != phrase)
        assert not spoilers(exercise("08.freeze"), hints + [c.reason for c in result.checks])
