"""``Tensor``: a numpy array that remembers how it was computed.

The class and :func:`apply`, which records every operation, are in
:mod:`micrograd_edu.tensor.tensor`; its operations come by family, each in one file
with forward and VJP side by side (:mod:`.elementwise`, :mod:`.reduce`,
:mod:`.shape`, :mod:`.indexing`, :mod:`.products`, :mod:`.losses`, :mod:`.inplace`);
the backward pass is :mod:`.backward`, the modes :mod:`.modes`; the constructors
(``tensor``, ``zeros``, ``randn``, ...) are in :mod:`.creation`; joins, ``where`` and
the losses as functions in :mod:`.functional`.

>>> w = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> loss = mse_loss(w @ tensor([1.0, 1.0]), [3.0, 6.0])
>>> loss.backward()
>>> w.grad
tensor([[0., 0.],
        [1., 1.]])

The name is shared. ``micrograd_edu.tensor``, the attribute, is the constructor
function (as ``torch.tensor`` is): the package's ``__init__`` binds it over this
subpackage, so ``import micrograd_edu.tensor as T`` gives the *function*; so does
``micrograd_edu.tensor.tensor``, over the module of the class. Reach the modules by
importing from them, ``from micrograd_edu.tensor.tensor import Tensor``, or by
``importlib.import_module``:

>>> import importlib, micrograd_edu
>>> importlib.import_module("micrograd_edu.tensor").__name__, micrograd_edu.tensor.__name__
('micrograd_edu.tensor', 'tensor')

Neither name changes: ``mg.tensor(...)`` is the public, torch-like spelling, and
moving the subpackage (PyTorch's way out: its module became ``torch._tensor``)
would change every import of it.
"""

from .creation import (
    arange,
    empty,
    empty_like,
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
from .modes import TracingWarning
from .tensor import Tensor, apply

__all__ = [
    "Tensor",
    "TracingWarning",
    "apply",
    "arange",
    "cat",
    "concatenate",
    "cross_entropy",
    "empty",
    "empty_like",
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
