"""The second differential fuzzer: random PyTorch programs over the public ``torchlike``
surface, run on torchlike and compared with PyTorch.

Each program (:mod:`torchlike_programs`) is written for PyTorch: tensor operations in
every call form (methods and ``torch.*`` functions, positional and keyword arguments),
indexing on get and set, dtypes, autograd (hooks, ``retain_grad``, in-place changes,
``backward``'s forms, first and second derivatives), ``nn`` and ``optim`` (models, losses,
optimisers, schedulers, clipping) and ``utils.data``/``save``. Where PyTorch raises,
torchlike must raise too. With PyTorch installed the two runs are compared value by value;
without it, torchlike's run is compared with the fingerprints of PyTorch's run kept in
``tests/fixtures`` (``python tests/torchlike_outcomes.py --record`` writes them; a test
checks they are current wherever PyTorch is installed).

Cost: 200 programs, about 1 s on torchlike, 5 s on PyTorch (single-threaded).
"""

import re

import pytest
from torchlike_outcomes import (
    SEEDS,
    compare,
    compare_fingerprints,
    fingerprint,
    load_record,
    pytorch,
    run,
)
from torchlike_programs import generate

import micrograd_edu.torchlike as ours
from micrograd_edu import nn, optim

# Each entry of the lists below: the kinds of the first difference, a pattern on the tag of its
# statement (and the difference's detail), a pattern that some tag of the program must match
# (the operation behind a later difference, such as a gradient), and why. The engine's own
# differences are all fixed (issue 24): a new one fails the test, nothing excuses it.
LOUD, WORKS = ("raises where torch works",), ("works where torch raises",)
# What differs on purpose (the README's list), which stays.
ON_PURPOSE = [
    (LOUD, r"must have the same shape", "", "a loss of two shapes refuses to broadcast them"),
]
# PyTorch's own defects, where torchlike computes what PyTorch's documented semantics give
# (each has a test that shows PyTorch still has it and what the right result is).
PYTORCH_DEFECTS = [
    (
        WORKS,
        r"^(grad|backward)\..*doesn't match the broadcast shape",
        r"^clamp\.tensor:.*(\{lo\}, \{hi\}|min=\{lo\}, max=\{hi\})",
        "PyTorch's defect: clamp with two tensor bounds that broadcast with the input to "
        "different shapes computes, then its backward raises (an in-place logical_and_ in its "
        "derivative formula); see test_pytorch_autograd.py::"
        "test_clamp_with_bounds_broadcasting_apart_computes_where_pytorch_raises",
    ),
    (
        ("value",),
        r"^grad\..*where torch gives .*\b(nan|inf)\b",
        r"^reduce\.(var|std):.*dim=(\[\]|\(\))",
        "PyTorch's defect: var/std over dim=[] reduce every dim but their backward counts one "
        "entry (inf, or nan times 0); see test_pytorch_autograd.py::"
        "test_var_over_no_dims_has_the_gradient_of_var_over_every_dim",
    ),
]


def _expected(difference, program, entries):
    """Why ``difference`` is expected (the defect of one of ``entries``), or None. An entry's
    pattern is searched in the statement's tag and the difference's detail."""
    tag = program.tags[difference.statement] if difference.statement >= 0 else ""
    for kinds, pattern, anywhere, why in entries:
        if difference.kind in kinds and re.search(pattern, f"{tag} || {difference.detail}"):
            if not anywhere or any(re.search(anywhere, t) for t in program.tags):
                return why
    return None


def _unexplained(differences):
    rows = []
    for seed, program, difference in differences:
        if (why := _expected(difference, program, PYTORCH_DEFECTS)) is not None:
            print(f"seed {seed}: PyTorch is the one that is wrong: {why}")  # shown with -rP
        elif _expected(difference, program, ON_PURPOSE) is None:
            tag = program.tags[difference.statement] if difference.statement >= 0 else "?"
            statement = program.statements[difference.statement][:200]
            rows.append(
                f"seed {seed}: {difference.kind} at `{statement}` ({tag}): {difference.detail}"
            )
    return rows


@pytest.fixture(scope="module")
def programs():
    return {seed: generate(seed) for seed in SEEDS}


@pytest.fixture(scope="module")
def outcomes(programs):
    """Each program's run on torchlike, and on PyTorch where it is installed (else None)."""
    torch = pytorch()
    return {
        seed: (
            run(program.statements, ours, f"program {seed}"),
            None if torch is None else run(program.statements, torch, f"program {seed}"),
        )
        for seed, program in programs.items()
    }


def test_torchlike_agrees_with_pytorch_on_random_programs(programs, outcomes):
    differences = []
    for seed, (mine, theirs) in outcomes.items():
        found = None if theirs is None else compare(mine, theirs)
        if found:
            differences.append((seed, programs[seed], found))
    rows = _unexplained(differences)
    assert not rows, f"{len(rows)} programs differ from PyTorch:\n" + "\n".join(rows[:15])


def test_torchlike_agrees_with_the_record_of_pytorch(programs, outcomes):
    # What runs where PyTorch is not installed (and here as well, so that it stays true).
    record = load_record()
    differences = []
    for seed, (mine, _) in outcomes.items():
        found = compare_fingerprints(fingerprint(mine), record[str(seed)])
        if found:
            differences.append((seed, programs[seed], found))
    rows = _unexplained(differences)
    assert not rows, f"{len(rows)} programs differ from the record:\n" + "\n".join(rows[:15])


def test_the_record_of_pytorch_is_current(outcomes):
    if any(theirs is None for _, theirs in outcomes.values()):
        pytest.skip("PyTorch is not installed: the record is what the fuzzer compares with")
    record = load_record()
    stale = [
        seed
        for seed, (_, theirs) in outcomes.items()
        if compare_fingerprints(fingerprint(theirs), record[str(seed)]) is not None
    ]
    assert not stale, (
        f"PyTorch's runs of programs {stale[:10]} differ from the record (a new generator, or "
        "a new PyTorch): run python tests/torchlike_outcomes.py --record"
    )


def test_the_families_and_call_forms_are_all_drawn(programs):
    families = {p.family for p in programs.values()}
    assert families == {"tensor", "autograd", "dtype", "index", "train", "data"}
    tags = {t.split(":")[0] for p in programs.values() for t in p.tags}
    for needed in (
        "reduce.max",
        "shape.permute",
        "index.get",
        "index.set",
        "matmul",
        "softmax",
        "loss.cross_entropy",
        "hook.leaf",
        "train.loop",
        "data.loader",
        "data.save",
    ):
        assert needed in tags, needed


# Planted defects: each is a difference from PyTorch a careless change could bring back;
# the fuzzer must find it in the programs that use what it breaks.
def _first_axis_softmax(ndim, name="softmax"):
    return 0


def _steplr_from_the_initial_rate(self):
    return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


def _adam_without_amsgrad(self, group, p, g, m, v, v_max=None, *, t):
    return _ADAM_UPDATE(self, group, p, g, m, v, None, t=t)


_ADAM_UPDATE = optim.Adam._update


def _smoothing_ignored(*args, label_smoothing=0.0, **kwargs):
    return _CROSS_ENTROPY(*args, **kwargs)


_CROSS_ENTROPY = nn.functional.cross_entropy


PLANTED = [
    (r"Softmax\(\)|F\.softmax\(\w+\)", nn.functional, "softmax_dim", _first_axis_softmax),
    ("StepLR", optim.lr_scheduler.StepLR, "get_lr", _steplr_from_the_initial_rate),
    ("amsgrad=True", optim.Adam, "_update", _adam_without_amsgrad),
    ("label_smoothing", nn.functional, "cross_entropy", _smoothing_ignored),
]


@pytest.mark.parametrize("needle, owner, name, planted", PLANTED, ids=[p[2] for p in PLANTED])
def test_the_fuzzer_finds_a_planted_difference(programs, monkeypatch, needle, owner, name, planted):
    record = load_record()
    chosen = {s: p for s, p in programs.items() if re.search(needle, p.source)}
    assert chosen, f"no program uses {needle}"
    clean = [
        s
        for s in chosen
        if compare_fingerprints(fingerprint(run(chosen[s].statements, ours)), record[str(s)])
        is None
    ]
    monkeypatch.setattr(owner, name, planted)
    found = [
        s
        for s in clean
        if compare_fingerprints(fingerprint(run(chosen[s].statements, ours)), record[str(s)])
        is not None
    ]
    assert found, f"planting {name} went unnoticed in {len(clean)} programs that use {needle}"
