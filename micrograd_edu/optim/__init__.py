"""Optimisers with PyTorch's names, parameter groups, state and exact update formulas.

The formulas are PyTorch's, operation for operation, so a model trained here and
the same model in PyTorch, from the same weights on the same batches, give the
same losses step after step (to rounding). An optimiser updates each parameter
*in place* (a tensor's array, or the numpy ``.data`` of any other object) from its
``.grad`` (a tensor or an array, or ``None`` when no gradient reached it: that parameter
is skipped, as in PyTorch). :mod:`.optimizer` says how to write one.

>>> import numpy as np
>>> from micrograd_edu import Tensor
>>> w = Tensor([1.0], requires_grad=True)
>>> opt = SGD([w], lr=0.1)
>>> (w * 0.5).sum().backward(); opt.step(); w.data
tensor([0.9500])
>>> opt.zero_grad(); w.grad is None
True
"""

from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
