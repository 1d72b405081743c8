"""dtypes: PyTorch's names for numpy's dtypes, and PyTorch's rule for the dtype of a result.

A tensor's ``dtype`` is a :class:`DType`: it prints as PyTorch's (``torch.float32``), is one
object per dtype (``t.dtype is float32`` works, as in PyTorch), compares equal to numpy's
dtype and its names (``t.dtype == np.float32``, ``== "float32"``), and numpy takes it where it
takes a dtype (``np.zeros(2, dtype=t.dtype)``), through its ``dtype`` attribute.

**Promotion.** When the inputs of an operation have different dtypes, the result's is
PyTorch's, not numpy's (:func:`result_type`). The categories are bool < integer < floating:

* a Python number joins the tensor's dtype unless it is of a higher category
  (``int32 + 1`` is int32, ``float32 * 2.5`` float32, ``int32 + 2.5`` float64, the default);
* a 0-d tensor counts only when its category is above the dimensioned tensors' (a float64
  scalar tensor does not make a float32 tensor float64; an int64 tensor times a float32
  scalar tensor is float32);
* otherwise the wider type of the category wins (int32 + int64 is int64, float32 + float64
  float64), and an integer meeting a float takes the float's type (int64 + float32 is
  float32, where numpy gives float64).

>>> a, b = np.ones(2, np.int32), np.ones(2, np.float32)
>>> result_type(a, b), result_type(np.ones(2, np.float32), np.array(1.0))
(dtype('float32'), dtype('float32'))
>>> str(DTYPES[np.dtype(np.float64)]), DTYPES[np.dtype(np.int64)] == np.int64
('torch.float64', True)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "DType",
    "DTYPES",
    "dtype_of",
    "as_dtype",
    "result_type",
    "promoted",
    "number_array",
    "DEFAULT_FLOAT",
]

#: The dtype of floats made from Python numbers (PyTorch's default is float32; see the
#: README's "What differs from PyTorch, on purpose").
DEFAULT_FLOAT = np.dtype(np.float64)


class DType:
    """A dtype under PyTorch's name; see the module docstring."""

    __slots__ = ("dtype", "_name")

    def __init__(self, dtype: np.dtype, name: str) -> None:
        self.dtype, self._name = dtype, name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, DType):
            return self.dtype == other.dtype
        if other is None:  # np.dtype(None) is float64
            return False
        try:
            return self.dtype == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __ne__(self, other: Any) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __reduce__(self) -> tuple:
        return dtype_of, (self.dtype,)

    @property
    def is_floating_point(self) -> bool:
        return self.dtype.kind == "f"

    @property
    def is_signed(self) -> bool:
        return self.dtype.kind in "if"

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def kind(self) -> str:
        """numpy's kind letter ("f", "i", "u", "b")."""
        return self.dtype.kind

    @property
    def name(self) -> str:
        """numpy's name (``"float64"``)."""
        return self.dtype.name

    @property
    def type(self) -> type:
        """numpy's scalar type (``np.float64``)."""
        return self.dtype.type


_NAMES = {
    "float16": "float16",
    "float32": "float32",
    "float64": "float64",
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "bool": "bool",
}

#: One :class:`DType` per numpy dtype a tensor may hold.
DTYPES: dict[np.dtype, DType] = {np.dtype(n): DType(np.dtype(n), t) for n, t in _NAMES.items()}


def dtype_of(array_dtype: np.dtype) -> DType:
    """The :class:`DType` of a numpy dtype (one object per dtype)."""
    found = DTYPES.get(array_dtype)
    if found is None:
        found = DTYPES[np.dtype(array_dtype)] = DType(np.dtype(array_dtype), array_dtype.name)
    return found


def as_dtype(dtype: Any) -> np.dtype:
    """A numpy dtype from what a user may pass (``float``, ``"float32"``, ``np.int64``, a
    :class:`DType`).

    >>> as_dtype("float32"), as_dtype(float), as_dtype(DTYPES[np.dtype(np.int32)])
    (dtype('float32'), dtype('float64'), dtype('int32'))
    """
    try:
        return np.dtype(dtype)
    except TypeError:
        hint = "try torch.float32, float, 'float32', np.int64"
        raise TypeError(f"dtype: {dtype!r} is not a dtype ({hint})") from None


def _category(dtype: np.dtype) -> int:
    return {"b": 0, "u": 1, "i": 1, "f": 2}.get(dtype.kind, 3)


def _promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promote_types: the higher category's type, else the wider of the two."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)


def result_type(*arrays: Any) -> np.dtype:
    """The dtype PyTorch gives the result of an operation on ``arrays`` (0-d arrays count as
    0-d tensors; Python numbers are made arrays by :func:`number_array` first)."""
    dims, zeros = None, None
    for a in arrays:
        if a.ndim:
            dims = a.dtype if dims is None else _promote(dims, a.dtype)
        else:
            zeros = a.dtype if zeros is None else _promote(zeros, a.dtype)
    if dims is None:
        return zeros
    if zeros is None or _category(zeros) <= _category(dims):
        return dims
    return zeros


def promoted(arrays: tuple) -> tuple:
    """``arrays`` cast to their :func:`result_type` (those already of it as they are)."""
    dtype = result_type(*arrays)
    return tuple(a if a.dtype == dtype else a.astype(dtype) for a in arrays)


def number_array(x: Any, like: np.dtype | None) -> np.ndarray:
    """A Python number as the 0-d array PyTorch would combine with tensors of dtype ``like``:
    of ``like`` when the number's category is not above it (``int32 + 1`` stays int32), else
    of the category's default (float64, int64, bool)."""
    if isinstance(x, bool | np.bool_):
        kind, default = 0, np.dtype(np.bool_)
    elif isinstance(x, numbers.Integral):
        kind, default = 1, np.dtype(np.int64)
    else:
        kind, default = 2, DEFAULT_FLOAT
    if isinstance(x, np.generic):  # a numpy scalar keeps its own type, as a 0-d tensor
        return np.asarray(x)
    if like is not None and kind <= _category(like):
        return np.array(x, dtype=like)
    return np.array(x, dtype=default)
