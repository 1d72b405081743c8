"""``save`` and ``load``: tensors, ``state_dict``s and the containers that hold them, to a
file or a file-like object, as ``torch.save``/``torch.load``.

The file is a zip of numpy ``.npy`` arrays and a JSON description of the structure around
them (dicts, lists, tuples, numbers, strings, None, dtypes). Loading runs no code from the
file (PyTorch's ``weights_only=True``, its default). A tensor saved twice, or two names for
one tensor, load as one tensor, and a ``Parameter`` loads as a ``Parameter`` with its
``requires_grad``, as in PyTorch. Whole modules and optimisers are refused, with what to save
instead: their ``state_dict()``. A file written to a path replaces the old one only once
it is complete.

>>> import io
>>> from micrograd_edu.tensor import tensor
>>> buffer = io.BytesIO()
>>> save({"w": tensor([1.0, 2.0], requires_grad=True), "epoch": 3}, buffer)
>>> _ = buffer.seek(0)
>>> load(buffer)
{'w': tensor([1., 2.], requires_grad=True), 'epoch': 3}
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from collections import OrderedDict
from typing import Any

import numpy as np

from .nn.module import Parameter
from .tensor import Tensor
from .tensor.dtypes import DType, dtype_of

__all__ = ["save", "load"]

_DESCRIPTION = "micrograd_edu.json"
_FORMAT = 1


class _Writer:
    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []
        self.seen: dict[int, int] = {}  # id of a saved tensor or array -> its number

    def array(self, obj: Any, array: np.ndarray) -> int:
        if id(obj) not in self.seen:
            self.seen[id(obj)] = len(self.arrays)
            self.arrays.append(np.array(array, order="C"))  # a copy, 0-d stays 0-d
        return self.seen[id(obj)]

    def encode(self, obj: Any, path: str) -> Any:
        if isinstance(obj, Tensor):
            kind = "parameter" if isinstance(obj, Parameter) else "tensor"
            number = self.array(obj, obj.detach().numpy())
            return {"kind": kind, "array": number, "requires_grad": bool(obj.requires_grad)}
        if isinstance(obj, np.ndarray):
            return {"kind": "ndarray", "array": self.array(obj, obj)}
        if obj is None or isinstance(obj, bool | str):
            return obj
        if isinstance(obj, int | np.integer):
            return {"kind": "int", "value": int(obj)}
        if isinstance(obj, float | np.floating):
            return {"kind": "float", "value": repr(float(obj))}
        if isinstance(obj, np.dtype | DType):
            return {"kind": "dtype", "value": np.dtype(obj).str}
        if isinstance(obj, dict):
            items = [
                [self.encode(k, path), self.encode(v, f"{path}[{k!r}]")] for k, v in obj.items()
            ]
            return {"kind": "ordered" if isinstance(obj, OrderedDict) else "dict", "items": items}
        if isinstance(obj, list | tuple):
            kind = "list" if isinstance(obj, list) else "tuple"
            return {
                "kind": kind,
                "items": [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)],
            }
        what = type(obj).__name__
        fix = (
            f"save its state_dict() (torch.save({path.split('[')[0]}.state_dict(), f)) and load "
            "it into a new one with load_state_dict"
            if hasattr(obj, "state_dict")
            else "save tensors, numbers, strings and dicts, lists or tuples of them"
        )
        raise TypeError(
            f"save: cannot save {path} (a {what}): files here hold data, not code, so that "
            f"loading one runs nothing; {fix}"
        )


def save(obj: Any, f: Any, **_pickle_options: Any) -> None:
    """Write ``obj`` to ``f``: a path (the old file is replaced once the new one is
    complete) or a binary file-like object."""
    writer = _Writer()
    description = {"format": _FORMAT, "object": writer.encode(obj, "obj")}
    if isinstance(f, str | os.PathLike):
        folder = os.path.dirname(os.path.abspath(f))
        handle, temporary = tempfile.mkstemp(prefix=".saving-", dir=folder)
        try:
            with os.fdopen(handle, "wb") as out:
                _write(out, description, writer.arrays)
            os.replace(temporary, f)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
    else:
        _write(f, description, writer.arrays)


def _write(out: Any, description: dict, arrays: list[np.ndarray]) -> None:
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(_DESCRIPTION, json.dumps(description))
        for i, array in enumerate(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            archive.writestr(f"{i}.npy", buffer.getvalue())


def load(f: Any, map_location: Any = None, *, weights_only: Any = None, **_options: Any) -> Any:
    """What :func:`save` wrote to ``f`` (a path or a binary file-like object).
    ``map_location`` may name the CPU, the only device here."""
    if map_location is not None and not str(map_location).startswith("cpu"):
        if not callable(map_location) and not isinstance(map_location, dict):
            raise RuntimeError(
                f"load: map_location={map_location!r}; the CPU is the only device here"
            )
    try:
        archive = zipfile.ZipFile(f)
    except zipfile.BadZipFile:
        raise ValueError(
            "load: this is not a file written by micrograd_edu's save (PyTorch's own files "
            "need pickle, which is not used here: save the state_dict with this package)"
        ) from None
    with archive:
        if _DESCRIPTION not in archive.namelist():
            raise ValueError(
                "load: this zip file was not written by micrograd_edu's save (a PyTorch file? "
                "those need pickle, which is not used here)"
            )
        description = json.loads(archive.read(_DESCRIPTION))
        arrays = {}

        def array(number: int) -> np.ndarray:
            if number not in arrays:
                with archive.open(f"{number}.npy") as data:
                    arrays[number] = np.lib.format.read_array(data, allow_pickle=False)
            return arrays[number]

        return _Reader(array).decode(description["object"])


class _Reader:
    def __init__(self, array: Any) -> None:
        self.array = array
        self.tensors: dict[int, Tensor] = {}

    def decode(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        kind = node["kind"]
        if kind in ("tensor", "parameter"):
            number = node["array"]
            if number not in self.tensors:
                self.tensors[number] = _tensor(kind, self.array(number), node["requires_grad"])
            return self.tensors[number]
        if kind == "ndarray":
            return self.array(node["array"])
        if kind == "int":
            return int(node["value"])
        if kind == "float":
            return float(node["value"])  # repr's text: nan and inf included
        if kind == "dtype":
            return dtype_of(np.dtype(node["value"]))
        if kind in ("dict", "ordered"):
            pairs = [(_key(self.decode(k)), self.decode(v)) for k, v in node["items"]]
            return OrderedDict(pairs) if kind == "ordered" else dict(pairs)
        items = [self.decode(v) for v in node["items"]]
        return items if kind == "list" else tuple(items)


def _key(key: Any) -> Any:
    return tuple(key) if isinstance(key, list) else key


def _tensor(kind: str, array: np.ndarray, requires_grad: bool) -> Tensor:
    make = Parameter if kind == "parameter" else Tensor
    return make(array.copy(), requires_grad=requires_grad)
