"""``Tensor``: a numpy array that remembers how it was computed.

The class and :func:`apply`, which records every operation, are in
:mod:`~micrograd_edu.tensor.core`; its operations in :mod:`.methods` and
:mod:`.inplace`; the constructors (``tensor``, ``zeros``, ``randn``, ...) in
:mod:`.creation`; joins, ``where`` and the losses in :mod:`.functional`.

>>> w = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> loss = mse_loss(w @ tensor([1.0, 1.0]), [3.0, 6.0])
>>> loss.backward()
>>> w.grad
tensor([[0., 0.],
        [1., 1.]])

The name is shared. ``micrograd_edu.tensor``, the attribute, is the constructor
function (as ``torch.tensor`` is): the package's ``__init__`` binds it over this
subpackage, so ``import micrograd_edu.tensor as T`` gives the *function*. Reach
the subpackage by importing from it, ``from micrograd_edu.tensor import Tensor,
core``, or by ``importlib.import_module``:

>>> import importlib, micrograd_edu
>>> importlib.import_module("micrograd_edu.tensor").__name__, micrograd_edu.tensor.__name__
('micrograd_edu.tensor', 'tensor')

Neither name changes: ``mg.tensor(...)`` is the public, torch-like spelling, and
moving the subpackage (PyTorch's way out: its module became ``torch._tensor``)
would change every import of it.
"""

from . import inplace, methods, reduce_methods, shape_methods  # noqa: F401  (they attach

# the operations to Tensor)
from .core import Tensor, TracingWarning, apply
from .creation import (
    arange,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from .functional import (
    cat,
    concatenate,
    cross_entropy,
    matmul,
    maximum,
    minimum,
    mse_loss,
    stack,
    where,
)

__all__ = [
    "Tensor",
    "TracingWarning",
    "apply",
    "arange",
    "cat",
    "concatenate",
    "cross_entropy",
    "empty",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "linspace",
    "manual_seed",
    "matmul",
    "maximum",
    "minimum",
    "mse_loss",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "stack",
    "tensor",
    "where",
    "zeros",
    "zeros_like",
]
