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

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from itertools import count
from typing import Any

import numpy as np

from ..tensor import Tensor
from ..tensor.modes import no_grad

__all__ = ["Parameter", "Module", "RemovableHandle", "check_device"]


def check_device(where: str, device: Any) -> None:
    """Raise unless ``device`` is None or names the CPU, the one device here."""
    if device is not None and not str(device).startswith("cpu"):
        raise RuntimeError(
            f"{where}({str(device)!r}): there is one device here, the CPU; leave the device "
            "out (or write 'cpu')"
        )


class Parameter(Tensor):
    """A ``Tensor`` that is a learnable weight: it requires grad, and a
    ``Module`` registers it when it is assigned as an attribute.

    >>> Parameter(np.zeros(2)).requires_grad
    True
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        array = np.empty(0) if data is None else getattr(data, "_data", data)
        if isinstance(data, Tensor) and array.dtype.kind != "f" and requires_grad:
            raise TypeError(
                f"Parameter: only floating-point tensors can require gradients, got dtype "
                f"{array.dtype}; convert it first (.double() or .float()), or pass "
                "requires_grad=False"
            )
        keep = isinstance(array, np.ndarray) and (array.dtype.kind == "f" or not requires_grad)
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
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_forward_pre_hooks", {})
        object.__setattr__(self, "_forward_hooks", {})
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
        buffers = self.__dict__.get("_buffers", {})
        if isinstance(value, Parameter):
            registry = self._parameters
        elif isinstance(value, Module):
            registry = self._modules
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"{type(self).__name__}: cannot assign a {type(value).__name__} to the "
                    f"buffer {name!r} (a Tensor or None is expected)"
                )
            registry = buffers
        elif name in self._parameters and value is not None:
            raise TypeError(
                f"{type(self).__name__}: cannot assign a {type(value).__name__} to the "
                f"parameter {name!r} (a Parameter or None is expected); to change its "
                f"values keep the Parameter: `with no_grad(): self.{name} -= ...` or "
                f"`self.{name}.copy_(...)`, or wrap a new value in nn.Parameter(...)"
            )
        for other in (self._parameters, self._modules, buffers):
            if other is not registry:
                other.pop(name, None)
        if registry is not None:
            registry[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        self.__dict__.get("_buffers", {}).pop(name, None)
        object.__delattr__(self, name)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} has no forward(); define forward(self, x) in your Module"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        pre, post = self.__dict__.get("_forward_pre_hooks"), self.__dict__.get("_forward_hooks")
        if not pre and not post:
            return self.forward(*args, **kwargs)
        for hook, with_kwargs in list(pre.values()):
            if with_kwargs:
                changed = hook(self, args, kwargs)
                if changed is not None:
                    args, kwargs = changed
            else:
                changed = hook(self, args)
                if changed is not None:
                    args = changed if isinstance(changed, tuple) else (changed,)
        output = self.forward(*args, **kwargs)
        for hook, with_kwargs in list(post.values()):
            changed = hook(self, args, kwargs, output) if with_kwargs else hook(self, args, output)
            if changed is not None:
                output = changed
        return output

    # -- registering what a module holds -----------------------------------

    def _check_name(self, kind: str, name: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}: cannot register a {kind} before Module.__init__(); "
                "call super().__init__() first in your __init__"
            )
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"{kind} name must be a non-empty string without '.', got {name!r}")
        known = (self._parameters, self._buffers, self._modules)
        if hasattr(self, name) and not any(name in registry for registry in known):
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep ``tensor`` as a buffer: state that is not learned (running statistics), in
        ``state_dict()`` unless ``persistent=False``, converted by ``to()``.

        >>> m = Module(); m.register_buffer("count", Tensor(np.zeros(1)))
        >>> list(m.state_dict()), [n for n, _ in m.named_buffers()]
        (['count'], ['count'])
        """
        self._check_name("buffer", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"register_buffer: cannot register a {type(tensor).__name__} as buffer {name!r} "
                "(a Tensor or None is expected)"
            )
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)
        object.__setattr__(self, name, tensor)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a Parameter, or None) under ``name``, as an assignment does."""
        self._check_name("parameter", name)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"register_parameter: cannot register a {type(param).__name__} as parameter "
                f"{name!r} (a Parameter or None is expected)"
            )
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` under ``name``, as an assignment does."""
        self._check_name("module", name)
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: {type(module).__name__} is not a Module")
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args)`` before each forward; what it returns (not None)
        replaces the positional arguments. Returns a handle whose ``remove()`` undoes it."""
        return RemovableHandle(self._forward_pre_hooks, (hook, with_kwargs), prepend)

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after each forward; what it returns (not
        None) replaces the output. Returns a handle whose ``remove()`` undoes it.

        >>> from micrograd_edu.nn import Linear
        >>> layer, seen = Linear(2, 3, seed=0), []
        >>> handle = layer.register_forward_hook(lambda m, args, out: seen.append(out.shape))
        >>> _ = layer(Tensor(np.ones((4, 2)))); handle.remove(); _ = layer(Tensor(np.ones(2)))
        >>> seen
        [(4, 3)]
        """
        return RemovableHandle(self._forward_hooks, (hook, with_kwargs), prepend)

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

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        """Every buffer with its dotted name, each once."""
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, b in module.__dict__.get("_buffers", {}).items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield (f"{module_name}.{name}" if module_name else name), b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer (``named_buffers`` without the names)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

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

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Convert every floating-point parameter and buffer to a dtype in place, as
        ``module.to(torch.float32)``, ``to(dtype=...)`` or ``to(tensor)`` (its dtype); a device
        is accepted when it is the CPU, the only one here. Returns self."""
        target = kwargs.pop("dtype", None)
        for arg in (*args, kwargs.pop("device", None)):
            if isinstance(arg, Tensor):
                target = arg.dtype
            elif isinstance(arg, str) or type(arg).__name__ == "device":
                check_device(f"{type(self).__name__}.to", arg)
            elif arg is not None:
                target = arg
        if target is not None:
            target = np.dtype(target)
            if target.kind != "f":
                raise TypeError(
                    f"{type(self).__name__}.to: modules take floating-point dtypes only, got "
                    f"{target}"
                )
            for t in (*self.parameters(), *self.buffers()):
                if t._data.dtype.kind == "f":
                    t._data = t._data.astype(target)
        return self

    def cpu(self) -> Module:
        """Returns self: the CPU is the only device."""
        return self

    def double(self) -> Module:
        """Every floating-point parameter and buffer as float64."""
        return self.to(np.float64)

    def float(self) -> Module:
        """Every floating-point parameter and buffer as float32."""
        return self.to(np.float32)

    # -- saving and loading ----------------------------------------------

    def _all_modules(self) -> Iterator[tuple[str, Module]]:
        """Every (dotted name, module) under every name, shared ones too, depth first (the
        walk of ``state_dict``: a tied weight appears under both names, as in PyTorch)."""
        stack = [("", self)]
        while stack:
            prefix, module = stack.pop()
            yield prefix, module
            below = [(f"{prefix}.{n}" if prefix else n, m) for n, m in module._modules.items()]
            stack.extend(reversed([(n, m) for n, m in below if m is not None]))

    def _all_parameters(self) -> Iterator[tuple[str, Parameter]]:
        """Every (name, parameter) under every name, shared ones too."""
        for prefix, module in self._all_modules():
            for name, p in module._parameters.items():
                if p is not None:
                    yield (f"{prefix}.{name}" if prefix else name), p

    def _state(self) -> Iterator[tuple[str, Tensor]]:
        """``state_dict``'s entries in PyTorch's order: each module's parameters, then its
        persistent buffers, module after module."""
        for prefix, module in self._all_modules():
            skip = module.__dict__.get("_non_persistent_buffers", set())
            own = [*module._parameters.items()]
            own += [(n, b) for n, b in module.__dict__.get("_buffers", {}).items() if n not in skip]
            for name, t in own:
                if t is not None:
                    yield (f"{prefix}.{name}" if prefix else name), t

    def state_dict(self, *, prefix: str = "", keep_vars: bool = False) -> dict[str, Tensor]:
        """Every parameter and persistent buffer by its dotted name, as tensors that share
        the values (as PyTorch's do: they change when the model trains; ``copy.deepcopy`` or
        ``torch.save`` it to keep a snapshot). ``keep_vars=True`` gives the parameters
        themselves.

        >>> from micrograd_edu.nn import Linear
        >>> net = Linear(2, 1, seed=0)
        >>> sorted(net.state_dict())
        ['bias', 'weight']
        """
        return OrderedDict(
            (prefix + name, t if keep_vars else t.detach()) for name, t in self._state()
        )

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> _IncompatibleKeys:
        """Copy values from ``state`` into the parameters and buffers (in place).

        With ``strict`` (the default) the keys must match exactly; every missing or
        unexpected key is named. Shapes must always match. Returns the missing and
        unexpected keys, as PyTorch does.
        """
        own = dict(self._state())
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        problems = []
        if strict and missing:
            problems.append(f"missing keys {missing}")
        if strict and unexpected:
            problems.append(f"unexpected keys {unexpected}")
        values = {}
        for name, t in own.items():
            if name not in state:
                continue
            value = state[name]
            value = np.asarray(value._data if isinstance(value, Tensor) else value, t._data.dtype)
            if value.shape != t._data.shape:
                problems.append(
                    f"shape mismatch for {name!r}: the model has {t._data.shape}, "
                    f"the state has {value.shape}"
                )
            values[name] = value
        if problems:
            raise ValueError(f"load_state_dict for {type(self).__name__}: " + "; ".join(problems))
        with no_grad():  # in place, as PyTorch does: whoever holds the array sees it
            for name, value in values.items():
                own[name].copy_(value)
        return _IncompatibleKeys(missing, unexpected)

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


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class RemovableHandle:
    """What registering a hook returns: ``remove()`` takes the hook away again."""

    _ids = count()

    def __init__(self, hooks: dict, hook: Any, prepend: bool = False) -> None:
        self.hooks, self.id = hooks, next(self._ids)
        hooks[self.id] = hook
        if prepend:
            for key in [k for k in hooks if k != self.id]:
                hooks[key] = hooks.pop(key)  # the others move behind it

    def remove(self) -> None:
        self.hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
