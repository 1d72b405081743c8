"""The base of every optimiser: parameter groups, per-parameter state, ``zero_grad``,
``state_dict``/``load_state_dict``, exactly as PyTorch's ``torch.optim.Optimizer``.

An optimiser holds ``param_groups``, a list of dicts, each with its ``"params"``
and its hyperparameters (``"lr"``, ...; what a group does not give comes from
``defaults``), and ``state``, a dict from parameter to that parameter's running
values (momentum buffers, Adam's moments, step counts). ``step()`` updates each
parameter in place where it has a ``.grad``.

Writing one is subclassing this class, as in PyTorch:

>>> import numpy as np
>>> from micrograd_edu import Tensor, no_grad
>>> class PlainSGD(Optimizer):
...     def __init__(self, params, lr=0.1):
...         super().__init__(params, dict(lr=lr))
...     @no_grad()
...     def step(self):
...         for group in self.param_groups:
...             for p in group["params"]:
...                 if p.grad is not None:
...                     p -= group["lr"] * p.grad      # in place: p stays the parameter
>>> w = Tensor([1.0, 2.0], requires_grad=True)
>>> opt = PlainSGD([w], lr=0.5)
>>> (w * w).sum().backward(); opt.step(); w
tensor([0., 0.], requires_grad=True)
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any

import numpy as np

from ..tensor.backward import bump_version

__all__ = ["Optimizer", "require", "array_of"]


class Optimizer:
    """See the module docstring. ``params``: an iterable of tensors, or of dicts (one per
    parameter group, each with ``"params"`` and any hyperparameters to override)."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        name = type(self).__name__
        if hasattr(params, "named_parameters"):
            raise TypeError(
                f"{name}: got the model itself; pass its parameters: "
                f"{name}(model.parameters(), ...)"
            )
        if isinstance(params, np.ndarray) or hasattr(params, "_data") or hasattr(params, "data"):
            raise TypeError(
                f"{name}: params must be an iterable of parameters (e.g. model.parameters()), "
                f"got a single {type(params).__name__}"
            )
        self.defaults = dict(defaults)
        self.state: MutableMapping[Any, dict[str, Any]] = IdentityDict()
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError(
                f"{name}: got an empty parameter list; pass model.parameters() of a model "
                "that has parameters (a generator can be used only once)"
            )
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __getattr__(self, name: str) -> Any:
        # ``opt.lr`` reads a hyperparameter of the groups (PyTorch has no such attribute;
        # without this, ``opt.lr = 1e-4`` would set one that ``step`` never reads).
        defaults = self.__dict__.get("defaults", {})
        if name not in defaults:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        values = [group[name] for group in self.param_groups]
        if any(v != values[0] for v in values[1:]):
            raise AttributeError(
                f"{type(self).__name__}.{name}: the parameter groups have different values "
                f"{values}; read opt.param_groups[i][{name!r}]"
            )
        return values[0]

    def __setattr__(self, name: str, value: Any) -> None:
        # ``opt.lr = 1e-4`` sets it in every group, where ``step`` reads it.
        if name in self.__dict__.get("defaults", {}):
            for group in self.param_groups:
                self.check({**group, name: value})
                group[name] = value
        else:
            super().__setattr__(name, value)

    @property
    def params(self) -> list[Any]:
        """Every parameter of every group, in order."""
        return [p for group in self.param_groups for p in group["params"]]

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyperparameters (the rest from
        ``defaults``)."""
        name = type(self).__name__
        group = dict(group)
        params = group["params"]
        params = [params] if hasattr(params, "_data") else list(params)
        seen = {id(p) for p in self.params}
        for i, p in enumerate(params):
            if not isinstance(array_of(p), np.ndarray):
                raise TypeError(
                    f"{name}: parameter {i} is a {type(p).__name__}, not a Tensor (or an object "
                    "whose .data is a numpy array)"
                )
            if not getattr(p, "is_leaf", True):
                raise ValueError(
                    f"{name}: parameter {i} was computed by an operation; an optimiser "
                    "updates leaves (Parameters, or tensors made with requires_grad=True)"
                )
            if id(p) in seen:
                raise ValueError(f"{name}: a parameter appears more than once in the list")
            seen.add(id(p))
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self.check(group)
        group["params"] = params
        self.param_groups.append(group)

    def check(self, group: dict[str, Any]) -> None:
        """Raise a clear error for a bad hyperparameter in ``group`` (subclasses extend)."""
        if "lr" in group:
            require(type(self).__name__, "lr", group["lr"], lambda v: v > 0, "a positive number")

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every gradient: ``None`` (PyTorch's default) or zeros in place."""
        for p in self.params:
            if set_to_none or p.grad is None:
                p.grad = None
            elif hasattr(p.grad, "zero_"):
                p.grad.zero_()
            else:
                p.grad[...] = 0

    def step(self, closure: Any = None) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError(f"{type(self).__name__} must define step()")

    # -- saving and loading ----------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The state and the groups' hyperparameters, parameters named by their index
        (PyTorch's layout), as copies."""
        index = {id(p): i for i, p in enumerate(self.params)}
        state = {index[id(p)]: copy.deepcopy(s) for p, s in self.state.items() if id(p) in index}
        groups = [
            {
                **{k: v for k, v in g.items() if k != "params"},
                "params": [index[id(p)] for p in g["params"]],
            }
            for g in self.param_groups
        ]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved, into this optimiser's parameters."""
        groups = state_dict["param_groups"]
        sizes = [len(g["params"]) for g in groups]
        if sizes != [len(g["params"]) for g in self.param_groups]:
            raise ValueError(
                f"{type(self).__name__}.load_state_dict: the saved groups do not match this "
                "optimiser's groups (their number or sizes differ)"
            )
        params = self.params
        for group, saved in zip(self.param_groups, groups, strict=True):
            group.update({k: v for k, v in saved.items() if k != "params"})
        for i, saved in state_dict["state"].items():
            self.load_state(params[int(i)], copy.deepcopy(saved))

    def load_state(self, p: Any, saved: dict[str, Any]) -> None:
        """Put one parameter's saved state back (subclasses that keep state elsewhere
        override this)."""
        self.state[p] = saved


class IdentityDict(MutableMapping):
    """A dict keyed by the objects themselves (by identity), as PyTorch's
    ``optimizer.state[p]``: parameters need not be hashable by value. Like PyTorch's
    ``defaultdict(dict)``, reading a parameter it does not hold yet gives it an empty
    dict, so ``state = self.state[p]; if not state: ...`` starts a parameter's state.

    >>> state = IdentityDict()
    >>> p = object()
    >>> p in state, state[p], p in state, state.get(object())
    (False, {}, True, None)
    """

    def __init__(self) -> None:
        self._items: dict[int, tuple[Any, Any]] = {}

    def __getitem__(self, key: Any) -> Any:
        if id(key) not in self._items:
            self._items[id(key)] = (key, {})
        return self._items[id(key)][1]

    def __contains__(self, key: Any) -> bool:
        return id(key) in self._items

    def get(self, key: Any, default: Any = None) -> Any:
        return self._items[id(key)][1] if id(key) in self._items else default

    def __setitem__(self, key: Any, value: Any) -> None:
        self._items[id(key)] = (key, value)

    def __delitem__(self, key: Any) -> None:
        del self._items[id(key)]

    def __iter__(self) -> Iterator[Any]:
        return (key for key, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)


def require(name: str, arg: str, value: Any, ok: Any, what: str) -> None:
    """Raise ``ValueError`` unless ``value`` is a real number (numpy's too) for which
    ``ok(value)`` holds."""
    value = value.item() if hasattr(value, "item") and np.ndim(value) == 0 else value
    good = isinstance(value, numbers.Real) and not isinstance(value, bool) and ok(value)
    if not good:
        raise ValueError(f"{name}: {arg} must be {what}, got {value!r}")


def updated(*params: Any) -> None:
    """Tell the engine that the ``params``' values changed in place (``backward`` then
    refuses a graph that saved the old ones)."""
    bump_version(*(p for p in params if hasattr(p, "_version")))


def array_of(p: Any) -> Any:
    """The numpy array an optimiser updates in place: a tensor's own (its ``.data`` is a
    tensor, as in PyTorch), or the ``.data`` of any other object that has a numpy one."""
    array = getattr(p, "_data", None)
    return array if isinstance(array, np.ndarray) else getattr(p, "data", None)


def gradients_of(params: list[Any]) -> list[np.ndarray | None]:
    """Each parameter's gradient as an array (a tensor's ``.grad`` is a tensor), or None."""
    grads = [p._grad if hasattr(p, "_grad") else p.grad for p in params]  # _grad: unwrapped
    return [g if g is None or type(g) is np.ndarray else g._data for g in grads]
