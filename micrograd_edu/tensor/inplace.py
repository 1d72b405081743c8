"""In-place operations: ``add_``, ``sub_``, ``mul_``, ``div_``, ``zero_``, ``fill_``,
``copy_``, ``clamp_``, item assignment, and the operators ``+=``, ``-=``, ``*=``, ``/=``.

They change the tensor's entries and keep the object, so a ``Parameter``
updated by hand stays the module's parameter:

>>> from micrograd_edu import no_grad, nn
>>> layer = nn.Linear(2, 1)
>>> layer(Tensor([[1.0, 2.0]])).sum().backward()
>>> with no_grad():
...     layer.weight -= 0.1 * layer.weight.grad   # the classic hand-written SGD step
>>> type(layer.weight).__name__, len(list(layer.parameters()))
('Parameter', 2)

As in PyTorch, a leaf that requires grad may be changed in place only where
nothing is recorded (under ``no_grad()``, as an optimiser does), an inference
tensor only inside ``inference_mode()``, and every change bumps the tensor's
version so that ``backward`` refuses to use a value saved before it. One
difference: PyTorch also *records* in-place operations on tensors inside a graph;
here ``x += y`` on such a tensor rebinds ``x`` to ``x + y`` (the same numbers and
gradients; other references keep the old tensor), and ``x.add_(y)`` raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .core import Tensor, _data, bump_version
from .modes import STATE
from .shape_ops import flat_index

__all__: list[str] = []


def _recorded(t: Tensor, others: tuple) -> bool:
    """Whether an in-place change of ``t`` by ``others`` would need recording."""
    if not STATE.enabled:
        return False
    return t._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)


def _check(t: Tensor, name: str, others: tuple) -> None:
    if t._inference and not STATE.inference:
        raise RuntimeError(
            f"{name}: an inference tensor cannot be changed in place outside "
            "inference_mode(); .clone() it first to get an ordinary tensor"
        )
    if _recorded(t, others):
        if t._fn is None and t._requires_grad:
            raise RuntimeError(
                f"{name}: a leaf tensor that requires grad cannot be changed in place while "
                "operations are recorded; do the update under `with no_grad():` (as an "
                "optimiser step does)"
            )
        raise RuntimeError(
            f"{name}: in-place operations are not recorded by this engine (PyTorch records "
            "them); write the out-of-place form (x = x + y), or change it under no_grad()"
        )


def _change(t: Tensor, name: str, write: Callable[[np.ndarray], None], others: tuple) -> Tensor:
    _check(t, name, others)
    try:
        write(t._data)
    except ValueError as error:  # numpy: read-only (an expand), or shapes that do not fit
        what = f"cannot change a tensor of shape {t.shape} in place"
        raise ValueError(f"{name}: {what} ({error})") from None
    except TypeError as error:  # numpy: a cast it refuses (floats into an int tensor)
        raise TypeError(f"{name}: {error}; the result must fit dtype {t.dtype}") from None
    bump_version(t)
    return t


def _ufunc_(name: str, ufunc: np.ufunc) -> Callable[[Tensor, Any], Tensor]:
    scaled = ufunc in (np.add, np.subtract)  # PyTorch's add_(other, alpha=): x + alpha·other

    def method(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
        value = _data(other)
        if alpha != 1:
            if not scaled:
                raise TypeError(f"{name}: alpha= is for add_ and sub_")
            value = alpha * np.asarray(value)
        return _change(self, name, lambda a: ufunc(a, value, out=a, casting="same_kind"), (other,))

    method.__name__ = name
    method.__doc__ = f"``{ufunc.__name__}`` with ``other``, in place; returns this tensor."
    if scaled:
        method.__doc__ += " ``alpha`` scales ``other`` first, as in PyTorch."
    return method


def _operator(name: str, method: Callable, out_of_place: str) -> Callable[[Tensor, Any], Tensor]:
    def operator(self: Tensor, other: Any) -> Tensor:
        if _recorded(self, (other,)) and not (self._fn is None and self._requires_grad):
            return getattr(self, out_of_place)(other)  # see the module docstring
        return method(self, other)

    operator.__name__ = name
    return operator


for _name, _ufunc, _dunder, _plain in [
    ("add_", np.add, "__iadd__", "__add__"),
    ("sub_", np.subtract, "__isub__", "__sub__"),
    ("mul_", np.multiply, "__imul__", "__mul__"),
    ("div_", np.true_divide, "__itruediv__", "__truediv__"),
]:
    _method = _ufunc_(_name, _ufunc)
    setattr(Tensor, _name, _method)
    setattr(Tensor, _dunder, _operator(_dunder, _method, _plain))


def zero_(self: Tensor) -> Tensor:
    """Set every entry to 0, in place (``x.grad.zero_()`` clears a gradient)."""
    return _change(self, "zero_", lambda a: a.fill(0), ())


def fill_(self: Tensor, value: Any) -> Tensor:
    """Set every entry to ``value``, in place."""
    return _change(self, "fill_", lambda a: a.fill(_data(value)), (value,))


def copy_(self: Tensor, source: Any) -> Tensor:
    """Copy ``source``'s entries into this tensor (broadcast to its shape), in place."""
    value = _data(source)
    return _change(self, "copy_", lambda a: np.copyto(a, value, casting="same_kind"), (source,))


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Limit the entries to [min, max], in place."""
    low, high = _data(min), _data(max)
    return _change(self, "clamp_", lambda a: np.clip(a, low, high, out=a), (min, max))


def __setitem__(self: Tensor, index: Any, value: Any) -> None:
    """``x[index] = value``, in place (as an in-place operation: see the module docstring)."""
    where, data = flat_index(index), _data(value)

    def write(a: np.ndarray) -> None:
        a[where] = data

    _change(self, "__setitem__", write, (value,))


for _f in (zero_, fill_, copy_, clamp_, __setitem__):
    setattr(Tensor, _f.__name__, _f)
Tensor.clip_ = clamp_
