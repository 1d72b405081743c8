"""``torchlike``: the package under PyTorch's names, so a PyTorch program runs here.

``import micrograd_edu.torchlike as torch`` and a program written for PyTorch (a training
loop with a ``DataLoader``, a gradient penalty, a custom ``autograd.Function``) runs
unchanged, on the tensor engine, with the same numbers as PyTorch in float64. To run a
program that says ``import torch``, use ``python -m micrograd_edu.torchlike program.py`` or
:func:`install` (see :mod:`.aliases`: ``torch`` never reaches PyTorch by accident).

What differs on purpose (the README lists it all, and each item is tested):

* floats are float64 by default (PyTorch: float32); ``set_default_dtype`` accepts float64
  only, so a program that asks for it means the same thing in both;
* there is one device, the CPU: ``torch.device("cpu")``, ``.to("cpu")`` and ``.cpu()``
  work, any other device raises;
* random numbers (``randn``, ``rand``, weight initialisation, dropout) are numpy's, not
  PyTorch's; permutations drawn with a seeded ``Generator`` (shuffling) are PyTorch's.

>>> import micrograd_edu.torchlike as torch
>>> torch.set_default_dtype(torch.float64)
>>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> y = torch.sum(torch.tanh(x) ** 2)
>>> (g,) = torch.autograd.grad(y, x)
>>> torch.allclose(g, 2 * torch.tanh(x) * (1 - torch.tanh(x) ** 2))
True
>>> values, indices = torch.max(torch.tensor([[1.0, 5.0], [3.0, 2.0]]), 1)
>>> indices
tensor([1, 0])
"""

from __future__ import annotations

import builtins
import math as _math
import sys as _sys
from types import SimpleNamespace
from typing import Any

import numpy as np

from .. import nn, optim, utils
from ..serialization import load, save
from ..tensor import (
    arange,
    cat,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    matmul,
    maximum,
    minimum,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    stack,
    tensor,
    where,
    zeros,
    zeros_like,
)
from ..tensor.dtypes import number_array
from ..tensor.modes import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ..utils.random import Generator, randperm
from . import aliases, autograd
from .aliases import install, installed, uninstall
from .types import (
    Size,
    Tensor,
    bool,
    device,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)

Function = autograd.Function
concatenate = concat = cat
inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e

cuda = SimpleNamespace(
    is_available=lambda: False,
    device_count=lambda: 0,
    manual_seed=lambda seed: None,
    manual_seed_all=lambda seed: None,
)
backends = SimpleNamespace(
    mps=SimpleNamespace(is_available=lambda: False),
    cudnn=SimpleNamespace(deterministic=False, benchmark=False, enabled=True),
)


def set_default_dtype(dtype: Any) -> None:
    """Accept float64, the only default here (PyTorch's own default is float32)."""
    if np.dtype(dtype) != float64:
        raise ValueError(
            f"set_default_dtype: micrograd_edu's floats are float64, got {dtype}; pass "
            "dtype=torch.float32 to the tensors that should be float32"
        )


def get_default_dtype() -> np.dtype:
    """float64: the dtype of floats made from Python numbers."""
    return float64


def is_tensor(obj: Any) -> builtins.bool:
    """Whether ``obj`` is a tensor."""
    return isinstance(obj, Tensor)


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else tensor(x)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory where it can (a tensor or a numpy array of the
    same dtype), as ``torch.as_tensor``."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or np.dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def numel(input: Tensor) -> builtins.int:  # noqa: A002
    """The number of entries of ``input``."""
    return input.numel()


def is_floating_point(input: Tensor) -> builtins.bool:  # noqa: A002
    """Whether ``input`` holds floats."""
    return input.dtype.kind == "f"


def allclose(
    input: Any,
    other: Any,
    rtol: builtins.float = 1e-5,
    atol: builtins.float = 1e-8,  # noqa: A002
    equal_nan: builtins.bool = False,
) -> builtins.bool:
    """Whether ``input`` and ``other`` are equal within tolerances (as ``torch.allclose``)."""
    a, b = np.asarray(input), np.asarray(other)
    return builtins.bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor) -> builtins.bool:  # noqa: A002
    """Whether the two tensors have the same shape and the same entries."""
    return tuple(input.shape) == tuple(other.shape) and builtins.bool(
        np.array_equal(np.asarray(input), np.asarray(other))
    )


def _arithmetic(name: str):
    def call(input: Any, other: Any, **kwargs: Any) -> Tensor:  # noqa: A002
        if isinstance(input, Tensor):
            return getattr(input, name)(other, **kwargs)
        if not isinstance(other, Tensor):
            raise TypeError(f"torch.{name}(): give at least one tensor, got two numbers")
        if kwargs.get("alpha", 1) != 1:
            other = other * kwargs.pop("alpha")
        kwargs.pop("alpha", None)
        return getattr(_as_tensor_like(input, other), name)(other, **kwargs)

    call.__name__ = name
    call.__doc__ = f"``input.{name}(other)``, as ``torch.{name}`` (either may be a number)."
    return call


def _as_tensor_like(number: Any, other: Tensor) -> Tensor:
    """A Python number as a 0-d tensor that combines with ``other`` as the number would."""
    return tensor(number_array(number, other.dtype.dtype))


add, sub, mul, div = (_arithmetic(n) for n in ("add", "sub", "mul", "div"))
subtract, multiply, divide, true_divide = sub, mul, div, div
floor_divide, remainder = _arithmetic("floor_divide"), _arithmetic("remainder")


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001, A002
    """input ** exponent (either may be a number)."""
    if not isinstance(input, Tensor):
        return exponent.__rpow__(input)
    return input**exponent


def hstack(tensors: Any) -> Tensor:
    """Join along axis 1 (axis 0 for 1-d tensors)."""
    tensors = [_as_tensor(t) for t in tensors]
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return cat(tensors, dim=0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Join along axis 0, making 0- and 1-d tensors rows first."""
    tensors = [_as_tensor(t) for t in tensors]
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], dim=0)


def _logical(name: str, ufunc: Any):
    def logical(input: Any, other: Any) -> Tensor:  # noqa: A002
        return tensor(ufunc(np.asarray(input), np.asarray(other)))

    logical.__name__ = name
    logical.__doc__ = f"``torch.{name}``: elementwise, as bools."
    return logical


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)


def logical_not(input: Any) -> Tensor:  # noqa: A002
    """``torch.logical_not``: elementwise, as bools."""
    return tensor(np.logical_not(np.asarray(input)))


def _method(name: str):
    def call(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError(
                f"torch.{name}(): the first argument must be a tensor, got "
                f"{type(input).__name__}; write torch.tensor(...) first"
            )
        return getattr(input, name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"``input.{name}(...)``, as ``torch.{name}``."
    return call


_METHODS = (
    "abs absolute exp log log1p sqrt tanh sigmoid relu sin cos tan square neg negative sign "
    "round floor ceil trunc reciprocal clamp clip mm bmm mv sum mean prod cumsum amax amin max min "
    "argmax argmin logsumexp norm var std any all reshape flatten squeeze unsqueeze transpose "
    "swapaxes swapdims permute flip softmax log_softmax dot trace t split chunk unbind narrow "
    "select clone detach eq ne gt ge lt le broadcast_to gather index_select masked_fill "
    "isfinite isnan isinf bitwise_and bitwise_or bitwise_xor bitwise_not"
).split()
globals().update({_name: _method(_name) for _name in _METHODS})

aliases.guard_imports(_sys.modules[__name__])

__all__ = [
    "Function",
    "Generator",
    "Size",
    "Tensor",
    "add",
    "allclose",
    "arange",
    "as_tensor",
    "autograd",
    "backends",
    "bool",
    "cat",
    "concat",
    "concatenate",
    "cuda",
    "device",
    "div",
    "divide",
    "double",
    "dtype",
    "empty_like",
    "e",
    "empty",
    "enable_grad",
    "equal",
    "eye",
    "float",
    "float16",
    "float32",
    "float64",
    "floor_divide",
    "from_numpy",
    "full",
    "full_like",
    "get_default_dtype",
    "half",
    "hstack",
    "inf",
    "inference_mode",
    "install",
    "installed",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_floating_point",
    "is_grad_enabled",
    "is_tensor",
    "linspace",
    "load",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "long",
    "manual_seed",
    "matmul",
    "maximum",
    "minimum",
    "mul",
    "multiply",
    "nan",
    "nn",
    "no_grad",
    "numel",
    "ones",
    "ones_like",
    "optim",
    "pi",
    "pow",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "randperm",
    "remainder",
    "save",
    "set_default_dtype",
    "set_grad_enabled",
    "short",
    "stack",
    "sub",
    "subtract",
    "tensor",
    "true_divide",
    "uint8",
    "uninstall",
    "utils",
    "vstack",
    "where",
    "zeros",
    "zeros_like",
]
__all__ += _METHODS


def __getattr__(name: str) -> Any:
    """A name of PyTorch's that torchlike lacks is refused in those words (an
    AttributeError, as Python's own, so ``hasattr`` still answers)."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise AttributeError(
        f"torch.{name}: torchlike has no {name!r}. It has part of PyTorch, the same in "
        "float64, and refuses the rest: write it from what it has, or run the program "
        "on PyTorch"
    )
