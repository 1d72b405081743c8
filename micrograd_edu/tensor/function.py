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
(tensor([2., 2., 2.]), tensor([2.]))

A ``forward`` may return a tuple of tensors; ``apply`` then returns a tuple and
``backward`` receives one gradient per output (zeros for an output that reached
the loss by no path), as in PyTorch. Under ``backward(create_graph=True)`` the
user's ``backward`` runs recorded, on the real inputs, so a gradient through a
``Function`` can be differentiated again when its ``backward`` is written with
tensor operations.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import numpy as np

from .modes import STATE, is_grad_enabled, no_grad
from .operation import Op, ShapeError
from .tensor import Tensor, apply, leaf

__all__ = ["Function", "Context"]


class Context:
    """Where ``forward`` leaves what ``backward`` needs."""

    def __init__(self) -> None:
        self._saved: tuple = ()
        self._stand_ins: list[Tensor] = []  # the leaves forward was given
        self._originals: dict[int, Tensor] = {}  # forward's stand-ins -> the real inputs
        self._outputs: tuple | None = None  # forward's outputs, when it returned a tuple
        self.needs_input_grad: tuple[bool, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep these tensors for ``backward`` (freed after it, like any saved value)."""
        self._saved = tensors

    @property
    def saved_tensors(self) -> tuple:
        """What ``forward`` saved; under ``create_graph`` the real (recorded) inputs."""
        if STATE.enabled and self._originals:
            return tuple(self._originals.get(id(t), t) for t in self._saved)
        return self._saved


class Function:
    """Base class of user-defined operations; see the module docstring."""

    @staticmethod
    def forward(ctx: Context, *args: Any) -> Any:
        raise NotImplementedError("Function subclasses define forward(ctx, *inputs)")

    @staticmethod
    def backward(ctx: Context, *grads: Tensor) -> Any:
        raise NotImplementedError("Function subclasses define backward(ctx, grad)")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run ``forward`` on ``args`` and record one node for the whole operation (one
        per output when it returns a tuple).

        Tensor arguments are differentiated; other arguments (numbers, flags)
        are passed to ``forward`` as they are and get no gradient.
        """
        inputs = [a for a in args if isinstance(a, Tensor)]
        # Which positions hold tensors, and the other arguments as given.
        layout = tuple(None if isinstance(a, Tensor) else (a,) for a in args)
        ctx = Context()
        ctx.needs_input_grad = tuple(
            isinstance(a, Tensor) and a.requires_grad and is_grad_enabled() for a in args
        )
        first = apply(_op(cls), *inputs, static=(cls, ctx, layout, 0))
        pairs = zip(ctx._stand_ins, inputs, strict=True)
        ctx._originals = {id(stand_in): x for stand_in, x in pairs}
        outputs = ctx._outputs
        if outputs is None:
            return first
        # More outputs: one node each, sharing the context; forward ran once.
        op = _op(cls)
        rest = [apply(op, *inputs, static=(cls, ctx, layout, k)) for k in range(1, len(outputs))]
        return (first, *rest)


def _op(cls: type) -> Op:
    op = cls.__dict__.get("_op")
    if op is None:
        op = Op(cls.__name__, _forward, _vjp)
        cls._op = op
    return op


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


def _forward(*xs_and_static: Any) -> np.ndarray:
    *xs, cls, ctx, layout, k = xs_and_static
    if k == 0:  # the first output runs forward (again, when freeze replays it)
        arrays = iter(xs)
        args = [leaf(next(arrays)) if slot is None else slot[0] for slot in layout]
        ctx._stand_ins = [a for a in args if isinstance(a, Tensor)]
        with _untraced():
            out = cls.forward(ctx, *args)
        ctx._outputs = tuple(_array(cls, o) for o in out) if isinstance(out, tuple) else None
        return _array(cls, out) if ctx._outputs is None else ctx._outputs[0]
    return ctx._outputs[k]


def _array(cls: type, out: Any) -> np.ndarray:
    out = out._data if isinstance(out, Tensor) else np.asarray(out)
    if out.dtype.kind != "f":
        raise TypeError(
            f"{cls.__name__}.forward returned dtype {out.dtype}; it must return a floating "
            "tensor or array (or a tuple of them)"
        )
    return out


def _vjp(g, out, xs, needs, cls, ctx, layout, k):
    name = cls.__name__
    recorded = not isinstance(g, np.ndarray | np.generic)
    count = 1 if ctx._outputs is None else len(ctx._outputs)
    # This node is output k: the other outputs' gradients are zero in this call (backward
    # is linear in them, so the calls for each output add up to PyTorch's single call).
    grads_in = [g if j == k else _zeros(ctx._outputs[j], recorded) for j in range(count)]
    if recorded:
        grads = cls.backward(ctx, *grads_in)
    else:
        # Copies: the user's backward may change its arguments in place or keep them, and
        # g may be another node's gradient too (the backward module's rule 3). What it
        # returns is borrowed in turn: Function's Op is not fresh, so a .grad gets a copy.
        with _untraced():
            grads = cls.backward(ctx, *[leaf(np.array(x)) for x in grads_in])
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
            result.append(_zeros(x, recorded))
            continue
        if not recorded:
            grad = grad._data if isinstance(grad, Tensor) else np.asarray(grad)
        elif not isinstance(grad, Tensor):
            grad = leaf(np.asarray(grad))
        _check(name, i, len(layout), grad, x)
        result.append(grad)
    return tuple(result)


def _zeros(like: Any, recorded: bool) -> Any:
    zeros = np.zeros(like.shape, dtype=like.dtype)
    return leaf(zeros) if recorded else zeros


def _check(name: str, i: int, n: int, grad: Any, x: Any) -> None:
    # Counted from 1, as people count forward's arguments ("input 3 of 3" is the last).
    which = f"input {i + 1} of {n}"
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
