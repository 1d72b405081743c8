"""Random programs over the ``Tensor`` engine, and their Python source.

A program is a forward pass (leaves, then nodes built in a random topological order, so
independent subexpressions come in any order, then a scalar loss that sums a weighted term per
result) and a schedule: backward passes (plain, twice through a retained graph, with
``inputs=``, or ``autograd.grad``), in-place updates of the leaves under ``no_grad`` and
gradient resets between them, and at times a second-order stage (``create_graph=True``, then
the gradient of ``sum(grad * u)``: a Hessian-vector product). Hooks (observers, and hooks that
return a new gradient) sit on leaves and intermediates, and some intermediates retain their
gradient.

The generator draws from :data:`fuzz_ops.FAMILIES` and evaluates each node with the engine as
it goes (values only, nothing recorded), to keep every input inside its operation's domain.
:func:`render` writes the program as source: for the engine (what is run and what a developer
pastes) or for PyTorch (the oracle), from the same nodes.

>>> p = generate(0, 0)
>>> "loss.backward" in render(p) or "autograd.grad" in render(p)
True
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import fuzz_ops
import numpy as np

# In-place changes in a graph, as functions of a copy (the same in both libraries).
_IN_PLACE = """

def written(t, index, value):  # t[index] = value, recorded
    t[index] = value
    return t


def through_view(t, index, factor):  # a view of t changed in place: t changes with it
    t[index].mul_(factor)
    return t
"""

ENGINE_HEADER = (
    """\
from micrograd_edu import no_grad
from micrograd_edu.nn import functional as F
from micrograd_edu.tensor import (
    Tensor, cat, concatenate, cross_entropy, matmul, maximum, minimum, mse_loss, stack, tensor,
    where,
)
from micrograd_edu.torchlike import autograd
"""
    + _IN_PLACE
)

TORCH_HEADER = (
    """\
import torch
import torch.nn.functional as F
from torch import autograd, cat, matmul, maximum, minimum, no_grad, stack, tensor, where
from torch.nn.functional import cross_entropy, mse_loss


def Tensor(data, requires_grad=False):
    return torch.tensor(data, dtype=torch.float64, requires_grad=requires_grad)
"""
    + _IN_PLACE
)


def namespace(header: str) -> dict:
    """The names a program's source uses, by running its header."""
    ns: dict = {}
    exec(header, ns)
    return ns


ENGINE = namespace(ENGINE_HEADER)
_compiled: dict = {}


def compiled(expr: str, arity: int, ns: dict = ENGINE) -> Callable[..., Any]:
    """``expr`` (with ``{0}``, ``{1}``, ... for its inputs) as a function of its inputs."""
    key = (id(ns), expr, arity)
    fn = _compiled.get(key)
    if fn is None:
        names = [f"_{i}" for i in range(arity)]
        fn = _compiled[key] = eval(f"lambda {', '.join(names)}: {expr.format(*names)}", ns)
    return fn


# ----------------------------------------------------------------- the program


@dataclass
class Leaf:
    name: str
    value: np.ndarray
    requires_grad: bool = False


@dataclass
class Node:
    name: str
    expr: str  # the engine's source, inputs as {0}, {1}, ...
    inputs: tuple[str, ...]
    torch: str | None = None  # PyTorch's source where it is spelled differently
    safe: Callable[..., bool] | None = None  # on the input arrays: inside the domain?
    stop: bool = False  # detach() or computed under no_grad(): no gradient flows through
    no_grad: bool = False
    value: np.ndarray | None = None  # its value when generated (the shrinker makes leaves of it)
    keep: bool = False  # the shrinker keeps it (the term that gives a gradient a graph)
    rounds: bool = False  # rounds to float32 on the way: central differences cannot follow


@dataclass
class Hook:
    target: str
    scale: float | None = None  # None: an observer that appends to the list `seen`
    shift: float = 0.0
    seen: str = ""

    def source(self, flavor: str = "engine") -> str:
        if self.scale is None:
            # PyTorch's own accumulation may later write into a gradient its hook kept (when
            # .grad is a view of it): the oracle keeps what the hook was given.
            return (
                f"lambda g: {self.seen}.append(g.clone())"
                if flavor == "torch"
                else (f"{self.seen}.append")
            )
        shift = f" + {self.shift}" if self.shift > 0 else f" - {-self.shift}" if self.shift else ""
        return f"lambda g: g * {self.scale}{shift}"


@dataclass
class Step:
    """One statement of the schedule. ``kind``: "backward", "twice" (through a retained
    graph), "inputs" (``backward(inputs=...)``), "grad" (``autograd.grad``), "update" (of
    ``leaf`` under ``no_grad``, ``form`` its source with ``{x}`` for the leaf, ``apply`` the
    same on arrays), "zero"
    (``form`` "none" or "zero_") or "second" (``form`` "backward" or "grad")."""

    kind: str
    leaf: str = ""
    form: str = ""
    leaves: tuple[str, ...] = ()
    apply: Callable[[np.ndarray, Any], np.ndarray] | None = None
    needs_grad: bool = False


@dataclass
class Program:
    leaves: list[Leaf]
    body: list[Node]  # in the order they are built; the last one is `loss`
    hooks: list[Hook] = field(default_factory=list)
    retained: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    label: str = ""
    refused: list = field(default_factory=list)  # drafts the engine raised on: (node, arrays)

    def copy(self, **changes: Any) -> Program:
        return dataclasses.replace(self, **changes)


def requiring_grad(p: Program) -> set[str]:
    """The names whose tensors require grad (leaves that do, and what is computed from them
    where gradients are recorded)."""
    req = {leaf.name for leaf in p.leaves if leaf.requires_grad}
    for node in p.body:
        if not node.stop and any(i in req for i in node.inputs):
            req.add(node.name)
    return req


def live(p: Program) -> set[str]:
    """The names a gradient of the loss reaches (structurally: the value may be 0)."""
    req = requiring_grad(p)
    alive = {"loss"} & req
    for node in reversed(p.body):
        if node.name in alive and not node.stop:
            alive.update(i for i in node.inputs if i in req)
    return alive


def grad_leaves(p: Program) -> list[str]:
    return [leaf.name for leaf in p.leaves if leaf.requires_grad]


# ------------------------------------------------------------------ generation


@dataclass
class Item:
    name: str
    value: np.ndarray
    req: bool
    uses: int = 0


@dataclass
class Draft:
    expr: str
    inputs: list[Item]
    torch: str | None
    safe: Callable[..., bool] | None
    stop: bool
    no_grad: bool
    pending: list[Leaf]
    rounds: bool = False


def _uniform(rng: np.random.Generator, low: float, high: float, size: Any) -> np.ndarray:
    """Uniform numbers with two decimals: k / 100 is the float the literal shows."""
    return rng.integers(round(low * 100), round(high * 100) + 1, size=size) / 100.0


class Generator:
    """What the families of :mod:`fuzz_ops` draw with (see their calls)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng, self.focus = rng, False  # focus: build on tensors that require grad
        self.items: dict[str, Item] = {}
        self.leaves: list[Leaf] = []
        self.nodes: list[Node] = []
        self.pending: list[Leaf] = []
        self.tensors: dict[str, Any] = {}  # engine tensors (nothing recorded) of the values
        self.refused: list = []
        self._names = itertools.count()

    # the families' vocabulary
    def coin(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, options: list) -> Any:
        return options[int(self.rng.integers(0, len(options)))]

    def shape(self, min_ndim: int = 0, max_ndim: int = 3) -> tuple[int, ...]:
        nd = self.choice([n for n in [0, 1, 1, 2, 2, 2, 3] if min_ndim <= n <= max_ndim])
        return tuple(int(n) for n in self.rng.choice([1, 2, 3, 3], size=nd))

    def fresh(self, shape: tuple, positive: bool = False, req: bool | None = None) -> Item:
        low, high = (0.3, 2.0) if positive else (-1.5, 1.5)
        value = _uniform(self.rng, low, high, shape)
        req = (self.focus or self.coin(0.75)) if req is None else req
        leaf = Leaf(f"{'x' if req else 'c'}{next(self._names)}", value, req)
        self.pending.append(leaf)
        return Item(leaf.name, value, req)

    def const(self, value: np.ndarray, prefix: str) -> Item:
        leaf = Leaf(f"{prefix}{next(self._names)}", np.asarray(value))
        self.pending.append(leaf)
        return Item(leaf.name, leaf.value, False)

    def pick(self, test: Callable[[Item], bool] | None = None) -> Item | None:
        """A float tensor of the program so far (those used most, most often: fan-out)."""
        found = [it for it in self.items.values() if it.value.dtype.kind == "f"]
        found = [it for it in found if (test is None or test(it)) and (it.req or not self.focus)]
        if not found:
            return None
        if self.coin(0.3):
            return found[-1]
        weights = np.array([1.0 + 2 * it.uses for it in found])
        return found[int(self.rng.choice(len(found), p=weights / weights.sum()))]

    def broadcastable(self, shape: tuple) -> tuple[int, ...]:
        """A shape that broadcasts with ``shape`` (fewer axes, axes of 1, or more)."""
        if self.coin(0.3):
            return tuple(shape)
        out = [int(self.rng.integers(2, 4)) if n == 1 and self.coin(0.3) else n for n in shape]
        out = [1 if self.coin(0.35) else n for n in out]
        if out and self.coin(0.3):
            out = out[int(self.rng.integers(1, len(out) + 1)) :]
        if len(out) < 3 and self.coin(0.2):
            out = [int(self.rng.integers(1, 3))] + out
        return tuple(out)

    def operand(self, shape: tuple, positive: bool = False) -> Item:
        """A tensor of exactly ``shape``: one of the program's, or a new leaf."""
        same = self.pick(lambda it: it.value.shape == tuple(shape))
        if same is not None and self.coin(0.5) and (not positive or same.value.min() > 0.2):
            return same
        return self.fresh(tuple(shape), positive)

    def partner(self, shape: tuple, positive: bool = False) -> Item:
        """A tensor that broadcasts with ``shape``: one of the program's, or a new leaf."""
        if self.coin(0.5):
            found = self.pick(lambda it: _broadcasts(it.value.shape, shape))
            if found is not None and (not positive or found.value.min() > 0.2):
                return found
        return self.fresh(self.broadcastable(shape), positive)

    def draft(
        self, expr, inputs, torch=None, safe=None, stop=False, no_grad=False, rounds=False
    ) -> Draft:
        pending, self.pending = self.pending, []
        return Draft(expr, inputs, torch, safe, stop, no_grad, pending, rounds)

    # building
    def keep_pending(self) -> None:
        """Keep the new leaves drawn since the last draft in the program."""
        for leaf in self.pending:
            self.leaves.append(leaf)
            self.items[leaf.name] = Item(leaf.name, leaf.value, leaf.requires_grad)
        self.pending = []

    def tensor(self, name: str, value: np.ndarray) -> Any:
        t = self.tensors.get(name)
        if t is None:
            maker = ENGINE["Tensor"] if value.dtype.kind == "f" else ENGINE["tensor"]
            t = self.tensors[name] = maker(value.tolist())
        return t

    def commit(self, draft: Draft | None, name: str | None = None, bound=30.0) -> Item | None:
        """Evaluate ``draft`` with the engine; keep it if its inputs are inside the domain
        and its result is small and finite."""
        self.pending = []
        if draft is None:
            return None
        known = {leaf.name: leaf.value for leaf in draft.pending}
        arrays = [known.get(it.name, it.value) for it in draft.inputs]
        args = [self.tensor(it.name, a) for it, a in zip(draft.inputs, arrays, strict=True)]
        node = Node(
            name or f"v{next(self._names)}",
            draft.expr,
            tuple(i.name for i in draft.inputs),
            draft.torch,
            draft.safe,
            draft.stop,
            draft.no_grad,
            rounds=draft.rounds,
        )
        try:
            if draft.safe is not None and not draft.safe(*arrays):
                return None
        except ValueError:  # shapes that do not broadcast: the operation will say so
            pass
        try:
            out = compiled(draft.expr, len(args))(*args)
            value = np.array(out.numpy())
        except Exception as error:  # checked against PyTorch later: it may accept them
            # The engine's own arrays: their layout in memory decides what `view` allows.
            self.refused.append((node, [a._data for a in args], repr(error)))
            return None
        if value.dtype.kind != "f" or not _tame(value, bound) or value.size > 48:
            return None
        self.pending = draft.pending
        self.keep_pending()
        for it in draft.inputs:
            self.items[it.name].uses += 1
        req = not draft.stop and any(self.items[it.name].req for it in draft.inputs)
        node.value = value
        self.nodes.append(node)
        self.tensors[node.name] = out
        self.items[node.name] = Item(node.name, value, req)
        return self.items[node.name]


def _broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _tame(value: np.ndarray, bound: float) -> bool:
    return value.size > 0 and bool(np.all(np.isfinite(value))) and np.abs(value).max() <= bound


def generate(seed: int, index: int, focus: tuple | None = None) -> Program:
    """Program ``index`` of the run ``seed``. ``focus`` = (family, name) builds that
    operation first, on inputs that require grad (to test one rule)."""
    rng = np.random.default_rng([seed, index])
    g = Generator(rng)
    for _ in range(int(rng.integers(1, 4))):
        g.fresh(g.shape(), req=True)
        g.keep_pending()
    if focus is not None:
        family, name = focus
        g.focus = True
        for _ in range(50):
            if g.commit(family(g, name)):
                break
        g.focus = False
    families, weights = zip(*fuzz_ops.FAMILIES.items(), strict=True)
    share = np.array(weights, dtype=float) / sum(weights)
    size = int(rng.integers(2, 11))
    for _ in range(60):
        if len(g.nodes) >= size:
            break
        g.commit(families[int(rng.choice(len(families), p=share))](g))
    second = rng.random() < 0.25
    if second:  # a term nonlinear in a leaf, so the gradient has a graph to differentiate
        x = next(leaf for leaf in g.leaves if leaf.requires_grad)
        g.commit(g.draft("{0} * {0}", [g.items[x.name]]))
        g.nodes[-1].keep = True
    _add_loss(g)
    body = _random_order(rng, g.nodes)
    program = Program(g.leaves, body, label=f"seed {seed}, program {index}", refused=g.refused)
    _add_hooks(rng, g, program, second)
    program.steps = _schedule(rng, g, program, second)
    return program


def _add_loss(g: Generator) -> None:
    """The loss: a term for each result nothing reads (and for a few others), a weighted
    sum, a sum, or two results added and then summed, the terms added in a random order."""
    consumed = {i for node in g.nodes for i in node.inputs}
    kept = {node.name for node in g.nodes if node.keep}
    results = [
        g.items[node.name]
        for node in g.nodes
        if g.items[node.name].req and (node.name not in consumed or g.coin(0.25))
    ]
    terms = []
    while results:
        item = results.pop(0)
        other = next((r for r in results if _broadcasts(r.value.shape, item.value.shape)), None)
        if other is not None and g.coin(0.4):
            results.remove(other)
            draft = g.draft("({0} + {1}).sum()", [item, other])
        elif g.coin(0.65):
            weight = g.const(_uniform(g.rng, -1.5, 1.5, item.value.shape), "w")
            draft = g.draft(g.choice(["({0} * {1}).sum()", "({0} * {1}).mean()"]), [item, weight])
        else:
            draft = g.draft(g.choice(["{0}.sum()", "{0}.sum() * 0.5"]), [item])
        term = g.commit(draft, f"s{next(g._names)}", bound=1e4)
        if term is not None:
            terms.append(term)
            g.nodes[-1].keep = any(it.name in kept for it in draft.inputs)
    if not terms:
        x = g.items[next(leaf.name for leaf in g.leaves if leaf.requires_grad)]
        terms.append(g.commit(g.draft("{0}.sum()", [x]), f"s{next(g._names)}", bound=1e4))
        if terms[0] is None:
            raise RuntimeError(f"the engine cannot sum a leaf: {g.refused[-1][2]}")
    order = [terms[int(i)] for i in g.rng.permutation(len(terms))]
    g.commit(g.draft(loss_expr(len(order)), order), "loss", bound=1e4)


def loss_expr(terms: int) -> str:
    """The terms added up. One term is multiplied by 1.0 rather than named ``loss``: two
    names for one tensor would share its hooks, which central differences cannot follow."""
    return " + ".join(f"{{{i}}}" for i in range(terms)) if terms > 1 else "{0} * 1.0"


def _random_order(rng: np.random.Generator, nodes: list[Node]) -> list[Node]:
    """The nodes in a random topological order (the loss stays last)."""
    made = {n.name for n in nodes}
    left, done, order = list(nodes[:-1]), set(), []
    while left:
        ready = [n for n in left if all(i in done or i not in made for i in n.inputs)]
        pick = ready[int(rng.integers(0, len(ready)))]
        left.remove(pick)
        done.add(pick.name)
        order.append(pick)
    return order + [nodes[-1]]


def _add_hooks(rng: np.random.Generator, g: Generator, p: Program, second: bool) -> None:
    """Hooks on leaves and intermediates, and retained intermediates. Not on intermediates
    when a gradient is differentiated again: whether the second pass goes through a forward
    tensor (and fires its hooks) depends on how each VJP is written (PyTorch's prod and
    relu read their result, this engine's div does), not on the mathematics."""
    req = requiring_grad(p)
    lists = itertools.count()
    names = [leaf.name for leaf in p.leaves] + ([] if second else [n.name for n in p.body])
    names = [name for name in names if name in req]
    for _ in range(int(rng.choice([0, 0, 0, 0, 1, 1, 2, 3]))):
        name = g.choice(names)
        if rng.random() < 0.4:
            p.hooks.append(Hook(name, seen=f"seen{next(lists)}"))
        else:
            scale = g.choice([0.5, -1.0, 2.0, 1.5])
            p.hooks.append(Hook(name, scale, g.choice([0.0, 0.0, 0.25, -0.5])))
    inner = [n.name for n in p.body[:-1] if n.name in req]
    if not second and inner and rng.random() < 0.15:
        p.retained = sorted({g.choice(inner) for _ in range(int(rng.integers(1, 3)))})


def _update(g: Generator, x: Leaf) -> Step:
    forms = [
        ("{x} -= 0.1 * {x}.grad", lambda a, d: a - 0.1 * d, True),
        ("{x}.add_({x}.grad, alpha=-0.05)", lambda a, d: a - 0.05 * d, True),
        ("{x}.sub_(0.1 * {x}.grad)", lambda a, d: a - 0.1 * d, True),
        ("{x}.mul_(0.9)", lambda a, d: a * 0.9, False),
        ("{x} += 0.05", lambda a, d: a + 0.05, False),
        ("{x} *= 1.1", lambda a, d: a * 1.1, False),
        ("{x}.div_(2.0)", lambda a, d: a / 2.0, False),
        ("{x}.clamp_(-1.0, 1.0)", lambda a, d: np.clip(a, -1.0, 1.0), False),
    ]
    if x.value.ndim == 0:
        forms.append(("{x}.fill_(0.37)", lambda a, d: np.full_like(a, 0.37), False))
    else:
        k = int(g.rng.integers(-x.value.shape[0], x.value.shape[0]))
        forms.append((f"{{x}}[{k}] = 0.25", lambda a, d, k=k: _set(a, k, 0.25), False))
        new = _uniform(g.rng, -1.5, 1.5, x.value.shape)
        forms.append((f"{{x}}.copy_(Tensor({new.tolist()}))", lambda a, d, n=new: n.copy(), False))
    form, apply, needs = g.choice(forms)
    return Step("update", x.name, form, apply=apply, needs_grad=needs)


def _set(a: np.ndarray, k: int, v: float) -> np.ndarray:
    a = a.copy()
    a[k] = v
    return a


def _schedule(rng: np.random.Generator, g: Generator, p: Program, second: bool) -> list[Step]:
    alive = live(p)
    xs = [leaf for leaf in p.leaves if leaf.requires_grad]
    reached = tuple(x.name for x in xs if x.name in alive)

    def one_pass() -> Step:
        kind = g.choice(["backward"] * 7 + ["twice", "inputs", "grad"])
        if kind in ("inputs", "grad") and reached:
            chosen = [n for n in reached if rng.random() < 0.7] or [reached[0]]
            return Step(kind, leaves=tuple(chosen))
        return Step("twice" if kind == "twice" else "backward")

    steps = [one_pass()]
    while rng.random() < 0.35 and len(steps) < 7:
        x = g.choice(xs)
        if rng.random() < 0.7:
            steps.append(_update(g, x))
        else:
            steps.append(Step("zero", x.name, g.choice(["none", "zero_"])))
        steps.append(one_pass())
    if second and reached:
        if rng.random() < 0.3:
            steps.append(_update(g, g.choice(xs)))
        for name in reached:  # the vector u of the Hessian-vector product, one per leaf
            value = g.items[name].value
            p.leaves.append(Leaf(f"u{name}", _uniform(rng, -1.5, 1.5, value.shape)))
        steps.append(Step("second", form=g.choice(["backward", "grad"]), leaves=reached))
    return steps


# -------------------------------------------------------------------- rendering


def literal(leaf: Leaf) -> str:
    """The source that makes ``leaf``."""
    if leaf.value.dtype.kind != "f":
        return f"tensor({leaf.value.tolist()!r})"
    grad = ", requires_grad=True" if leaf.requires_grad else ""
    return f"Tensor({leaf.value.tolist()!r}{grad})"


def render(p: Program, flavor: str = "engine", notes: dict | None = None, run=False) -> str:
    """The program as source. ``flavor``: "engine" (run with ``record(key, value)`` in its
    namespace), "torch" (the same for PyTorch, each node wrapped in ``_safe``), or "repro"
    (the engine's, printing each checked value; ``notes`` maps a key to a comment). With
    ``run``, without the header and the leaves: the namespace it runs in has them."""
    out = [""] if run else [ENGINE_HEADER if flavor != "torch" else TORCH_HEADER]
    for hook in p.hooks:
        if hook.seen:
            out.append(f"{hook.seen} = []")
    if not run:
        out += [f"{leaf.name} = {literal(leaf)}" for leaf in p.leaves]
    names = {leaf.name for leaf in p.leaves}
    for hook in p.hooks:
        if hook.target in names:
            out.append(f"{hook.target}.register_hook({hook.source(flavor)})")
    out += ["", "", "def forward():"]
    out += ["    " + line for line in _forward(p, flavor)]
    out += ["    return " + ", ".join(["loss", *p.retained]), ""]

    def record(key: str, expr: str) -> None:
        if flavor == "repro":
            note = (notes or {}).get(key)
            out.append(f"print({key!r}, {expr})" + (f"  # {note}" if note else ""))
        else:
            out.append(f"record({key!r}, {expr})")

    xs = grad_leaves(p)
    for k, step in enumerate(p.steps, 1):
        out.append("")
        if step.kind == "update":
            guard = f"if {step.leaf}.grad is not None:\n        " if step.needs_grad else ""
            out += ["with no_grad():", f"    {guard}{step.form.format(x=step.leaf)}"]
            continue
        if step.kind == "zero":
            if step.form == "none":
                out.append(f"{step.leaf}.grad = None")
            else:
                out.append(f"if {step.leaf}.grad is not None:\n    {step.leaf}.grad.zero_()")
            continue
        out.append(f"# step {k}: {step.kind}")
        out.append(", ".join(["loss", *p.retained]) + " = forward()")
        record(f"{k} loss", "loss")
        if step.kind == "grad":
            names = ", ".join(f"g_{x}" for x in step.leaves)
            out.append(f"{names}, = autograd.grad(loss, [{', '.join(step.leaves)}])")
            for x in step.leaves:
                record(f"{k} grad {x}", f"g_{x}")
        elif step.kind == "second":
            if step.form == "grad":
                names = ", ".join(f"g_{x}" for x in step.leaves)
                call = f"autograd.grad(loss, [{', '.join(step.leaves)}], create_graph=True)"
                out.append(f"{names}, = {call}")
            else:
                out.append("loss.backward(create_graph=True)")
                out += [f"g_{x} = {x}.grad" for x in step.leaves]
                out += [f"{x}.grad = None" for x in step.leaves]
            for x in step.leaves:
                record(f"{k} first {x}", f"g_{x}")
            out.append("hv = " + " + ".join(f"(g_{x} * u{x}).sum()" for x in step.leaves))
            out.append("hv.backward()")
            record(f"{k} hv", "hv")
        else:
            if step.kind == "twice":
                out += ["loss.backward(retain_graph=True)", "loss.backward()"]
            elif step.kind == "inputs":
                out.append(f"loss.backward(inputs=[{', '.join(step.leaves)}])")
            else:
                out.append("loss.backward()")
            for name in p.retained:
                record(f"{k} {name}.grad", f"{name}.grad")
        for x in xs:
            record(f"{k} {x}.grad", f"{x}.grad")
    for hook in p.hooks:
        if hook.seen:
            record(f"hook {hook.seen} on {hook.target}", hook.seen)
    return "\n".join(out) + "\n"


def _forward(p: Program, flavor: str) -> list[str]:
    lines = []
    for k, node in enumerate(p.body):
        expr = node.torch if flavor == "torch" and node.torch else node.expr
        call = expr.format(*node.inputs)
        if flavor == "torch":
            call = f"_safe({k}, {call}, {', '.join(node.inputs)})"
        line = f"{node.name} = {call}"
        lines += ["with no_grad():", f"    {line}"] if node.no_grad else [line]
        for hook in p.hooks:
            if hook.target == node.name:
                lines.append(f"{node.name}.register_hook({hook.source(flavor)})")
        if node.name in p.retained:
            lines.append(f"{node.name}.retain_grad()")
    return lines
