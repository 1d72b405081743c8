"""Autograd modes: when operations on tensors are recorded for ``backward``.

Three modes, as in PyTorch's table:

=================  ==================  =========================================
mode               records the graph?  tensors it creates
=================  ==================  =========================================
default            yes, for inputs     ordinary tensors
                   that require grad
``no_grad()``      no                  ordinary tensors (usable in graphs later)
``inference_mode`` no                  *inference tensors*: using one later in a
                                       recorded computation is an error
=================  ==================  =========================================

``requires_grad`` takes effect only in the default mode. Both managers work as
``with`` blocks and as decorators, and nest.

>>> from micrograd_edu import Tensor, no_grad, is_grad_enabled
>>> w = Tensor([1.0, 2.0], requires_grad=True)
>>> with no_grad():
...     y = w * 2
>>> y.requires_grad, is_grad_enabled()
(False, True)
"""

from __future__ import annotations

from contextlib import ContextDecorator

__all__ = ["no_grad", "inference_mode", "enable_grad", "is_grad_enabled", "is_inference_mode"]


class _State:
    """The engine's global switches (one Python thread at a time, like a notebook).

    ``enabled``: operations are recorded; ``inference``: new tensors are
    inference tensors; ``tape``: a list that ``freeze`` is tracing into, or None.
    """

    __slots__ = ("enabled", "inference", "tape")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        self.tape: list | None = None


STATE = _State()


class _Mode(ContextDecorator):
    """Set the switches on entry and restore them on exit (a stack, so a
    decorated function may call itself)."""

    _enabled = True
    _inference = False

    def __init__(self) -> None:
        self._saved: list[tuple[bool, bool]] = []

    def __enter__(self) -> _Mode:
        self._saved.append((STATE.enabled, STATE.inference))
        STATE.enabled = self._enabled
        # Entering no_grad inside inference_mode keeps the tensors inference tensors.
        STATE.inference = self._inference or (STATE.inference and not self._enabled)
        return self

    def __exit__(self, *exc: object) -> None:
        STATE.enabled, STATE.inference = self._saved.pop()


class no_grad(_Mode):
    """Do not record operations: results have no ``grad_fn`` and do not require grad.

    >>> from micrograd_edu import Tensor
    >>> @no_grad()
    ... def predict(w):
    ...     return w * 3
    >>> predict(Tensor(1.0, requires_grad=True))
    tensor(3.)
    """

    _enabled = False


class inference_mode(_Mode):
    """Like :class:`no_grad`, and the tensors created are marked as inference
    tensors, which a later recorded computation refuses (PyTorch does the same,
    so that it may skip the bookkeeping a graph would need).

    >>> from micrograd_edu import Tensor
    >>> w = Tensor([1.0], requires_grad=True)
    >>> with inference_mode():
    ...     x = Tensor([2.0]) * 1
    >>> w * x  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: mul: an input was created under inference_mode()...
    """

    _enabled = False
    _inference = True


class enable_grad(_Mode):
    """Record operations again inside a ``no_grad`` block (as ``torch.enable_grad``)."""


def is_grad_enabled() -> bool:
    """True when operations are being recorded (the default mode).

    >>> with no_grad():
    ...     is_grad_enabled()
    False
    """
    return STATE.enabled


def is_inference_mode() -> bool:
    """True inside ``inference_mode()``."""
    return STATE.inference
