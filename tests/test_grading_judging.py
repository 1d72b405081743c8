"""Judging runs in a process of its own (grading/judging.py): an observation forged to make a
judge slow or hungry costs that exercise only; the next judgement gets a fresh process."""

import sys
import textwrap

import pytest

from micrograd_edu.grading.judging import judges
from micrograd_edu.grading.registry import Check, Exercise

PLUGIN = textwrap.dedent(
    """
    import time
    from micrograd_edu.grading.registry import Check, Exercise, register

    def slow(case, seen):
        time.sleep(60)

    def hungry(case, seen):
        return str(len(bytearray(2 * 1024**3)))  # past the judging process's memory

    def fine(case, seen):
        return None if seen.get("ok") else "not ok"

    for name, judge in (("slow", slow), ("hungry", hungry), ("fine", fine)):
        check = Check("c", "", lambda rng: [{}], lambda functions, case: {}, judge)
        register(Exercise(f"98.{name}", name, 1, "", ("f",), (check,)))
    """
)


def _exercise(name):  # the same exercise, not registered in this process
    check = Check("c", "", lambda rng: [{}], lambda functions, case: {}, lambda c, s: None)
    return Exercise(f"98.{name}", name, 1, "", ("f",), (check,))


def test_a_slow_or_hungry_judgement_costs_its_exercise_only(tmp_path, monkeypatch):
    pytest.importorskip("resource")
    (tmp_path / "judge_plugin.py").write_text(PLUGIN)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + ":" + ":".join(sys.path))
    ok = {"checks": [[{"ok": True}]]}
    with judges(seconds=2, memory_mb=768, modules=("judge_plugin",)) as judge:
        assert judge(_exercise("fine"), "s", ok, False).passed
        slow = judge(_exercise("slow"), "s", ok, False)
        assert slow.status == "broken" and "longer than 2 s" in slow.reason
        hungry = judge(_exercise("hungry"), "s", ok, False)
        assert not hungry.passed and hungry.score == 0  # MemoryError: read as a failure
        assert judge(_exercise("fine"), "s", ok, False).passed  # a fresh process after the kill
        assert not judge(_exercise("fine"), "s", {"checks": [[{}]]}, False).passed


def test_no_case_sent_to_a_submission_carries_an_expected_value():
    # Cases carry inputs only; what a judge compares with (closed forms, held-out targets)
    # travels under HELD, which inputs() strips before a case reaches the student's side.
    from micrograd_edu.grading import EXERCISES
    from micrograd_edu.grading.registry import HELD, draw_cases, inputs

    answers = {"exact", "expected", "want", "answer", "beta", "y_test", HELD}

    def keys(value):
        if isinstance(value, dict):
            yield from value
            for v in value.values():
                yield from keys(v)
        elif isinstance(value, list):
            for v in value:
                yield from keys(v)

    for ex in EXERCISES.values():
        sent = inputs(draw_cases(ex, "any"))
        assert not answers & set(keys(sent)), ex.id
