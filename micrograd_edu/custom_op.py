"""User-defined operations: one fused graph node with its own gradient rule.

Subclass :class:`Function`, write ``forward(ctx, *inputs)`` and
``backward(ctx, grad)`` as static methods (as in ``torch.autograd.Function``),
and call ``YourFunction.apply(...)``. The result is recorded as *one* node whose
``op`` is the class name, so a fused linear layer shows as one box in a
diagram instead of a matmul and an add.

>>> import numpy as np
>>> from micrograd_edu import Tensor
>>> class Linear(Function):
...     @staticmethod
...     def forward(ctx, x, w, b):
...         ctx.save_for_backward(x, w)
...         return x @ w + b
...     @staticmethod
...     def backward(ctx, grad):
...         x, w = ctx.saved_tensors
...         return grad @ w.T, x.T @ grad, grad.sum(axis=0)
>>> x = Tensor(np.ones((2, 3)))
>>> w = Tensor(np.ones((3, 1)), requires_grad=True)
>>> b = Tensor(np.zeros(1), requires_grad=True)
>>> y = Linear.apply(x, w, b)
>>> y.op, y.grad_fn
('Linear', <LinearBackward>)
>>> y.sum().backward()
>>> w.grad.ravel(), b.grad
(array([2., 2., 2.]), array([2.]))
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import numpy as np

from .modes import STATE, is_grad_enabled, no_grad
from .ops import Op, ShapeError
from .tensor.core import Tensor, _leaf, apply

__all__ = ["Function", "Context"]


class Context:
    """Where ``forward`` leaves what ``backward`` needs."""

    def __init__(self) -> None:
        self.saved_tensors: tuple = ()
        self.needs_input_grad: tuple[bool, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep these tensors for ``backward`` (freed after it, like any saved value)."""
        self.saved_tensors = tensors


class Function:
    """Base class of user-defined operations; see the module docstring."""

    @staticmethod
    def forward(ctx: Context, *args: Any) -> Any:
        raise NotImplementedError("Function subclasses define forward(ctx, *inputs)")

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Any:
        raise NotImplementedError("Function subclasses define backward(ctx, grad)")

    @classmethod
    def apply(cls, *args: Any) -> Tensor:
        """Run ``forward`` on ``args`` and record one node for the whole operation.

        Tensor arguments are differentiated; other arguments (numbers, flags)
        are passed to ``forward`` as they are and get no gradient.
        """
        op = cls.__dict__.get("_op")
        if op is None:
            op = Op(cls.__name__, _forward, _vjp)
            cls._op = op
        inputs = [a for a in args if isinstance(a, Tensor)]
        # Which positions hold tensors, and the other arguments as given.
        layout = tuple(None if isinstance(a, Tensor) else (a,) for a in args)
        ctx = Context()
        ctx.needs_input_grad = tuple(
            isinstance(a, Tensor) and a.requires_grad and is_grad_enabled() for a in args
        )
        return apply(op, *inputs, static=(cls, ctx, layout))


@contextmanager
def _untraced():
    """Run user code as one operation: record nothing, not even for ``freeze``
    (which replays the whole Function, not the operations inside it)."""
    tape, STATE.tape = STATE.tape, None
    try:
        with no_grad():
            yield
    finally:
        STATE.tape = tape


def _call_args(xs: tuple, layout: tuple) -> list:
    arrays = iter(xs)
    return [_leaf(next(arrays)) if slot is None else slot[0] for slot in layout]


def _forward(*xs_and_static: Any) -> np.ndarray:
    *xs, cls, ctx, layout = xs_and_static
    with _untraced():
        out = cls.forward(ctx, *_call_args(tuple(xs), layout))
    out = out.data if isinstance(out, Tensor) else np.asarray(out)
    if out.dtype.kind != "f":
        raise TypeError(
            f"{cls.__name__}.forward returned dtype {out.dtype}; it must return a floating "
            "tensor or array"
        )
    return out


def _vjp(g, out, xs, needs, cls, ctx, layout):
    name = cls.__name__
    with _untraced():
        grads = cls.backward(ctx, _leaf(g))
    grads = tuple(grads) if isinstance(grads, tuple | list) else (grads,)
    # PyTorch's convention: one gradient per forward argument, None for the others.
    positions = [i for i, slot in enumerate(layout) if slot is None]
    if len(grads) != len(layout):
        raise TypeError(
            f"{name}.backward returned {len(grads)} gradients, but forward took "
            f"{len(layout)} arguments; return one per argument (None where there is none)"
        )
    result = []
    for i, x, need in zip(positions, xs, needs, strict=True):
        grad = grads[i]
        if not need:
            result.append(None)
            continue
        if grad is None:  # PyTorch's convention for "no dependence": a zero gradient
            result.append(np.zeros_like(x))
            continue
        grad = grad.data if isinstance(grad, Tensor) else np.asarray(grad)
        # Counted from 1, as people count forward's arguments ("input 3 of 3" is the last).
        which = f"input {i + 1} of {len(layout)}"
        if grad.shape != x.shape:
            raise ShapeError(
                f"{name}.backward: the gradient for {which} has shape {grad.shape}, but "
                f"{which} has shape {x.shape}; a gradient has the shape of its input "
                "(return them in the order of forward's arguments)"
            )
        if grad.dtype != x.dtype:
            raise TypeError(
                f"{name}.backward: the gradient for {which} has dtype {grad.dtype}, but "
                f"{which} has dtype {x.dtype}; a gradient has the dtype of its input"
            )
        result.append(grad)
    return tuple(result)
