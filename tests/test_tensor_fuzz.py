"""The Tensor engine against an independent oracle on random programs (``tests/fuzz_*.py``).

Each run judges the 2,000 programs of a fixed seed and 200 of a seed drawn for the run against
PyTorch in float64 where it is installed (central differences where it is not), and 150 more
against central differences whether or not PyTorch is there. It then plants a wrong partial
derivative in each rule of ``RULES`` in turn, and an accumulation that aliases, and requires
the check to catch each (``fuzz_mutants.py`` plants a wrong VJP in every other operation).
Where PyTorch is the one that is wrong (central differences side with the engine on a defect
of PyTorch's that ``fuzz_oracle`` names), the program is listed as such. A failure
names each class of disagreement with a shrunk program to paste, and how to replay it::

    FUZZ_SEED=123 pytest tests/test_tensor_fuzz.py        # the run-dependent seed, again
    python tests/fuzz_oracle.py --seed 123 --index 45      # one program, shrunk
"""

import contextlib
import io
import os
import random
import sys
import types

import fuzz_ops
import fuzz_oracle as oracle
import numpy as np
import pytest
from fuzz_programs import Leaf, Node, Program, Step, generate, render

from micrograd_edu import RULES

FIXED_SEED, FIXED_COUNT = 0, 2000
FRESH_COUNT = 200
NUMERIC_SEED, NUMERIC_COUNT = 1, 150


def fresh_seed() -> int:
    """``FUZZ_SEED`` when set (to replay a run), else a new seed for this run."""
    return int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(1, 2**31))


def _report(*summaries: tuple[oracle.Summary, int]) -> str:
    lines = []
    for summary, seed in summaries:
        lines += [f"seed {seed}: {summary.text()}", ""]
        if summary.failures:
            p = summary.failures[0][0]
            index = int(p.label.split()[-1])
            lines.append("replay one: " + oracle.replay_command(seed, index, summary.oracle))
        if seed not in (FIXED_SEED, NUMERIC_SEED):
            lines.append(f"replay this run: FUZZ_SEED={seed} pytest tests/test_tensor_fuzz.py")
    return "\n".join(lines)


def test_random_programs_agree_with_the_oracle():
    name = oracle.default_oracle()
    seed = fresh_seed()
    fixed = oracle.run(FIXED_SEED, FIXED_COUNT, name)
    fresh = oracle.run(seed, FRESH_COUNT, name)
    if fixed.defects or fresh.defects:  # shown with -rP: where PyTorch is the one that is wrong
        print(_report((fixed, FIXED_SEED), (fresh, seed)))
    bad = bool(fixed.failures or fixed.refused or fresh.failures or fresh.refused)
    assert not bad, _report((fixed, FIXED_SEED), (fresh, seed))
    # Programs too near a kink are skipped; most must be judged, or the check says little.
    share = 0.95 if name == "torch" else 0.6
    assert fixed.judged >= share * FIXED_COUNT, _report((fixed, FIXED_SEED))


def test_random_programs_agree_with_central_differences():
    """The oracle that needs no PyTorch, on every run."""
    summary = oracle.run(NUMERIC_SEED, NUMERIC_COUNT, "numeric")
    assert not len(summary.failures), _report((summary, NUMERIC_SEED))
    assert summary.judged >= 0.6 * NUMERIC_COUNT, _report((summary, NUMERIC_SEED))


def test_without_pytorch_the_oracle_is_central_differences(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    assert oracle.default_oracle() == "numeric"


# ------------------------------------------------------------ planted defects


def _stacked_scalars() -> Program:
    """stack of 0-d leaves, summed, backward twice: PyTorch's .grad of the leaves share one
    memory location (its defect in :data:`fuzz_oracle.PYTORCH_DEFECTS`), so each gets 4."""
    leaves = [Leaf(f"x{i}", np.array(v), True) for i, v in enumerate([1.35, -0.9, -0.13])]
    body = [
        Node("v0", "stack([{0}, {1}, {2}], dim=-1)", ("x0", "x1", "x2")),
        Node("s0", "{0}.sum()", ("v0",)),
        Node("loss", "{0} * 1.0", ("s0",)),
    ]
    return Program(leaves, body, steps=[Step("twice")], label="stacked scalars 0")


@pytest.mark.skipif(oracle.default_oracle() != "torch", reason="PyTorch's defects need PyTorch")
def test_pytorch_wrong_is_told_apart_and_hides_no_planted_defect(monkeypatch):
    from micrograd_edu.tensor import functional

    p = _stacked_scalars()
    verdict = oracle.check(p, "torch")
    assert verdict.status == "pytorch" and "stack(0-d" in verdict.defect, verdict.mismatches
    summary = oracle.Summary("torch", judged=1, defects=[(p, verdict)])
    assert "PyTorch's defect (central differences side with the engine)" in summary.text()
    # The same program with a wrong gradient in the engine's stack: a failure, not PyTorch's.
    right = functional.STACK.vjp
    skewed = functional.STACK._replace(
        vjp=lambda *a: tuple(None if g is None else 1.5 * g for g in right(*a))
    )
    monkeypatch.setattr(functional, "STACK", skewed)
    assert oracle.check(p, "torch").status == "fail"


@contextlib.contextmanager
def wrong(partial: types.FunctionType):
    """``partial`` (a function of ``RULES``) made to return 1.5 * its value + 0.25, in
    place: every engine that holds the function sees the change, whatever its internals."""
    if partial.__closure__:
        pytest.fail(f"{partial.__qualname__} has a closure: this plant cannot replace its code")
    right = types.FunctionType(
        partial.__code__, partial.__globals__, partial.__name__, partial.__defaults__
    )

    def skewed(ns, out, *args, _right=right):
        return 1.5 * _right(ns, out, *args) + 0.25

    saved = partial.__code__, partial.__defaults__, partial.__kwdefaults__
    partial.__code__, partial.__defaults__ = skewed.__code__, None
    partial.__kwdefaults__ = {"_right": right}
    try:
        yield
    finally:
        partial.__code__, partial.__defaults__, partial.__kwdefaults__ = saved


def caught(rule, index: int, judge: str, tries: int = 40) -> bool:
    """Whether a program built around ``rule`` that the engine gets right fails once the
    rule's partial ``index`` is wrong."""
    family = fuzz_ops.unary if rule.arity == 1 else fuzz_ops.binary
    for k in range(tries):
        p = generate(7, k, focus=(family, rule.name))
        if oracle.check(p, judge).status != "ok":
            continue  # not judged, or failing for another reason
        with wrong(rule.partials[index]):
            if oracle.check(p, judge).status == "fail":
                return True
    return False


ORACLES = ["numeric"] + (["torch"] if oracle.default_oracle() == "torch" else [])


@pytest.mark.parametrize(
    "name, index", [(r.name, i) for r in RULES.values() for i in range(r.arity)]
)
def test_a_wrong_partial_of_any_rule_is_caught(name, index):
    for judge in ORACLES:
        assert caught(RULES[name], index, judge), (
            f"a wrong partial {index} of the rule {name!r} was not caught against {judge} "
            "(does the engine still take this derivative from micrograd_edu.rules.RULES?)"
        )


def test_a_failing_program_shrinks_to_source_that_runs():
    rule = RULES["mul"]
    with wrong(rule.partials[1]):
        for k in range(40):
            p = generate(7, k, focus=(fuzz_ops.binary, "mul"))
            verdict = oracle.check(p, ORACLES[-1])
            if verdict.status == "fail":
                break
        small = oracle.shrink(p, ORACLES[-1])
        again = oracle.check(small, ORACLES[-1])
        assert again.status == "fail"
        assert len(small.body) <= len(p.body) and len(small.steps) <= len(p.steps)
        text = oracle.describe(small, again, ORACLES[-1])
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(text, "<repro>", "exec"), {})
    assert "# " + oracle.ORACLE_NAMES[ORACLES[-1]] in text  # the oracle's value, in a comment
    assert text.startswith(f"# {small.label}") and printed.getvalue()


def test_the_source_shown_is_the_program_that_ran():
    """A program is run without parsing its numbers; its full source gives the same results."""
    for k in range(40):
        p = generate(FIXED_SEED, k)
        ran = oracle.execute(p, "engine")
        results: dict = {}

        def record(key, value, results=results):
            results[key] = oracle._array(value)

        scope = {"record": record}
        try:
            exec(compile(render(p), "<program>", "exec"), scope)
        except Exception:
            assert ran.error, f"{p.label} raised only from its full source"
        assert results.keys() == ran.results.keys(), p.label
        for key, value in results.items():
            assert oracle._same(value, ran.results[key], 0.0, 0.0), (p.label, key)


def test_an_accumulation_that_aliases_is_caught(monkeypatch):
    """``add`` declared ``fresh`` while its VJP passes the upstream gradient on: a leaf's
    .grad then aliases an array the backward pass still writes into (issue 23's defect)."""
    from micrograd_edu.tensor import elementwise

    add = elementwise.ELEMENTWISE["add"]
    assert not add.fresh
    for judge in ORACLES:
        right = [
            p for p in (generate(7, k) for k in range(60)) if oracle.check(p, judge).status == "ok"
        ]
        monkeypatch.setitem(elementwise.ELEMENTWISE, "add", add._replace(fresh=True))
        assert any(oracle.check(p, judge).status == "fail" for p in right), judge
        monkeypatch.setitem(elementwise.ELEMENTWISE, "add", add)
