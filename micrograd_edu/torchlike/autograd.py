"""``torch.autograd``: ``grad``, ``backward``, ``Function`` and the gradient modes.

>>> from micrograd_edu.tensor import tensor
>>> x = tensor([3.0], requires_grad=True)
>>> grad((x**3).sum(), x)
(tensor([27.]),)
"""

from ..tensor.backward import backward, grad
from ..tensor.function import Function
from ..tensor.modes import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = [
    "Function",
    "backward",
    "enable_grad",
    "grad",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
]
