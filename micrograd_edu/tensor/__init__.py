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
"""

from .core import Tensor, apply
from .functional import concatenate, cross_entropy, mse_loss, stack, tensor

__all__ = ["Tensor", "apply", "concatenate", "cross_entropy", "mse_loss", "stack", "tensor"]
