"""micrograd_edu: automatic differentiation, built to be understood.

The public face of the package. Each engine lives in its own module:
``rules`` (the derivative table), ``numerical``, ``symbolic``, ``forward``,
``engine`` (scalar ``Value``), ``tensor``; then ``nn``, ``optim``, ``viz`` and
``grading``.
"""

from . import functions
from .doctor import doctor
from .engine import Value
from .forward import Dual, jacobian_forward, jvp
from .graph import topological_order
from .numerical import central_difference, gradcheck, gradient, jacobian, step_size_study
from .rules import RULES, DomainError
from .symbolic import Symbol, diff, simplify, size

__version__ = "0.1.0"

__all__ = [
    "RULES",
    "DomainError",
    "doctor",
    "topological_order",
    "central_difference",
    "gradient",
    "jacobian",
    "gradcheck",
    "step_size_study",
    "Symbol",
    "diff",
    "simplify",
    "size",
    "__version__",
]
__all__ += ["Value", "Dual", "jvp", "jacobian_forward", "functions"]
