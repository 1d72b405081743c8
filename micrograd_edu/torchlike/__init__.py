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
from ..tensor.modes import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ..utils.random import Generator, randperm
from . import aliases, autograd
from .aliases import install, installed, uninstall
from .types import (
    Tensor,
    bool,
    device,
    double,
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


def _extreme(name: str, pairwise: Any):
    def extreme(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        """``torch.max``/``torch.min``: of everything, ``(values, indices)`` along ``dim``
        (positional or keyword), or elementwise against another tensor."""
        x = _as_tensor(input)
        if args and isinstance(args[0], Tensor):
            if len(args) > 1 or kwargs:
                raise TypeError(f"torch.{name}(input, other) takes no more arguments")
            return pairwise(x, args[0])
        if "other" in kwargs:
            return pairwise(x, kwargs.pop("other"))
        if args:
            if len(args) > 2:
                raise TypeError(f"torch.{name}(input, dim, keepdim=False): too many arguments")
            kwargs.update(zip(("dim", "keepdim")[: len(args)], args, strict=True))
        if "dim" not in kwargs:
            if kwargs:
                raise TypeError(f"torch.{name}: keepdim needs a dim")
            return getattr(x, name)()
        return getattr(x, name)(dim=kwargs["dim"], keepdim=kwargs.get("keepdim", False))

    extreme.__name__ = name
    return extreme


max = _extreme("max", maximum)  # noqa: A001  (PyTorch's names)
min = _extreme("min", minimum)  # noqa: A001


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """input + alpha·other."""
    return _as_tensor(input) + (other if alpha == 1 else alpha * other)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """input − alpha·other."""
    return _as_tensor(input) - (other if alpha == 1 else alpha * other)


subtract = sub


def mul(input: Any, other: Any) -> Tensor:  # noqa: A002
    """input · other, elementwise."""
    return _as_tensor(input) * other


multiply = mul


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:  # noqa: A002
    """input / other (``rounding_mode``: None only; floor and trunc are not here)."""
    if rounding_mode is not None:
        raise NotImplementedError(
            f"torch.div(..., rounding_mode={rounding_mode!r}) is not supported here; write "
            "(a / b).floor() or (a / b).trunc() from a true division"
        )
    return _as_tensor(input) / other


divide = true_divide = div


def mm(input: Tensor, mat2: Tensor) -> Tensor:  # noqa: A002
    """The product of two matrices (2-d only, as ``torch.mm``)."""
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(
            f"mm: both arguments must be matrices (2-d), got shapes {tuple(input.shape)} and "
            f"{tuple(mat2.shape)}; torch.matmul (or @) also takes vectors and batches"
        )
    return matmul(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:  # noqa: A002
    """Batches of matrix products: (b, n, m) @ (b, m, p), the same b (as ``torch.bmm``)."""
    if input.ndim != 3 or mat2.ndim != 3 or input.shape[0] != mat2.shape[0]:
        raise RuntimeError(
            f"bmm: expected two 3-d tensors with the same batch size, got shapes "
            f"{tuple(input.shape)} and {tuple(mat2.shape)}"
        )
    return matmul(input, mat2)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001, A002
    """input ** exponent (either may be a number)."""
    return _as_tensor(input) ** exponent


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
        return getattr(_as_tensor(input), name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"``input.{name}(...)``, as ``torch.{name}``."
    return call


_METHODS = (
    "abs exp log log1p sqrt tanh sigmoid relu sin cos tan square neg sign round clamp clip "
    "sum mean prod cumsum amax amin argmax argmin logsumexp norm var std any all reshape "
    "flatten squeeze unsqueeze transpose swapaxes permute flip softmax log_softmax dot trace t "
    "split chunk clone detach eq ne gt ge lt le broadcast_to gather masked_fill"
).split()
globals().update({_name: _method(_name) for _name in _METHODS})

aliases.guard_imports(_sys.modules[__name__])

__all__ = [
    "Function",
    "Generator",
    "Tensor",
    "add",
    "allclose",
    "arange",
    "as_tensor",
    "autograd",
    "backends",
    "bmm",
    "bool",
    "cat",
    "concat",
    "concatenate",
    "cuda",
    "device",
    "div",
    "divide",
    "double",
    "e",
    "empty",
    "enable_grad",
    "equal",
    "eye",
    "float",
    "float16",
    "float32",
    "float64",
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
    "max",
    "maximum",
    "min",
    "minimum",
    "mm",
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
