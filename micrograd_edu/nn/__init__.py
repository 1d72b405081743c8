"""``nn``: PyTorch's ``torch.nn`` in miniature, with the same names and the same
behaviour where a student would notice.

:mod:`.module` has ``Parameter`` and ``Module``; :mod:`.layers` the layers and
activations; :mod:`.containers` ``Sequential``, ``ModuleList``, ``ModuleDict``;
:mod:`.loss` the loss modules; :mod:`.functional` (``nn.functional``) the same as
plain functions.

>>> net = Sequential(Linear(4, 3, seed=0), ReLU(), Linear(3, 1, seed=1))
>>> loss = MSELoss()(net(Tensor(np.ones((2, 4)))), Tensor(np.zeros((2, 1))))
>>> loss.backward(); net[0].weight.grad.shape
(3, 4)
"""

import numpy as np  # noqa: F401  (the docstring's example)

from .. import init
from ..tensor import Tensor  # noqa: F401  (the docstring's example)
from . import functional
from .containers import ModuleDict, ModuleList, Sequential
from .layers import (
    Dropout,
    Flatten,
    Identity,
    LeakyReLU,
    Linear,
    LogSoftmax,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
)
from .loss import CrossEntropyLoss, MSELoss
from .module import Module, Parameter

__all__ = [
    "CrossEntropyLoss",
    "Dropout",
    "Flatten",
    "Identity",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "functional",
    "init",
]
