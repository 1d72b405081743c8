"""Random PyTorch programs over the public ``torchlike`` surface, for the differential fuzzer.

A program is Python source written for PyTorch: a list of statements that use the names
``torch``, ``nn`` and ``F`` (``torch.nn.functional``) and ``rec(...)``, which records a value
for the comparison. :mod:`torchlike_outcomes` runs it once with ``torch`` bound to
``micrograd_edu.torchlike`` and once with PyTorch, and compares what each ``rec`` saw.

The generator knows PyTorch's shape rules (reductions, views, indexing, broadcasting), so it
writes mostly valid calls; with a small probability it writes an invalid one on purpose (a dim
out of range, shapes that do not broadcast, a method's missing argument), where both libraries
must raise. Every call form is drawn from a table: methods and ``torch.*`` functions,
positional and keyword arguments, tuples and lists of dims. Each statement carries a tag (the
family, the operation and the call form), so a difference is reported with its class.

>>> program = generate(7)
>>> program.family in FAMILIES and len(program.statements) == len(program.tags)
True
>>> generate(7).statements == program.statements   # a seed gives one program
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

FAMILIES = ("tensor", "autograd", "dtype", "index", "train", "data")
WEIGHTS = (0.40, 0.17, 0.12, 0.11, 0.14, 0.06)


@dataclass
class Var:
    """A name in the program, with what PyTorch would make of it (shape None: unknown)."""

    name: str
    shape: tuple | None
    dtype: str = "float64"
    grad: bool = False

    @property
    def float(self) -> bool:
        return self.dtype in ("float64", "float32")


@dataclass
class Program:
    seed: int
    family: str
    statements: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    @property
    def source(self) -> str:
        return "\n".join(self.statements)


class Builder:
    """Writes one program: fresh names, literals, and statements with their tags."""

    def __init__(self, seed: int, family: str) -> None:
        self.rng = np.random.default_rng([seed, FAMILIES.index(family)])
        self.program = Program(seed, family)
        self.count = 0
        self.leaves: list[Var] = []
        self.emit("torch.set_default_dtype(torch.float64)", "setup")

    # -- random choices ----------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]

    def integer(self, low: int, high: int) -> int:
        return int(self.rng.integers(low, high + 1))

    # -- statements ------------------------------------------------------------------------

    def emit(self, statement: str, tag: str) -> None:
        self.program.statements.append(statement)
        self.program.tags.append(tag)

    def fresh(self, prefix: str = "v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def assign(self, expr: str, shape, tag: str, dtype="float64", grad=False, record=True) -> Var:
        var = Var(self.fresh(), shape, dtype, grad)
        self.emit(f"{var.name} = {expr}", tag)
        if record:
            self.emit(f"rec({var.name})", tag)
        return var

    # -- data --------------------------------------------------------------------------------

    def values(self, shape: tuple, low=-2.0, high=2.0, special=0.15) -> np.ndarray:
        """Numbers with two decimals (ties happen), some of them 0, ±1 or repeated."""
        data = np.round(self.rng.uniform(low, high, size=shape), 2)
        if data.size and self.chance(special):
            flat = data.reshape(-1)
            k = self.integer(1, max(1, flat.size // 2))
            where = self.rng.choice(flat.size, size=k, replace=False)
            flat[where] = self.pick([0.0, 1.0, -1.0, float(flat[0])])
        return data + 0.0  # no -0.0 in the literals

    def literal(self, data: np.ndarray, dtype: str = "float64") -> str:
        if dtype == "bool":
            return repr(data.astype(bool).tolist())
        if dtype.startswith("int"):
            return repr(data.astype(np.int64).tolist())
        return repr(data.tolist())

    def leaf(self, shape: tuple, grad=True, dtype="float64", low=-2.0, high=2.0) -> Var:
        if dtype == "bool":
            data = self.rng.random(shape) < 0.5
        elif dtype.startswith("int"):
            data = self.rng.integers(-3, 5, size=shape)
        else:
            data = self.values(shape, low, high)
        args = [self.literal(data, dtype)]
        if dtype != "float64" or self.chance(0.3):
            args.append(f"dtype=torch.{dtype}")
        if grad:
            args.append("requires_grad=True")
        var = Var(self.fresh("x"), shape, dtype, grad)
        self.emit(f"{var.name} = torch.tensor({', '.join(args)})", "leaf")
        if grad:
            self.leaves.append(var)
        return var

    def shape(self, allow_empty=True) -> tuple:
        shapes = [(), (1,), (3,), (4,), (2, 3), (3, 1), (1, 4), (3, 4), (2, 1, 3), (2, 3, 2)]
        if allow_empty and self.chance(0.03):
            return self.pick([(0,), (2, 0)])
        return self.pick(shapes)

    def dim(self, ndim: int, bad=0.05) -> int:
        """A dim for a tensor of ``ndim`` axes (0-d tensors take 0 and -1), negative half the
        time, out of range with probability ``bad``."""
        n = max(ndim, 1)
        if self.chance(bad):
            return self.pick([n, -n - 1])
        d = self.integer(0, n - 1)
        return d - n if self.chance(0.4) else d


# ---------------------------------------------------------------------------------------------
# Shape rules (PyTorch's)


def broadcast(a: tuple | None, b: tuple | None) -> tuple | None:
    if a is None or b is None:
        return None
    out, n = [], max(len(a), len(b))
    padded_a, padded_b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for x, y in zip(reversed(padded_a), reversed(padded_b), strict=True):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def reduced(shape: tuple, dims, keepdim: bool) -> tuple:
    """The shape of a reduction over ``dims`` (None or (): every axis)."""
    n = len(shape)
    if not dims:
        return tuple(1 for _ in shape) if keepdim else ()
    axes = {d % max(n, 1) for d in dims}
    if n == 0:
        return ()
    return tuple(1 if i in axes else s for i, s in enumerate(shape) if keepdim or i not in axes)


def valid_dim(d: int, ndim: int) -> bool:
    n = max(ndim, 1)
    return -n <= d < n


def partner_shape(b: Builder, shape: tuple) -> tuple:
    """A shape that broadcasts with ``shape`` (rarely one that does not)."""
    if b.chance(0.04) and shape and shape[-1] > 1:
        return shape[:-1] + (shape[-1] + 1,)
    choice = b.integer(0, 4)
    if choice == 0 or not shape:
        return shape if choice else ()
    if choice == 1:
        return shape[b.integer(0, len(shape)) :]
    if choice == 2:
        return tuple(1 if b.chance(0.5) else s for s in shape)
    if choice == 3:
        return (1,) + shape if len(shape) < 3 else shape
    return shape


def dims_text(dims) -> str:
    return repr(tuple(dims)) if isinstance(dims, tuple) else repr(list(dims))


# ---------------------------------------------------------------------------------------------
# Operations on one float tensor. Each returns the new Var, or None when it does not apply.

UNARY = {
    # name: (domain, forms)
    "abs": ("any", ["{x}.abs()", "torch.abs({x})", "abs({x})"]),
    "exp": ("small", ["{x}.exp()", "torch.exp({x})", "torch.exp(input={x})"]),
    "log": ("positive", ["{x}.log()", "torch.log({x})"]),
    "log1p": ("above-1", ["{x}.log1p()", "torch.log1p({x})"]),
    "sqrt": ("positive", ["{x}.sqrt()", "torch.sqrt({x})"]),
    "tanh": ("any", ["{x}.tanh()", "torch.tanh({x})", "F.tanh({x})", "nn.Tanh()({x})"]),
    "sigmoid": ("any", ["{x}.sigmoid()", "torch.sigmoid({x})", "nn.Sigmoid()({x})"]),
    "relu": ("any", ["{x}.relu()", "torch.relu({x})", "F.relu({x})", "nn.ReLU()({x})"]),
    "leaky_relu": (
        "any",
        ["F.leaky_relu({x}, 0.1)", "F.leaky_relu({x}, negative_slope=0.2)", "nn.LeakyReLU()({x})"],
    ),
    "sin": ("any", ["{x}.sin()", "torch.sin({x})"]),
    "cos": ("any", ["{x}.cos()", "torch.cos({x})"]),
    "tan": ("small", ["{x}.tan()", "torch.tan({x})"]),
    "square": ("any", ["{x}.square()", "torch.square({x})", "{x} * {x}"]),
    "neg": ("any", ["-{x}", "{x}.neg()", "torch.neg({x})"]),
    "sign": ("any", ["{x}.sign()", "torch.sign({x})"]),
    "pow": (
        "any",
        ["{x} ** 2", "{x} ** 3", "{x}.pow(2)", "torch.pow({x}, 3)", "{x} ** 0", "{x} ** -1.0"],
    ),
    "fracpow": ("positive", ["{x} ** 0.5", "{x}.pow(1.5)", "2.0 ** {x}", "torch.pow(2.0, {x})"]),
    "reciprocal": ("nonzero", ["1 / {x}", "1.0 / {x}", "{x} ** -1", "2 / {x}"]),
    "scalar": (
        "any",
        ["{x} + 1.5", "1.5 - {x}", "2.0 * {x}", "{x} / 4", "{x} - 1", "3 * {x} + 1", "{x} * 0"],
    ),
    "clamp": (
        "any",
        [
            "{x}.clamp(-0.5, 0.5)",
            "{x}.clamp(min=0.1)",
            "{x}.clamp(max=0.3)",
            "torch.clamp({x}, min=-1.0)",
            "torch.clamp({x}, -1, 1)",
            "{x}.clip(-1.0, 1.0)",
            "torch.clip({x}, max=0.5)",
            "{x}.clamp(0.5, -0.5)",
            "{x}.clamp()",
        ],
    ),
    "copy": ("any", ["{x}.clone()", "{x}.contiguous()", "{x}.double()", "{x}.to(torch.float64)"]),
    "detach": ("any", ["{x}.detach()", "{x}.detach().clone()"]),
}

DOMAIN_FIX = {
    "positive": "({x}.abs() + 0.5)",
    "above-1": "({x}.abs() + 0.1)",
    "nonzero": "({x}.abs() + 0.5)",
    "small": "({x} * 0.5)",
}


def op_unary(b: Builder, x: Var) -> Var | None:
    name = b.pick(list(UNARY))
    domain, forms = UNARY[name]
    form = b.pick(forms)
    arg = x.name
    if domain in DOMAIN_FIX and not b.chance(0.12):  # now and then, straight onto the edge
        arg = DOMAIN_FIX[domain].format(x=x.name)
    if form in ("{x}.clamp()",) and not b.chance(0.3):
        form = forms[0]
    grad = x.grad and name != "detach"
    return b.assign(form.format(x=arg), x.shape, f"unary.{name}:{form}", x.dtype, grad)


def op_clamp_tensor(b: Builder, x: Var) -> Var | None:
    """clamp with tensor bounds, which take part in the gradient."""
    lo = b.leaf(partner_shape(b, x.shape) if x.shape else (), grad=b.chance(0.7), low=-1, high=0)
    hi = b.leaf(partner_shape(b, x.shape) if x.shape else (), grad=b.chance(0.7), low=0, high=1)
    form = b.pick(
        [
            "torch.clamp({x}, {lo}, {hi})",
            "{x}.clamp(min={lo}, max={hi})",
            "{x}.clamp(min={lo})",
            "torch.clamp({x}, max={hi})",
            "torch.max(torch.min({x}, {hi}), {lo})",
        ]
    )
    shape = broadcast(broadcast(x.shape, lo.shape), hi.shape)
    expr = form.format(x=x.name, lo=lo.name, hi=hi.name)
    return b.assign(expr, shape, f"clamp.tensor:{form}", "float64", x.grad or lo.grad or hi.grad)


BINARY = [
    "{x} + {y}",
    "{x} - {y}",
    "{x} * {y}",
    "{x} / {y}",
    "torch.add({x}, {y})",
    "torch.add({x}, {y}, alpha=2.0)",
    "{x}.add({y})",
    "{x}.sub({y}, alpha=0.5)",
    "torch.sub({x}, {y})",
    "torch.mul({x}, {y})",
    "{x}.mul({y})",
    "torch.div({x}, {y})",
    "{x}.div({y})",
    "torch.maximum({x}, {y})",
    "torch.minimum({x}, {y})",
    "{x}.maximum({y})",
    "torch.max({x}, {y})",
    "torch.min({x}, {y})",
    "torch.where({x} > {y}, {x}, {y})",
    "torch.where({x} > 0, {x}, {y})",
    "torch.where({x} > 0, {x}, 0.0)",
    "torch.where({y} < 0.5, 1.0, {x})",
    "{x}.where({x} > {y}, {y})",
    "{x} ** {y}",
    "{x}.pow({y})",
]


def op_binary(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    shape = partner_shape(b, x.shape)
    form = b.pick(BINARY)
    if "**" in form or "pow" in form:  # a positive base keeps the powers real
        y = b.leaf(shape, grad=b.chance(0.7), low=-1.5, high=1.5)
        xs = x.name if b.chance(0.1) else f"({x.name}.abs() + 0.5)"
    elif "/" in form or "div" in form:
        y = b.leaf(shape, grad=b.chance(0.7), low=0.5, high=2.0)
        xs = x.name
    else:
        y = b.leaf(shape, grad=b.chance(0.7))
        xs = x.name
    if b.chance(0.5):
        xs, y_name = y.name, xs  # the new tensor on the left
    else:
        y_name = y.name
    out = broadcast(x.shape, shape)
    return b.assign(form.format(x=xs, y=y_name), out, f"binary:{form}", "float64", x.grad or y.grad)


def _reduce_forms(name: str) -> list[tuple[str, str]]:
    """(form, kind): kind says which arguments the form takes."""
    m, f = "{x}." + name, "torch." + name + "({x}"
    every = [(m + "()", "all"), (f + ")", "all")]
    one = [
        (m + "({d})", "dim"),
        (m + "(dim={d})", "dim"),
        (f + ", {d})", "dim"),
        (f + ", dim={d})", "dim"),
        (m + "({d}, True)", "dim+keep"),
        (m + "({d}, keepdim=True)", "dim+keep"),
        (m + "(dim={d}, keepdim=True)", "dim+keep"),
        (f + ", {d}, keepdim=True)", "dim+keep"),
    ]
    many = [
        (m + "(dim={ds})", "dims"),
        (m + "({ds})", "dims"),
        (m + "({ds}, keepdim=True)", "dims+keep"),
        (m + "(dim=())", "none"),
        (m + "(dim=[])", "none"),
    ]
    return every + one + many


REDUCTIONS = {
    "sum": _reduce_forms("sum"),
    "mean": _reduce_forms("mean"),
    "prod": _reduce_forms("prod")[:10],
    "amax": _reduce_forms("amax"),
    "amin": _reduce_forms("amin"),
    "logsumexp": _reduce_forms("logsumexp")[2:],
    "nansum": _reduce_forms("sum")[:2],
    "var": _reduce_forms("var")
    + [
        ("{x}.var(unbiased=False)", "all"),
        ("{x}.var({d}, unbiased=False)", "dim"),
        ("{x}.var({d}, False)", "dim"),
        ("{x}.var(correction=0)", "all"),
        ("{x}.var(dim={d}, correction=2)", "dim"),
    ],
    "std": _reduce_forms("std")[:9]
    + [("{x}.std(unbiased=False)", "all"), ("torch.std({x}, {d}, keepdim=True)", "dim+keep")],
    "norm": [
        ("{x}.norm()", "all"),
        ("torch.norm({x})", "all"),
        ("{x}.norm(2)", "all"),
        ("{x}.norm(p=1)", "all"),
        ("{x}.norm(p='fro')", "all"),
        ("{x}.norm(float('inf'))", "all"),
        ("{x}.norm(dim={d})", "dim"),
        ("{x}.norm(1, {d})", "dim"),
        ("{x}.norm(p=2, dim={d}, keepdim=True)", "dim+keep"),
        ("torch.norm({x}, dim={d})", "dim"),
        ("{x}.norm(dim={ds})", "dims"),
    ],
}


def op_reduce(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    name = b.pick(list(REDUCTIONS))
    form, kind = b.pick(REDUCTIONS[name])
    form = form.replace("nansum", "sum")
    n = len(x.shape)
    d = b.dim(n)
    if kind.startswith("dims"):
        if n < 2:
            return None
        ds = tuple(sorted(set(b.rng.choice(n, size=2, replace=False).tolist())))
        ds = tuple(a - n if b.chance(0.3) else a for a in ds)
        dims = ds if b.chance(0.5) else list(ds)
        expr, shape = (
            form.format(x=x.name, ds=dims_text(dims)),
            reduced(x.shape, ds, "keep" in kind),
        )
    elif kind == "none":
        expr, shape = form.format(x=x.name), reduced(x.shape, None, False)
    elif kind == "all":
        expr, shape = form.format(x=x.name), ()
    else:
        expr = form.format(x=x.name, d=d)
        shape = reduced(x.shape, (d,), "keep" in kind) if valid_dim(d, n) else None
    arg = x.name
    if name in ("var", "std") and n and x.shape[0] == 1 and b.chance(0.5):
        pass  # too few elements: nan in PyTorch
    if name == "logsumexp" and b.chance(0.5):
        arg = f"({x.name} * 10)"
    expr = expr.replace(x.name, arg, 1)
    return b.assign(expr, shape, f"reduce.{name}:{form}", x.dtype, x.grad)


def op_maxmin(b: Builder, x: Var) -> Var | None:
    """max/min/argmax/argmin/cumsum/sort-like reductions with their (values, indices) forms."""
    if x.shape is None:
        return None
    n, d = len(x.shape), b.dim(len(x.shape))
    shape = reduced(x.shape, (d,), False) if valid_dim(d, n) else None
    keep = reduced(x.shape, (d,), True) if valid_dim(d, n) else None
    name = b.pick(["max", "min"])
    kind = b.integer(0, 9)
    tag = f"reduce.{name}"
    src = x.name if b.chance(0.6) else f"{x.name}.round()"  # ties: first index, split gradient
    if kind == 0:
        return b.assign(f"{src}.{name}()", (), f"{tag}:x.{name}()", x.dtype, x.grad)
    if kind == 1:
        return b.assign(f"torch.{name}({src})", (), f"{tag}:torch.{name}(x)", x.dtype, x.grad)
    if kind in (2, 3, 4, 5):
        form = [
            "{s}.{n}({d})",
            "torch.{n}({s}, {d})",
            "{s}.{n}(dim={d})",
            "torch.{n}({s}, dim={d}, keepdim=True)",
        ][kind - 2]
        out = b.assign(form.format(s=src, n=name, d=d), None, f"{tag}:{form}", record=True)
        pick = b.pick([".values", ".indices", "[0]", "[1]"])
        values = pick in (".values", "[0]")
        sh = keep if "keepdim" in form else shape
        return b.assign(
            f"{out.name}{pick}",
            sh,
            f"{tag}:{form}{pick}",
            x.dtype if values else "int64",
            x.grad and values,
        )
    if kind == 6:
        v, i = b.fresh(), b.fresh()
        form = b.pick(["{s}.{n}({d}, True)", "{s}.{n}({d}, keepdim=True)", "torch.{n}({s}, {d})"])
        b.emit(f"{v}, {i} = " + form.format(s=src, n=name, d=d), f"{tag}:unpack {form}")
        b.emit(f"rec({v}, {i})", f"{tag}:unpack {form}")
        return Var(v, keep if "True" in form else shape, x.dtype, x.grad)
    if kind == 7:
        arg = b.pick(["argmax", "argmin"])
        form = b.pick(
            [
                "{s}.{a}()",
                "torch.{a}({s})",
                "{s}.{a}({d})",
                "{s}.{a}(dim={d})",
                "{s}.{a}({d}, True)",
                "torch.{a}({s}, dim={d}, keepdim=True)",
            ]
        )
        sh = () if "{d}" not in form else (keep if "True" in form else shape)
        b.assign(form.format(s=src, a=arg, d=d), sh, f"reduce.{arg}:{form}", "int64")
        return None
    if kind == 8:
        form = b.pick(["{s}.cumsum({d})", "{s}.cumsum(dim={d})", "torch.cumsum({s}, {d})"])
        sh = x.shape if valid_dim(d, n) else None
        return b.assign(form.format(s=src, d=d), sh, f"reduce.cumsum:{form}", x.dtype, x.grad)
    form = b.pick(["{s}.{n}({d}).values", "{s}.{n}(dim={d})[0]"])
    return b.assign(form.format(s=src, n=name, d=d), shape, f"{tag}:{form}", x.dtype, x.grad)


def _factor(b: Builder, shape: tuple) -> tuple:
    n = math.prod(shape)
    options = [(n,), (1, n), (n, 1)]
    for k in (2, 3, 4, 6):
        if n % k == 0 and n > k:
            options += [(k, n // k), (n // k, k)]
    if n % 6 == 0 and n >= 12:
        options.append((2, 3, n // 6))
    return b.pick(options) if n else b.pick([(0,), (0, 3)])


def op_shape(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    s, n, name = x.shape, len(x.shape), b.pick(list(SHAPE_OPS))
    made = SHAPE_OPS[name](b, x, s, n)
    if made is None:
        return None
    expr, shape, form = made
    return b.assign(expr, shape, f"shape.{name}:{form}", x.dtype, x.grad)


def _reshape(b, x, s, n):
    t = _factor(b, s)
    if b.chance(0.05):
        t = t + (2,)  # the wrong number of elements
    size = ", ".join(map(str, t))
    minus = list(t)
    if minus:
        minus[b.integer(0, len(t) - 1)] = -1
    form = b.pick(
        [
            "{x}.reshape({a})",
            "{x}.reshape(({a},))",
            "torch.reshape({x}, ({a},))",
            "{x}.view({a})",
            "{x}.view(({a},))",
            "{x}.reshape({m})",
            "{x}.view({m})",
            "{x}.view(-1)",
            "{x}.reshape(-1)",
            "{x}.view_as(torch.zeros({a}))",
            "{x}.reshape(shape=({a},))",
        ]
    )
    if "-1)" in form and form.endswith("(-1)"):
        t = (math.prod(s),)
    ok = math.prod(t) == math.prod(s)
    m = ", ".join(map(str, minus))
    return form.format(x=x.name, a=size, m=m), t if ok else None, form


def _flatten(b, x, s, n):
    form = b.pick(
        [
            "{x}.flatten()",
            "torch.flatten({x})",
            "{x}.flatten(1)",
            "{x}.flatten(start_dim=0, end_dim=1)",
            "torch.flatten({x}, 1)",
            "nn.Flatten()({x})",
            "nn.Flatten(0)({x})",
            "{x}.flatten(-2)",
        ]
    )
    start, end = 0, -1
    if "(1)" in form or ", 1)" in form or form.startswith("nn.Flatten()"):
        start = 1
    elif "end_dim=1" in form:
        end = 1
    elif "-2" in form:
        start = -2
    if n == 0:
        shape = (1,) if start in (0, -1) and end in (0, -1) else None
    elif not (valid_dim(start, n) and valid_dim(end, n)) or start % n > end % n:
        shape = None
    else:
        a, e = start % n, end % n
        shape = s[:a] + (math.prod(s[a : e + 1]),) + s[e + 1 :]
    return form.format(x=x.name), shape, form


def _squeeze(b, x, s, n):
    d = b.dim(n)
    form = b.pick(
        [
            "{x}.squeeze()",
            "{x}.squeeze({d})",
            "{x}.squeeze(dim={d})",
            "torch.squeeze({x}, {d})",
            "{x}.squeeze((0, -1))",
        ]
    )
    if form == "{x}.squeeze()":
        shape = tuple(v for v in s if v != 1)
    elif "(0, -1)" in form:
        shape = tuple(v for i, v in enumerate(s) if not (v == 1 and i in (0, n - 1))) if n else ()
    else:
        shape = (
            None
            if not valid_dim(d, n)
            else tuple(v for i, v in enumerate(s) if not (v == 1 and i == d % max(n, 1)))
        )
    return form.format(x=x.name, d=d), shape, form


def _unsqueeze(b, x, s, n):
    d = b.integer(-n - 1, n) if not b.chance(0.05) else n + 1
    form = b.pick(
        ["{x}.unsqueeze({d})", "{x}.unsqueeze(dim={d})", "torch.unsqueeze({x}, {d})", "{x}[None]"]
    )
    if form == "{x}[None]":
        return form.format(x=x.name), (1,) + s, form
    if not -n - 1 <= d <= n:
        return form.format(x=x.name, d=d), None, form
    k = d % (n + 1)
    return form.format(x=x.name, d=d), s[:k] + (1,) + s[k:], form


def _transpose(b, x, s, n):
    if n == 0:
        form = b.pick(["{x}.t()", "{x}.T", "torch.t({x})"])
        return form.format(x=x.name), (), form
    a, c = b.dim(n), b.dim(n)
    form = b.pick(
        [
            "{x}.transpose({a}, {c})",
            "torch.transpose({x}, {a}, {c})",
            "{x}.transpose(dim0={a}, dim1={c})",
            "{x}.swapaxes({a}, {c})",
            "{x}.t()",
            "torch.t({x})",
            "{x}.T",
            "{x}.mT",
        ]
    )
    if form in ("{x}.t()", "torch.t({x})"):
        shape = s[::-1] if n <= 2 else None
    elif form == "{x}.T":
        shape = s[::-1]
    elif form == "{x}.mT":
        shape = s[:-2] + (s[-1], s[-2]) if n >= 2 else None
    elif valid_dim(a, n) and valid_dim(c, n):
        t = list(s)
        t[a % n], t[c % n] = t[c % n], t[a % n]
        shape = tuple(t)
    else:
        shape = None
    return form.format(x=x.name, a=a, c=c), shape, form


def _permute(b, x, s, n):
    order = b.rng.permutation(n).tolist()
    dims = [d - n if b.chance(0.3) else d for d in order]
    if b.chance(0.04) and n:
        dims[0] = dims[-1] if n > 1 else n  # repeated or out of range
    form = b.pick(
        [
            "{x}.permute({p})",
            "{x}.permute(({p},))",
            "torch.permute({x}, ({p},))",
            "{x}.permute(dims=[{p}])",
        ]
    )
    if n == 0:
        form = "{x}.permute(())"
    ok = sorted(d % max(n, 1) for d in dims) == list(range(n)) and all(-n <= d < n for d in dims)
    shape = tuple(s[d] for d in order) if ok else None
    return form.format(x=x.name, p=", ".join(map(str, dims))), shape, form


def _expand(b, x, s, n):
    t = tuple(b.pick([2, 3]) if v == 1 and b.chance(0.7) else v for v in s)
    if b.chance(0.4):
        t = (2,) + t
    if b.chance(0.04) and t and s and s[-1] > 1:
        t = t[:-1] + (s[-1] + 1,)
    keep = list(t)
    for i in range(1, n + 1):
        if s[-i] == t[-i] and b.chance(0.3):
            keep[-i] = -1
    form = b.pick(
        [
            "{x}.expand({a})",
            "{x}.expand(({a},))",
            "{x}.expand({m})",
            "{x}.expand_as(torch.zeros({a}))",
            "{x}.broadcast_to(({a},))",
            "torch.broadcast_to({x}, ({a},))",
        ]
    )
    shape = broadcast(s, t)
    shape = t if shape == t else None
    a, m = ", ".join(map(str, t)), ", ".join(map(str, keep))
    if not t:
        form, a = "{x}.expand(())", ""
    return form.format(x=x.name, a=a, m=m), shape, form


def _repeat(b, x, s, n):
    reps = tuple(b.integer(1, 2) for _ in range(n + b.integer(0, 1)))
    if not reps:
        reps = (2,)
    form = b.pick(["{x}.repeat({r})", "{x}.repeat(({r},))"])
    padded = (1,) * (len(reps) - n) + s
    shape = tuple(r * v for r, v in zip(reps, padded, strict=True))
    return form.format(x=x.name, r=", ".join(map(str, reps))), shape, form


def _flip(b, x, s, n):
    d, e = b.dim(n), b.dim(n, bad=0)
    form = b.pick(
        [
            "{x}.flip({d})",
            "{x}.flip(dims=({d},))",
            "torch.flip({x}, [{d}])",
            "torch.flip({x}, dims=({d}, {e}))",
            "{x}.flip({d}, {e})",
            "{x}.flip([{d}, {e}])",
        ]
    )
    two = "{e}" in form
    ok = valid_dim(d, n) and (not two or d % max(n, 1) != e % max(n, 1))
    return form.format(x=x.name, d=d, e=e), s if ok else None, form


def _split(b, x, s, n):
    if n == 0:
        return None
    d = b.dim(n)
    size = s[d % n] if valid_dim(d, n) else 1
    k = b.integer(1, max(1, size))
    form = b.pick(
        [
            "{x}.split({k})",
            "{x}.split({k}, dim={d})",
            "torch.split({x}, {k}, {d})",
            "{x}.split([{k}, {r}], {d})",
            "{x}.chunk({k})",
            "{x}.chunk({k}, dim={d})",
            "torch.chunk({x}, {k}, {d})",
            "{x}.unbind({d})",
        ]
    )
    parts = b.fresh()
    expr = form.format(x=x.name, k=k, d=d, r=max(size - k, 0))
    b.emit(f"{parts} = {expr}", f"shape.split:{form}")
    b.emit(f"rec({parts})", f"shape.split:{form}")
    axis = d % n if "dim" in form or "{d}" in form else 0
    if not valid_dim(d, n):
        return None
    first = k
    if "chunk" in form:
        first = -(-s[axis] // k)
    elif "unbind" in form:
        return f"{parts}[0]", s[:axis] + s[axis + 1 :], form
    if s[axis] == 0:
        return None
    return f"{parts}[0]", s[:axis] + (min(first, s[axis]),) + s[axis + 1 :], form


def _join(b, x, s, n):
    d = b.dim(n + 1) if b.chance(0.5) else b.dim(n)
    form = b.pick(
        [
            "torch.cat([{x}, {y}])",
            "torch.cat(({x}, {y}), dim={d})",
            "torch.cat([{x}, {y}], {d})",
            "torch.concat([{x}, {y}], dim={d})",
            "torch.stack([{x}, {y}])",
            "torch.stack(({x}, {y}), dim={d})",
            "torch.stack([{x}, {y}], {d})",
            "torch.hstack([{x}, {y}])",
            "torch.vstack([{x}, {y}])",
        ]
    )
    y = f"{x.name}.tanh()"
    expr = form.format(x=x.name, y=y, d=d)
    if "stack([" in form and "{d}" not in form and form.startswith("torch.stack"):
        d = 0
    if form.startswith("torch.stack"):
        ok = -n - 1 <= d <= n
        k = d % (n + 1) if ok else 0
        shape = s[:k] + (2,) + s[k:] if ok else None
    elif "hstack" in form:
        shape = (2 * s[0],) + s[1:] if n == 1 else (s[0], 2 * s[1]) + s[2:] if n >= 2 else (2,)
    elif "vstack" in form:
        shape = (2, s[0]) if n == 1 else (2 * s[0],) + s[1:] if n >= 2 else (2, 1)
    else:
        if "{d}" not in form:
            d = 0
        if n == 0 or not valid_dim(d, n):
            shape = None
        else:
            t = list(s)
            t[d % n] *= 2
            shape = tuple(t)
    return expr, shape, form


SHAPE_OPS = {
    "reshape": _reshape,
    "flatten": _flatten,
    "squeeze": _squeeze,
    "unsqueeze": _unsqueeze,
    "transpose": _transpose,
    "permute": _permute,
    "expand": _expand,
    "repeat": _repeat,
    "flip": _flip,
    "split": _split,
    "join": _join,
}


def op_matmul(b: Builder, x: Var) -> Var | None:
    s = x.shape
    if s is None or len(s) == 0:
        return None
    k = s[-1]
    if b.chance(0.05):
        k += 1  # the inner sizes differ
    form = b.pick(
        [
            "{x} @ {y}",
            "torch.matmul({x}, {y})",
            "{x}.matmul({y})",
            "torch.mm({x}, {y})",
            "torch.bmm({x}, {y})",
            "{x}.mm({y})",
            "torch.dot({x}, {y})",
            "{x} @ {y}.T",
        ]
    )
    if form.startswith("torch.dot"):
        y = b.leaf((k,), grad=b.chance(0.7))
        shape = () if len(s) == 1 and k == s[0] else None
    elif "bmm" in form:
        y = b.leaf((s[0], k, 2) if len(s) == 3 else (k, 2), grad=b.chance(0.7))
        shape = (s[0], s[1], 2) if len(s) == 3 and k == s[-1] else None
    elif form.endswith(".T"):
        y = b.leaf((2, k), grad=b.chance(0.7))
        shape = s[:-1] + (2,) if len(s) >= 1 and k == s[-1] and len(s) <= 2 else None
        if len(s) == 1:
            shape = (2,) if k == s[-1] else None
    else:
        vector = b.chance(0.25)
        y = b.leaf((k,) if vector else (k, 3), grad=b.chance(0.7))
        if k != s[-1]:
            shape = None
        elif "mm" in form:
            shape = (s[0], 3) if len(s) == 2 and not vector else None
        else:
            shape = s[:-1] + (() if vector else (3,))
    expr = form.format(x=x.name, y=y.name)
    return b.assign(expr, shape, f"matmul:{form}", "float64", x.grad or y.grad)


SOFTMAX = [
    "{x}.softmax({d})",
    "{x}.softmax(dim={d})",
    "torch.softmax({x}, {d})",
    "torch.softmax({x}, dim={d})",
    "F.softmax({x}, dim={d})",
    "F.log_softmax({x}, {d})",
    "{x}.log_softmax(dim={d})",
    "torch.log_softmax({x}, {d})",
    "nn.Softmax(dim={d})({x})",
    "nn.LogSoftmax(dim={d})({x})",
    "nn.Softmax()({x})",
    "nn.LogSoftmax()({x})",
    "F.softmax({x})",
]


def op_softmax(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    d, form = b.dim(len(x.shape)), b.pick(SOFTMAX)
    ok = valid_dim(d, len(x.shape)) or "{d}" not in form
    return b.assign(
        form.format(x=x.name, d=d), x.shape if ok else None, f"softmax:{form}", x.dtype, x.grad
    )


def op_loss(b: Builder, x: Var) -> Var | None:
    """A loss of x against targets: mse, cross-entropy (classes or probabilities), nll, BCE."""
    s = x.shape
    if s is None:
        return None
    reduction = b.pick(["mean", "sum", "none", None])
    red = "" if reduction is None else f", reduction={reduction!r}"
    kind = b.integer(0, 5)
    if kind == 0:
        t = b.leaf(s if b.chance(0.9) else partner_shape(b, s), grad=b.chance(0.3))
        form = b.pick(
            ["F.mse_loss({x}, {t}{r})", "nn.MSELoss({R})({x}, {t})", "F.l1_loss({x}, {t}{r})"]
        )
        shape = () if reduction != "none" else broadcast(s, t.shape)
        tag = "loss.mse"
    elif kind in (1, 2, 3):
        if len(s) not in (1, 2) or not s[-1]:
            return None
        classes, batch = s[-1], (s[0],) if len(s) == 2 else ()
        ignore = ""
        if kind == 2 and b.chance(0.5):
            t = b.leaf(s, grad=False, low=0, high=1)  # probabilities as targets
            target = f"{t.name}.softmax(-1)"
        else:
            labels = b.rng.integers(0, classes, size=batch)
            if b.chance(0.05):
                labels = labels + classes  # a class out of range
            target = f"torch.tensor({labels.tolist()})"
            if b.chance(0.3):
                ignore = f", ignore_index={int(labels.reshape(-1)[0]) if labels.size else 0}"
        extras = red + ignore
        if b.chance(0.3):
            extras += f", weight=torch.tensor({self_weights(b, classes)})"
        if b.chance(0.25) and kind != 3:
            extras += ", label_smoothing=0.1"
        if kind == 3:
            form = b.pick(
                [
                    "F.nll_loss({x}.log_softmax(-1), {t}{e})",
                    "nn.NLLLoss({E})({x}.log_softmax(-1), {t})",
                ]
            )
        else:
            form = b.pick(["F.cross_entropy({x}, {t}{e})", "nn.CrossEntropyLoss({E})({x}, {t})"])
        expr = form.format(x=x.name, t=target, e=extras, E=extras.lstrip(", "))
        shape = () if reduction != "none" else batch
        return b.assign(
            expr, shape, f"loss.{'nll' if kind == 3 else 'cross_entropy'}:{form}", "float64", x.grad
        )
    else:
        t = b.leaf(s, grad=False, low=0, high=1)
        form = b.pick(
            [
                "F.binary_cross_entropy_with_logits({x}, {t}{r})",
                "nn.BCEWithLogitsLoss({R})({x}, {t})",
                "F.binary_cross_entropy({x}.sigmoid(), {t}{r})",
                "nn.BCEWithLogitsLoss(pos_weight=torch.tensor(2.0){r})({x}, {t})",
            ]
        )
        shape = () if reduction != "none" else s
        tag = "loss.bce"
    expr = form.format(x=x.name, t=t.name, r=red, R=red.lstrip(", "))
    return b.assign(expr, shape, f"{tag}:{form}", "float64", x.grad or t.grad)


def self_weights(b: Builder, classes: int) -> list:
    return np.round(b.rng.uniform(0.5, 2.0, size=classes), 2).tolist()


def op_index(b: Builder, x: Var) -> Var | None:
    """x[index] with ints, slices, None, Ellipsis, lists and index tensors, PyTorch's rules."""
    if x.shape is None:
        return None
    expr, shape, form = index_expression(b, x.shape)
    return b.assign(f"{x.name}[{expr}]", shape, f"index.get:{form}", x.dtype, x.grad)


def index_expression(b: Builder, s: tuple) -> tuple[str, tuple | None, str]:
    """An index for a tensor of shape ``s``: its source, the result's shape, its form."""
    parts, kinds, out_basic, adv_shapes, adv_pos = [], [], [], [], []
    n, used = len(s), 0
    k = b.integer(1, max(1, n)) if n else 1
    for axis in range(min(k, n)):
        size = s[axis]
        kind = b.pick(["int", "slice", "slice", "list", "tensor", "neg"]) if size else "slice"
        if kind in ("int", "neg"):
            i = b.integer(0, size - 1)
            if b.chance(0.04):
                i = size  # out of range
            parts.append(str(i - size if kind == "neg" else i))
            kinds.append("int")
        elif kind == "slice":
            start, stop = b.integer(0, size), b.integer(0, size)
            step = b.pick([1, 1, 2])
            text = f"{start if start else ''}:{stop if b.chance(0.7) else ''}"
            text += f":{step}" if step != 1 else ""
            if b.chance(0.3):
                text = ":"
            parts.append(text)
            kinds.append("slice")
            length = len(range(size)[_slice(text)])
            out_basic.append((len(kinds) - 1, length))
        else:
            m = b.integer(1, 3)
            idx = b.rng.integers(-size, size, size=m).tolist()
            if b.chance(0.04):
                idx[0] = size
            parts.append(repr(idx) if kind == "list" else f"torch.tensor({idx})")
            kinds.append("adv")
            adv_shapes.append((m,))
            adv_pos.append(len(kinds) - 1)
        used += 1
    if b.chance(0.15):
        parts.insert(b.integer(0, len(parts)), "None")
    if b.chance(0.1) and "..." not in parts:
        parts.append("...")
    if not parts:
        parts = [":"]
    text = ", ".join(parts)
    shape = _torch_index_shape(s, parts)
    form = ",".join(p if p in (":", "None", "...") else _kind_of(p) for p in parts)
    return text, shape, form


def _kind_of(part: str) -> str:
    if part.startswith("["):
        return "list"
    if part.startswith("torch"):
        return "tensor"
    if ":" in part:
        return "slice"
    return "int"


def _slice(text: str) -> slice:
    bits = [int(v) if v else None for v in text.split(":")]
    return slice(*bits)


def _torch_index_shape(s: tuple, parts: list[str]) -> tuple | None:
    """PyTorch's result shape: ints select first (they are not advanced indices, unlike
    numpy's), then the advanced indices broadcast together and go where they stand if
    adjacent, first otherwise."""
    dims = list(s)
    items = []
    if "..." in parts:
        k = parts.index("...")
        consumed = sum(p not in ("None", "...") for p in parts)
        fill = len(dims) - consumed
        parts = parts[:k] + [":"] * max(fill, 0) + parts[k + 1 :]
    axis = 0
    for p in parts:
        if p == "None":
            items.append(("new", 1))
            continue
        if axis >= len(dims):
            return None
        size = dims[axis]
        axis += 1
        kind = _kind_of(p)
        if kind == "int":
            i = int(p)
            if not -size <= i < size:
                return None
        elif kind == "slice":
            items.append(("basic", len(range(size)[_slice(p)])))
        else:
            idx = eval(p.replace("torch.tensor", ""))  # noqa: S307 (our own literal)
            if any(not -size <= i < size for i in idx):
                return None
            items.append(("adv", len(idx)))
    items += [("basic", v) for v in dims[axis:]]
    adv = [i for i, (kind, _) in enumerate(items) if kind == "adv"]
    if not adv:
        return tuple(v for _, v in items)
    lengths = {items[i][1] for i in adv}
    lengths.discard(1)
    if len(lengths) > 1:
        return None
    length = lengths.pop() if lengths else 1
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    rest = [v for kind, v in items if kind != "adv"]
    if adjacent:
        before = [v for kind, v in items[: adv[0]]]
        after = [v for kind, v in items[adv[-1] + 1 :]]
        return tuple(before + [length] + after)
    return tuple([length] + rest)


def op_gather(b: Builder, x: Var) -> Var | None:
    s = x.shape
    if not s or 0 in s:
        return None
    n, d = len(s), b.dim(len(s))
    dd = d % n if valid_dim(d, n) else 0
    shape = tuple(b.integer(1, v) if i != dd else b.integer(1, 3) for i, v in enumerate(s))
    index = b.rng.integers(0, s[dd], size=shape)
    if b.chance(0.04):
        index.reshape(-1)[0] = s[dd]
    form = b.pick(
        [
            "{x}.gather({d}, torch.tensor({i}))",
            "torch.gather({x}, {d}, torch.tensor({i}))",
            "torch.gather({x}, dim={d}, index=torch.tensor({i}))",
        ]
    )
    ok = valid_dim(d, n) and index.max() < s[dd]
    expr = form.format(x=x.name, d=d, i=index.tolist())
    return b.assign(expr, shape if ok else None, f"index.gather:{form}", x.dtype, x.grad)


def op_masked_fill(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    form = b.pick(
        [
            "{x}.masked_fill({x} > 0.5, 0.0)",
            "{x}.masked_fill({x} < 0, float('-inf')).softmax(-1)",
            "torch.masked_fill({x}, {x} > 0, -1.0)",
            "{x}.masked_fill(mask={x} == 1, value=2.0)",
        ]
    )
    return b.assign(form.format(x=x.name), x.shape, f"index.masked_fill:{form}", x.dtype, x.grad)


def op_logical(b: Builder, x: Var) -> Var | None:
    """Comparisons and bool logic, used as masks and counts."""
    if x.shape is None:
        return None
    form = b.pick(
        [
            "({x} > 0) & ({x} < 1)",
            "({x} > 0.5) | ({x} < -0.5)",
            "~({x} > 0)",
            "({x} == 1) ^ ({x} > 0)",
            "{x}.eq(1.0) | {x}.gt(1)",
            "torch.logical_and({x} > 0, {x} < 1)",
            "{x} >= {x}.mean()",
            "{x}.ne(0)",
            "torch.eq({x}, {x}.round())",
        ]
    )
    mask = b.assign(form.format(x=x.name), x.shape, f"logical:{form}", "bool")
    use = b.pick(list(MASK_USES))
    dtype, keeps_grad, shape = MASK_USES[use]
    expr, tag = use.format(m=mask.name, x=x.name), f"logical.use:{use}"
    out = b.assign(
        expr, x.shape if shape == "x" else shape, tag, dtype or x.dtype, x.grad and keeps_grad
    )
    return out if out.float and out.dtype == x.dtype else None


# How a mask is used: (dtype, None for x's; whether x's gradient flows; shape: "x", (), None)
MASK_USES = {
    "torch.where({m}, {x}, -{x})": (None, True, "x"),
    "{x} * {m}": (None, True, "x"),
    "{m}.double() * {x}": (None, True, "x"),
    "{x}[{m}]": (None, True, None),
    "{m}.float()": ("float32", False, "x"),
    "{m}.long()": ("int64", False, "x"),
    "{m}.sum()": ("int64", False, ()),
    "{m}.any()": ("bool", False, ()),
    "{m}.all()": ("bool", False, ()),
}


def op_compare_none(b: Builder, x: Var) -> Var | None:
    form = b.pick(["{x} == None", "{x} != None", "{x} is None", "{x}.eq(None)"])
    b.assign(form.format(x=x.name), (), f"compare.none:{form}", "bool")
    return None


TENSOR_OPS = [
    (op_unary, 5),
    (op_binary, 4),
    (op_reduce, 3),
    (op_maxmin, 2),
    (op_shape, 4),
    (op_matmul, 1.5),
    (op_softmax, 1),
    (op_loss, 1),
    (op_index, 1.5),
    (op_gather, 0.5),
    (op_masked_fill, 0.5),
    (op_logical, 1),
    (op_compare_none, 0.2),
    (op_clamp_tensor, 0.6),
]


def _weighted(b: Builder, table):
    weights = np.array([w for _, w in table], float)
    return table[int(b.rng.choice(len(table), p=weights / weights.sum()))][0]


def gradients(b: Builder, z: Var, second: bool = True) -> None:
    """Record d(out)/d(leaves) of a weighted sum of ``z``, and a Hessian-vector product."""
    leaves = ", ".join(v.name for v in b.leaves)
    b.emit(
        f"w = torch.cos(torch.arange(float({z.name}.numel())) * 0.7 + 0.2).reshape({z.name}.shape)",
        "grad.weights",
    )
    b.emit(f"out = ({z.name} * w).sum()", "grad.out")
    b.emit("rec(out)", "grad.out")
    create = second and b.chance(0.8)
    form = b.pick(["grad([{l}], create_graph={c}, allow_unused=True)", "backward"])
    if form == "backward" or not create and b.chance(0.3):
        b.emit(f"out.backward(create_graph={create})", "grad.backward")
        b.emit(f"recv([v.grad for v in [{leaves}]])", "grad.backward")
        b.emit(f"g = [v.grad for v in [{leaves}]]", "grad.backward")
    else:
        b.emit(
            f"g = torch.autograd.grad(out, [{leaves}], create_graph={create}, allow_unused=True)",
            "grad.first",
        )
        b.emit("recv(g)", "grad.first")
    if not create:
        return
    b.emit(
        "s = sum((gi * torch.sin(torch.arange(float(gi.numel())) + 1.0).reshape(gi.shape)).sum()"
        " for gi in g if gi is not None)",
        "grad.second",
    )
    b.emit("recv(s)", "grad.second")
    b.emit(
        f"h = torch.autograd.grad(s, [{leaves}], allow_unused=True)"
        f" if torch.is_tensor(s) and s.requires_grad else [None] * len([{leaves}])",
        "grad.second",
    )
    # Where no second derivative flows, PyTorch gives None or a tensor that needs no grad
    # depending on how a derivative is written inside it: both mean zeros.
    b.emit(
        f"recv([torch.zeros_like(v) if hv is None else hv for v, hv in zip([{leaves}], h)])",
        "grad.second",
    )


def family_tensor(b: Builder) -> None:
    """A chain of operations from one leaf (new leaves join where an operation needs them),
    then first and second derivatives of the result."""
    current = b.leaf(b.shape())
    for _ in range(b.integer(2, 6)):
        out = _weighted(b, TENSOR_OPS)(b, current)
        if out is None or out.shape is None:
            break
        current = out
    if current.grad and current.dtype == "float64" and current.shape is not None:
        gradients(b, current)


def family_index(b: Builder) -> None:
    """Indexing on get and on set, in and out of a graph."""
    x = b.leaf(b.pick([(3, 4), (2, 3, 4), (4,), (2, 3), (3, 2, 2)]))
    for _ in range(b.integer(1, 3)):
        kind = b.integer(0, 3)
        expr, shape, form = index_expression(b, x.shape)
        if kind == 0:
            x = b.assign(f"{x.name}[{expr}]", shape, f"index.get:{form}", "float64", True)
            if shape is None:
                return
        else:
            z = b.assign(f"{x.name} * 1.0", x.shape, "index.copy", "float64", True, record=False)
            if shape is None or kind == 1:
                value = b.pick(["0.0", "-1.5", "float('nan')"])
            else:
                y = b.leaf(shape[b.integer(0, len(shape)) :] if shape else (), grad=b.chance(0.7))
                value = y.name
            b.emit(f"{z.name}[{expr}] = {value}", f"index.set:{form}")
            b.emit(f"rec({z.name})", f"index.set:{form}")
            if kind == 3:
                b.emit(
                    f"with torch.no_grad():\n    {x.name}[{expr}] = 0.25", f"index.set_leaf:{form}"
                )
                b.emit(f"rec({x.name})", f"index.set_leaf:{form}")
            x = z
    if x.shape is not None:
        b.emit(f"rec({x.name}.shape)", "index.shape")
        gradients(b, x, second=b.chance(0.3))


HOOKS = [
    "lambda g: g * 2",
    "lambda g: g ** 2",
    "lambda g: g.clamp(max=0.5)",
    "lambda g: None",
    "lambda g: rec(g)",
    "lambda g: g + 1",
]


def family_autograd(b: Builder) -> None:
    """Hooks, fan-out, accumulation, retain_grad, backward's forms, modes and in-place changes."""
    shape = b.pick([(3,), (2, 3), (4,)])
    x = b.leaf(shape)
    y = b.leaf(shape[-1:], grad=b.chance(0.6), low=0.5, high=2.0)
    if b.chance(0.5):
        hook = b.pick(HOOKS)
        b.emit(f"hx = {x.name}.register_hook({hook})", f"hook.leaf:{hook}")
    a = b.assign(
        f"{x.name}.{b.pick(['tanh', 'exp', 'sin', 'sigmoid'])}()", shape, "fan.a", grad=True
    )
    c = b.assign(
        b.pick(
            [
                "{x} * {y}",
                "{x} / {y}",
                "({x} * {x}) / {y}",
                "{x} + {x}",
                "{x} ** 2 + {y}",
            ]
        ).format(x=x.name, y=y.name),
        shape,
        "fan.c",
        grad=True,
    )
    if b.chance(0.3):
        a_hook = b.pick(HOOKS)
        b.emit(f"{a.name}.register_hook({a_hook})", f"hook.nonleaf:{a_hook}")
    if b.chance(0.3):
        b.emit(f"{a.name}.retain_grad()", "retain_grad")
    inplace = b.integer(0, 9)
    if inplace == 0:
        alias = b.fresh()
        b.emit(f"{alias} = {a.name}\n{a.name} += 1", "inplace.graph_iadd")
        b.emit(f"rec({alias}, {a.name} is {alias})", "inplace.graph_iadd")
    elif inplace == 1:
        b.emit(f"{a.name}.mul_(2)", "inplace.graph_mul_")
    elif inplace == 2:
        b.emit(f"d = {a.name}.detach()\nd.zero_()", "inplace.detach")
        b.emit(f"rec({a.name})", "inplace.detach")
    elif inplace == 3:
        form = b.pick(["{a}.view(-1)", "{a}[0]", "{a}.t()" if len(shape) == 2 else "{a}[:2]"])
        b.emit(f"u = {form.format(a=a.name)}\nu.mul_(3)", f"inplace.view:{form}")
        b.emit(f"rec({a.name}, u)", f"inplace.view:{form}")
    elif inplace == 4:
        b.emit(f"{x.name}.add_(1)", "inplace.leaf_requires_grad")
    elif inplace == 5:
        b.emit(f"with torch.no_grad():\n    {x.name}.mul_(0.5)", "inplace.leaf_no_grad")
    loss = b.assign(f"({a.name} * {c.name}).sum()", (), "fan.loss", grad=True)
    leaves = f"[{x.name}, {y.name}]" if y.grad else f"[{x.name}]"
    how = b.integer(0, 7)
    if how == 0:
        b.emit(f"{loss.name}.backward()", "backward.plain")
    elif how == 1:
        b.emit(
            f"{loss.name}.backward(retain_graph=True)\n{loss.name}.backward()",
            "backward.accumulate",
        )
    elif how == 2:
        b.emit(f"{loss.name}.backward()\n{loss.name}.backward()", "backward.twice_freed")
    elif how == 3:
        b.emit(f"torch.autograd.backward({loss.name})", "backward.function")
    elif how == 4:
        b.emit(f"{c.name}.backward(torch.ones_like({c.name}))", "backward.gradient")
    elif how == 5:
        b.emit(f"{c.name}.backward()", "backward.nonscalar")
    elif how == 6:
        b.emit(
            f"(gx,) = torch.autograd.grad({loss.name}, {x.name}, create_graph=True)\n"
            f"(gx * gx).sum().backward()",
            "backward.double",
        )
    else:
        b.emit(
            f"if 'hx' in dir():\n    hx.remove()\n{loss.name}.backward()",
            "backward.hook_removed",
        )
    b.emit(f"rec([v.grad for v in {leaves}])", "backward.grads")
    if b.chance(0.3):
        b.emit(f"rec({a.name}.grad)", "backward.nonleaf_grad")
    mode = b.integer(0, 4)
    if mode == 0:
        b.emit(f"with torch.no_grad():\n    m = {x.name} * 2", "mode.no_grad")
        b.emit("rec(m.requires_grad)", "mode.no_grad")
    elif mode == 1:
        b.emit(
            f"with torch.no_grad():\n    with torch.enable_grad():\n        m = {x.name} * 2",
            "mode.enable_grad",
        )
        b.emit("rec(m.requires_grad, m.is_leaf)", "mode.enable_grad")
    elif mode == 2:
        b.emit(
            f"with torch.set_grad_enabled(False):\n    m = {x.name} * 2\n"
            f"torch.set_grad_enabled(True)",
            "mode.set_grad_enabled",
        )
        b.emit("rec(m.requires_grad, torch.is_grad_enabled())", "mode.set_grad_enabled")
    elif mode == 3:
        b.emit(f"m = {x.name}.detach().requires_grad_()", "mode.requires_grad_")
        b.emit("rec(m.requires_grad, m.is_leaf, m.grad_fn is None)", "mode.requires_grad_")


DTYPE_EXPRS = [
    ("{i} + 1", "int"),
    ("{i32} + 1", "int32"),
    ("{i32} * 2", "int32"),
    ("{i32} + {i}", "int"),
    ("{i} * 2.5", "float"),
    ("{i} / 2", "float"),
    ("{i} // 2", "int"),
    ("{i} % 3", "int"),
    ("{i} ** 2", "int"),
    ("-{i}", "int"),
    ("{i}.sum()", "int"),
    ("{i32}.sum()", "int"),
    ("{i}.mean()", "error"),
    ("{i}.float().mean()", "float"),
    ("{b}.sum()", "int"),
    ("{b} & {b2}", "bool"),
    ("{b} | {b2}", "bool"),
    ("~{b}", "bool"),
    ("{b} ^ {b2}", "bool"),
    ("{b} * 2", "int"),
    ("{b} + {b2}", "bool"),
    ("{b}.float() * {f}", "float"),
    ("{f32} + {f}", "float"),
    ("{f32} * 2.0", "float32"),
    ("{f32} + {i}", "float32"),
    ("{i32} + {f32}", "float32"),
    ("{f32}.sum()", "float32"),
    ("{i}.float()", "float32"),
    ("{i}.double()", "float"),
    ("{i}.to(torch.float64)", "float"),
    ("{i32}.long()", "int"),
    ("{f}.int()", "int32"),
    ("{f}.long()", "int"),
    ("{f}.to(torch.int64)", "int"),
    ("{f}.to(dtype=torch.int32)", "int32"),
    ("{b}.int()", "int32"),
    ("{f}.bool()", "bool"),
    ("{i}.dtype == torch.int64", "py"),
    ("{i}.dtype == torch.long", "py"),
    ("{i32}.dtype == torch.int32", "py"),
    ("({i32} + 1).dtype == torch.int32", "py"),
    ("{i32}.dtype == torch.int", "py"),
    ("{f}.dtype == torch.float64", "py"),
    ("{f}.dtype == torch.double", "py"),
    ("{f32}.dtype == torch.float", "py"),
    ("{f32}.dtype == torch.float32", "py"),
    ("{f}.dtype == torch.float32", "py"),
    ("{f}.dtype is torch.float64", "py"),
    ("{f}.dtype in (torch.float32, torch.float64)", "py"),
    ("{b}.dtype == torch.bool", "py"),
    ("{f}.is_floating_point()", "py"),
    ("{i}.is_floating_point()", "py"),
    ("torch.is_floating_point({f32})", "py"),
    ("torch.get_default_dtype() == torch.float64", "py"),
    ("torch.zeros(2, dtype=torch.long)", "int"),
    ("torch.zeros(2, 3, dtype=torch.int32)", "int32"),
    ("torch.ones((2, 3), dtype=torch.float32)", "float32"),
    ("torch.full((2,), 3)", "int"),
    ("torch.full((2, 2), 3.0)", "float"),
    ("torch.full((2,), True)", "bool"),
    ("torch.arange(5)", "int"),
    ("torch.arange(5.0)", "float"),
    ("torch.arange(1, 4)", "int"),
    ("torch.arange(0, 1, 0.25)", "float"),
    ("torch.arange(6).reshape(2, 3)", "int"),
    ("torch.arange(start=2, end=5)", "int"),
    ("torch.arange(4, dtype=torch.float64)", "float"),
    ("torch.linspace(0, 1, 5)", "float"),
    ("torch.linspace(-1, 1, steps=3)", "float"),
    ("torch.eye(3)", "float"),
    ("torch.eye(2, 3)", "float"),
    ("torch.tensor([1, 2.5])", "float"),
    ("torch.tensor([True, False])", "bool"),
    ("torch.tensor(3)", "int"),
    ("torch.tensor(3.0)", "float"),
    ("torch.tensor([[1, 2], [3, 4]], dtype=torch.float32)", "float32"),
    ("torch.tensor([])", "float"),
    ("torch.zeros_like({i})", "int"),
    ("torch.zeros_like({i}, dtype=torch.float64)", "float"),
    ("torch.ones_like({f32})", "float32"),
    ("torch.full_like({f}, 7)", "float"),
    ("torch.empty(2, 3).shape", "py"),
    ("torch.zeros(2, 3)", "float"),
    ("torch.zeros((2, 3))", "float"),
    ("torch.zeros([2, 3])", "float"),
    ("torch.ones(size=(2,))", "float"),
    ("torch.zeros(0)", "float"),
    ("torch.Tensor([1, 2])", "float"),
    ("torch.Tensor(2, 3).shape", "py"),
    ("torch.Tensor([[1.5]])", "float"),
    ("nn.Parameter(torch.Tensor(3, 2)).shape", "py"),
    ("nn.Parameter(torch.zeros(2)).requires_grad", "py"),
    ("torch.randn(2, 3).shape", "py"),
    ("torch.rand(4).dtype", "py"),
    ("torch.randint(0, 5, (3,)).dtype", "py"),
    ("torch.randint(5, (2, 2)).shape", "py"),
    ("torch.randn(3, dtype=torch.float32).dtype", "py"),
    ("{f}.numel()", "py"),
    ("{f}.dim()", "py"),
    ("{f}.ndim", "py"),
    ("{f}.size()", "py"),
    ("{f}.size(0)", "py"),
    ("{f}.size(-1)", "py"),
    ("{f}.shape[0]", "py"),
    ("len({f})", "py"),
    ("{f}[0].item()", "py"),
    ("{i}[0].item()", "py"),
    ("{b}[0].item()", "py"),
    ("{f}.tolist()", "py"),
    ("{i}.tolist()", "py"),
    ("int({i}[0])", "py"),
    ("float({f}[1])", "py"),
    ("bool({b}[0])", "py"),
    ("{f}.sum().item() > 0", "py"),
    ("[t.item() for t in {f}]", "py"),
    ("torch.numel({f})", "py"),
    ("torch.is_tensor({f})", "py"),
    ("isinstance({f}, torch.Tensor)", "py"),
    ("{f}.device == torch.device('cpu')", "py"),
    ("str({f}.device)", "py"),
    ("{f}.to('cpu')", "float"),
    ("{f}.cpu()", "float"),
    ("{f}.to(torch.device('cpu'))", "float"),
    ("{f}.to('cpu', torch.float32)", "float32"),
    ("{f}.type_as({i})", "int"),
    ("torch.allclose({f}, {f} + 1e-9)", "py"),
    ("torch.equal({f}, {f}.clone())", "py"),
    ("{f}.argmax().item()", "py"),
    ("{f}.max(0)[1].item()", "py"),
]


def family_dtype(b: Builder) -> None:
    """dtypes: promotion, conversions, constructors, Python values and dtype comparisons."""
    n = b.pick([3, 4])
    names = {}
    for key, dtype in (("i", "int64"), ("i32", "int32"), ("b", "bool"), ("b2", "bool")):
        names[key] = b.leaf((n,), grad=False, dtype=dtype).name
    names["f32"] = b.leaf((n,), grad=False, dtype="float32").name
    names["f"] = b.leaf((n,), grad=False).name
    for _ in range(b.integer(3, 8)):
        expr, kind = b.pick(DTYPE_EXPRS)
        b.emit(f"rec({expr.format(**names)})", f"dtype:{expr}")


MODELS = [
    "nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))",
    "nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2, bias=False))",
    "nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))",
    "nn.Sequential(nn.Flatten(), nn.Linear(3, 4), nn.LeakyReLU(0.1), nn.Dropout(0.0), "
    "nn.Linear(4, 2))",
    "nn.Sequential(nn.Linear(3, 4), nn.Sigmoid(), nn.Linear(4, 2), nn.LogSoftmax(dim=1))",
]

OPTIMISERS = [
    "torch.optim.SGD({p}, lr=0.1)",
    "torch.optim.SGD({p}, lr=0.1, momentum=0.9)",
    "torch.optim.SGD({p}, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)",
    "torch.optim.SGD({p}, 0.1, 0.5, 0.1)",
    "torch.optim.Adam({p})",
    "torch.optim.Adam({p}, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)",
    "torch.optim.Adam({p}, lr=0.02, amsgrad=True)",
    "torch.optim.Adam({p}, 0.01)",
    "torch.optim.AdamW({p}, lr=0.01)",
    "torch.optim.AdamW({p}, lr=0.01, weight_decay=0.1, amsgrad=True)",
    "torch.optim.RMSprop({p}, lr=0.01)",
    "torch.optim.RMSprop({p}, lr=0.01, alpha=0.9, momentum=0.5, centered=True)",
    "torch.optim.RMSprop({p}, lr=0.01, weight_decay=0.1, eps=1e-6)",
]

SCHEDULERS = [
    "torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)",
    "torch.optim.lr_scheduler.StepLR(opt, 3)",
    "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)",
    "torch.optim.lr_scheduler.ExponentialLR(opt, 0.8)",
    "torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))",
    "torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda e: 0.9 ** e)",
    "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)",
]

LOSSES = [
    ("nn.CrossEntropyLoss()", "labels"),
    ("nn.CrossEntropyLoss(label_smoothing=0.1)", "labels"),
    ("nn.CrossEntropyLoss(ignore_index=1)", "labels"),
    ("nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0]), reduction='sum')", "labels"),
    ("nn.MSELoss()", "values"),
    ("nn.MSELoss(reduction='sum')", "values"),
    ("nn.BCEWithLogitsLoss()", "probabilities"),
    ("nn.NLLLoss()", "log-probabilities"),
]


def family_train(b: Builder) -> None:
    """A model, a loss, an optimiser (parameter groups too), schedulers, clipping, a few
    steps; losses, learning rates and weights recorded."""
    model = b.pick(MODELS)
    b.emit(f"model = {model}", "train.model")
    b.emit(
        "with torch.no_grad():\n    for k, p in enumerate(model.parameters()):\n"
        "        p.copy_(0.5 * torch.sin(torch.arange(float(p.numel())) * 0.37 + k)"
        ".reshape(p.shape))",
        "train.init",
    )
    X = b.values((6, 3))
    b.emit(f"X = torch.tensor({X.tolist()})", "train.data")
    loss, target = b.pick(LOSSES)
    if "LogSoftmax" not in model and target == "log-probabilities":
        loss, target = "nn.CrossEntropyLoss()", "labels"
    if target == "labels":
        b.emit(f"Y = torch.tensor({b.rng.integers(0, 2, size=6).tolist()})", "train.targets")
    elif target == "probabilities":
        b.emit(f"Y = torch.tensor({np.round(b.rng.random((6, 2)), 2).tolist()})", "train.targets")
    else:
        b.emit(f"Y = torch.tensor({b.values((6, 2)).tolist()})", "train.targets")
    b.emit(f"loss_fn = {loss}", f"train.loss:{loss}")
    params = b.pick(
        [
            "model.parameters()",
            "list(model.parameters())",
            "[{'params': model[0].parameters(), 'lr': 0.05}, {'params': model[-1].parameters()}]",
        ]
    )
    opt = b.pick(OPTIMISERS)
    if "{'params'" in params and ("0.1, 0.5" in opt or opt.endswith("0.01)") and "lr" not in opt):
        params = "model.parameters()"
    frozen = b.chance(0.3)
    if frozen:
        b.emit("model[0].bias.requires_grad_(False)", "train.frozen")
    b.emit(f"opt = {opt.format(p=params)}", f"train.optimiser:{opt}")
    schedulers = []
    if b.chance(0.6):
        schedulers.append(b.pick(SCHEDULERS))
        if b.chance(0.3):
            schedulers.append(b.pick(SCHEDULERS))
    for k, sched in enumerate(schedulers):
        b.emit(f"sched{k} = {sched}", f"train.scheduler:{sched}")
    clip = b.pick(
        [
            "",
            "nn.utils.clip_grad_norm_(model.parameters(), 0.5)",
            "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, norm_type=1)",
            "nn.utils.clip_grad_value_(model.parameters(), 0.05)",
            "nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)",
        ]
    )
    manual = b.integer(1, 4) if b.chance(0.25) else -1
    zero = b.pick(["opt.zero_grad()", "model.zero_grad()", "opt.zero_grad(set_to_none=False)"])
    body = [
        f"for step in range({b.integer(3, 6)}):",
        f"    {zero}",
        "    loss = loss_fn(model(X), Y)",
        "    loss.backward()",
    ]
    if clip:
        body.append(f"    rec({clip})")
    body.append("    opt.step()")
    body += [f"    sched{k}.step()" for k in range(len(schedulers))]
    if manual >= 0:
        body.append(
            f"    if step == {manual}:\n        for group in opt.param_groups:\n"
            "            group['lr'] = group['lr'] * 0.5"
        )
    body.append("    rec(loss, [g['lr'] for g in opt.param_groups])")
    if schedulers:
        body.append("    rec(sched0.get_last_lr())")
    b.emit("\n".join(body), f"train.loop:{opt}|{'+'.join(schedulers)}|{clip}|manual={manual >= 0}")
    b.emit("rec(list(model.parameters()))", "train.weights")
    b.emit("rec(len(opt.state), sorted(opt.state_dict()['state']))", "train.state")
    if "BatchNorm" in model:
        b.emit(
            "rec(model[1].running_mean, model[1].running_var, model[1].num_batches_tracked)",
            "train.batchnorm",
        )
        b.emit("model.eval()\nrec(model(X))", "train.eval")
    if b.chance(0.3):
        b.emit("rec(sorted(model.state_dict()))", "train.state_dict_keys")


def family_data(b: Builder) -> None:
    """TensorDataset and DataLoader (batches, shuffling with a generator), save and load."""
    n = b.integer(4, 9)
    X = b.values((n, 2))
    b.emit(f"X = torch.tensor({X.tolist()})", "data.x")
    b.emit(f"Y = torch.arange({n})", "data.y")
    kind = b.integer(0, 3)
    if kind <= 1:
        b.emit("from torch.utils.data import TensorDataset, DataLoader", "data.import")
        b.emit("ds = TensorDataset(X, Y)", "data.dataset")
        b.emit("rec(len(ds), ds[1])", "data.dataset")
        batch = b.integer(1, 4)
        args = [f"batch_size={batch}"]
        if b.chance(0.6):
            args.append("shuffle=True")
            if b.chance(0.8):
                args.append(f"generator=torch.Generator().manual_seed({b.integer(0, 100)})")
            shuffled = "generator" not in args[-1]
        else:
            shuffled = False
        if b.chance(0.3):
            args.append("drop_last=True")
        loader = f"DataLoader(ds, {', '.join(args)})"
        b.emit(f"loader = {loader}", f"data.loader:{loader}")
        b.emit("rec(len(loader))", "data.len")
        record = "rec(xb.shape, yb.shape)" if shuffled else "rec(xb, yb)"
        b.emit(
            f"for epoch in range(2):\n    for xb, yb in loader:\n        {record}",
            f"data.iterate:{loader}",
        )
        if shuffled:  # the package's random order differs from PyTorch's: only what it holds
            seen = "len" if "drop_last" in loader else "sorted"
            b.emit(f"rec({seen}(torch.cat([yb for _, yb in loader]).tolist()))", "data.permutation")
    elif kind == 2:
        b.emit("import io", "data.import")
        b.emit(
            "model = nn.Linear(2, 3)\nbuf = io.BytesIO()\n"
            "torch.save(model.state_dict(), buf)\nbuf.seek(0)\n"
            "state = torch.load(buf)\nother = nn.Linear(2, 3)\nother.load_state_dict(state)",
            "data.save_state_dict",
        )
        b.emit("rec(sorted(state), torch.equal(other(X), model(X)))", "data.save_state_dict")
    else:
        b.emit("import io", "data.import")
        obj = b.pick(
            [
                "X",
                "{'x': X, 'epoch': 3, 'names': ['a', 'b']}",
                "[X, Y]",
                "(X * 2).requires_grad_()",
            ]
        )
        b.emit(
            f"buf = io.BytesIO()\ntorch.save({obj}, buf)\nbuf.seek(0)\nback = torch.load(buf)",
            f"data.save:{obj}",
        )
        b.emit("rec(back)", f"data.save:{obj}")


FAMILY_BUILDERS = {
    "tensor": family_tensor,
    "autograd": family_autograd,
    "dtype": family_dtype,
    "index": family_index,
    "train": family_train,
    "data": family_data,
}


def generate(seed: int, family: str | None = None) -> Program:
    """The program of ``seed`` (its family drawn from the seed unless given)."""
    if family is None:
        rng = np.random.default_rng(seed)
        family = FAMILIES[int(rng.choice(len(FAMILIES), p=np.array(WEIGHTS) / sum(WEIGHTS)))]
    b = Builder(seed, family)
    FAMILY_BUILDERS[family](b)
    return b.program
