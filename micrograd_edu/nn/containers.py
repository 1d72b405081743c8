"""Containers: ``Sequential``, ``ModuleList`` and ``ModuleDict``.

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

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..tensor import Tensor
from .layers import Linear, ReLU  # noqa: F401  (the module docstring's example)
from .module import Module

__all__ = ["ModuleList", "Sequential", "ModuleDict"]


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
            x = module(x)  # through __call__, so each layer's hooks run
        return x


class ModuleDict(Module):
    """Modules by name, registered under those names, in insertion order.

    >>> heads = ModuleDict({"mean": Linear(2, 1, seed=0), "scale": Linear(2, 1, seed=1)})
    >>> list(heads.keys()), [n for n, _ in heads.named_parameters()][:2]
    (['mean', 'scale'], ['mean.weight', 'mean.bias'])
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] = ()) -> None:
        super().__init__()
        self.update(modules)

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        items = modules.items() if isinstance(modules, Mapping) else modules
        for name, module in items:
            self[name] = module

    def __setitem__(self, name: str, module: Module) -> None:
        if not isinstance(module, Module):
            raise TypeError(f"ModuleDict: {name!r} must be a Module, got {type(module).__name__}")
        setattr(self, name, module)

    def __getitem__(self, name: str) -> Module:
        try:
            return self._modules[name]
        except KeyError:
            known = list(self._modules)
            raise KeyError(f"ModuleDict: no module {name!r}; it has {known}") from None

    def __delitem__(self, name: str) -> None:
        delattr(self, name)

    def __contains__(self, name: object) -> bool:
        return name in self._modules

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()
