"""micrograd_edu: automatic differentiation, built to be understood.

The public face of the package. Each engine lives in its own module:
``rules`` (the derivative table), ``numerical``, ``symbolic``, ``forward``,
``engine`` (scalar ``Value``), ``tensor``; then ``nn``, ``optim``, ``viz`` and
``grading``.
"""

from .doctor import doctor
from .graph import topological_order
from .rules import RULES, DomainError
from .viz import adjoint_trace, animate, draw_graph, frames, primal_trace, tangent_trace

__version__ = "0.1.0"

__all__ = ["RULES", "DomainError", "doctor", "topological_order", "__version__"]
__all__ += ["draw_graph", "animate", "frames", "primal_trace", "tangent_trace", "adjoint_trace"]
