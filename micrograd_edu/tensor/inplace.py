"""In-place operations: ``add_``, ``sub_``, ``mul_``, ``div_``, ``pow_``, ``zero_``,
``fill_``, ``copy_``, ``clamp_``, ``masked_fill_``, item assignment and the operators
``+=``, ``-=``, ``*=``, ``/=``, given to ``Tensor`` by the mixin :class:`InPlace`.

They change the tensor's entries and keep the object, so every reference to it, and every
view of it (``x[0]``, ``x.view(-1)``, ``x.t()``, ``x.detach()``), sees the new values, and a
``Parameter`` updated by hand stays the module's parameter:

>>> from micrograd_edu import Tensor, no_grad, nn
>>> layer = nn.Linear(2, 1)
>>> layer(Tensor([[1.0, 2.0]])).sum().backward()
>>> with no_grad():
...     layer.weight -= 0.1 * layer.weight.grad   # the classic hand-written SGD step
>>> type(layer.weight).__name__, len(list(layer.parameters()))
('Parameter', 2)

**In a graph**, an in-place change is recorded as PyTorch records it. ``a.mul_(3)``, where
``a`` requires grad, makes ``a`` the result of a multiplication whose input is ``a``'s
previous value: the tensor object now stands for the new value (its ``grad_fn`` is the
multiplication), and the operations that used the previous value keep it as their input.
A change through a view changes its base the same way (PyTorch's ``CopySlices``): after
``u = a[0]; u.mul_(3)``, ``a`` is the old ``a`` with its first row multiplied by 3, and the
gradient flows through that. A tensor that did not require grad (``c = zeros(3)``) becomes
part of the graph when a value that does is written into it (``c[0] = x``).

**What is refused**, as in PyTorch: a leaf that requires grad (or a view of one) may be
changed in place only where nothing is recorded (under ``no_grad()``, as an optimiser
does); an inference tensor only inside ``inference_mode()``; an expanded tensor not at all
(several entries share one place in memory). And ``backward`` refuses a value saved for it
that was changed since: every change is noted against the memory it wrote
(:func:`~micrograd_edu.tensor.backward.bump_version`), so a tensor, its views and its
``detach()``-ed aliases share it, while ``.data`` is not tracked (PyTorch's rule). Only the
values an operation's backward reads count (``y = x + x`` reads none, so changing ``x``
afterwards is allowed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .backward import bump_version
from .indexing import put, take, torch_index
from .modes import STATE
from .operation import Op, data_of, row_major, saves_none
from .shape import unbroadcast

__all__ = ["InPlace", "INDEX_PUT", "PUT_FLAT"]


# ------------------------------------------------------------ the recorded writes


def _index_put_forward(a, value, index):
    out = a.copy()
    put(out, index, value)
    return out


def _index_put_vjp(g, out, xs, needs, index):
    # out = a with value written at index: g flows to a elsewhere, to value at index.
    a, value = xs
    ga = gv = None
    if isinstance(g, np.ndarray | np.generic):
        if needs[0]:
            ga = np.array(g)
            put(ga, index, 0)
        if needs[1]:
            gv = unbroadcast(take(g, index), value.shape)
    else:
        if needs[0]:
            keep = np.ones(g.shape, dtype=bool)
            put(keep, index, False)
            ga = g.where(keep, 0.0)
        if needs[1]:
            gv = unbroadcast(g._take(index), value.shape)
    return ga, gv


#: ``a`` with ``value`` written at ``index`` (``a[index] = value`` in a graph).
INDEX_PUT = Op("index_put", _index_put_forward, _index_put_vjp, saves_none)


def _put_flat_forward(a, value, positions):
    out = np.array(a, order="C")
    out.reshape(-1)[positions] = value
    return out


def _put_flat_vjp(g, out, xs, needs, positions):
    ga = gv = None
    if isinstance(g, np.ndarray | np.generic):
        if needs[0]:
            ga = np.array(g, order="C")
            ga.reshape(-1)[positions] = 0
        if needs[1]:
            gv = row_major(g).reshape(-1)[positions]
    else:
        if needs[0]:
            keep = np.ones(g.shape, dtype=bool)
            keep.reshape(-1)[positions] = False
            ga = g.where(keep, 0.0)
        if needs[1]:
            gv = g.reshape(-1)._take(((positions,), None))
    return ga, gv


#: A base with the entries of one of its views replaced (PyTorch's ``CopySlices``): the
#: view's entries are at the flat ``positions`` of the base.
PUT_FLAT = Op("copy_slices", _put_flat_forward, _put_flat_vjp, saves_none)


# ------------------------------------------------------------ one path for every change


def _requires(x: Any) -> bool:
    return getattr(x, "_requires_grad", False)


def _check(t: Any, name: str) -> None:
    if t._inference and not STATE.inference:
        raise RuntimeError(
            f"{name}: an inference tensor cannot be changed in place outside "
            "inference_mode(); .clone() it first to get an ordinary tensor"
        )
    if not t._data.flags.writeable:
        raise RuntimeError(
            f"{name}: this tensor cannot be changed in place: several of its entries share one "
            "place in memory (it was made by expand or broadcast_to); .clone() it first"
        )


def _change(
    t: Any,
    name: str,
    compute: Callable[..., Any],
    others: tuple = (),
    write: Callable[[np.ndarray], None] | None = None,
) -> Any:
    """Change ``t`` in place to ``compute(t, *others)`` (a function of tensors, which records
    the operation when the mode records and something requires grad), or, where nothing is
    recorded, by ``write(t's array)`` when given; see the module docstring."""
    _check(t, name)
    recorded = STATE.enabled and (t._requires_grad or any(_requires(o) for o in others))
    if not recorded:
        try:
            if write is not None:
                write(t._data)
            else:
                _store(t, compute(t, *others), name)
        except ValueError as error:  # numpy: shapes that do not fit
            what = f"cannot change a tensor of shape {t._data.shape} in place"
            raise ValueError(f"{name}: {what} ({error})") from None
        except TypeError as error:  # numpy: a cast it refuses (floats into an int tensor)
            raise TypeError(
                f"{name}: {error}; the result must fit dtype {t._data.dtype} (PyTorch: the "
                "result type cannot be cast to the tensor's)"
            ) from None
        bump_version(t)
        return t
    _refuse_in_graph(t, name)
    view = getattr(t, "_view", None)
    if view is None:
        old = _snapshot(t)
        new = compute(old, *(old if o is t else o for o in others))
        _become(t, _fitted(new, t, name), old)
    else:
        _change_view(t, name, view, compute, others)
    return t


def _refuse_in_graph(t: Any, name: str) -> None:
    if t._fn is None and t._requires_grad:
        raise RuntimeError(
            f"{name}: a leaf tensor that requires grad cannot be changed in place while "
            "operations are recorded; do the update under `with no_grad():` (as an "
            "optimiser step does)"
        )
    view = getattr(t, "_view", None)
    if view is not None and view[0]._fn is None and view[0]._requires_grad:
        raise RuntimeError(
            f"{name}: this tensor is a view of a leaf that requires grad, which cannot be "
            "changed in place while operations are recorded; do it under `with no_grad():`, "
            "or .clone() the leaf first"
        )
    if STATE.tape is not None:
        raise RuntimeError(
            f"{name}: freeze cannot trace an in-place change of a tensor in a graph; write "
            "the out-of-place form (x = x + y)"
        )


def _change_view(t: Any, name: str, view: tuple, compute: Callable, others: tuple) -> None:
    """An in-place change of ``t``, a view of ``base``: the base becomes its old value with
    the view's entries replaced, and ``t`` a view of the new base (PyTorch's CopySlices)."""
    base, chain = view
    old_t = _snapshot(t)
    old_base = _snapshot(base)
    before = _replay(old_base, chain)  # t's value, as a view of the base's old value
    swap = {id(t): before, id(base): old_base}
    new = _fitted(compute(before, *(swap.get(id(o), o) for o in others)), t, name)
    positions = np.arange(base._data.size).reshape(base._data.shape)
    for op, static in chain:
        positions = op.forward(positions, *static)
    _become(base, base._apply(PUT_FLAT, old_base, new, static=(positions,)), old_base)
    _become(t, _replay(base, chain), old_t, write=False)  # base's write reached t's memory


def _replay(x: Any, chain: tuple) -> Any:
    for op, static in chain:
        x = x._apply(op, x, static=static)
    return x


def _snapshot(t: Any) -> Any:
    """A new tensor standing for ``t``'s value before the change (its entries copied, its
    place in the graph, its hooks: PyTorch's hooks stay with the value they were put on),
    for the operations recorded before; ``t`` becomes the new value."""
    old = t._leaf(t._data.copy())
    old._fn, old.parents, old._saved, old._order = t._fn, t.parents, t._saved, t._order
    old.op, old.label, old._requires_grad = t.op, t.label, t._requires_grad
    old._inference = t._inference
    old._hooks, t._hooks = t._hooks, None
    old._previous = getattr(t, "_previous", None)
    return old


def _fitted(new: Any, t: Any, name: str) -> Any:
    """``new`` in ``t``'s shape and dtype, as an in-place result must be."""
    if new.shape != t._data.shape:
        try:
            new = new.expand(*t._data.shape)
        except ValueError:
            raise ValueError(
                f"{name}: the result has shape {new.shape}, which does not fit the tensor's "
                f"shape {t._data.shape} (an in-place result keeps the tensor's shape)"
            ) from None
    if new._data.dtype != t._data.dtype:
        if not np.can_cast(new._data.dtype, t._data.dtype, casting="same_kind"):
            raise TypeError(
                f"{name}: the result has dtype {new._data.dtype}, which cannot be cast to the "
                f"tensor's dtype {t._data.dtype} (PyTorch refuses it too)"
            )
        new = new.to(t._data.dtype)
    return new


def _store(t: Any, new: Any, name: str) -> None:
    """Write the values of ``new`` (a tensor, or anything numpy takes) into ``t``'s array."""
    np.copyto(t._data, data_of(new), casting="same_kind")


def _become(t: Any, new: Any, old: Any, write: bool = True) -> None:
    """``t`` takes ``new``'s values (into its own memory) and its place in the graph; the
    operations recorded before the change reach ``old`` through ``t._previous``."""
    # First: the change's number is above every operation that saw the old values, which
    # old's node is one of (backward then refuses its result if it kept it).
    old._version = bump_version(t)
    if write:
        np.copyto(t._data, new._data)
    t._fn, t.parents, t._saved, t._order = new._fn, new.parents, new._saved, new._order
    t.op, t._requires_grad = new.op, new._requires_grad
    t._previous = old


def _arithmetic(t: Any, name: str, ufunc: np.ufunc, make: Callable, other: Any, alpha: Any):
    if alpha != 1 and ufunc not in (np.add, np.subtract):
        raise TypeError(f"{name}: alpha= is for add_ and sub_")
    value = data_of(other)
    if alpha != 1:
        value = alpha * np.asarray(value)

    def write(a: np.ndarray) -> None:
        ufunc(a, value, out=a, casting="same_kind")

    def compute(x: Any, y: Any) -> Any:
        return make(x, y if alpha == 1 else y * alpha)

    return _change(t, name, compute, (other,), write)


def _index_put(x: Any, value: Any, index: tuple) -> Any:
    return x._apply(INDEX_PUT, x, value, static=(index,))


class InPlace:
    """The in-place operations of ``Tensor`` (a mixin of
    :class:`~micrograd_edu.tensor.tensor.Tensor`). Each returns the tensor itself."""

    __slots__ = ()

    def add_(self, other: Any, *, alpha: Any = 1):
        """``self + alpha * other``, in place."""
        return _arithmetic(self, "add_", np.add, lambda x, y: x + y, other, alpha)

    def sub_(self, other: Any, *, alpha: Any = 1):
        """``self - alpha * other``, in place."""
        return _arithmetic(self, "sub_", np.subtract, lambda x, y: x - y, other, alpha)

    def mul_(self, other: Any):
        """``self * other``, in place."""
        return _arithmetic(self, "mul_", np.multiply, lambda x, y: x * y, other, 1)

    def div_(self, other: Any):
        """``self / other``, in place."""
        return _arithmetic(self, "div_", np.true_divide, lambda x, y: x / y, other, 1)

    def pow_(self, exponent: Any):
        """``self ** exponent``, in place."""
        return _change(self, "pow_", lambda x, y: x**y, (exponent,))

    def __iadd__(self, other: Any):
        return self.add_(other)

    def __isub__(self, other: Any):
        return self.sub_(other)

    def __imul__(self, other: Any):
        return self.mul_(other)

    def __itruediv__(self, other: Any):
        return self.div_(other)

    def __ipow__(self, other: Any):
        return self.pow_(other)

    def neg_(self):
        """``-self``, in place."""
        return _change(self, "neg_", lambda x: -x)

    def exp_(self):
        """``exp(self)``, in place."""
        return _change(self, "exp_", lambda x: x.exp())

    def relu_(self):
        """``relu(self)``, in place."""
        return _change(self, "relu_", lambda x: x.relu())

    def zero_(self):
        """Set every entry to 0, in place (``x.grad.zero_()`` clears a gradient)."""
        return _change(self, "zero_", lambda x: _filled(x, 0), (), lambda a: a.fill(0))

    def fill_(self, value: Any):
        """Set every entry to ``value`` (a number or a 0-d tensor), in place."""
        if np.ndim(data_of(value)) != 0:
            raise ValueError(f"fill_: value must be a number or a 0-d tensor, got {value!r}")
        return _change(self, "fill_", _filled, (value,), lambda a: a.fill(data_of(value)))

    def copy_(self, source: Any):
        """Copy ``source``'s entries into this tensor (broadcast to its shape), in place."""
        value = data_of(source)

        def write(a: np.ndarray) -> None:
            np.copyto(a, value, casting="unsafe")  # PyTorch's copy_ casts any dtype

        return _change(self, "copy_", _copied, (source,), write)

    def clamp_(self, min: Any = None, max: Any = None):  # noqa: A002
        """Limit the entries to [min, max], in place."""
        return _change(self, "clamp_", lambda x, lo, hi: x.clamp(lo, hi), (min, max))

    clip_ = clamp_

    def masked_fill_(self, mask: Any, value: Any):
        """``value`` where ``mask`` holds, in place."""
        return _change(self, "masked_fill_", lambda x, v: x.masked_fill(mask, v), (value,))

    def __setitem__(self, index: Any, value: Any) -> None:
        """``x[index] = value``, in place, with PyTorch's reading of ``index`` (see
        :mod:`.indexing`)."""
        where = torch_index(index)

        def write(a: np.ndarray) -> None:
            put(a, where, data_of(value))

        _change(self, "__setitem__", lambda x, v: _index_put(x, v, where), (value,), write)


def _filled(x: Any, value: Any) -> Any:
    full = np.zeros(x._data.shape, dtype=bool)
    return x.where(full, value)  # value everywhere; a tensor value gets the summed gradient


def _copied(x: Any, source: Any) -> Any:
    if not hasattr(source, "_data"):
        return x._leaf(np.broadcast_to(np.asarray(source, dtype=x._data.dtype), x._data.shape))
    return x.where(np.zeros(x._data.shape, dtype=bool), source.to(x._data.dtype))
