"""``nn``: PyTorch's ``torch.nn`` in miniature, with the same names and the same
behaviour where a student would notice.

:mod:`.module` has ``Parameter`` and ``Module``; :mod:`.layers` the layers and
activations; :mod:`.batchnorm` batch normalisation; :mod:`.containers` ``Sequential``,
``ModuleList``, ``ModuleDict``; :mod:`.loss` the loss modules; :mod:`.functional`
(``nn.functional``) the same as plain functions; :mod:`.utils` (``nn.utils``) gradient
clipping.

>>> net = Sequential(Linear(4, 3, seed=0), ReLU(), Linear(3, 1, seed=1))
>>> loss = MSELoss()(net(Tensor(np.ones((2, 4)))), Tensor(np.zeros((2, 1))))
>>> loss.backward(); net[0].weight.grad.shape
(3, 4)
"""

import numpy as np  # noqa: F401  (the docstring's example)

from .. import init
from ..tensor import Tensor  # noqa: F401  (the docstring's example)
from . import functional, utils
from .batchnorm import BatchNorm1d, BatchNorm2d
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
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module, Parameter

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "CrossEntropyLoss",
    "Dropout",
    "Flatten",
    "Identity",
    "L1Loss",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "functional",
    "init",
    "utils",
]
