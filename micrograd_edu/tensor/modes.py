"""Autograd modes: when operations on tensors are recorded for ``backward``.

Three modes, as in PyTorch's table:

=================  ==================  =========================================
mode               records the graph?  tensors it creates
=================  ==================  =========================================
default            yes, for inputs     ordinary tensors
                   that require grad
``no_grad()``      no                  ordinary tensors (usable in graphs later)
``inference_mode`` no                  *inference tensors*: a later recorded
                                       computation may use one but not save it
                                       for backward (``inf + w`` records,
                                       ``inf * w`` raises), nor change it in place
=================  ==================  =========================================

``requires_grad`` takes effect only in the default mode. ``enable_grad()``
turns recording back on inside ``no_grad()`` but not inside ``inference_mode()``
(as in PyTorch). The managers work as ``with`` blocks and as decorators (``@no_grad``
with or without parentheses), and nest; ``set_grad_enabled(flag)`` chooses.
While ``freeze`` traces a function, the operations also go to its tape, and a read
of a value that may steer Python's control flow warns (:func:`traced_read`).

>>> from micrograd_edu import Tensor, no_grad, is_grad_enabled
>>> w = Tensor([1.0, 2.0], requires_grad=True)
>>> with no_grad():
...     y = w * 2
>>> y.requires_grad, is_grad_enabled()
(False, True)
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode",
    "TracingWarning",
    "traced_read",
]


class _State:
    """The engine's global switches (one Python thread at a time, like a notebook).

    ``grad``: the grad mode (``no_grad``/``enable_grad``); ``inference``: inside
    ``inference_mode``; ``enabled``: operations are recorded (grad mode and not
    inference, kept as one flag for the hot path); ``tape``: a list that ``freeze``
    is tracing into, or None.
    """

    __slots__ = ("grad", "inference", "enabled", "tape", "ever_inference")

    def __init__(self) -> None:
        self.grad = True
        self.inference = False
        self.enabled = True
        self.ever_inference = False
        self.tape: list | None = None

    def set(self, grad: bool, inference: bool) -> None:
        self.grad, self.inference = grad, inference
        self.enabled = grad and not inference
        # Once inference mode has been entered, recorded operations look for inference
        # tensors among their inputs; before, there can be none (the hot path skips it).
        self.ever_inference = self.ever_inference or inference


STATE = _State()


class _Mode:
    """Set the switches on entry and restore them on exit (a stack, so a decorated
    function may call itself). Used bare as a decorator (``@no_grad``), the class
    wraps the function itself."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs and cls._bare_ok:
            return cls()(args[0])
        return super().__new__(cls)

    _bare_ok = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._saved: list[tuple[bool, bool]] = []

    def _switches(self) -> tuple[bool, bool]:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> _Mode:
        self._saved.append((STATE.grad, STATE.inference))
        STATE.set(*self._switches())
        return self

    def __exit__(self, *exc: object) -> None:
        STATE.set(*self._saved.pop())

    def __call__(self, f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self:
                return f(*args, **kwargs)

        return wrapped


class no_grad(_Mode):
    """Do not record operations: results have no ``grad_fn`` and do not require grad.

    >>> from micrograd_edu import Tensor
    >>> @no_grad
    ... def predict(w):
    ...     return w * 3
    >>> predict(Tensor(1.0, requires_grad=True))
    tensor(3.)
    """

    def _switches(self) -> tuple[bool, bool]:
        return False, STATE.inference


class enable_grad(_Mode):
    """Record operations again inside a ``no_grad`` block (as ``torch.enable_grad``);
    inside ``inference_mode`` nothing is recorded all the same."""

    def _switches(self) -> tuple[bool, bool]:
        return True, STATE.inference


class set_grad_enabled(_Mode):
    """``no_grad`` when ``mode`` is False, ``enable_grad`` when True. It takes effect at
    once, as a function call, and as a ``with`` block restores the mode on exit.

    >>> from micrograd_edu import is_grad_enabled
    >>> with set_grad_enabled(False):
    ...     is_grad_enabled()
    False
    """

    _bare_ok = False

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)
        self._previous = (STATE.grad, STATE.inference)
        STATE.set(self._mode, STATE.inference)

    def _switches(self) -> tuple[bool, bool]:
        return self._mode, STATE.inference

    def __enter__(self) -> _Mode:
        self._saved.append(self._previous)
        STATE.set(*self._switches())
        return self


class inference_mode(_Mode):
    """Like :class:`no_grad`, and the tensors created are marked as *inference
    tensors*, which a later recorded computation may use but not save for backward
    (PyTorch's rule, which lets it skip the bookkeeping a graph would need).
    ``inference_mode(False)`` changes nothing.

    >>> from micrograd_edu import Tensor
    >>> w = Tensor([1.0], requires_grad=True)
    >>> with inference_mode():
    ...     x = Tensor([2.0]) * 1
    >>> (x + w).requires_grad
    True
    >>> w * x  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: mul: an input was created under inference_mode(), and inference tensors...
    """

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._on = bool(mode)

    def _switches(self) -> tuple[bool, bool]:
        return (False, True) if self._on else (STATE.grad, STATE.inference)


def is_grad_enabled() -> bool:
    """True when the grad mode records (outside ``no_grad``; ``inference_mode`` is
    asked with :func:`is_inference_mode`).

    >>> with no_grad():
    ...     is_grad_enabled()
    False
    """
    return STATE.grad and not STATE.inference


def is_inference_mode() -> bool:
    """True inside ``inference_mode()``."""
    return STATE.inference


class TracingWarning(UserWarning):
    """``freeze`` met a read of a value that may steer Python's control flow."""


_warned: set[int] = set()


def traced_read(what: str) -> None:
    """Warn, once per ``freeze``, that a value was read while tracing: Python code that
    branches on it is replayed down the same branch whatever the new inputs are."""
    tape = STATE.tape
    if id(tape) in _warned:
        return
    _warned.clear()
    _warned.add(id(tape))
    warnings.warn(
        f"freeze: the traced function read a tensor's value ({what}); if Python's control "
        "flow depends on it (an if, a loop bound), the frozen function replays the branch "
        "taken while tracing for every input. Compute such decisions outside the function "
        "or with tensor operations (where, clamp, maximum).",
        TracingWarning,
        stacklevel=3,
    )
