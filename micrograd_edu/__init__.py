"""micrograd_edu: automatic differentiation, built to be understood.

The public face of the package. The folders are the layers, each reading only the
ones before it:

* ``rules`` (the one table of derivative rules) and ``functions`` (elementary
  functions written once for every engine);
* ``scalar/``: the scalar engines, ``Value`` (reverse mode), ``Dual`` (forward
  mode), ``symbolic`` and ``numerical`` differentiation, and ``graph``;
* ``tensor/``: the numpy-backed ``Tensor``, its backward pass, modes, ``Function``
  and ``freeze``; then ``nn``, ``optim`` and ``init``; ``torchlike`` gathers them
  under PyTorch's names;
* ``viz/``: diagrams, traces, plots and widgets;
* ``course/``: the command line, ``doctor``, data sets and experiments;
* ``grading/``: the exercises and the grader.

``import micrograd_edu`` loads the engines and ``nn``/``optim`` only: :func:`check`
imports the grader on its first call, :func:`doctor` its module, and the drawing
functions (``draw_graph``, ``animate``, ``frames``, the traces) load ``viz`` the first
time one is used, as ``mg.data`` loads the data sets.

``micrograd_edu.tensor``, the attribute, is the constructor function (as
``torch.tensor``); import the subpackage's other names with ``from
micrograd_edu.tensor import Tensor``.
"""

import sys as _sys
from importlib import import_module as _import_module
from typing import Any as _Any

from . import functions, nn, optim
from .rules import RULES, DomainError
from .scalar.dual import Dual, jacobian_forward, jvp
from .scalar.graph import topological_order
from .scalar.numerical import central_difference, gradcheck, gradient, jacobian, step_size_study
from .scalar.symbolic import Symbol, diff, simplify, size
from .scalar.value import Value, jacobian_reverse
from .tensor import Tensor, concatenate, cross_entropy, mse_loss, stack, tensor
from .tensor.freeze import freeze
from .tensor.function import Function
from .tensor.modes import enable_grad, inference_mode, is_grad_enabled, no_grad
from .tensor.operation import ShapeError
from .tensor.shape import unbroadcast
from .version import __version__


def check(exercise_id: str, namespace: _Any = None, **options: _Any) -> _Any:
    """Check an exercise on the functions defined in the notebook: ``check("01.gradient")``.

    The grader is imported on the first call (``import micrograd_edu`` stays light);
    see :func:`micrograd_edu.grading.feedback.check` for the options.
    """
    from .grading.feedback import check as run_check

    if namespace is None:
        namespace = _sys._getframe(1).f_globals
    return run_check(exercise_id, namespace, **options)


def doctor() -> _Any:
    """Report what this machine can do for the course (see ``micrograd-edu doctor``)."""
    from .course.doctor import doctor as run_doctor

    return run_doctor()


# Loaded on first use (see the module docstring): each name's module, and its
# attribute there (None: the name is the module itself).
_LAZY = {
    "adjoint_trace": ("viz", "adjoint_trace"),
    "animate": ("viz", "animate"),
    "draw_graph": ("viz", "draw_graph"),
    "frames": ("viz", "frames"),
    "primal_trace": ("viz", "primal_trace"),
    "tangent_trace": ("viz", "tangent_trace"),
    "data": ("course.data", None),
}


def __getattr__(name: str) -> _Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'micrograd_edu' has no attribute {name!r}")
    where, attribute = _LAZY[name]
    module = _import_module(f"{__name__}.{where}")
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # this module's own name, found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
