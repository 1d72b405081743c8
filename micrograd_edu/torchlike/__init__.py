"""``torchlike``: the package under PyTorch's names, so a short PyTorch program runs here.

``import micrograd_edu.torchlike as torch`` and a program written for PyTorch (the
micrograd demo, a training loop, a gradient penalty) runs unchanged, on the tensor
engine, with the same numbers as PyTorch in float64. What differs on purpose:

* floats are float64 by default (PyTorch: float32); ``set_default_dtype`` accepts
  float64 only, so a program that asks for it means the same thing in both;
* there is one device, the CPU: ``device=``/``.to("cpu")`` are accepted and ignored;
* ``Tensor.data`` is a numpy array, and mixed float32/float64 follows numpy's
  promotion (see the README's Tensor paragraph).

>>> import micrograd_edu.torchlike as torch
>>> torch.set_default_dtype(torch.float64)
>>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> y = torch.sum(torch.tanh(x) ** 2)
>>> (g,) = torch.autograd.grad(y, x)
>>> torch.allclose(g, 2 * torch.tanh(x) * (1 - torch.tanh(x) ** 2))
True
"""

from __future__ import annotations

import builtins
from types import SimpleNamespace
from typing import Any

import numpy as np

from . import nn, optim
from .tensor import (
    Tensor,
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
from .tensor import backward as _autograd
from .tensor.function import Function
from .tensor.modes import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled

float32 = np.dtype(np.float32)
float64 = double = np.dtype(np.float64)
int64 = long = np.dtype(np.int64)
int32 = np.dtype(np.int32)
bool = np.dtype(np.bool_)  # noqa: A001  (PyTorch's name)

autograd = SimpleNamespace(grad=_autograd.grad, backward=_autograd.backward, Function=Function)

concatenate = cat


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


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a tensor."""
    return isinstance(x, Tensor)


def numel(x: Tensor) -> int:
    """The number of entries of ``x``."""
    return x.numel()


def allclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    """Whether ``a`` and ``b`` are equal within tolerances (as ``torch.allclose``)."""
    return builtins.bool(np.allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol))


def _method(name: str):
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(x if isinstance(x, Tensor) else tensor(x), name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"``x.{name}(...)``, as ``torch.{name}``."
    return call


_METHODS = (
    "abs exp log log1p sqrt tanh sigmoid relu sin cos square neg clamp clip sum mean prod "
    "cumsum amax amin max min argmax argmin logsumexp norm var std any all reshape flatten "
    "squeeze unsqueeze transpose permute flip softmax log_softmax dot trace t pow"
).split()
globals().update({_name: _method(_name) for _name in _METHODS})

__all__ = [
    "Function",
    "Tensor",
    "allclose",
    "arange",
    "autograd",
    "bool",
    "cat",
    "concatenate",
    "double",
    "empty",
    "enable_grad",
    "eye",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "full_like",
    "get_default_dtype",
    "inference_mode",
    "int32",
    "int64",
    "is_grad_enabled",
    "is_tensor",
    "linspace",
    "long",
    "manual_seed",
    "matmul",
    "maximum",
    "minimum",
    "nn",
    "no_grad",
    "numel",
    "ones",
    "ones_like",
    "optim",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "set_default_dtype",
    "set_grad_enabled",
    "stack",
    "tensor",
    "where",
    "zeros",
    "zeros_like",
]
__all__ += _METHODS
