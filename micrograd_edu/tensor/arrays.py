"""The arrays tensors hold: a dtype from what a user passes, and the array a new tensor
keeps, with ``torch.tensor``'s inference (ints stay int64, bools bool) where asked.

>>> as_array([0, 2, 1], None, infer=True, op="tensor").dtype, as_dtype("float32")
(dtype('int64'), dtype('float32'))
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_dtype", "as_array"]

_FLOATS = (np.float32, np.float64)


def as_dtype(dtype: Any) -> np.dtype:
    """A numpy dtype from what a user may pass (``float``, ``"float32"``, ``np.int64``)."""
    try:
        return np.dtype(dtype)
    except TypeError:
        hint = "try float, 'float32', np.int64"
        raise TypeError(f"dtype: {dtype!r} is not a dtype ({hint})") from None


def as_array(data: Any, dtype: Any, infer: bool, op: str) -> np.ndarray:
    """The array a new tensor holds (a copy): float64 from numbers and lists unless
    ``infer`` (then ints stay int64 and bools bool, as ``torch.tensor`` does); a numpy
    array keeps its dtype, other floats becoming float64."""
    if hasattr(data, "_data") and hasattr(data, "_requires_grad"):  # a Tensor
        data = data._data
    if data is None:
        raise TypeError(f"{op}: could not make a tensor from None; give numbers or an array")
    try:
        if dtype is not None:
            array = np.array(data, dtype=as_dtype(dtype))
        elif isinstance(data, np.ndarray | np.generic):
            array = np.array(data)  # a copy, keeping the dtype (ints, bools, float32)
            if array.dtype.kind == "f" and array.dtype not in _FLOATS:
                array = array.astype(np.float64)
        elif infer:
            array = np.array(data)
            kind = array.dtype.kind
            if kind in "iu":
                array = array.astype(np.int64)
            elif kind in "fO" and array.dtype != object:
                array = array.astype(np.float64)
        else:
            array = np.array(data, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{op}: could not make a tensor from {type(data).__name__} ({error}); give "
            "numbers, (nested) lists of numbers of one shape, or a numpy array"
        ) from None
    if array.dtype.kind not in "fiub":
        raise TypeError(
            f"{op}: could not make a tensor from {type(data).__name__} entries "
            f"(dtype {array.dtype}); give numbers, e.g. [v.data for v in values] for Values"
        )
    return array
