"""The reverse pass: ``backward`` from a tensor to the leaves of its graph.

Gradients flow from the root in reverse topological order: each recorded
tensor hands its gradient to its operation's ``vjp`` (see
:mod:`micrograd_edu.ops`), and what comes out is summed into the gradients of
its inputs. A leaf's gradient is final as soon as it arrives, so it goes
straight to ``.grad``; a recorded tensor waits until all its consumers are
done, which the order guarantees.

After a pass the values the operations saved are released (unless
``retain_graph=True``), so a second pass through the same graph is an error,
as in PyTorch.

>>> from micrograd_edu import Tensor
>>> x = Tensor([1.0, 2.0], requires_grad=True)
>>> y = (x * x).sum()
>>> run_backward(y)
>>> x.grad
array([2., 4.])
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

import numpy as np

from .ops import ShapeError

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["run_backward", "BackwardFunction", "store_grad", "scalar_seed"]

_ONES: dict = {}  # the gradient of a scalar with respect to itself, per dtype


class BackwardFunction:
    """What ``Tensor.grad_fn`` shows: the recorded operation, PyTorch style."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self._tensor = tensor

    def name(self) -> str:
        op = self._tensor.op
        # "mul" -> "MulBackward", "log_softmax" -> "LogSoftmaxBackward", "MyLinear" kept.
        return (op.title().replace("_", "") if op.islower() else op) + "Backward"

    @property
    def next_functions(self) -> tuple:
        return tuple(p.grad_fn for p in self._tensor.parents)

    def __repr__(self) -> str:
        return f"<{self.name()}>"


def run_backward(root: Tensor, gradient: Any = None, retain_graph: bool = False) -> None:
    """Add the gradient of ``root`` with respect to each leaf that requires grad
    to the leaf's ``.grad`` (what ``Tensor.backward`` does)."""
    if not root.requires_grad:
        raise RuntimeError(
            "backward: this tensor does not require grad and has no grad_fn, so there "
            "is nothing to differentiate; create the inputs with requires_grad=True "
            "(outside no_grad() and inference_mode())"
        )
    seed = _seed(root, gradient)
    owned = {id(seed)}  # the seed may be a shared constant: never store it as is
    if root._fn is None:
        store_grad(root, seed, owned)
        return
    # The order: a tensor is always recorded after its inputs, so the pending
    # tensor recorded last has received the gradients of all its consumers.
    # `pending` is a heap of (-creation number, tensor): the walk and the order
    # come in one pass, without a depth-first search (which, for the two nodes
    # of tr(x1 @ x2), cost as much as an operation). A tensor enters the heap
    # when its first gradient arrives, so one that gets none (the targets of
    # cross_entropy) is never visited.
    grads = {root: seed}
    pending = [(-root._order, root)]
    while pending:
        node = heappop(pending)[1]
        g = grads.pop(node)
        if node._retains_grad:
            store_grad(node, g, owned)
        saved = node._saved
        if saved is None:
            raise RuntimeError(
                f"backward: trying to go through {node.grad_fn} a second time, but its "
                "saved values were freed by the first backward(); call the first "
                "backward(retain_graph=True) to keep them, or recompute the forward pass"
            )
        if not retain_graph:
            node._saved = None
        fn = node._fn
        xs, needs, static = saved
        parent_grads = fn.vjp(g, node.data, xs, needs, *static)
        # One gradient per input: the operations return that by construction,
        # and Function checks what users' backward returns. So no strict=: any
        # keyword makes zip build a dict, ~100 ns per node on this hot path.
        for parent, pg in zip(node.parents, parent_grads):  # noqa: B905
            if pg is None:
                continue
            pdata = parent.data
            if pg.shape != pdata.shape or pg.dtype != pdata.dtype:
                pg = _checked(pg, pdata, fn.name)
            if parent._fn is None:  # a leaf: its gradient is final, store it
                store_grad(parent, pg, owned)
            elif parent in grads:
                grads[parent] = grads[parent] + pg
            else:
                grads[parent] = pg
                heappush(pending, (-parent._order, parent))


def _seed(root: Tensor, gradient: Any) -> np.ndarray:
    """The gradient the pass starts from: 1 for a scalar, else ``gradient``."""
    data = root.data
    if gradient is None:
        if data.size != 1:
            raise RuntimeError(
                f"backward: gradient can be implied only for a scalar, this tensor has "
                f"shape {data.shape}; pass backward(gradient=...) of that shape, or reduce "
                "first (e.g. y.sum().backward())"
            )
        one = scalar_seed(data.dtype)
        return one if data.ndim == 0 else one.reshape(data.shape)
    given = gradient.data if hasattr(gradient, "requires_grad") else gradient
    if isinstance(given, np.ndarray) and given.dtype != data.dtype:
        raise TypeError(
            f"backward: gradient has dtype {given.dtype} but the tensor has dtype "
            f"{data.dtype}; they must match"
        )
    seed = np.array(given, dtype=data.dtype)
    if seed.shape != data.shape:
        raise ShapeError(
            f"backward: gradient has shape {seed.shape} but the tensor has shape "
            f"{data.shape}; they must be equal"
        )
    return seed


def scalar_seed(dtype: np.dtype) -> np.ndarray:
    """The gradient of a scalar with respect to itself: a shared 0-d array of
    ones (callers never store it as a ``.grad`` without copying)."""
    one = _ONES.get(dtype)
    if one is None:
        one = _ONES[dtype] = np.ones((), dtype=dtype)
    return one


def _checked(g: np.ndarray, like: np.ndarray, name: str) -> np.ndarray:
    """``g`` as the gradient of an input ``like``: the shapes must be equal
    (an error names the operation), a float of another precision is cast."""
    if g.shape != like.shape:
        raise ShapeError(
            f"backward: {name} returned a gradient of shape {g.shape} for an input of shape "
            f"{like.shape}; they must be equal"
        )
    if g.dtype != like.dtype:  # mixed precision: cast, as PyTorch does
        g = g.astype(like.dtype)
    return g


def store_grad(node: Tensor, g: np.ndarray, owned: set[int]) -> None:
    """Add ``g`` to ``node.grad``. The first gradient is stored as it is when
    the engine owns it; a view, or an array already given to another tensor,
    is copied so that no two ``.grad`` share memory."""
    if node.grad is not None:
        node.grad = node.grad + g
        return
    if g.base is not None or id(g) in owned:
        g = g.copy()
    owned.add(id(g))
    node.grad = g
