"""Chapter 08's exercise 1: walking a module tree.

The oracle is the engine's own walk, ``nn.Module.named_parameters``, run by the grader on
the tree it built from the case (plain data it drew); while the submission runs, that walk
is withheld from it.
"""

from __future__ import annotations

import random

from .. import nn
from .explain import Kind
from .plain import describe
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter08 import _build, _run_walk

# --- 1. named_parameters: the walk of the module tree -------------------------

_PARAM_NAMES = ("weight", "bias", "scale", "shift")
_CHILD_NAMES = ("0", "1", "2", "layer0", "layer1", "encoder", "head", "block")


def _draw_tree(rng: random.Random, depth: int, frozen: bool, shared: bool) -> dict:
    """A module tree as plain data, built bottom-up; ``{"ref": k}`` reuses the k-th
    finished module (or parameter), so sharing never makes a cycle."""
    counts = {"modules": 0, "params": 0}

    def node(level: int) -> dict:
        params = []
        for name in rng.sample(_PARAM_NAMES, rng.randint(0 if level else 1, 2)):
            if shared and counts["params"] and rng.random() < 0.3:
                params.append([name, {"ref": rng.randrange(counts["params"])}])
                continue
            shape = [rng.randint(1, 4)] + ([rng.randint(1, 3)] if rng.random() < 0.5 else [])
            params.append([name, {"shape": shape, "frozen": frozen and rng.random() < 0.5}])
            counts["params"] += 1
        children = []
        if level < depth:
            for name in rng.sample(_CHILD_NAMES, rng.randint(1, 3)):
                if shared and counts["modules"] and rng.random() < 0.35:
                    children.append([name, {"ref": rng.randrange(counts["modules"])}])
                else:
                    children.append([name, node(level + 1)])
        counts["modules"] += 1  # numbered when finished: a reference points to a finished one
        return {"params": params, "children": children}

    return node(0)


def _expected_names(spec: dict) -> tuple[list[str], list[int]]:
    """The tree's (dotted names, creation numbers of their parameters), as the engine's own
    walk (``nn.Module.named_parameters``, run here by the grader) lists them."""
    module, created = _build(spec)
    index = {id(p): k for k, p in enumerate(created)}
    pairs = [(name, index[id(p)]) for name, p in nn.Module.named_parameters(module)]
    return [name for name, _ in pairs], [k for _, k in pairs]


def _tree_cases(depth: tuple[int, int], frozen: bool = False, shared: bool = False):
    def cases(rng: random.Random) -> list[Case]:
        return [{"tree": _draw_tree(rng, rng.randint(*depth), frozen, shared)} for _ in range(4)]

    return cases


def _judge_walk(case: Case, seen: dict) -> str | None:
    names, which = _expected_names(case["tree"])
    got = seen.get("names")
    if not isinstance(got, list) or not all(isinstance(n, str) for n in got):
        return f"returned names that are {describe(got)}, not (name, parameter) pairs"
    if sorted(got) != sorted(names):
        if len(got) != len(names):
            return f"listed {len(got)} parameters for a tree that has {len(names)}"
        strange = [n for n in got if n not in names]
        return (
            f"listed as many names as the tree has parameters ({len(names)}), but not the same "
            f"names: {len(strange)} of yours, such as '{strange[0]}', are not the tree's"
            if strange
            else f"listed {len(names)} names, some of them twice"
        )
    if got != names:
        return "the right names in the wrong order"
    if seen.get("which") != which:
        return "a name is paired with a parameter that is not the module's"
    return None


def _got_names(seen: dict) -> list[str]:
    got = seen.get("names")
    return got if isinstance(got, list) and all(isinstance(n, str) for n in got) else []


def _paths(spec: dict) -> set[tuple[str, int]]:
    """Every (dotted path, parameter number) of the tree, along every way down to it (a
    shared module or parameter is reached by several): what a walk may name a parameter."""
    module, created = _build(spec)
    index = {id(p): k for k, p in enumerate(created)}
    found, todo = set(), [("", module)]
    while todo:
        prefix, node = todo.pop()
        found |= {(prefix + n, index[id(p)]) for n, p in node._parameters.items()}
        todo += [(f"{prefix}{n}.", child) for n, child in node._modules.items()]
    return found


def _pairs(seen: dict) -> list[tuple[str, object]]:
    return list(zip(_got_names(seen), seen.get("which") or [], strict=False))


def _run_together(case: Case, seen: dict) -> bool:
    """No name has a dot, and each is a way down to its parameter with the dots left out,
    some of them ways below the top module."""
    got, pairs = _got_names(seen), set(_pairs(seen))
    below = {(name.replace(".", ""), k) for name, k in _paths(case["tree"]) if "." in name}
    top = {(name, k) for name, k in _paths(case["tree"]) if "." not in name}
    return not any("." in n for n in got) and bool(pairs & below) and pairs <= below | top


def _without_prefix(case: Case, seen: dict) -> bool:
    """The right parameters in the right order, each under its own name alone: the
    children's names never joined on in front."""
    names, right = _expected_names(case["tree"])
    got = _got_names(seen)
    return (
        seen.get("which") == right and got == [n.rsplit(".", 1)[-1] for n in names] and got != names
    )


def _another_order(case: Case, seen: dict) -> bool:
    """The right parameters, each once, in another order (under the names the first way down
    to each gives in that order)."""
    names, right = _expected_names(case["tree"])
    which = seen.get("which")
    return (
        isinstance(which, list)
        and sorted(which) == sorted(right)
        and (which != right or _got_names(seen) != names)
        and not _without_prefix(case, seen)
    )


def _trainable_names(case: Case) -> list[str]:
    names, which = _expected_names(case["tree"])
    _, created = _build(case["tree"])
    return [n for n, k in zip(names, which, strict=True) if created[k].requires_grad]


# What a right answer is: names, each a string (anything else is told its type, no hint).
_NAMES = Kind("a list of names", lambda v: isinstance(v, list) and all(type(n) is str for n in v))


_WALK_MISTAKES = (
    Mistake(
        lambda case, seen: (got := _got_names(seen)) != [] and any(n.startswith(".") for n in got),
        "a name starts with a dot: at the top module, names have no prefix",
        name="leading dot",
    ),
    Mistake(
        _run_together,
        "the names run together: a child's name and the names inside it are joined by a dot",
        name="no dot",
    ),
    Mistake(
        lambda case, seen: (
            "names" in seen  # a walk that ran (one that raised lists nothing)
            and _got_names(seen)
            == [name for name, _ in case["tree"]["params"]]
            != _expected_names(case["tree"])[0]
        ),
        "only the top module's own parameters: the modules below it hold parameters too",
        name="top module only",
    ),
    Mistake(
        lambda case, seen: (
            _got_names(seen) == _trainable_names(case) != _expected_names(case["tree"])[0]
        ),
        "the frozen parameters are missing: freezing switches learning off, it does not "
        "remove a parameter from the model",
        name="frozen left out",
    ),
    Mistake(
        lambda case, seen: len(set(seen.get("which") or [])) < len(seen.get("which") or []),
        "a shared module or parameter appears more than once: an optimiser would update it "
        "twice a step",
        name="listed twice",
    ),
    Mistake(
        _without_prefix,
        "every parameter is there, in order, but under its own name alone: a parameter of a "
        "module below is named by the path down to it, the modules' names joined by dots",
        name="no prefix",
    ),
    Mistake(
        _another_order,
        "the right names in another order: PyTorch lists a module's own parameters before "
        "those of its children, and the children in the order they were assigned",
        name="order",
    ),
)


# The package's walks of a module tree: while 08.named_parameters is graded they raise,
# in the process of its own it is graded in (and in the files that process can read).
_WALKS = (
    "named_parameters",
    "parameters",
    "named_modules",
    "modules",
    "_all_modules",  # state_dict's walk: every module under every name, in the same order
    "_all_parameters",
    "_state",
    "state_dict",
)

NAMED_PARAMETERS = register(
    Exercise(
        "08.named_parameters",
        "Walking the module tree",
        2,
        "named_parameters(module) returns the list of (dotted name, parameter) pairs of "
        "module and every module below it, each parameter once, in PyTorch's order.",
        ("named_parameters",),
        (
            Check(
                "a module's own parameters",
                "",
                _tree_cases((0, 0)),
                _run_walk,
                _judge_walk,
                mistakes=_WALK_MISTAKES,
                right=lambda case: {"names": _NAMES},
            ),
            Check(
                "nested modules get dotted names",
                "",
                _tree_cases((2, 3)),
                _run_walk,
                _judge_walk,
                mistakes=_WALK_MISTAKES,
                right=lambda case: {"names": _NAMES},
            ),
            Check(
                "frozen parameters are still parameters",
                "",
                _tree_cases((1, 2), frozen=True),
                _run_walk,
                _judge_walk,
                mistakes=_WALK_MISTAKES,
                right=lambda case: {"names": _NAMES},
            ),
            Check(
                "a shared module or parameter is listed once",
                "",
                _tree_cases((2, 3), shared=True),
                _run_walk,
                _judge_walk,
                mistakes=_WALK_MISTAKES,
                right=lambda case: {"names": _NAMES},
            ),
        ),
        withheld=tuple(f"micrograd_edu.nn.module.Module.{name}" for name in _WALKS),
        alone=True,  # the chapter's other exercises, and their runners, walk modules
    )
)
