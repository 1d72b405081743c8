"""``torch.Tensor``, ``torch.device`` and the dtypes, under PyTorch's names.

``Tensor`` is the engine's tensor class to ``isinstance`` and ``issubclass`` (every tensor,
``Parameter`` too, is a ``torch.Tensor``), and, called, PyTorch's legacy constructor:
``Tensor(2, 3)`` is a 2 x 3 tensor of the default dtype (zeros here: nothing is left
uninitialised), ``Tensor([1, 2])`` holds those numbers as floats, ``Tensor()`` is empty.

``device`` names the one device there is, the CPU; any other raises at once, with what to
write instead. The dtypes are the engine's (:mod:`micrograd_edu.tensor.dtypes`): one object
per dtype, printed as PyTorch prints it, so ``t.dtype == torch.float32``, ``t.dtype is
torch.float64`` and ``str(t.dtype)`` behave as in PyTorch, and numpy takes them too.

>>> t = Tensor(2, 3)
>>> t.shape, t.dtype == float64, isinstance(t, Tensor)
((2, 3), True, True)
>>> Tensor([1, 2]), device("cpu"), str(device("cpu"))
(tensor([1., 2.]), device(type='cpu'), 'cpu')
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..tensor import Tensor as _Tensor
from ..tensor import tensor as _tensor
from ..tensor import zeros as _zeros
from ..tensor.dtypes import DType, dtype_of

__all__ = [
    "Tensor",
    "device",
    "float16",
    "half",
    "float32",
    "float",
    "float64",
    "double",
    "int8",
    "uint8",
    "int16",
    "short",
    "int32",
    "int",
    "int64",
    "long",
    "bool",
    "dtype",
    "Size",
]

float16 = half = dtype_of(np.dtype(np.float16))
float32 = float = dtype_of(np.dtype(np.float32))  # noqa: A001  (PyTorch's names)
float64 = double = dtype_of(np.dtype(np.float64))
int8, uint8 = dtype_of(np.dtype(np.int8)), dtype_of(np.dtype(np.uint8))
int16 = short = dtype_of(np.dtype(np.int16))
int32 = int = dtype_of(np.dtype(np.int32))  # noqa: A001
int64 = long = dtype_of(np.dtype(np.int64))
bool = dtype_of(np.dtype(np.bool_))  # noqa: A001
dtype = DType


class _TensorType(type):
    """Every engine tensor counts as a ``torch.Tensor``."""

    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, _Tensor)

    def __subclasscheck__(cls, sub: Any) -> builtins.bool:
        return isinstance(sub, type) and issubclass(sub, _Tensor)


class Tensor(_Tensor, metaclass=_TensorType):
    """``torch.Tensor``: see the module docstring."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> _Tensor:
        if cls is not Tensor:  # a subclass of torch.Tensor is an ordinary tensor class
            return super().__new__(cls)
        extra = set(kwargs) - {"device"}
        if extra:
            raise TypeError(
                f"torch.Tensor(): unexpected keyword arguments {sorted(extra)}; write "
                "torch.tensor(data, dtype=..., requires_grad=...) instead"
            )
        device(kwargs.get("device", "cpu"))
        if not args:
            return _zeros(0)
        if all(
            isinstance(a, builtins.int | np.integer) and not isinstance(a, builtins.bool)
            for a in args
        ):
            return _zeros(*args)
        if len(args) == 1 and isinstance(args[0], tuple) and _is_size(args[0]):
            return _zeros(*args[0])
        if len(args) > 1 or isinstance(args[0], builtins.float | builtins.bool | builtins.str):
            raise TypeError(
                f"torch.Tensor{args}: the legacy constructor takes sizes (ints) or one sequence "
                "of numbers; write torch.tensor(...) for a value"
            )
        data = args[0]
        if isinstance(data, _Tensor):  # an alias, as PyTorch's: the same entries and dtype
            return data.detach()
        return _tensor(data, dtype=float64)


def _is_size(value: tuple) -> builtins.bool:
    return type(value).__name__ == "Size" and all(isinstance(v, builtins.int) for v in value)


class Size(tuple):
    """``torch.Size``: a shape, a tuple of ints (``x.shape`` is a plain tuple here)."""

    def __repr__(self) -> builtins.str:
        return f"torch.Size({list(self)})"

    def numel(self) -> builtins.int:
        return builtins.int(np.prod(self, dtype=np.int64))


class device(str):  # noqa: N801  (PyTorch's name)
    """``torch.device``: the CPU, the one device there is (equal to the string ``"cpu"``)."""

    def __new__(cls, type: Any = "cpu", index: Any = None) -> device:  # noqa: A002
        text = builtins.str(type)
        if text.split(":")[0] != "cpu" or index not in (None, 0):
            raise RuntimeError(
                f"torch.device({text!r}): micrograd_edu runs on one device, the CPU; write "
                "torch.device('cpu'), or leave the device out (torch.cuda.is_available() is "
                "False here)"
            )
        return super().__new__(cls, "cpu")

    @property
    def type(self) -> builtins.str:
        return "cpu"

    @property
    def index(self) -> None:
        return None

    def __repr__(self) -> builtins.str:
        return "device(type='cpu')"
