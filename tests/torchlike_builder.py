"""The program builder of the fuzzer (:mod:`torchlike_programs`): names, literals, random
choices and statements with their tags, and PyTorch's shape rules, which the generator
follows so that it writes mostly valid calls.

>>> broadcast((2, 1, 3), (4, 1)), reduced((2, 3, 4), (0, -1), keepdim=True)
((2, 4, 3), (1, 3, 1))
"""

from __future__ import annotations

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


def weighted(b: Builder, table):
    weights = np.array([w for _, w in table], float)
    return table[int(b.rng.choice(len(table), p=weights / weights.sum()))][0]
