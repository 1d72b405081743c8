"""``Tensor``: a numpy array that remembers how it was computed.

The class and :func:`apply`, which records every operation, are in
:mod:`~micrograd_edu.tensor.core`; the constructor ``tensor``, ``concatenate``,
``stack`` and the losses in :mod:`~micrograd_edu.tensor.functional`.

>>> w = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> loss = mse_loss(w @ tensor([1.0, 1.0]), [3.0, 6.0])
>>> loss.backward()
>>> w.grad
array([[0., 0.],
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

from .core import Tensor, apply
from .functional import concatenate, cross_entropy, mse_loss, stack, tensor

__all__ = ["Tensor", "apply", "concatenate", "cross_entropy", "mse_loss", "stack", "tensor"]
