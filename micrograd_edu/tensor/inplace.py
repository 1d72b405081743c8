"""In-place operations: ``add_``, ``sub_``, ``mul_``, ``div_``, ``zero_``, ``fill_``,
``copy_``, ``clamp_``, item assignment, and the operators ``+=``, ``-=``, ``*=``, ``/=``,
given to ``Tensor`` by the mixin :class:`InPlace`.

They change the tensor's entries and keep the object, so a ``Parameter``
updated by hand stays the module's parameter:

>>> from micrograd_edu import Tensor, no_grad, nn
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

from .backward import bump_version
from .indexing import flat_index
from .modes import STATE
from .operation import data_of

__all__ = ["InPlace"]


def _recorded(t: Any, others: tuple) -> bool:
    """Whether an in-place change of ``t`` by ``others`` would need recording."""
    if not STATE.enabled:
        return False
    return t._requires_grad or any(getattr(o, "_requires_grad", False) for o in others)


def _change(t: Any, name: str, write: Callable[[np.ndarray], None], others: tuple) -> Any:
    """Run ``write`` on ``t``'s array after the checks (see the module docstring), and
    bump its version; every in-place operation comes here."""
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
    try:
        write(t._data)
    except ValueError as error:  # numpy: read-only (an expand), or shapes that do not fit
        what = f"cannot change a tensor of shape {t._data.shape} in place"
        raise ValueError(f"{name}: {what} ({error})") from None
    except TypeError as error:  # numpy: a cast it refuses (floats into an int tensor)
        raise TypeError(f"{name}: {error}; the result must fit dtype {t._data.dtype}") from None
    bump_version(t)
    return t


def _arithmetic(t: Any, name: str, ufunc: np.ufunc, other: Any, alpha: Any = 1) -> Any:
    value = data_of(other)
    if alpha != 1:  # PyTorch's add_(other, alpha=): x + alpha·other
        if ufunc not in (np.add, np.subtract):
            raise TypeError(f"{name}: alpha= is for add_ and sub_")
        value = alpha * np.asarray(value)
    return _change(t, name, lambda a: ufunc(a, value, out=a, casting="same_kind"), (other,))


def _rebinds(t: Any, other: Any) -> bool:
    """Whether ``t += other`` rebinds ``t`` to ``t + other`` (see the module docstring)."""
    return _recorded(t, (other,)) and not (t._fn is None and t._requires_grad)


class InPlace:
    """The in-place operations of ``Tensor`` (a mixin of
    :class:`~micrograd_edu.tensor.tensor.Tensor`). Each returns the tensor itself."""

    __slots__ = ()

    def add_(self, other: Any, *, alpha: Any = 1):
        """``self + alpha * other``, in place."""
        return _arithmetic(self, "add_", np.add, other, alpha)

    def sub_(self, other: Any, *, alpha: Any = 1):
        """``self - alpha * other``, in place."""
        return _arithmetic(self, "sub_", np.subtract, other, alpha)

    def mul_(self, other: Any):
        """``self * other``, in place."""
        return _arithmetic(self, "mul_", np.multiply, other)

    def div_(self, other: Any):
        """``self / other``, in place."""
        return _arithmetic(self, "div_", np.true_divide, other)

    def __iadd__(self, other: Any):
        return self + other if _rebinds(self, other) else self.add_(other)

    def __isub__(self, other: Any):
        return self - other if _rebinds(self, other) else self.sub_(other)

    def __imul__(self, other: Any):
        return self * other if _rebinds(self, other) else self.mul_(other)

    def __itruediv__(self, other: Any):
        return self / other if _rebinds(self, other) else self.div_(other)

    def zero_(self):
        """Set every entry to 0, in place (``x.grad.zero_()`` clears a gradient)."""
        return _change(self, "zero_", lambda a: a.fill(0), ())

    def fill_(self, value: Any):
        """Set every entry to ``value``, in place."""
        return _change(self, "fill_", lambda a: a.fill(data_of(value)), (value,))

    def copy_(self, source: Any):
        """Copy ``source``'s entries into this tensor (broadcast to its shape), in place."""
        value = data_of(source)
        write = lambda a: np.copyto(a, value, casting="same_kind")  # noqa: E731
        return _change(self, "copy_", write, (source,))

    def clamp_(self, min: Any = None, max: Any = None):  # noqa: A002
        """Limit the entries to [min, max], in place."""
        low, high = data_of(min), data_of(max)
        return _change(self, "clamp_", lambda a: np.clip(a, low, high, out=a), (min, max))

    clip_ = clamp_

    def __setitem__(self, index: Any, value: Any) -> None:
        """``x[index] = value``, in place (as an in-place operation: see the module
        docstring)."""
        where, data = flat_index(index), data_of(value)

        def write(a: np.ndarray) -> None:
            a[where] = data

        _change(self, "__setitem__", write, (value,))
