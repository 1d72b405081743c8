"""micrograd_edu: automatic differentiation, built to be understood.

The public face of the package. Each engine lives in its own module:
``rules`` (the derivative table), ``numerical``, ``symbolic``, ``forward``,
``engine`` (scalar ``Value``), ``tensor`` (with ``custom_op`` for user-defined
operations); then ``nn``, ``optim``, ``viz`` and ``grading``.

Three modules export a function of their own name, which the package binds over
the module: ``micrograd_edu.tensor``, ``micrograd_edu.freeze`` and
``micrograd_edu.doctor`` are the functions. Import a module's other names with
``from micrograd_edu.tensor import Tensor, core`` (``import micrograd_edu.tensor
as T`` would give the function ``tensor``).
"""

from . import data, functions, nn, optim
from .custom_op import Function
from .doctor import doctor
from .engine import Value, jacobian_reverse
from .forward import Dual, jacobian_forward, jvp
from .freeze import freeze
from .grading import check
from .graph import topological_order
from .modes import enable_grad, inference_mode, is_grad_enabled, no_grad
from .numerical import central_difference, gradcheck, gradient, jacobian, step_size_study
from .ops import ShapeError, unbroadcast
from .rules import RULES, DomainError
from .symbolic import Symbol, diff, simplify, size
from .tensor import Tensor, concatenate, cross_entropy, mse_loss, stack, tensor
from .viz import adjoint_trace, animate, draw_graph, frames, primal_trace, tangent_trace

__version__ = "0.1.0"

__all__ = [
    "DomainError",
    "Dual",
    "Function",
    "RULES",
    "ShapeError",
    "Symbol",
    "Tensor",
    "Value",
    "__version__",
    "adjoint_trace",
    "animate",
    "central_difference",
    "check",
    "concatenate",
    "cross_entropy",
    "data",
    "diff",
    "doctor",
    "draw_graph",
    "enable_grad",
    "frames",
    "freeze",
    "functions",
    "gradcheck",
    "gradient",
    "inference_mode",
    "is_grad_enabled",
    "jacobian",
    "jacobian_forward",
    "jacobian_reverse",
    "jvp",
    "mse_loss",
    "nn",
    "no_grad",
    "optim",
    "primal_trace",
    "simplify",
    "size",
    "stack",
    "step_size_study",
    "tangent_trace",
    "tensor",
    "topological_order",
    "unbroadcast",
]
