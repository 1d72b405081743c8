"""The reverse pass: ``backward`` and ``grad``, from tensors to the leaves of their graph.

Gradients flow from the roots in reverse topological order: each recorded
tensor hands its gradient to its operation's ``vjp`` (see
:mod:`micrograd_edu.tensor.ops`), and what comes out is summed into the gradients of
its inputs. A leaf's gradient is final as soon as it arrives, so it goes
straight to ``.grad``; a recorded tensor waits until all its consumers are
done, which the order guarantees.

After a pass the values the operations saved are released (unless
``retain_graph=True``), so a second pass through the same graph is an error,
as in PyTorch; so is a pass through a value changed in place since it was saved
(an optimiser step between two passes of a retained graph). With
``create_graph=True`` the pass is itself recorded, on tensors instead of arrays,
so that a gradient can be differentiated again.

>>> from micrograd_edu import Tensor
>>> x = Tensor([1.0, 2.0], requires_grad=True)
>>> y = (x * x).sum()
>>> (g,) = grad(y, x, create_graph=True)
>>> g
tensor([2., 4.], grad_fn=<AddBackward>)
>>> grad(g.sum(), x)          # the second derivative: d/dx of 2x
(tensor([2., 2.]),)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

import numpy as np

from .modes import enable_grad
from .ops import ShapeError

if TYPE_CHECKING:
    from . import Tensor

__all__ = ["backward", "grad", "BackwardFunction", "store_grad", "scalar_seed"]

_ONES: dict = {}  # the gradient of a scalar with respect to itself, per dtype
LAST_BUMP = [0]  # the last version bump_version drew (the tensor package updates it)

# The tensor package registers how to make a leaf tensor from an array (it imports
# this module, so this module cannot import it).
_leaf: Callable[[Any], Tensor] = None  # type: ignore[assignment]


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


def backward(
    root: Tensor,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Add the gradient of ``root`` with respect to each leaf that requires grad
    (or only to ``inputs``) to its ``.grad`` (what ``Tensor.backward`` does)."""
    if inputs is None and not create_graph and root._fn is not None:  # the usual call
        data = root._data
        if gradient is None and data.ndim == 0:
            seed = scalar_seed(data.dtype)
        else:
            seed = _seed(root, gradient, False)
        retain = bool(retain_graph)
        _walk({root: seed}, [(-root._order, root)], retain, False, None, {id(seed)})
        return
    _require_grad(root, "backward")
    retain = create_graph if retain_graph is None else retain_graph
    targets = None if inputs is None else _as_list(inputs, "backward")
    found = _propagate([root], [gradient], retain, create_graph, targets)
    for t, g in (found or {}).values():
        if g is not None:
            store_grad(t, g, set())


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (not added to
    ``.grad``), as ``torch.autograd.grad``. With ``create_graph=True`` they can be
    differentiated again (a Hessian-vector product, a gradient penalty)."""
    outs = _as_list(outputs, "grad")
    ins = _as_list(inputs, "grad")
    seeds = [None] * len(outs) if grad_outputs is None else _as_list(grad_outputs, "grad", True)
    if len(seeds) != len(outs):
        raise ValueError(f"grad: {len(outs)} outputs but {len(seeds)} grad_outputs")
    for out in outs:
        _require_grad(out, "grad")
    retain = create_graph if retain_graph is None else retain_graph
    found = _propagate(outs, seeds, retain, create_graph, ins)
    result = []
    for i, t in enumerate(ins):
        g = found.get(id(t), (t, None))[1]
        if g is None and not allow_unused:
            raise RuntimeError(
                f"grad: input {i + 1} of {len(ins)} (shape {t.shape}) was not used to compute "
                "the outputs; pass allow_unused=True to get None for it"
            )
        result.append(g if g is None or create_graph else _leaf(g))
    return tuple(result)


def _as_list(x: Any, op: str, allow_none: bool = False) -> list:
    items = list(x) if isinstance(x, Sequence) and not hasattr(x, "_data") else [x]
    for item in items:
        if not hasattr(item, "_data") and not (allow_none and item is None):
            raise TypeError(f"{op}: expected tensors, got {type(item).__name__}")
    return items


def _require_grad(root: Tensor, op: str) -> None:
    if not root._requires_grad:
        raise RuntimeError(
            f"{op}: this tensor does not require grad and has no grad_fn, so there "
            "is nothing to differentiate; create the inputs with requires_grad=True "
            "(outside no_grad() and inference_mode())"
        )


def _propagate(
    roots: list, seeds: list, retain: bool, create: bool, capture: list | None
) -> dict | None:
    """The pass itself. Without ``capture`` the leaves' gradients go to ``.grad``; with
    it, the gradients of the captured tensors are returned (id -> (tensor, gradient))
    and nothing is stored."""
    caught = None if capture is None else {id(t): (t, None) for t in capture}
    owned: set[int] = set()  # arrays given to a .grad: never give one to two tensors
    grads: dict = {}
    pending: list = []
    for root, gradient in zip(roots, seeds, strict=True):
        seed = _seed(root, gradient, create)
        owned.add(id(seed))  # the seed may be a shared constant: never store it as is
        if root._fn is None:
            _leaf_arrival(root, seed, caught, owned)
        elif root in grads:
            grads[root] = grads[root] + seed
        else:
            grads[root] = seed
            pending.append((-root._order, root))
    pending.sort()
    if create:
        with enable_grad():
            _walk(grads, pending, retain, True, caught, owned)
    else:
        _walk(grads, pending, retain, False, caught, owned)
    return caught


def _leaf_arrival(node: Tensor, g: Any, caught: dict | None, owned: set[int]) -> None:
    """A leaf's gradient is final when it arrives: hooks, then ``.grad`` (or the catch)."""
    if node._hooks:
        g = _hooked(node, g)
    if caught is None:
        store_grad(node, g, owned)
    elif id(node) in caught:
        t, have = caught[id(node)]
        caught[id(node)] = (t, g if have is None else have + g)


def _walk(grads, pending, retain, create, caught, owned) -> None:
    # The order: a tensor is always recorded after its inputs, so the pending tensor
    # recorded last has received the gradients of all its consumers. `pending` is a heap
    # of (-creation number, tensor): the walk and the order come in one pass, without a
    # depth-first search (which, for the two nodes of tr(x1 @ x2), cost as much as an
    # operation). A tensor enters the heap when its first gradient arrives, so one that
    # gets none (the targets of cross_entropy) is never visited.
    bumped = LAST_BUMP[0]  # the last version drawn: nodes recorded after it need no check
    plain = caught is None
    while pending:
        node = heappop(pending)[1]
        g = grads.pop(node)
        if node._hooks:
            g = _hooked(node, g)
        if not plain:
            if id(node) in caught:
                caught[id(node)] = (node, g)
        elif node._retains_grad:
            store_grad(node, g, owned)
        saved = node._saved
        if saved is None:
            raise RuntimeError(
                f"backward: trying to go through {node.grad_fn} a second time, but its "
                "saved values were freed by the first backward(); call the first "
                "backward(retain_graph=True) to keep them, or recompute the forward pass"
            )
        if not retain:
            node._saved = None
        fn = node._fn
        xs, needs, static = saved
        order = node._order
        if bumped > order:  # something changed in place after this node was recorded
            _check_versions(node, order)
        if create:
            parent_grads = fn.vjp(g, node, node.parents, needs, *static)
        else:
            parent_grads = fn.vjp(g, node._data, xs, needs, *static)
        # One gradient per input: the operations return that by construction, and
        # Function checks what users' backward returns. So no strict=: any keyword
        # makes zip build a dict, ~100 ns per node on this hot path.
        for parent, pg in zip(node.parents, parent_grads):  # noqa: B905
            if pg is None or not parent._requires_grad:
                continue
            pdata = parent._data
            if pg.shape != pdata.shape or pg.dtype != pdata.dtype:
                pg = _checked(pg, pdata, fn.name)
            if parent._fn is None:  # a leaf: its gradient is final, store it
                if plain and not parent._hooks:
                    if parent._grad is None and type(pg) is np.ndarray and pg.base is None:
                        if id(pg) not in owned:  # store_grad's first case, spelled out
                            owned.add(id(pg))
                            parent._grad = pg
                            continue
                    store_grad(parent, pg, owned)
                else:
                    _leaf_arrival(parent, pg, caught, owned)
            elif parent in grads:
                grads[parent] = grads[parent] + pg
            else:
                grads[parent] = pg
                heappush(pending, (-parent._order, parent))


def _check_versions(node: Tensor, order: int) -> None:
    # In-place changes draw their version from the creation counter: a version above
    # this node's number means the tensor changed after it was used here.
    for t in (node, *node.parents):
        if t._version > order:
            _modified(node, t)


def _modified(node: Tensor, changed: Tensor) -> None:
    what = "the output" if changed is node else "an input"
    raise RuntimeError(
        f"backward: {what} of {node.grad_fn} (shape {changed.shape}) was changed in place "
        "after it was used, so the gradient would use the new values; recompute the "
        "forward pass after an in-place change (an optimiser step, +=, x[...] = ...)"
    )


def _hooked(node: Tensor, g: Any) -> Any:
    as_tensor = not isinstance(g, np.ndarray | np.generic)
    for hook in list(node._hooks.values()):
        result = hook(g if as_tensor else _leaf(g))
        if result is not None:
            g = result if as_tensor else np.asarray(result._data, dtype=node._data.dtype)
    return g


def _seed(root: Tensor, gradient: Any, create: bool) -> Any:
    """The gradient the pass starts from: 1 for a scalar, else ``gradient`` (a tensor
    when the pass is recorded)."""
    data = root._data
    if gradient is None:
        if data.size != 1:
            raise RuntimeError(
                f"backward: gradient can be implied only for a scalar, this tensor has "
                f"shape {data.shape}; pass backward(gradient=...) of that shape, or reduce "
                "first (e.g. y.sum().backward())"
            )
        one = scalar_seed(data.dtype)
        seed = one if data.ndim == 0 else one.reshape(data.shape)
        return _leaf(seed.copy()) if create else seed
    array = gradient._data if hasattr(gradient, "_data") else np.asarray(gradient)
    if isinstance(gradient, np.ndarray) and gradient.dtype != data.dtype:
        raise TypeError(
            f"backward: gradient has dtype {gradient.dtype} but the tensor has dtype "
            f"{data.dtype}; they must match"
        )
    if array.shape != data.shape:
        raise ShapeError(
            f"backward: gradient has shape {array.shape} but the tensor has shape "
            f"{data.shape}; they must be equal"
        )
    if create and hasattr(gradient, "_data"):
        return gradient
    seed = np.array(array, dtype=data.dtype)
    return _leaf(seed) if create else seed


def scalar_seed(dtype: np.dtype) -> np.ndarray:
    """The gradient of a scalar with respect to itself: a shared 0-d array of
    ones (callers never store it as a ``.grad`` without copying)."""
    one = _ONES.get(dtype)
    if one is None:
        one = _ONES[dtype] = np.ones((), dtype=dtype)
    return one


def _checked(g: Any, like: np.ndarray, name: str) -> Any:
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


def store_grad(node: Tensor, g: Any, owned: set[int]) -> None:
    """Add ``g`` (an array, or a recorded tensor under ``create_graph``) to
    ``node.grad``. An array is stored as it is when the engine owns it (``.grad`` makes
    it a tensor when read); a view, or an array already given to another tensor, is
    copied so that no two ``.grad`` share memory. A second gradient is added in place,
    keeping a ``.grad`` tensor the user holds."""
    old = node._grad
    if type(g) is np.ndarray:
        if old is None:
            if g.base is not None or id(g) in owned:
                g = g.copy()
            owned.add(id(g))
            node._grad = g
            return
        data = old if type(old) is np.ndarray else old._data
        if data.dtype == g.dtype and data.flags.writeable and getattr(old, "_fn", None) is None:
            np.add(data, g, out=data)
        else:
            node._grad = data + g
    elif isinstance(g, np.generic):  # a numpy scalar from a reduction
        store_grad(node, np.array(g), owned)
    else:  # a tensor (create_graph)
        node._grad = g if old is None else node.grad + g
