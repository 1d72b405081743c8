"""The reverse pass: ``backward``, ``grad`` and hooks, from tensors to the leaves of their graph.

Gradients flow from the roots in reverse topological order: each recorded
tensor hands its gradient to its operation's ``vjp`` (see
:mod:`micrograd_edu.tensor.operation`), and what comes out is summed into the
gradients of its inputs. A leaf's gradient goes straight to ``.grad``; a
recorded tensor waits until all its consumers are done, which the order guarantees.

**The order.** Every recorded tensor takes the next number of :data:`ORDER` when
it is made, so it is always numbered after its inputs: the walk visits the pending
tensor with the highest number first, and it has then received the gradients of
all its consumers.

**In-place changes** draw their number from the same counter (:func:`bump_version`),
noted against the memory they wrote: the array that owns it, which a tensor shares with
its views and its ``detach()``-ed aliases (PyTorch's version counter). A change numbered
above an operation means it came after the operation was recorded; the walk looks only
then (one comparison per node, with nothing stored at recording time), and refuses the
operation if its backward reads a value in that memory (``Op.saves``, ``Op.saves_out``:
what PyTorch saves). A change recorded in a graph (``a.mul_(3)`` where ``a`` requires grad,
see :mod:`.inplace`) gives the tensor a new place in the graph and a number above the
operations that used its previous value; those reach the previous value through
``_previous``, which the walk follows for them.

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

Who owns a gradient array
-------------------------
A VJP may return the upstream gradient itself or a view of it (``add`` hands the same
array to both inputs, ``reshape`` a view), and a user's ``Function`` or hook may return
any array it holds. So the pass treats every gradient it is handed as *borrowed*, and
keeps three rules:

1. A pending gradient (of a tensor not visited yet) is only ever summed out of place,
   ``a + b``: the pass never writes into an array another node may still read.
2. A ``.grad`` array belongs to its tensor alone. The first gradient stored there is a
   copy, unless the operation that made it declares ``Op.fresh`` (its VJP returns new
   arrays, one per input, that nothing else holds: ``matmul``, ``linear``, ...) and no
   hook has seen it. Later gradients are added into it in place, so a ``.grad`` tensor
   the user holds accumulates, as PyTorch's does; under ``create_graph`` the stored
   gradient is a recorded clone and later ones are added out of place.
3. Hooks and a ``Function``'s backward get their own copy of the gradient, so one that
   changes its argument in place, or keeps it, changes no other tensor's gradient.

So ``.grad`` never shares memory with another tensor's gradient or data, nor with a
gradient the user passed in (``backward(gradient=v)``), nor with what ``grad``
returned.

Speed
-----
Measured on ``benchmarks/bench_trace.py`` (the two nodes of tr(x1 @ x2)): the walk
takes the order from the creation numbers in one pass because a depth-first search
cost as much as an operation there; copying every first gradient instead of trusting
``fresh`` would cost a tenth (two 30x30 copies per pass); and ``zip`` gets no
``strict=`` in the loop over a node's inputs, since any keyword makes it build a
dict, about 100 ns per node.

Tensors are handed in, never imported: this module sits below the ``Tensor`` class,
which calls it, and makes new tensors with a tensor's own ``_leaf``.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from heapq import heappop, heappush
from itertools import count
from typing import Any

import numpy as np

from .modes import enable_grad
from .operation import ShapeError, storage

__all__ = [
    "ORDER",
    "BackwardFunction",
    "HookHandle",
    "backward",
    "bump_version",
    "changed_since",
    "inputs_of",
    "grad",
    "scalar_seed",
    "store_grad",
]

#: The numbers of recorded tensors and of in-place changes (see "The order" above).
ORDER = count(1)
_last_change = [0]  # the last number bump_version drew: nodes made after it need no check
_ONES: dict = {}  # the gradient of a scalar with respect to itself, per dtype
# The last change of each memory written in place: id(owner array) -> (number, weakref).
_changed: dict[int, tuple[int, Any]] = {}


def bump_version(*tensors: Any) -> int:
    """Note that the ``tensors`` were changed in place: each change draws a number from
    :data:`ORDER`, noted against the memory it wrote (a tensor made by ``.data``, whose
    ``_version`` is -1, is not tracked, as in PyTorch). Returns the last number drawn."""
    n = 0
    for t in tensors:
        n = _last_change[0] = next(ORDER)
        if t._version >= 0:
            owner = storage(t._data)
            key = id(owner)
            _changed[key] = (n, weakref.ref(owner, lambda ref, key=key: _forget(key, ref)))
    return n


def _forget(key: int, ref: Any) -> None:
    entry = _changed.get(key)
    if entry is not None and entry[1] is ref:
        del _changed[key]


def changed_since(array: Any, order: int) -> bool:
    """Whether the memory of ``array`` was changed in place after operation ``order``."""
    if not isinstance(array, np.ndarray):
        return False
    owner = storage(array)
    entry = _changed.get(id(owner))
    return entry is not None and entry[0] > order and entry[1]() is owner


def inputs_of(node: Any) -> tuple:
    """``node``'s inputs as they were when it was recorded: an input changed in place in a
    graph since then stands for its new value, and its previous one is ``_previous``."""
    order = node._order
    if _last_change[0] < order:
        return node.parents
    found = []
    for p in node.parents:
        while p._order > order:
            p = p._previous
        found.append(p)
    return tuple(found)


class HookHandle:
    """What ``register_hook`` returns: ``remove()`` takes the hook away."""

    _keys = count()

    def __init__(self, hooks: dict) -> None:
        self._hooks, self.key = hooks, next(self._keys)

    def remove(self) -> None:
        self._hooks.pop(self.key, None)


class BackwardFunction:
    """What ``Tensor.grad_fn`` shows: the recorded operation, PyTorch style."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Any) -> None:
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
    root: Any,
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
        _walk({root: seed}, [(-root._order, root)], [], bool(retain_graph), False, None, None)
        return
    _require_grad(root, "backward")
    retain = create_graph if retain_graph is None else retain_graph
    targets = None if inputs is None else _as_list(inputs, "backward")
    found = _propagate([root], [gradient], retain, create_graph, targets)
    for t, g in (found or {}).values():
        if g is not None:
            store_grad(t, g, owned=False)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Any, ...]:
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
        # Each result its own array: the captured gradients are borrowed (the seed, a
        # VJP's input, or one array for two inputs, as add gives).
        result.append(g if g is None or create_graph else t._leaf(np.array(g)))
    return tuple(result)


def _as_list(x: Any, op: str, allow_none: bool = False) -> list:
    items = list(x) if isinstance(x, Sequence) and not hasattr(x, "_data") else [x]
    for item in items:
        if not hasattr(item, "_data") and not (allow_none and item is None):
            raise TypeError(f"{op}: expected tensors, got {type(item).__name__}")
    return items


def _require_grad(root: Any, op: str) -> None:
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
    visit = None if caught is None else _leading_to(roots, caught)
    grads: dict = {}
    pending: list = []
    held: list = []
    for root, gradient in zip(roots, seeds, strict=True):
        seed = _seed(root, gradient, create)
        if root in grads:
            grads[root] = grads[root] + seed
            continue
        grads[root] = seed
        if root._fn is None:
            held.append(root)
        else:
            pending.append((-root._order, root))
    pending.sort()
    if create:
        with enable_grad():
            _walk(grads, pending, held, retain, True, caught, visit)
    else:
        _walk(grads, pending, held, retain, False, caught, visit)
    return caught


def _leading_to(roots: list, caught: dict) -> set[int]:
    """The ids of the recorded tensors whose operation must run for a gradient to reach a
    captured tensor: those with a captured or such a tensor among their inputs. As in
    PyTorch, no other operation runs, so no other hook either."""
    found, stack, seen = [], [r for r in roots if r._fn is not None], set()
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            found.append(node)
            stack.extend(p for p in inputs_of(node) if p._fn is not None)
    leading: set[int] = set()
    for node in sorted(found, key=_order_of):  # inputs before the tensors made from them
        if any(id(p) in caught or id(p) in leading for p in inputs_of(node)):
            leading.add(id(node))
    return leading


def _order_of(t: Any) -> int:
    return t._order


def _walk(grads, pending, held, retain, create, caught, visit) -> None:
    # `pending` is a heap of (-number, tensor) (see "The order"). A tensor enters it when
    # its first gradient arrives, so one that gets none (the targets of cross_entropy) is
    # never visited. A leaf goes straight to its .grad, unless something must see its
    # whole gradient first (its hooks, or grad()'s catch): then it is `held`, summed like
    # a pending tensor, and finished after the walk. With a catch, only the tensors that
    # lead to a captured one are visited (`visit`), and captured ones.
    bumped = _last_change[0]
    plain = caught is None
    while pending:
        node = heappop(pending)[1]
        g = grads.pop(node)
        if node._hooks:
            g = _hooked(node, g)
        if node._retains_grad:
            store_grad(node, g, owned=False)
        if not plain:
            if id(node) in caught:
                caught[id(node)] = (node, g)
            if id(node) not in visit:
                continue  # captured, and nothing captured is below it: its op need not run
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
        parents = node.parents
        if bumped > node._order:  # something changed in place after this node was recorded
            _check_versions(node, xs, needs)
            parents = inputs_of(node)
        if create:
            parent_grads = fn.vjp(g, node, parents, needs, *static)
            fresh = False
        else:
            parent_grads = fn.vjp(g, node._data, xs, needs, *static)
            fresh = fn.fresh  # new arrays, one per input (see "Who owns a gradient array")
        # One gradient per input: the operations return that by construction, and
        # Function checks what users' backward returns (no strict=: see "Speed").
        for parent, pg in zip(parents, parent_grads):  # noqa: B905
            if pg is None or not parent._requires_grad:
                continue
            pdata = parent._data
            owned = fresh
            if pg.shape != pdata.shape or pg.dtype != pdata.dtype:
                owned = owned or pg.dtype != pdata.dtype  # a cast makes a new array
                pg = _checked(pg, pdata, fn.name)
            if parent._fn is None and plain and not parent._hooks:  # straight to .grad
                if owned and parent._grad is None and type(pg) is np.ndarray:
                    parent._grad = pg  # store_grad's first case, spelled out
                else:
                    store_grad(parent, pg, owned)
            elif not (plain or id(parent) in visit or id(parent) in caught):
                continue  # leads to nothing captured
            elif parent in grads:  # rule 1: summed out of place
                grads[parent] = grads[parent] + pg
            elif parent._fn is not None:
                grads[parent] = pg
                heappush(pending, (-parent._order, parent))
            else:
                grads[parent] = pg
                held.append(parent)
    for leaf in held:
        g = grads.pop(leaf)
        if not (plain or id(leaf) in caught):
            continue  # a root that was not asked for
        if leaf._hooks:
            g = _hooked(leaf, g)
        if plain:
            store_grad(leaf, g, owned=False)  # borrowed: a hook saw it, or it was handed in
        else:
            caught[id(leaf)] = (leaf, g)


def _check_versions(node: Any, xs: tuple, needs: tuple) -> None:
    """Refuse ``node`` if a value its backward reads was changed in place since it was
    recorded (PyTorch's check: only what the operation saved counts)."""
    order, fn = node._order, node._fn
    for i, (x, saved) in enumerate(zip(xs, fn.saves(needs), strict=True)):
        if saved and changed_since(x, order):
            _modified(node, f"input {i + 1}", np.shape(x))
    if fn.saves_out(needs) and (node._version > order or changed_since(node._data, order)):
        _modified(node, "the output", node._data.shape)


def _modified(node: Any, what: str, shape: tuple) -> None:
    raise RuntimeError(
        f"backward: {what} of {node.grad_fn} (shape {shape}), which its gradient needs, was "
        "changed in place after it was used, so the gradient would use the new values; "
        "recompute the forward pass after an in-place change (an optimiser step, +=, "
        "x[...] = ...), or change a .clone()"
    )


def _hooked(node: Any, g: Any) -> Any:
    """Run ``node``'s hooks in turn. Each gets its own copy of the gradient (rule 3): what
    it returns replaces the gradient; when it returns None, its argument, changed in place
    or not, is the gradient (as in PyTorch)."""
    as_tensor = not isinstance(g, np.ndarray | np.generic)
    for hook in list(node._hooks.values()):
        given = g.clone() if as_tensor else node._leaf(np.array(g))
        result = hook(given)
        if result is None:
            result = given
        elif not hasattr(result, "_data"):
            raise TypeError(
                f"register_hook: a hook returned {type(result).__name__}; return a tensor "
                "(the new gradient) or None"
            )
        if result.shape != node._data.shape:
            raise ShapeError(
                f"register_hook: a hook returned a gradient of shape {result.shape} for a "
                f"tensor of shape {node._data.shape}; they must be equal"
            )
        g = result if as_tensor else np.asarray(result._data, dtype=node._data.dtype)
    return g


def _seed(root: Any, gradient: Any, create: bool) -> Any:
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
        return root._leaf(seed.copy()) if create else seed
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
    return root._leaf(seed) if create else seed


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


def store_grad(node: Any, g: Any, owned: bool) -> None:
    """Add ``g`` (an array, or a recorded tensor under ``create_graph``) to ``node.grad``.

    ``owned`` says that ``g`` is an array nothing else holds (a fresh VJP's result): it is
    stored as it is (``.grad`` makes it a tensor when read); any other first gradient is
    copied (rule 2). A later gradient is added into the ``.grad`` array in place, so a
    ``.grad`` tensor the user holds accumulates; a recorded ``.grad`` gets a new sum."""
    old = node._grad
    if isinstance(g, np.ndarray | np.generic):
        if old is None:
            node._grad = g if owned and type(g) is np.ndarray else np.array(g)
            return
        data = old if type(old) is np.ndarray else old._data
        if data.dtype == g.dtype and data.flags.writeable and getattr(old, "_fn", None) is None:
            np.add(data, g, out=data)
        else:
            node._grad = data + g
    else:  # a tensor (create_graph): a recorded clone, never the gradient of another
        node._grad = g.clone() if old is None else node.grad + g
