"""Chapter 08's walk and freeze beyond the mistakes of tests/mistakes/chapter08.py (which
test_grading_mistakes.py grades): right answers pass on any seed, the oracle is the
package's own walk, and that walk is withheld from the student while it is checked."""

import numpy as np
import pytest
from grading_helpers import grade
from mistakes.chapter08 import CORRECT

from micrograd_edu import nn
from micrograd_edu.grading import chapter, check, exercise
from micrograd_edu.grading.chapter08 import _build, _draw_tree, _expected_names


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(8)])
def test_reference_answers_pass_every_check_on_any_seed(seed):
    for ex in chapter("08")[:2]:  # the optimisers: tests/test_grading_chapter08_optim.py
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


def test_the_tree_oracle_agrees_with_a_walk_written_apart():
    # the oracle is the package's Module.named_parameters; a walk written here, as a student
    # writes it, lists the same names and parameters on trees with frozen and shared parts
    import random

    for k in range(30):
        spec = _draw_tree(random.Random(k), 3, frozen=True, shared=True)
        module, created = _build(spec)
        index = {id(p): i for i, p in enumerate(created)}
        written = [(n, index[id(p)]) for n, p in CORRECT["named_parameters"](module)]
        assert written and written == list(zip(*_expected_names(spec), strict=True))


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


def _by_hand(case):
    """d(sum of squared outputs)/d(each weight and bias) of the freeze case's network, by a
    backward written out with numpy here (the grader's oracle is the engine's backward)."""
    relu_after = [case["kind"] != "long" and k == 0 for k in range(len(case["layers"]))]
    h, inputs, masks = np.array(case["x"]), [], []
    for layer, relu in zip(case["layers"], relu_after, strict=True):
        inputs.append(h)
        h = h @ np.array(layer["weight"]).T + np.array(layer["bias"])
        masks.append((h > 0) if relu else np.ones_like(h, dtype=bool))
        h = np.maximum(h, 0) if relu else h
    g, grads = 2 * h, []
    for k in reversed(range(len(case["layers"]))):
        g = g * masks[k]
        grads[:0] = [(g.T @ inputs[k]).reshape(-1), g.sum(axis=0)]
        g = g @ np.array(case["layers"][k]["weight"])
    return grads


def test_the_freeze_oracle_is_a_backward_written_by_hand():
    from micrograd_edu.grading.chapter08_freeze import _engine_gradients
    from micrograd_edu.grading.registry import draw_cases

    for cases in draw_cases(exercise("08.freeze"), "oracle"):
        for case in cases:
            for engine, hand in zip(_engine_gradients(case), _by_hand(case), strict=True):
                assert np.allclose(engine, hand, rtol=1e-12, atol=1e-12)
