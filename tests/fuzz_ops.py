"""The operations the random programs of :mod:`fuzz_programs` draw from: every ``Tensor``
operation and call form, written as source text over the engine's public API.

Each family below is a function of the generator ``g`` (see ``fuzz_programs.Generator``)
that proposes one node: an expression with ``{0}``, ``{1}``, ... for its inputs, PyTorch's
spelling where it differs, and ``safe``, a test on the input arrays that keeps the node away
from the places where its derivative is undefined or its result ambiguous (a kink of ``relu``,
a tie of ``max``, ``log`` near 0). Programs that come near one are not compared, so every
disagreement is a real one. The elementwise families are built from ``RULES``, so a rule
added to the table is drawn too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd_edu import RULES

MARGIN = 5e-3  # how far from a kink or a tie an input must stay

# PyTorch's spelling of an elementwise rule where it is not ``x.name()``.
TORCH_UNARY = {"step": "{0}.sign().clamp(min=0)"}
SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}
BINARY_WEIGHTS = {"add": 4, "sub": 2, "mul": 2}  # the others: 1


def _away_from_zero(x: np.ndarray) -> bool:
    return bool(np.abs(x).min() > MARGIN)


# Where each rule's derivative is defined with room to spare (absent: everywhere).
UNARY_DOMAIN = {
    "exp": lambda x: x.max() < 3,
    "log": lambda x: x.min() > 0.1,
    "log1p": lambda x: x.min() > -0.8,
    "sqrt": lambda x: x.min() > 0.1,
    "tan": lambda x: np.abs(x).max() < 1.2,
    "relu": _away_from_zero,
    "abs": _away_from_zero,
    "sign": _away_from_zero,
    "step": _away_from_zero,
}
POSITIVE = {"log", "sqrt", "log1p"}  # fresh inputs for these are drawn positive


def number(x: float) -> str:
    """A float as short source text."""
    return repr(float(x))


def unique_extreme(x: np.ndarray, axes: tuple | None, largest: bool) -> bool:
    """Whether the largest (smallest) entry over ``axes`` leads the next by a margin.

    >>> unique_extreme(np.array([[1.0, 3.0], [2.0, 2.0]]), (1,), largest=True)
    False
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        return True
    axes = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    rest = [a for a in range(x.ndim) if a not in axes]
    rows = np.transpose(x, rest + list(axes)).reshape(-1, int(np.prod([x.shape[a] for a in axes])))
    if rows.shape[1] < 2:
        return True
    s = np.sort(rows, axis=1)
    gap = s[:, -1] - s[:, -2] if largest else s[:, 1] - s[:, 0]
    return bool(gap.min() > MARGIN)


def apart(a: np.ndarray, b: Any) -> bool:
    """Whether ``a`` and ``b`` (broadcast) differ everywhere by a margin."""
    return bool(np.abs(np.asarray(a, float) - np.asarray(b, float)).min() > MARGIN)


# ------------------------------------------------------------------- elementwise


def unary(g, name: str | None = None):
    name = name or g.choice([r.name for r in RULES.values() if r.arity == 1] + ["square"])
    domain = UNARY_DOMAIN.get(name)
    x = g.pick(lambda it: domain is None or domain(it.value))
    if x is None or g.coin(0.2):
        x = g.fresh(g.shape(), positive=name in POSITIVE)
    expr = {"neg": "-{0}", "abs": g.choice(["abs({0})", "{0}.abs()"])}.get(name, f"{{0}}.{name}()")
    return g.draft(expr, [x], torch=TORCH_UNARY.get(name), safe=domain)


def _binary_safe(name: str, left: Any, right: Any):
    """``safe`` for ``left op right`` where each side is an input array (None) or a number."""

    def safe(*arrays):
        it = iter(arrays)
        a = next(it) if left is None else left
        b = next(it) if right is None else right
        if name == "div":
            return bool(np.abs(b).min() > 0.2)
        if name == "pow":
            b = np.asarray(b, float)
            if np.all(b == np.round(b)) and right is not None:  # a constant integer power
                return bool(b.min() >= 0 or np.abs(a).min() > 0.2)
            return bool(np.min(a) > 0.1)
        return True

    return safe


def binary(g, name: str | None = None):
    """An arithmetic rule: tensor with tensor (often the same one), or with a number on
    either side, as an operator or a method."""
    if name is None:  # add and sub most: they hand on their gradient as it is (fan-out)
        names = [r.name for r in RULES.values() if r.arity == 2]
        name = g.choice([n for n in names for _ in range(BINARY_WEIGHTS.get(n, 1))])
    positive = name in ("pow",)
    a = g.pick() if not positive else g.pick(lambda it: it.value.min() > 0.1)
    if a is None:
        a = g.fresh(g.shape(), positive=positive)
    symbol = SYMBOLS.get(name)
    form = g.choice(["tt"] * 5 + ["tn"] * 3 + ["nt"] * 2) if symbol and not g.focus else "tt"
    if form == "tt":
        b = a if g.coin(0.3) else g.partner(a.value.shape, positive=name == "div")
        if name == "div" and np.abs(b.value).min() <= 0.2:
            b = g.fresh(b.value.shape, positive=True)
        if symbol is None or g.coin(0.3):
            expr = f"{{0}}.{name}({{1}})"
        else:
            expr = f"{{0}} {symbol} {{1}}"
        return g.draft(expr, [a, b], safe=_binary_safe(name, None, None))
    if name == "pow":
        k = g.choice([2, 3, 0.5, -1, 1.5, 0, -2, 2.0])
        k = k if form == "tn" else g.choice([2.0, 0.5, 3.0])
    elif name == "div":
        k = g.choice([2.0, -1.5, 0.5, 4.0])
    else:
        k = g.choice([2.0, -1.5, 0.5, 3.0, 1.0, -0.25])
    if form == "tn":
        shown = repr(k) if isinstance(k, int) else number(k)
        expr = g.choice([f"{{0}} {symbol} {shown}", f"{{0}}.{name}({shown})"])
        return g.draft(expr, [a], safe=_binary_safe(name, None, k))
    return g.draft(f"{number(k)} {symbol} {{0}}", [a], safe=_binary_safe(name, k, None))


def choose(g):
    """where, clamp, maximum, minimum: the gradient goes to the chosen entries."""
    x = g.pick() or g.fresh(g.shape())
    v = x.value
    kind = g.choice(["where", "where", "clamp", "clamp", "maximum", "minimum"])
    if kind == "where":
        other = g.partner(v.shape) if g.coin(0.7) else None
        shown = "{1}" if other is not None else number(g.choice([0.0, 0.5, -1.0]))
        inputs = [x] + ([other] if other is not None else [])
        if g.coin(0.5):  # the condition computed from the values
            t = float(np.round(np.median(v), 2)) + 0.003
            cond = g.choice(["{0} > ", "{0} < ", "{0}.gt(", "{0}.le("]) + number(t)
            cond += ")" if cond.count("(") else ""
            safe = lambda a, *rest: apart(a, t)  # noqa: E731
        else:
            mask = g.const(g.rng.random(g.broadcastable(v.shape)) < 0.5, "m")
            cond, safe = f"{{{len(inputs)}}}", None
            inputs.append(mask)
        expr = g.choice([f"where({cond}, {{0}}, {shown})", f"{{0}}.where({cond}, {shown})"])
        return g.draft(expr, inputs, safe=safe)
    if kind == "clamp":
        lo, hi = np.round(np.quantile(v, [0.25, 0.75]), 2) + [0.003, -0.003]
        if g.coin(0.3):  # a tensor bound, which may require grad itself
            bound = g.partner(v.shape)
            which = g.choice(["min", "max"])
            return g.draft(f"{{0}}.clamp({which}={{1}})", [x, bound], safe=apart)
        expr, bounds = g.choice(
            [
                (f"{{0}}.clamp(min={number(lo)})", [lo]),
                (f"{{0}}.clamp(max={number(hi)})", [hi]),
                (f"{{0}}.clamp({number(lo)}, {number(hi)})", [lo, hi]),
                (f"{{0}}.clip({number(lo)}, {number(hi)})", [lo, hi]),
            ]
        )
        return g.draft(expr, [x], safe=lambda a: all(apart(a, b) for b in bounds))
    other = g.partner(v.shape)
    expr = g.choice([f"{{0}}.{kind}({{1}})", f"{kind}({{0}}, {{1}})"])
    return g.draft(expr, [x, other], safe=apart)


# -------------------------------------------------------------------- reductions


def dims(g, ndim: int, tuples: bool = True) -> tuple[str, tuple[int, ...]]:
    """A ``dim`` argument as source (negative at times, a tuple at times) and its axes."""
    if ndim == 0:
        return g.choice(["0", "-1"]), ()
    if tuples and ndim >= 2 and g.coin(0.3):
        k = int(g.rng.integers(2, ndim + 1))
        axes = [int(a) for a in g.rng.permutation(ndim)[:k]]
        shown = [a - ndim if g.coin(0.5) else a for a in axes]
        return "(" + ", ".join(map(str, shown)) + ")", tuple(axes)
    a = int(g.rng.integers(0, ndim))
    return str(a - ndim if g.coin(0.4) else a), (a,)


def reduce(g):
    x = g.pick() or g.fresh(g.shape())
    v, nd = x.value, x.value.ndim
    kind = g.choice(
        ["sum"] * 3
        + ["mean"] * 2
        + ["max", "min", "amax", "prod", "cumsum"] * 1
        + ["logsumexp", "norm", "var", "std"]
    )
    keep = g.choice(["", ", keepdim=True", ", keepdim=False"])
    d, axes = dims(g, nd, tuples=kind not in ("prod", "cumsum", "max", "min"))
    if kind in ("sum", "mean"):
        expr = g.choice(
            [
                f"{{0}}.{kind}()",
                f"{{0}}.{kind}({d})",
                f"{{0}}.{kind}(dim={d}{keep})",
                f"{{0}}.{kind}(axis={d}, keepdims=True)",
            ]
        )
        return g.draft(expr, [x])
    if kind in ("max", "min", "amax"):
        largest = kind != "min"
        word = "max" if largest else "min"
        if kind == "amax":
            word = g.choice(["amax", "amin"])
            largest = word == "amax"
            expr = g.choice([f"{{0}}.{word}(dim={d}{keep})", f"{{0}}.{word}()"])
            torch = None
            axes = None if expr.endswith("()") else axes
        else:
            expr, torch = g.choice(
                [
                    (f"{{0}}.{word}(dim={d}{keep}).values", None),
                    (f"{{0}}.{word}(dim={d}{keep})[0]", None),
                    (f"{{0}}.{word}()", None),
                    (f"{{0}}.a{word}(axis={d})", f"{{0}}.a{word}(dim={d})"),  # numpy's names
                ]
            )
            axes = None if expr.endswith("()") else axes
        return g.draft(expr, [x], torch=torch, safe=lambda a: unique_extreme(a, axes, largest))
    if kind == "prod":
        expr = g.choice(["{0}.prod()", f"{{0}}.prod({d})", f"{{0}}.prod(dim={d}{keep})"])
        return g.draft(expr, [x])
    if kind == "cumsum":
        return g.draft(g.choice([f"{{0}}.cumsum({d})", f"{{0}}.cumsum(dim={d})"]), [x])
    if kind == "logsumexp":
        return g.draft(f"{{0}}.logsumexp({d}{keep})", [x])
    if kind == "norm":
        whole = g.coin(0.4)
        over = None if whole else axes
        p, safe = g.choice(
            [
                ("", lambda a: np.sqrt((a * a).sum(axis=over)).min() > 0.1),
                ("p=1", _away_from_zero),
                (
                    'p=float("inf")',
                    lambda a: _away_from_zero(a) and unique_extreme(np.abs(a), over, True),
                ),
            ]
        )
        if whole:
            return g.draft(f"{{0}}.norm({p})", [x], safe=safe)
        return g.draft(f"{{0}}.norm({p + ', ' if p else ''}dim={d}{keep})", [x], safe=safe)
    correction = g.choice([None, 0, 1])
    whole = nd == 0 or g.coin(0.4)
    over = None if whole else axes
    n = v.size if whole else int(np.prod([v.shape[a] for a in axes]))
    c = 1 if correction is None else correction
    if n <= c:
        return None
    extra = "" if correction is None else f"correction={correction}"
    if correction == 0 and g.coin(0.5):
        extra = "unbiased=False"
    if whole:
        expr = f"{{0}}.{kind}({extra})"
    else:
        expr = f"{{0}}.{kind}({d}{keep}{', ' + extra if extra else ''})"
    if kind == "std":
        safe = lambda a: (a.var(axis=over) * (n / (n - c))).min() > 0.01  # noqa: E731
        return g.draft(expr, [x], safe=safe)
    return g.draft(expr, [x])


def softmax(g):
    x = g.pick() or g.fresh(g.shape())
    d, _ = dims(g, x.value.ndim, tuples=False)
    name = g.choice(["softmax", "log_softmax"])
    expr, torch = g.choice(
        [
            (f"{{0}}.{name}({d})", None),
            (f"{{0}}.{name}(dim={d})", None),
            (f"{{0}}.{name}(axis={d})", f"{{0}}.{name}(dim={d})"),
        ]
    )
    return g.draft(expr, [x], torch=torch)


# ------------------------------------------------------------------- products


def matmul(g):
    """``@`` for every rank pairing (1, 2 and 3 axes, with batch broadcasting), ``dot``,
    ``trace``, ``F.linear``; the other operand is taken from the program when one fits."""
    x = g.pick(lambda it: it.value.ndim >= 1) or g.fresh(g.shape(min_ndim=1))
    s = x.value.shape
    if len(s) == 2 and g.coin(0.15):
        return g.draft("{0}.trace()", [x])
    k = int(g.rng.integers(1, 4))
    if g.coin(0.15):  # a layer: x @ w.T (+ b), the weight as nn.Linear keeps it
        inputs = [x, g.operand((k, s[-1]))] + ([g.operand((k,))] if g.coin(0.6) else [])
        bias = ", {2}" if len(inputs) == 3 else ""
        return g.draft(f"F.linear({{0}}, {{1}}{bias})", inputs)
    if g.coin(0.5):  # x on the left: the other shares x's last axis
        n = s[-1]
        rank = int(g.rng.integers(1, 5))
        other = {1: (n,), 2: (n, k), 3: (g.choice([1, 2]), n, k), 4: (2, 1, n, k)}[rank]
        if len(s) == 3 and rank == 3 and g.coin(0.5):
            other = (g.choice([1, s[0]]), n, k)
        y = g.operand(other)
        pair = [x, y]
    else:  # x on the right: the other ends with x's contracted axis
        n = s[0] if len(s) == 1 else s[-2]
        rank = int(g.rng.integers(1, 4))
        other = {1: (n,), 2: (k, n), 3: (g.choice([1, 2]), k, n)}[rank]
        pair = [g.operand(other), x]
    a, b = (it.value.ndim for it in pair)
    if a == 1 and b == 1 and g.coin(0.5):
        return g.draft("{0}.dot({1})", pair)
    expr = g.choice(["{0} @ {1}", "{0}.matmul({1})", "matmul({0}, {1})"])
    return g.draft(expr, pair)


# ----------------------------------------------------------------------- shapes


def _factorisations(n: int, parts: int) -> list[tuple[int, ...]]:
    if parts == 1:
        return [(n,)]
    return [
        (d, *rest)
        for d in range(1, n + 1)
        if n % d == 0
        for rest in _factorisations(n // d, parts - 1)
    ]


def _shape_text(shape, varargs: bool) -> str:
    if varargs and shape:
        return ", ".join(map(str, shape))
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def reshape(g):
    x = g.pick() or g.fresh(g.shape())
    s = x.value.shape
    nd = len(s)
    kind = g.choice(["reshape", "reshape", "view", "flatten", "squeeze", "unsqueeze", "expand"])
    if kind in ("reshape", "view"):
        target = list(g.choice(_factorisations(x.value.size, int(g.rng.integers(1, 4)))))
        if g.coin(0.4):
            target[int(g.rng.integers(0, len(target)))] = -1
        shown = _shape_text(target, g.coin(0.5))
        return g.draft(f"{{0}}.{kind}({shown})", [x])
    if kind == "flatten":  # over two axes or more: PyTorch returns the input itself otherwise
        if nd < 2:
            return None
        i, j = sorted(int(a) for a in g.rng.choice(nd, size=2, replace=False))
        if j - i == nd - 1 and g.coin(0.5):
            return g.draft("{0}.flatten()", [x])
        return g.draft(f"{{0}}.flatten({i - nd if g.coin(0.5) else i}, {j - nd})", [x])
    if kind == "squeeze":
        if nd == 0 or g.coin(0.3):
            return g.draft("{0}.squeeze()", [x])
        d, _ = dims(g, nd)
        return g.draft(f"{{0}}.squeeze({d})", [x])
    if kind == "unsqueeze":
        d = int(g.rng.integers(-nd - 1, nd + 1))
        return g.draft(f"{{0}}.unsqueeze({d})", [x])
    lead = tuple(int(n) for n in g.rng.integers(1, 4, size=int(g.rng.integers(0, 2))))
    target = lead + tuple(int(g.rng.integers(1, 4)) if n == 1 else n for n in s)
    shown = [
        n if i < len(lead) or n != s[i - len(lead)] or g.coin(0.5) else -1
        for i, n in enumerate(target)
    ]
    if g.coin(0.3):
        return g.draft(f"{{0}}.broadcast_to({_shape_text(target, False)})", [x])
    return g.draft(f"{{0}}.expand({_shape_text(shown, g.coin(0.6))})", [x])


def reorder(g):
    """Axes and entries moved: transpose, permute, .T/.mT, flip, repeat, pieces, copies."""
    x = g.pick() or g.fresh(g.shape(min_ndim=1))
    s = x.value.shape
    nd = len(s)
    kind = g.choice(["transpose", "permute", "T", "flip", "repeat", "split", "copy", "contiguous"])
    if kind == "contiguous":  # a copy in row-major order after a transpose, else the tensor
        form = "{0}.mT.contiguous()" if nd >= 2 and g.coin(0.7) else "{0}.contiguous()"
        return g.draft(form, [x])
    if kind == "transpose" and nd >= 1:
        i, j = (int(a) - (nd if g.coin(0.4) else 0) for a in g.rng.integers(0, nd, size=2))
        return g.draft(g.choice([f"{{0}}.transpose({i}, {j})", f"{{0}}.swapaxes({i}, {j})"]), [x])
    if kind == "permute" and nd >= 1:
        order = [int(a) - (nd if g.coin(0.3) else 0) for a in g.rng.permutation(nd)]
        return g.draft(f"{{0}}.permute({_shape_text(order, g.coin(0.6))})", [x])
    if kind == "T":
        if nd >= 2 and g.coin(0.5):
            return g.draft("{0}.mT", [x])
        if nd == 2:  # PyTorch deprecates .T on other ranks
            return g.draft("{0}.T", [x])
        return None
    if kind == "flip" and nd >= 1:
        d, _ = dims(g, nd)
        return g.draft(f"{{0}}.flip({d.strip('()').rstrip(',')})", [x])
    if kind == "repeat":
        reps = [int(r) for r in g.rng.integers(1, 3, size=nd + int(g.rng.integers(0, 2)))]
        if not reps:
            return None
        return g.draft(f"{{0}}.repeat({_shape_text(reps, True)})", [x])
    if kind == "split" and nd >= 1:
        d = int(g.rng.integers(0, nd))
        n = s[d]
        if g.coin(0.4) and n >= 2:
            first = int(g.rng.integers(1, n))
            pieces, call = 2, f"split([{first}, {n - first}], dim={d - nd})"
        elif g.coin(0.5):
            size = int(g.rng.integers(1, n + 1))
            pieces, call = -(-n // size), f"split({size}, {d})"
        else:
            chunks = int(g.rng.integers(1, n + 1))
            size = -(-n // chunks)
            pieces, call = -(-n // size), f"chunk({chunks}, dim={d})"
        return g.draft(f"{{0}}.{call}[{int(g.rng.integers(0, pieces))}]", [x])
    if kind == "copy":
        # (not .double(): on float64 it returns the tensor itself, as PyTorch's does)
        form = g.choice(["clone", "detach", "no_grad", "float"])
        if form == "float":  # through float32 and back: exact for both, no use to differences
            return g.draft("{0}.float().double()", [x], rounds=True)
        if form == "detach":
            return g.draft("{0}.detach()", [x], stop=True)
        if form == "no_grad":  # computed where nothing is recorded: a constant
            return g.draft(
                g.choice(["{0} * 2.0", "{0}.exp()", "{0}.sum(0)"]), [x], stop=True, no_grad=True
            )
        return g.draft(f"{{0}}.{form}()", [x])
    return None


def _basic_part(g, n: int) -> str:
    return g.choice(
        [str(int(g.rng.integers(-n, n))), ":", "1:", ":-1", "::2", f"{int(g.rng.integers(0, n))}:"]
    )


def index(g):
    """Basic indexing (ints, slices, None, ...) and advanced indexing (lists with repeats,
    integer tensors, paired lists, masks, a mask from the values)."""
    x = g.pick(lambda it: it.value.ndim >= 1) or g.fresh(g.shape(min_ndim=1))
    v = x.value
    s, nd = v.shape, v.ndim
    kind = g.choice(
        ["basic", "basic", "list", "tensor", "pair", "mask", "compare", "mixed", "argmax", "gather"]
    )
    if kind == "gather":
        d = int(g.rng.integers(0, nd))
        shape = tuple(
            int(g.rng.integers(1, n + 1)) if a != d else int(g.rng.integers(1, 4))
            for a, n in enumerate(s)
        )
        i = g.const(g.rng.integers(0, s[d], size=shape).astype(np.int64), "i")
        return g.draft(f"{{0}}.gather({d - nd if g.coin(0.4) else d}, {{1}})", [x, i])
    if kind == "basic":
        parts = [_basic_part(g, n) for n in s[: int(g.rng.integers(1, nd + 1))]]
        if g.coin(0.3):
            parts.insert(int(g.rng.integers(0, len(parts) + 1)), "None")
        if g.coin(0.2):
            parts = ["..."] + parts[1:]
        return g.draft("{0}[" + ", ".join(parts) + "]", [x])
    rows = [int(i) for i in g.rng.integers(-s[0], s[0], size=int(g.rng.integers(1, 4)))]
    if kind == "list":
        return g.draft(f"{{0}}[{rows}]", [x])
    if kind == "tensor":
        shape = g.choice([(len(rows),), (1, len(rows)), (len(rows), 1)])
        i = g.const(np.array(rows, dtype=np.int64).reshape(shape), "i")
        return g.draft("{0}[{1}]", [x, i])
    if kind == "pair" and nd >= 2:
        cols = [int(i) for i in g.rng.integers(0, s[1], size=len(rows))]
        return g.draft(f"{{0}}[{rows}, {cols}]", [x])
    if kind == "mixed" and nd >= 2:
        cols = [int(i) for i in g.rng.integers(-s[1], s[1], size=int(g.rng.integers(1, 4)))]
        return g.draft(f"{{0}}[:, {cols}]", [x])
    if kind == "compare":
        t = float(np.round(np.median(v), 2)) - 0.003
        if not (v > t).any():
            return None
        return g.draft(f"{{0}}[{{0}} > {number(t)}]", [x], safe=lambda a: apart(a, t))
    if kind == "argmax":  # an index the engine computes: rows picked by the largest entries
        d = int(g.rng.integers(0, nd))
        if s[d] > s[0]:
            return None
        word = g.choice(["argmax", "argmin"])
        safe = lambda a: unique_extreme(a, (d,), word == "argmax")  # noqa: E731
        return g.draft(f"{{0}}[{{0}}.{word}(dim={d - nd})]", [x], safe=safe)
    mask = g.rng.random(s if g.coin(0.6) else s[:1]) < 0.6
    if not mask.any():
        return None
    return g.draft("{0}[{1}]", [x, g.const(mask, "m")])


def join(g):
    x = g.pick() or g.fresh(g.shape())
    s, nd = x.value.shape, x.value.ndim
    count = int(g.rng.integers(2, 4))
    if g.coin(0.5) or nd == 0:  # stack: a new axis, equal shapes
        parts = [x] + [x if g.coin(0.3) else g.operand(s) for _ in range(count - 1)]
        d = int(g.rng.integers(-nd - 1, nd + 1))
        names = ", ".join(f"{{{i}}}" for i in range(count))
        return g.draft(f"stack([{names}], dim={d})", parts)
    d = int(g.rng.integers(0, nd))
    parts = [x]
    for _ in range(count - 1):
        if g.coin(0.3):
            parts.append(x)
        else:
            grown = list(s)
            grown[d] = int(g.rng.integers(1, 4))
            parts.append(g.operand(tuple(grown)))
    names = ", ".join(f"{{{i}}}" for i in range(count))
    shown = d - nd if g.coin(0.4) else d
    expr, torch = g.choice(
        [
            (f"cat([{names}], dim={shown})", None),
            (f"cat([{names}], {shown})", None),
            (f"concatenate([{names}], axis={shown})", f"cat([{names}], dim={shown})"),
        ]
    )
    return g.draft(expr, parts, torch=torch)


# ----------------------------------------------------------------------- losses


def loss(g):
    if g.coin(0.5):
        x = g.pick() or g.fresh(g.shape())
        target = g.operand(x.value.shape)
        reduction = g.choice(["", ', reduction="sum"', ', reduction="none"', ', reduction="mean"'])
        return g.draft(f"mse_loss({{0}}, {{1}}{reduction})", [x, target])
    x = g.pick(lambda it: it.value.ndim in (1, 2)) or g.fresh(g.shape(min_ndim=1, max_ndim=2))
    classes = x.value.shape[-1]
    labels = g.rng.integers(0, classes, size=x.value.shape[:-1])
    inputs = [x, g.const(np.asarray(labels, dtype=np.int64), "i")]
    extra = ""
    if g.coin(0.3):
        inputs.append(g.const(np.round(g.rng.uniform(0.5, 2.0, size=classes), 2), "c"))
        extra = ", weight={2}"
    extra += g.choice(["", ', reduction="sum"', ', reduction="none"'])
    return g.draft(f"cross_entropy({{0}}, {{1}}{extra})", inputs)


# ---------------------------------------------------------------- piecewise constant


def _away_from_whole(x: np.ndarray, offset: float = 0.0) -> bool:
    """Whether every entry of ``x`` is a margin away from a whole number (plus ``offset``)."""
    fraction = np.asarray(x, float) - offset - np.floor(np.asarray(x, float) - offset)
    return bool(np.minimum(fraction, 1 - fraction).min() > 0.02)


def rounding(g):
    """round, floor, ceil, trunc (gradient 0), division rounded, and %: away from the jumps."""
    x = g.pick() or g.fresh(g.shape())
    kind = g.choice(["round", "floor", "ceil", "trunc", "div", "remainder"])
    if kind in ("round", "floor", "ceil", "trunc"):
        offset = 0.5 if kind == "round" else 0.0
        return g.draft(f"{{0}}.{kind}()", [x], safe=lambda a: _away_from_whole(a, offset))
    y = g.partner(x.value.shape, positive=True)
    if np.abs(y.value).min() <= 0.2:
        y = g.fresh(y.value.shape, positive=True)

    def safe(a, b):
        return bool(np.abs(b).min() > 0.2) and _away_from_whole(np.asarray(a) / np.asarray(b))

    if kind == "div":
        mode = g.choice(["floor", "trunc"])
        return g.draft(f"{{0}}.div({{1}}, rounding_mode={mode!r})", [x, y], safe=safe)
    return g.draft(g.choice(["{0} % {1}", "{0}.remainder({1})"]), [x, y], safe=safe)


def in_graph(g):
    """In-place changes of a tensor in the graph (its copy): written entries, a view changed,
    an in-place arithmetic step, a leaky ReLU (whose second derivative requires grad)."""
    x = g.pick(lambda it: it.value.ndim >= 1) or g.fresh(g.shape(min_ndim=1))
    s = x.value.shape
    kind = g.choice(["write", "view", "arithmetic", "leaky"])
    if kind == "leaky":
        slope = g.choice([0.01, 0.1, 0.2])
        return g.draft(f"F.leaky_relu({{0}}, {slope})", [x], safe=_away_from_zero)
    if kind == "arithmetic":
        y = g.partner(s)
        method = g.choice(["mul_", "add_", "sub_"])
        extra = ", alpha=0.5" if method != "mul_" and g.coin(0.5) else ""
        return g.draft(f"({{0}} * 1.0).{method}({{1}}{extra})", [x, y])
    i = int(g.rng.integers(-s[0], s[0]))
    index = g.choice([f"{i}", f"slice({max(i, 0)}, None)", f"({i}, ...)"])
    rows = s[1:] if "slice" not in index else (s[0] - max(i, 0),) + s[1:]
    if kind == "write":
        value = g.operand(rows[int(g.rng.integers(0, len(rows) + 1)) :] if rows else ())
        return g.draft(f"written({{0}} * 1.0, {index}, {{1}})", [x, value])
    factor = g.operand(())
    return g.draft(f"through_view({{0}} * 1.0, {index}, {{1}})", [x, factor])


#: The families and how often each is drawn.
FAMILIES = {
    unary: 20,
    binary: 28,
    choose: 6,
    reduce: 12,
    softmax: 3,
    matmul: 6,
    reshape: 7,
    reorder: 7,
    index: 7,
    join: 3,
    loss: 2,
    rounding: 2,
    in_graph: 3,
}
