"""Every hint against its own mistake and against the other mistakes of its exercise.

tests/mistakes/ holds, per chapter, wrong answers as students write them, each named
after the mistake a check models. Over several seeds each must lose points and get the
hint of its own mistake (and of the mistakes ``also`` names: the same cause seen by
another check) and no other; an example of no mistake (a plain type, a factor no model
names) must get no hint at all. Every named mistake of a covered chapter has
an example, no check there carries a hint without a model, and the honest variants
(``RIGHT``: another type, another valid way) earn full marks. A chapter joins by adding
its module to ``COVERED``.
"""

import importlib

import pytest
from grading_helpers import grade

from micrograd_edu.grading import chapter, exercise

COVERED = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]
MODULES = {number: importlib.import_module(f"mistakes.chapter{number}") for number in COVERED}
EXAMPLES = [(number, e) for number, m in MODULES.items() for e in m.EXAMPLES]
RIGHT = [(number, e) for number, m in MODULES.items() for e in getattr(m, "RIGHT", [])]


def _hints(ex, name):
    return {m.hint for c in ex.checks for m in c.mistakes if m.name == name}


def _graded(number, example, seed):
    functions = {**MODULES[number].CORRECT, **example.functions}
    return grade(example.exercise, functions, seed)


@pytest.mark.parametrize("number, example", EXAMPLES, ids=[e.id for _, e in EXAMPLES])
def test_a_mistake_gets_its_own_hint_and_no_other(number, example):
    ex = exercise(example.exercise)
    own = _hints(ex, example.mistake) if example.mistake else set()
    assert own or example.mistake is None, f"{ex.id} has no mistake named {example.mistake!r}"
    also = [_hints(ex, name) for name in example.also]
    assert all(also), f"{ex.id}: no mistake named among {example.also}"
    allowed = own.union(*also)
    for seed in [f"seed{k}" for k in range(example.seeds)]:
        result = _graded(number, example, seed)
        report = [(c.name, c.passed, c.reason, c.hint) for c in result.checks]
        assert result.score < result.max_score, (seed, report)
        shown = {c.hint for c in result.checks if c.hint}
        assert shown <= allowed, (seed, report)
        assert shown & own or not own, (seed, report)
        assert all(shown & hints for hints in also), (seed, report)
        # a failed check always says why
        assert all(c.reason for c in result.checks if not c.passed), (seed, report)


@pytest.mark.parametrize("number, example", RIGHT, ids=[e.id for _, e in RIGHT])
def test_an_honest_answer_in_another_form_earns_full_marks(number, example):
    for seed in [f"seed{k}" for k in range(min(2, example.seeds))]:
        result = _graded(number, example, seed)
        assert result.score == result.max_score, [(c.name, c.reason) for c in result.checks]


@pytest.mark.parametrize("number", COVERED)
def test_every_mistake_is_named_has_an_example_and_every_hint_a_model(number):
    examples = {
        (e.exercise, name) for e in MODULES[number].EXAMPLES for name in (e.mistake, *e.also)
    }
    for ex in chapter(number):
        for check in ex.checks:
            assert not check.hint, f"{ex.id}: {check.name!r} has a hint no model backs"
            for mistake in check.mistakes:
                assert mistake.name, f"{ex.id}: a mistake of {check.name!r} has no name"
                assert (ex.id, mistake.name) in examples, f"{ex.id}: no example {mistake.name!r}"


@pytest.mark.parametrize("number", COVERED)
def test_the_right_answers_earn_full_marks_on_any_seed(number):
    slow = getattr(MODULES[number], "SLOW", set())
    for ex in chapter(number):
        for seed in ("seed0",) if ex.id in slow else ("seed0", "seed1", "seed2"):
            result = grade(ex.id, MODULES[number].CORRECT, seed)
            assert result.score == ex.points, [(c.name, c.reason) for c in result.checks]
