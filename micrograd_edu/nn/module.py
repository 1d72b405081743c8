"""``Parameter`` and ``Module``: PyTorch's ``torch.nn.Module`` in miniature.

A module registers every ``Parameter`` and sub-``Module`` assigned to it as an
attribute, in the order of assignment, and ``named_parameters()``,
``named_modules()``, ``state_dict()`` and the printed tree use exactly PyTorch's
names (``0.weight``, ``layer1.bias``, ...).

>>> from micrograd_edu.nn import Linear
>>> class Net(Module):
...     def __init__(self):
...         super().__init__()
...         self.hidden = Linear(2, 3, seed=0)
...     def forward(self, x):
...         return self.hidden(x).relu()
>>> [name for name, _ in Net().named_parameters()]
['hidden.weight', 'hidden.bias']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..tensor import Tensor
from ..tensor.modes import no_grad

__all__ = ["Parameter", "Module"]


class Parameter(Tensor):
    """A ``Tensor`` that is a learnable weight: it requires grad, and a
    ``Module`` registers it when it is assigned as an attribute.

    >>> Parameter(np.zeros(2)).requires_grad
    True
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        array = np.empty(0) if data is None else getattr(data, "_data", data)
        keep = isinstance(array, np.ndarray) and array.dtype.kind == "f"  # float32 stays
        super().__init__(array, requires_grad=requires_grad, dtype=None if keep else np.float64)

    def __repr__(self) -> str:
        return f"Parameter containing:\n{super().__repr__()}"


class Module:
    """The base of every layer and model: subclass it, assign parameters and
    sub-modules in ``__init__``, and write ``forward``.

    >>> from micrograd_edu.nn import Linear
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
        elif name in self._parameters and value is not None:
            raise TypeError(
                f"{type(self).__name__}: cannot assign a {type(value).__name__} to the "
                f"parameter {name!r} (a Parameter or None is expected); to change its "
                f"values keep the Parameter: `with no_grad(): self.{name} -= ...` or "
                f"`self.{name}.copy_(...)`, or wrap a new value in nn.Parameter(...)"
            )
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
                if p is None or id(p) in seen:
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

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient: ``None`` (PyTorch's default) or zeros."""
        for p in self.parameters():
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad.zero_()

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every sub-module (children first) and on this module, as
        ``torch.nn.Module.apply`` does (e.g. to initialise weights); returns self.

        >>> from micrograd_edu.nn import Linear, ReLU, Sequential
        >>> net = Sequential(Linear(2, 2, seed=0), ReLU())
        >>> kinds = []
        >>> _ = net.apply(lambda m: kinds.append(type(m).__name__))
        >>> kinds
        ['Linear', 'ReLU', 'Sequential']
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, dtype: Any = None, *args: Any, **kwargs: Any) -> Module:
        """Convert every parameter to ``dtype`` in place (``float``: float32, ``double``);
        a device ("cpu") changes nothing. Returns self."""
        target = kwargs.get("dtype", dtype)
        if target is not None and not (isinstance(target, str) and target.startswith("cpu")):
            for p in self.parameters():
                p.data = p.data.astype(target)
        return self

    def double(self) -> Module:
        """Every parameter as float64."""
        return self.to(np.float64)

    def float(self) -> Module:
        """Every parameter as float32."""
        return self.to(np.float32)

    # -- saving and loading ----------------------------------------------

    def _all_parameters(self) -> Iterator[tuple[str, Parameter]]:
        """Every (name, parameter) under every name, shared ones too (what PyTorch's
        state_dict lists: a tied weight appears under both names)."""
        stack = [("", self)]
        while stack:
            prefix, module = stack.pop()
            for name, p in module._parameters.items():
                if p is not None:
                    yield (f"{prefix}.{name}" if prefix else name), p
            below = [(f"{prefix}.{n}" if prefix else n, m) for n, m in module._modules.items()]
            stack.extend(reversed(below))

    def state_dict(self) -> dict[str, np.ndarray]:
        """A copy of every parameter's values, keyed by its dotted name (a parameter
        shared by two modules under both names, as in PyTorch).

        >>> from micrograd_edu.nn import Linear
        >>> net = Linear(2, 1, seed=0)
        >>> sorted(net.state_dict())
        ['bias', 'weight']
        """
        return {name: p.data.copy() for name, p in self._all_parameters()}

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Copy values from ``state`` into the parameters (in place).

        With ``strict`` (the default) the keys must match exactly; every
        missing or unexpected key is named. Shapes must always match.
        """
        own = dict(self._all_parameters())
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
        with no_grad():  # in place, as PyTorch does: whoever holds the array sees it
            for name, value in values.items():
                own[name].copy_(value)

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
