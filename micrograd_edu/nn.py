"""Modules: ``Parameter``, ``Module``, ``Linear``, activations, ``Sequential``, ``ModuleList``.

This is PyTorch's ``torch.nn`` in miniature, with the same names and the same
behaviour where a student would notice: a module registers every
``Parameter`` and sub-``Module`` assigned to it as an attribute, in the order
of assignment, and ``named_parameters()``, ``named_modules()`` and the printed
tree use exactly PyTorch's names (``0.weight``, ``layer1.bias``, ...).

>>> net = Sequential(Linear(4, 3, seed=0), ReLU(), Linear(3, 1, seed=1))
>>> net
Sequential(
  (0): Linear(in_features=4, out_features=3, bias=True)
  (1): ReLU()
  (2): Linear(in_features=3, out_features=1, bias=True)
)
>>> [name for name, _ in net.named_parameters()]
['0.weight', '0.bias', '2.weight', '2.bias']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from . import init
from .init import Seed
from .ops import Op
from .tensor import Tensor, apply

__all__ = [
    "Parameter",
    "Module",
    "Linear",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "Sequential",
    "ModuleList",
    "init",
]


class Parameter(Tensor):
    """A ``Tensor`` that is a learnable weight: it requires grad, and a
    ``Module`` registers it when it is assigned as an attribute.

    >>> Parameter(np.zeros(2)).requires_grad
    True
    """

    def __init__(self, data: Any, requires_grad: bool = True) -> None:
        super().__init__(data, requires_grad=requires_grad, dtype=np.float64)

    def __repr__(self) -> str:
        return f"Parameter containing:\n{super().__repr__()}"


class Module:
    """The base of every layer and model: subclass it, assign parameters and
    sub-modules in ``__init__``, and write ``forward``.

    >>> class Net2(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.layer0 = Linear(2, 2, seed=0)
    ...         self.layer1 = Linear(2, 1, seed=1)
    ...     def forward(self, x):
    ...         return self.layer1(self.layer0(x).relu())
    >>> [name for name, _ in Net2().named_modules()]
    ['', 'layer0', 'layer1']
    """

    training: bool

    def __init__(self) -> None:
        # object.__setattr__ because our own __setattr__ reads these dicts.
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}: cannot assign {name!r} before Module.__init__(); "
                "call super().__init__() first in your __init__"
            )
        # The registries give the names and their order (re-assigning a name
        # keeps its place, as in PyTorch); the value is also kept as a plain
        # attribute, so reading self.weight in forward costs no lookup hook.
        registry = None
        if isinstance(value, Parameter):
            registry = self._parameters
        elif isinstance(value, Module):
            registry = self._modules
        for other in (self._parameters, self._modules):
            if other is not registry:
                other.pop(name, None)
        if registry is not None:
            registry[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        object.__delattr__(self, name)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} has no forward(); define forward(self, x) in your Module"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # -- the module tree -------------------------------------------------

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct sub-modules, in the order they were assigned."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct sub-modules (``named_children`` without the names)."""
        for _, module in self.named_children():
            yield module

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module (named ``prefix``, ``""`` by default) and every module
        below it, depth first, each once."""
        seen: set[int] = set()
        stack = [(prefix, self)]
        while stack:  # iterative, so deep models never hit the recursion limit
            name, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            below = [(f"{name}.{n}" if name else n, m) for n, m in module._modules.items()]
            stack.extend(reversed(below))

    def modules(self) -> Iterator[Module]:
        """This module and every module below it (``named_modules`` without the names)."""
        for _, module in self.named_modules():
            yield module

    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Every parameter with its dotted name (``0.weight``), each once."""
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, p in module._parameters.items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{module_name}.{name}" if module_name else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter, each once, in ``named_parameters`` order (give it to an optimiser)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    # -- modes and gradients ---------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Set the ``training`` flag of this module and every module below it."""
        if not isinstance(mode, bool):
            raise TypeError(f"train: mode must be a bool, got {type(mode).__name__}")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Freeze (``False``) or unfreeze every parameter of this module."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self) -> None:
        """Set every parameter's ``.grad`` to ``None``."""
        for p in self.parameters():
            p.grad = None

    # -- saving and loading ----------------------------------------------

    def state_dict(self) -> dict[str, np.ndarray]:
        """A copy of every parameter's values, keyed by its dotted name.

        >>> net = Linear(2, 1, seed=0)
        >>> sorted(net.state_dict())
        ['bias', 'weight']
        """
        return {name: p.data.copy() for name, p in self.named_parameters()}

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Copy values from ``state`` into the parameters (in place).

        With ``strict`` (the default) the keys must match exactly; every
        missing or unexpected key is named. Shapes must always match.
        """
        own = dict(self.named_parameters())
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        problems = []
        if strict and missing:
            problems.append(f"missing keys {missing}")
        if strict and unexpected:
            problems.append(f"unexpected keys {unexpected}")
        values = {}
        for name, p in own.items():
            if name not in state:
                continue
            value = state[name]
            value = np.asarray(value.data if isinstance(value, Tensor) else value, p.data.dtype)
            if value.shape != p.data.shape:
                problems.append(
                    f"shape mismatch for {name!r}: the model has {p.data.shape}, "
                    f"the state has {value.shape}"
                )
            values[name] = value
        if problems:
            raise ValueError(f"load_state_dict for {type(self).__name__}: " + "; ".join(problems))
        for name, value in values.items():
            np.copyto(own[name].data, value)

    # -- printing ----------------------------------------------------------

    def extra_repr(self) -> str:
        """What goes between the parentheses of this module's line."""
        return ""

    def __repr__(self) -> str:
        # PyTorch's layout: extra_repr inline when alone, else one line per item.
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [
            f"({name}): " + repr(module).replace("\n", "\n  ")
            for name, module in self._modules.items()
        ]
        if len(lines) == 1 and not children:
            return f"{type(self).__name__}({lines[0]})"
        lines += children
        body = "\n  " + "\n  ".join(lines) + "\n" if lines else ""
        return f"{type(self).__name__}({body})"


def _linear_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    if x.shape[-1:] != w.shape[1:]:  # checked here, where the arrays are at hand
        raise ValueError(
            f"Linear(in_features={w.shape[1]}): the input's last dimension must equal "
            f"in_features, got shape {x.shape}"
        )
    y = x @ w.T
    return y if b is None else y + b


def _linear_vjp(g: np.ndarray, out: np.ndarray, xs: tuple, needs: tuple) -> tuple:
    # The closed forms of the linear-layer lesson, with rows as samples:
    # dL/dX = G·W, dL/dW = Gᵀ·X, dL/db = the sum of G's rows.
    x, w = xs[0], xs[1]
    if g.ndim != 2:  # any leading axes are more rows
        g2, x2 = g.reshape(-1, w.shape[0]), x.reshape(-1, w.shape[1])
    else:
        g2, x2 = g, x
    gx = g @ w if needs[0] else None
    gw = g2.T @ x2 if needs[1] else None
    if len(xs) == 2:
        return gx, gw
    return gx, gw, (g2.sum(axis=0) if needs[2] else None)


# One graph node per layer instead of three (transpose, matmul, add): a deep
# network's step costs mostly per-node overhead, and the node's backward is
# exactly the formula the course derives.
LINEAR = Op("linear", _linear_forward, _linear_vjp)


class Linear(Module):
    """y = x Wᵀ + b, with PyTorch's layout (``weight`` is (out, in)) and default
    initialisation: weight and bias from U(−1/√in, 1/√in).

    >>> layer = Linear(3, 2, seed=0)
    >>> layer.weight.shape, layer.bias.shape
    ((2, 3), (2,))
    >>> layer(Tensor(np.ones((5, 3)))).shape
    (5, 2)
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, *, seed: Seed = None
    ) -> None:
        super().__init__()
        for arg, value in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"Linear: {arg} must be a positive int, got {value!r}")
        self.in_features = int(in_features)
        self.out_features = int(out_features)
        rng = init.as_generator(seed)
        bound = 1.0 / math.sqrt(in_features)
        self.weight = Parameter(rng.uniform(-bound, bound, size=(out_features, in_features)))
        self.bias = Parameter(rng.uniform(-bound, bound, size=out_features)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        if self.bias is None:
            return apply(LINEAR, x, self.weight)
        return apply(LINEAR, x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class ReLU(Module):
    """max(x, 0), elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return x.relu()


class Tanh(Module):
    """tanh(x), elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return x.tanh()


class Sigmoid(Module):
    """1 / (1 + e^(−x)), elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return x.sigmoid()


class ModuleList(Module):
    """A list of modules, registered under the names ``0``, ``1``, ...

    >>> layers = ModuleList([Linear(2, 2, seed=0), ReLU()])
    >>> len(layers), type(layers[1]).__name__
    (2, 'ReLU')
    """

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        if not isinstance(module, Module):
            raise TypeError(
                f"{type(self).__name__}: expected a Module, got {type(module).__name__}"
            )
        self._modules[str(len(self._modules))] = module
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for module in modules:
            self.append(module)
        return self

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, index: int | slice) -> Any:
        items = list(self._modules.values())
        if isinstance(index, slice):
            return type(self)(items[index])
        if not isinstance(index, (int, np.integer)):
            raise TypeError(f"{type(self).__name__}: indices must be ints or slices, got {index!r}")
        if not -len(items) <= index < len(items):
            raise IndexError(
                f"{type(self).__name__}: index {index} is out of range for {len(items)} modules"
            )
        return items[index]


class Sequential(ModuleList):
    """Modules applied one after the other: ``Sequential(a, b)(x) == b(a(x))``."""

    def __init__(self, *modules: Module) -> None:
        if len(modules) == 1 and not isinstance(modules[0], Module):
            modules = tuple(modules[0])  # Sequential([a, b]) works as well
        super().__init__(modules)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return Sequential(*list(self._modules.values())[index])
        return super().__getitem__(index)

    def forward(self, x: Tensor) -> Tensor:
        for module in self._modules.values():
            x = module.forward(x)  # what module(x) does, one call shorter
        return x
