"""Random programs run on the engine and on an oracle, compared, shrunk and shown as source.

The oracle is PyTorch in float64 when it is installed, else central differences
(:mod:`fuzz_numeric`). A program is judged only where both are defined: one that comes near a
kink or a tie in the oracle's run, or that PyTorch refuses, is counted and skipped.

PyTorch has defects of its own. Where it disagrees with the engine on gradients only, central
differences (float64) break the tie: when they agree with the engine and not with PyTorch on
every gradient that differs, and the program shows a defect named in :data:`PYTORCH_DEFECTS`,
the program counts as PyTorch's defect (listed in the summary), not as a failure. A planted
wrong derivative cannot hide there: central differences read only the forward pass, and a
wrong value is never put down to PyTorch.

    python tests/fuzz_oracle.py --seed 0 --count 2000      # run a batch, summarise the classes
    python tests/fuzz_oracle.py --seed 7 --index 42        # one program, shrunk, as source
    python tests/fuzz_oracle.py --oracle numeric ...       # without PyTorch
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from fuzz_numeric import Unsafe, check_node, numeric_outcome
from fuzz_programs import (
    ENGINE,
    ENGINE_HEADER,
    TORCH_HEADER,
    Leaf,
    Program,
    Step,
    compiled,
    generate,
    literal,
    live,
    loss_expr,
    namespace,
    render,
    requiring_grad,
)

ORACLE_NAMES = {"torch": "PyTorch", "numeric": "central differences"}

#: PyTorch's defects the programs meet: a name, and a pattern its program's source shows.
PYTORCH_DEFECTS = {
    "stack(0-d tensors): PyTorch's backward of stack (unbind) gives the 0-d inputs views of "
    "one memory location as gradients, and AccumulateGrad keeps them as their .grad, so a "
    "second backward adds each input's gradient into all of them": r"stack\(\[",
}
PASSES = ("backward", "twice", "inputs", "grad", "second")


def default_oracle() -> str:
    """PyTorch where it is installed, central differences where it is not."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return "numeric"
    return "torch"


_torch_names: dict = {}


def torch_namespace() -> dict:
    if not _torch_names:
        _torch_names.update(namespace(TORCH_HEADER))
        # Tensors of a few entries: PyTorch's worker threads only wait for each other
        # (a backward pass took 2.5 ms with two threads on 2 busy cores, 0.3 ms with one).
        _torch_names["torch"].set_num_threads(1)
    return _torch_names


@dataclass
class Outcome:
    """What a run recorded (key -> array, None, or a list of arrays), and how it ended."""

    results: dict
    error: str | None = None  # the engine (or the oracle) raised: where and what
    invalid: str | None = None  # the program came near a kink: not judged


def _array(x: Any) -> Any:
    if x is None:
        return None
    if isinstance(x, list):
        return [_array(i) for i in x]
    x = x.detach()
    if getattr(x, "_is_zerotensor", lambda: False)():
        # PyTorch's zeros that own no memory (a gradient through where or stack): numpy()
        # refuses them, and numpy(force=True) of a 0-d one crashes the process (torch 2.13).
        return np.zeros(tuple(x.shape), dtype=str(x.dtype).removeprefix("torch."))
    return np.array(x.numpy(), copy=True)


def execute(p: Program, flavor: str) -> Outcome:
    """Run the program's source on the engine ("engine") or on PyTorch ("torch")."""
    source = render(p, flavor, run=True)
    results: dict = {}
    ns = dict(ENGINE if flavor == "engine" else torch_namespace())
    for leaf in p.leaves:  # what `literal` writes (parsing the numbers costs more than this)
        if leaf.value.dtype.kind == "f":
            ns[leaf.name] = ns["Tensor"](leaf.value.tolist(), requires_grad=leaf.requires_grad)
        else:
            ns[leaf.name] = ns["tensor"](leaf.value.tolist())
    ns["record"] = lambda key, value: results.__setitem__(key, _array(value))

    def safe(k: int, out: Any, *inputs: Any) -> Any:
        check_node(p.body[k], [_array(i) for i in inputs], _array(out))
        return out

    ns["_safe"] = safe
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, "<program>", "exec"), ns)
    except Unsafe as error:
        return Outcome(results, invalid=str(error))
    except Exception as error:
        return Outcome(results, error=_where(error, source))
    return Outcome(results)


def _where(error: Exception, source: str) -> str:
    lines = [
        f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == "<program>"
    ]
    at = source.splitlines()[lines[-1] - 1].strip() if lines and lines[-1] else "?"
    return f"{type(error).__name__} at `{at}`: {str(error)[:300]}"


def numeric(p: Program) -> Outcome | None:
    try:
        results = numeric_outcome(p)
    except Unsafe as error:
        return Outcome({}, invalid=str(error))
    except Exception as error:  # the engine's forward raised: the engine's run will say so
        return Outcome({}, invalid=f"the forward pass raised {error!r}")
    return None if results is None else Outcome(results)


ORACLES = {"torch": lambda p: execute(p, "torch"), "numeric": numeric}


# ------------------------------------------------------------------- comparing


def _same(want: Any, got: Any, rtol: float, atol: float) -> bool:
    if isinstance(want, list) or isinstance(got, list):
        return (
            isinstance(want, list)
            and isinstance(got, list)
            and len(want) == len(got)
            and all(_same(w, g, rtol, atol) for w, g in zip(want, got, strict=True))
        )
    if want is None and got is None:
        return True
    # No gradient reached it (None) and a gradient of zeros say the same.
    want = np.zeros_like(got) if want is None else want
    got = np.zeros_like(want) if got is None else got
    if want.shape != got.shape:
        return False
    size = np.abs(want)
    scale = max(1.0, float(size.max(initial=0.0)))
    return bool(np.all(np.abs(got - want) <= atol * scale + rtol * size))


def category(p: Program, key: str) -> str:
    """What a result is: "value", "gradient", "hook" or "second" (derivative)."""
    if key.startswith("hook"):
        return "hook"
    step = p.steps[int(key.split()[0]) - 1]
    if step.kind == "second" and not key.endswith(" loss"):
        return "second"
    return "value" if key.endswith(" loss") else "gradient"


def _tolerance(p: Program, key: str, oracle: str) -> tuple[float, float]:
    if oracle == "torch":
        return 1e-6, 1e-8
    return (1e-3, 1e-4) if category(p, key) == "second" else (1e-4, 1e-5)


def show(value: Any) -> str:
    """A recorded value, short.

    >>> show(np.array([1.0, 2.0 / 3])), show(None), show([np.array(1.0)])
    ('[1.      , 0.666667]', 'None', '[1.]')
    """
    if value is None:
        return "None"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return np.array2string(np.round(value, 6), separator=", ", threshold=20).replace("\n", "")


@dataclass
class Verdict:
    # "ok", "fail", "invalid" (near a kink, or the oracle refused), "unmodelled", or
    # "pytorch" (PyTorch's defect, confirmed by central differences: see the module docstring)
    status: str
    mismatches: list = field(default_factory=list)  # (key or "error", category, text)
    want: Outcome | None = None
    got: Outcome | None = None
    defect: str = ""

    @property
    def kind(self) -> str:
        return "+".join(sorted({m[1] for m in self.mismatches}))


def check(p: Program, oracle: str) -> Verdict:
    """Run ``p`` on the oracle, then (where it is judged) on the engine, and compare."""
    want = ORACLES[oracle](p)
    if want is None:
        return Verdict("unmodelled")
    if want.invalid or want.error:
        return Verdict("invalid", want=want)
    got = execute(p, "engine")
    found = []
    if got.error:
        found.append(("error", "error", f"the engine raised {got.error}"))
    for key, w in want.results.items():
        if key in got.results and not _same(w, got.results[key], *_tolerance(p, key, oracle)):
            text = f"{key}: engine {show(got.results[key])}, {ORACLE_NAMES[oracle]} {show(w)}"
            found.append((key, category(p, key), text))
    if found and oracle == "torch" and not got.error:
        defect = pytorch_defect(p, found, want, got)
        if defect is not None:
            return Verdict("pytorch", found, want, got, defect)
    return Verdict("fail" if found else "ok", found, want, got)


def pytorch_defect(p: Program, found: list, want: Outcome, got: Outcome) -> str | None:
    """The name of PyTorch's defect when central differences side with the engine on every
    value that differs (and with PyTorch on none), and the program shows a named defect;
    else None. A confirmed disagreement with no name is reported in its text."""
    if any(kind not in ("gradient", "second") for _, kind, _ in found):
        return None  # PyTorch's defects named here are in gradients, never in a value
    tie = numeric(p)
    if tie is None or tie.invalid or tie.error:
        return None
    for key, _, _ in found:
        if key not in tie.results:
            return None
        tolerance = _tolerance(p, key, "numeric")
        if not _same(tie.results[key], got.results[key], *tolerance):
            return None
        if _same(tie.results[key], want.results[key], *tolerance):
            return None
    source = render(p)
    for name, pattern in PYTORCH_DEFECTS.items():
        if re.search(pattern, source):
            return name
    found.append(
        (
            "error",
            "unnamed",
            "central differences agree with the engine and not with PyTorch: "
            "if PyTorch is wrong here, name its defect in fuzz_oracle.PYTORCH_DEFECTS",
        )
    )
    return None


def _laid_out(make: Any, a: np.ndarray, ns: dict) -> Any:
    """PyTorch's tensor of ``a``'s values, laid out in memory as ``a`` is (``from_numpy``
    keeps the strides), so that ``view`` judges the same layout."""
    if a.ndim and a.dtype.kind == "f" and all(s >= 0 for s in a.strides):
        return ns["torch"].from_numpy(a)
    return make(a.tolist())


def refusals(p: Program) -> list[str]:
    """The nodes the engine raised on while the program was generated but PyTorch computes
    (each as a runnable snippet)."""
    found = []
    ns = torch_namespace()
    for node, arrays, error in p.refused:
        make = [ns["Tensor"] if a.dtype.kind == "f" else ns["tensor"] for a in arrays]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn = compiled(node.torch or node.expr, len(arrays), ns)
                fn(*[_laid_out(m, a, ns) for m, a in zip(make, arrays, strict=True)])
        except Exception:
            continue  # PyTorch refuses too
        leaves = [Leaf(name, a) for name, a in zip(node.inputs, arrays, strict=True)]
        found.append(
            f"# {p.label}\n{ENGINE_HEADER}\n"
            + "".join(f"{leaf.name} = {literal(leaf)}\n" for leaf in leaves)
            + f"{node.expr.format(*node.inputs)}  # PyTorch computes it; the engine raises {error}"
        )
    return found


# ------------------------------------------------------------------- shrinking


def shrink(p: Program, oracle: str, budget: int = 300) -> Program:
    """A smaller program that fails in the same way (greedy: the first smaller program that
    does, again), with its names numbered anew."""
    first = check(p, oracle)
    progress = True
    while progress and budget > 0:
        progress = False
        for candidate in _smaller(p):
            budget -= 1
            verdict = check(candidate, oracle)
            if verdict.status == "fail" and _same_kind(verdict, first):
                p, progress = candidate, True
                break
            if budget <= 0:
                break
    return renamed(p)


def _same_kind(verdict: Verdict, first: Verdict) -> bool:
    """Whether ``verdict`` shows some of ``first``'s disagreements and no new kind (an error
    of the same type): a shrunk program keeps to the defect it was found for."""

    def errors(v: Verdict) -> set:
        return {text.split(" at ")[0] for _, kind, text in v.mismatches if kind == "error"}

    kinds = {m[1] for m in verdict.mismatches}
    return kinds <= {m[1] for m in first.mismatches} and errors(verdict) <= errors(first)


def _smaller(p: Program):
    steps, body, loss = p.steps, p.body, p.body[-1]
    for i in range(len(steps)):  # a step fewer, keeping a pass
        rest = steps[:i] + steps[i + 1 :]
        if any(s.kind in PASSES for s in rest):
            yield _tidy(p.copy(steps=rest))
    for i, s in enumerate(steps):  # a plain backward instead
        if s.kind in ("twice", "inputs", "grad"):
            yield p.copy(steps=steps[:i] + [Step("backward")] + steps[i + 1 :])
    for i in range(len(p.hooks)):
        yield p.copy(hooks=p.hooks[:i] + p.hooks[i + 1 :])
    for i in range(len(p.retained)):
        yield p.copy(retained=p.retained[:i] + p.retained[i + 1 :])
    for i, leaf in enumerate(p.leaves):  # two decimals (a leaf made of a node's value)
        short = np.rint(leaf.value * 100) / 100 if leaf.value.dtype.kind == "f" else leaf.value
        if not np.array_equal(short, leaf.value):
            leaves = p.leaves[:i] + [dataclasses.replace(leaf, value=short)] + p.leaves[i + 1 :]
            yield p.copy(leaves=leaves)
    kept = {n.name for n in body if n.keep}
    if len(loss.inputs) > 1:  # a loss term fewer
        for i in range(len(loss.inputs)):
            if loss.inputs[i] in kept:
                continue
            inputs = loss.inputs[:i] + loss.inputs[i + 1 :]
            expr = loss_expr(len(inputs))
            yield _tidy(
                p.copy(body=body[:-1] + [dataclasses.replace(loss, expr=expr, inputs=inputs)])
            )
    shapes = {leaf.name: leaf.value.shape for leaf in p.leaves}
    shapes.update({n.name: n.value.shape for n in body if n.value is not None})
    req = requiring_grad(p)
    for node in [n for n in reversed(body[:-1]) if not n.keep]:
        for i in dict.fromkeys(node.inputs):  # skip the node: its consumers read its input
            if shapes.get(i) == shapes.get(node.name) and i in shapes:
                yield _tidy(_replace(p, node.name, i))
        if node.value is not None and len(node.inputs) and any(i in shapes for i in node.inputs):
            leaf = Leaf(node.name, node.value, node.name in req)  # the node's value as a leaf
            rest = [n for n in body if n is not node]
            yield _tidy(
                p.copy(
                    leaves=p.leaves + [leaf],
                    body=rest,
                    retained=[r for r in p.retained if r != node.name],
                )
            )
        if node.expr in ("({0} * {1}).sum()", "({0} * {1}).mean()", "{0}.sum() * 0.5"):
            plain = dataclasses.replace(node, expr="{0}.sum()", inputs=node.inputs[:1])
            yield _tidy(p.copy(body=[plain if n is node else n for n in body]))


def _replace(p: Program, old: str, new: str) -> Program:
    body = [
        dataclasses.replace(n, inputs=tuple(new if i == old else i for i in n.inputs))
        for n in p.body
        if n.name != old
    ]
    return p.copy(
        body=body,
        hooks=[h for h in p.hooks if h.target != old],
        retained=[r for r in p.retained if r != old],
    )


def _tidy(p: Program) -> Program:
    """Without the nodes the loss does not read, and the leaves nothing reads."""
    needed = {"loss"}
    for node in reversed(p.body):
        if node.name in needed:
            needed.update(node.inputs)
    body = [n for n in p.body if n.name in needed]
    steps = [s for s in p.steps if not s.leaf or s.leaf in needed]
    reached = live(p.copy(body=body))  # autograd.grad refuses a leaf the loss does not use
    steps = [
        dataclasses.replace(s, leaves=tuple(x for x in s.leaves if x in reached)) for s in steps
    ]
    steps = [s for s in steps if s.leaves or s.kind not in ("inputs", "grad", "second")]
    for s in steps:
        if s.kind == "second":
            needed.update(f"u{x}" for x in s.leaves)
    leaves = [leaf for leaf in p.leaves if leaf.name in needed]
    kept = {leaf.name for leaf in leaves}
    if not any(s.kind in PASSES for s in steps):
        steps = [Step("backward")] + steps
    names = kept | {n.name for n in body}
    return p.copy(
        leaves=leaves,
        body=body,
        steps=steps,
        hooks=[h for h in p.hooks if h.target in names],
        retained=[r for r in p.retained if r in names],
    )


def renamed(p: Program) -> Program:
    """The same program with names numbered in order (x0, x1, ..., v0, ..., s0, ...)."""
    new: dict[str, str] = {"loss": "loss"}
    counts: Counter = Counter()

    def name(old: str, prefix: str) -> None:
        new[old] = f"{prefix}{counts[prefix]}"
        counts[prefix] += 1

    terms = set(p.body[-1].inputs)
    for leaf in p.leaves:
        if not leaf.name.startswith("u"):
            kind = leaf.value.dtype.kind
            prefix = "x" if leaf.requires_grad else leaf.name[0] if leaf.name[0] in "cw" else "c"
            name(leaf.name, prefix if kind == "f" else "m" if kind == "b" else "i")
    for leaf in p.leaves:
        if leaf.name.startswith("u"):
            new[leaf.name] = "u" + new[leaf.name[1:]]
    for node in p.body[:-1]:
        name(node.name, "s" if node.name in terms else "v")
    for hook in p.hooks:
        if hook.seen:
            name(hook.seen, "seen")
    return p.copy(
        leaves=[dataclasses.replace(leaf, name=new[leaf.name]) for leaf in p.leaves],
        body=[
            dataclasses.replace(n, name=new[n.name], inputs=tuple(new[i] for i in n.inputs))
            for n in p.body
        ],
        hooks=[
            dataclasses.replace(h, target=new[h.target], seen=new.get(h.seen, "")) for h in p.hooks
        ],
        retained=[new[r] for r in p.retained],
        steps=[
            dataclasses.replace(s, leaf=new.get(s.leaf, ""), leaves=tuple(new[x] for x in s.leaves))
            for s in p.steps
        ],
    )


def describe(p: Program, verdict: Verdict, oracle: str) -> str:
    """The program as source a developer can paste, printing the values that differ with
    the oracle's in a comment, under a header naming the disagreements."""
    name = ORACLE_NAMES[oracle]
    notes = {
        key: f"{name}: {show(verdict.want.results[key])}"
        for key, _, _ in verdict.mismatches
        if key != "error"
    }
    head = [f"# {p.label}: the engine and {name} disagree ({verdict.kind})"]
    head += [f"#   {text}" for _, _, text in verdict.mismatches]
    return "\n".join(head) + "\n" + render(p, "repro", notes)


# ------------------------------------------------------------------ many runs


@dataclass
class Summary:
    oracle: str
    judged: int = 0
    skipped: Counter = field(default_factory=Counter)  # why a program was not judged
    failures: list = field(default_factory=list)  # (program, verdict)
    refused: list = field(default_factory=list)  # snippets the engine raises on, PyTorch not
    defects: list = field(default_factory=list)  # (program, verdict): PyTorch's, confirmed

    def classes(self) -> Counter:
        return Counter(v.kind for _, v in self.failures)

    def text(self, shrunk: int = 3, listed: int = 25) -> str:
        """The counts, then the first failing program of each class, shrunk, as source."""
        lines = [
            f"{self.judged} programs judged against {ORACLE_NAMES[self.oracle]}: "
            f"{len(self.failures)} disagree {dict(self.classes())}; not judged: "
            f"{dict(self.skipped)}"
            + (
                f"; forms the engine raises on and PyTorch computes: {len(self.refused)}"
                if self.oracle == "torch"
                else ""
            )
        ]
        named: dict = {}
        for p, verdict in self.defects:
            named.setdefault(verdict.defect, []).append(p.label.split()[-1])
        for name, indices in named.items():
            lines.append(
                f"  PyTorch's defect (central differences side with the engine) in programs "
                f"{', '.join(indices[:10])}: {name}"
            )
        shown: set = set()
        for p, verdict in self.failures[:listed]:
            lines.append(f"  {p.label}: {verdict.kind}: {verdict.mismatches[0][2][:160]}")
        if len(self.failures) > listed:
            lines.append(f"  ... and {len(self.failures) - listed} more")
        for p, verdict in self.failures:
            if verdict.kind in shown or len(shown) >= shrunk:
                continue
            shown.add(verdict.kind)
            small = shrink(p, self.oracle)
            lines += ["", describe(small, check(small, self.oracle), self.oracle)]
        lines += ["", *self.refused[:3]]
        return "\n".join(lines)


def run(seed: int, count: int, oracle: str, summary: Summary | None = None) -> Summary:
    """Generate and judge programs 0..count-1 of ``seed``."""
    summary = summary or Summary(oracle)
    for index in range(count):
        p = generate(seed, index)
        verdict = check(p, oracle)
        if verdict.status in ("invalid", "unmodelled"):
            summary.skipped[verdict.status] += 1
            continue
        summary.judged += 1
        if verdict.status == "fail":
            summary.failures.append((p, verdict))
        elif verdict.status == "pytorch":
            summary.defects.append((p, verdict))
        if oracle == "torch":
            summary.refused += refusals(p)
    return summary


def replay_command(seed: int, index: int, oracle: str) -> str:
    return f"python tests/fuzz_oracle.py --seed {seed} --index {index} --oracle {oracle}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--index", type=int, help="show this one program, shrunk if it fails")
    parser.add_argument("--oracle", choices=sorted(ORACLES), default=default_oracle())
    args = parser.parse_args(argv)
    if args.index is None:
        summary = run(args.seed, args.count, args.oracle)
        print(summary.text())
        return 1 if summary.failures else 0
    p = generate(args.seed, args.index)
    verdict = check(p, args.oracle)
    if verdict.status != "fail":
        print(render(p, "repro"))
        print(f"# {p.label}: {verdict.status}")
        return 0
    small = shrink(p, args.oracle)
    print(describe(small, check(small, args.oracle), args.oracle))
    return 1


if __name__ == "__main__":
    sys.exit(main())
