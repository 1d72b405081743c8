"""The ``Tensor`` class and :func:`apply`, the one function that records graphs.

A tensor is a numpy array that remembers how it was computed. This file holds what
every tensor is: its slots, construction, ``data`` and ``grad``, the flags of
autograd, hooks, conversions and printing. Its operations come from one mixin per
family, each in its own file with every operation's forward and VJP side by side:

=====================  ==========================================================
:mod:`.elementwise`    arithmetic from the rule table, choosing entries,
                       comparisons, casts (:class:`~.elementwise.Elementwise`)
:mod:`.reduce`         sum, mean, max, prod, norm, ... (:class:`~.reduce.Reductions`)
:mod:`.shape`          reshape, transpose, expand, flip, ... (:class:`~.shape.Shapes`)
:mod:`.indexing`       ``x[index]`` (:class:`~.indexing.Indexing`)
:mod:`.products`       ``@``, ``dot``, ``trace`` (:class:`~.products.Products`)
:mod:`.losses`         softmax and the losses (:class:`~.losses.Softmax`)
:mod:`.inplace`        ``add_``, ``zero_``, ``x[i] = v``, ``+=`` (:class:`~.inplace.InPlace`)
=====================  ==========================================================

A mixin's method records its operation with ``self._apply(op, *inputs)``, which is
:func:`apply` (the mixins sit below this class, so they reach it through the
instance, not by import). ``backward`` is in :mod:`.backward`.

:func:`apply` spells out its one- and two-input cases: a comprehension over the
inputs costs a few hundred nanoseconds, a large share of an operation on small arrays.

>>> x = Tensor([[1.0, 2.0]], requires_grad=True)
>>> y = (x * x).sum()
>>> y
tensor(5., grad_fn=<SumBackward>)
>>> y.backward()
>>> x.grad
tensor([[2., 4.]])
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import backward as autograd
from .backward import ORDER, BackwardFunction, HookHandle
from .dtypes import DType, as_dtype, dtype_of, number_array, result_type
from .elementwise import ELEMENTWISE, Elementwise, elementwise
from .indexing import Indexing
from .inplace import InPlace
from .losses import Softmax
from .modes import STATE, traced_read
from .operation import Op
from .products import Products
from .reduce import Reductions
from .shape import Shapes

__all__ = ["Tensor", "apply", "as_array", "leaf"]


_FLOATS = (np.float32, np.float64)


def as_array(data: Any, dtype: Any, infer: bool, op: str) -> np.ndarray:
    """The array a new tensor holds (a copy): float64 from numbers and lists unless
    ``infer`` (then ints stay int64 and bools bool, as ``torch.tensor`` does); a numpy
    array keeps its dtype, other floats becoming float64."""
    if hasattr(data, "_data") and hasattr(data, "_requires_grad"):  # a Tensor
        data = data._data
    elif isinstance(data, list | tuple) and any(hasattr(v, "_data") for v in data):
        data = [getattr(v, "_data", v) for v in data]  # a list of 0-d tensors
    if data is None:
        raise TypeError(f"{op}: could not make a tensor from None; give numbers or an array")
    try:
        if dtype is not None:
            array = np.array(data, dtype=as_dtype(dtype))
        elif isinstance(data, np.ndarray | np.generic):
            array = np.array(data)  # a copy, keeping the dtype (ints, bools, float32)
            if array.dtype.kind == "f" and array.dtype not in _FLOATS:
                array = array.astype(np.float64)
        elif infer:
            array = np.array(data)
            kind = array.dtype.kind
            if kind in "iu":
                array = array.astype(np.int64)
            elif kind in "fO" and array.dtype != object:
                array = array.astype(np.float64)
        else:
            array = np.array(data, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{op}: could not make a tensor from {type(data).__name__} ({error}); give "
            "numbers, (nested) lists of numbers of one shape, or a numpy array"
        ) from None
    if array.dtype.kind not in "fiub":
        raise TypeError(
            f"{op}: could not make a tensor from {type(data).__name__} entries "
            f"(dtype {array.dtype}); give numbers, e.g. [v.data for v in values] for Values"
        )
    return array


_new = object.__new__


def _init(
    t: Tensor, array: np.ndarray, parents: tuple = (), fn: Op | None = None, saved: Any = None
) -> None:
    """Fill every slot of a new tensor: a leaf, or with ``fn`` the recorded
    result of ``fn`` on ``parents``. Each slot is set once (recording cost)."""
    t._data = array
    t._grad = None
    t.parents = parents
    t.label = ""
    t._fn = fn
    t._saved = saved
    t._retains_grad = False
    t._inference = STATE.inference
    t._version = 0
    t._hooks = None
    if fn is None:
        t._requires_grad = False
        t.op = ""
        t._order = 0
    else:
        t._requires_grad = True
        t.op = fn.name
        t._order = next(ORDER)


def leaf(array: Any) -> Tensor:
    """A tensor holding ``array`` (shared) with no graph: ``_init`` for a leaf, spelled
    out, since every gradient a backward pass shows is made here."""
    t = _new(Tensor)
    t._data = array if type(array) is np.ndarray else np.asarray(array)
    t._grad = t._saved = t._fn = t._hooks = None
    t.parents, t.label, t.op = (), "", ""
    t._retains_grad = t._requires_grad = False
    t._inference = STATE.inference
    t._version = t._order = 0
    return t


def apply(op: Op, *inputs: Any, static: tuple = ()) -> Tensor:
    """Run ``op`` on ``inputs`` (tensors, numbers or arrays) and record it in
    the graph when some input requires grad and the mode records.

    This is the one place where graphs are built; ``Function.apply`` and every
    operator go through it.

    >>> x = Tensor([1.0, 2.0], requires_grad=True)
    >>> apply(ELEMENTWISE["mul"], x, 3)
    tensor([3., 6.], grad_fn=<MulBackward>)
    """
    for x in inputs:
        if not isinstance(x, Tensor):
            inputs = _constants(op, inputs)
            break
    # Spelled out for one and two inputs (see the module docstring on speed).
    if len(inputs) == 2:
        a, b = inputs
        xs, needs = (a._data, b._data), (a._requires_grad, b._requires_grad)
    elif len(inputs) == 1:
        xs, needs = (inputs[0]._data,), (inputs[0]._requires_grad,)
    else:
        xs, needs = tuple([t._data for t in inputs]), tuple([t._requires_grad for t in inputs])
    data = op.forward(*xs, *static)
    if type(data) is not np.ndarray:  # a numpy scalar from a reduction, or a number
        data = np.asarray(data)
    out = _new(Tensor)
    if True in needs and STATE.enabled:
        if STATE.ever_inference:
            for t in inputs:
                if t._inference:
                    _refuse_inference(op, inputs, needs)
                    break
        _init(out, data, inputs, op, (xs, needs, static))
    else:
        _init(out, data)
    if STATE.tape is not None:
        STATE.tape.append((op, inputs, out, needs, static))
    return out


def _refuse_inference(op: Op, inputs: tuple, needs: tuple) -> None:
    for t, saved in zip(inputs, op.saves(needs), strict=True):
        if t._inference and saved:
            raise RuntimeError(
                f"{op.name}: an input was created under inference_mode(), and inference "
                "tensors cannot be saved for backward (this operation's gradient reads it); "
                "create it outside inference_mode(), use no_grad() there instead, or "
                ".clone() it outside"
            )


def _constants(op: Op, inputs: tuple) -> tuple[Tensor, ...]:
    """Wrap the numbers and arrays among ``inputs`` as constant tensors. A Python number
    takes the dtype of the tensors when its kind is not above theirs, as in PyTorch:
    ``x32 * 2`` stays float32, ``i32 + 1`` int32 (see :mod:`.dtypes`)."""
    tensors = [x._data for x in inputs if isinstance(x, Tensor)]
    like = result_type(*tensors) if tensors else None
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            out.append(x)
        elif isinstance(x, numbers.Number) and not isinstance(x, np.generic | complex):
            out.append(leaf(number_array(x, like)))
        elif isinstance(x, numbers.Number | np.ndarray | np.generic | list | tuple):
            array = np.asarray(x)
            if array.dtype.kind not in "fiub":
                raise TypeError(_not_a_tensor(op, x))
            out.append(leaf(array))
        else:
            raise TypeError(_not_a_tensor(op, x))
    return tuple(out)


def _not_a_tensor(op: Op, x: Any) -> str:
    fix = " (use its .data, a number)" if hasattr(x, "data") and hasattr(x, "grad") else ""
    return (
        f"{op.name}: cannot combine a Tensor with {type(x).__name__} {x!r}{fix}; give "
        "tensors, numbers or numeric arrays"
    )


class Tensor(Elementwise, Reductions, Shapes, Indexing, Products, Softmax, InPlace):
    """An n-dimensional array with reverse-mode automatic differentiation,
    named and behaving like ``torch.Tensor``.

    ``Tensor(data)`` makes float64 entries from numbers and lists (as
    ``torch.Tensor(data)`` makes floats of the default dtype); numpy arrays keep
    their dtype, and :func:`~micrograd_edu.tensor` infers one (a list of ints gives
    int64, usable as class labels and as an index). ``dtype=`` chooses.

    ``.data`` is the entries as a tensor outside the graph (sharing memory, as PyTorch's),
    ``.numpy()`` the numpy array, and ``.grad`` a tensor, as in PyTorch. An operation
    outside its domain gives inf or nan (``log`` of 0 is ``-inf``), as in numpy and
    PyTorch (see :mod:`.elementwise`).

    >>> w = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x = Tensor([1.0, 1.0])
    >>> loss = (w @ x).relu().sum()
    >>> loss.backward()
    >>> w.grad
    tensor([[1., 1.],
            [1., 1.]])
    """

    __slots__ = (
        "_data",
        "_grad",
        "_requires_grad",
        "parents",
        "op",
        "label",
        "_fn",
        "_saved",
        "_order",
        "_retains_grad",
        "_inference",
        "_version",
        "_hooks",
        "_view",
        "_previous",
        "__weakref__",
    )

    def __init__(
        self, data: Any, requires_grad: bool = False, dtype: Any = None, label: str = ""
    ) -> None:
        _init(self, as_array(data, dtype, infer=False, op="Tensor"))
        self.label = label
        if requires_grad:
            self.requires_grad_(True)

    # ------------------------------------------------------ data, grad, flags

    @property
    def data(self) -> Tensor:
        """The entries as a tensor outside the graph, sharing memory (PyTorch's ``.data``):
        ``p.data -= lr * p.grad`` changes ``p``. Its in-place changes are not tracked for
        ``backward`` (PyTorch's rule; :meth:`detach` gives an alias that is). ``.numpy()``
        is the numpy array. Assigning replaces the entries' array."""
        if STATE.tape is not None:
            traced_read(".data")
        out = leaf(self._data)
        out._version = -1
        return out

    @data.setter
    def data(self, value: Any) -> None:
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    @property
    def grad(self) -> Tensor | None:
        """The gradient ``backward`` accumulated here (a tensor of this shape), or None."""
        g = self._grad
        if type(g) is np.ndarray:  # backward stores arrays; made a tensor when first read
            g = self._grad = leaf(g)
        return g

    @grad.setter
    def grad(self, value: Any) -> None:
        # A copy: backward adds into .grad in place, which must not write into the
        # assigned tensor (or the array another tensor holds). A recorded gradient
        # stays in its graph as a recorded clone.
        if value is not None:
            if not isinstance(value, Tensor):
                value = leaf(np.array(value, dtype=self._data.dtype))
            elif value._fn is not None:
                value = value.clone()
            else:
                value = leaf(np.array(value._data))
            if value.shape != self._data.shape:
                raise ValueError(
                    f"grad: assigned a gradient of shape {value.shape} to a tensor of shape "
                    f"{self._data.shape}; they must be equal (or assign None)"
                )
        self._grad = value

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for ``backward``."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    shape = property(lambda self: self._data.shape, doc="The tuple of axis lengths.")
    ndim = property(lambda self: self._data.ndim, doc="The number of axes.")

    @property
    def dtype(self) -> DType:
        """The dtype of the entries, under PyTorch's name (``torch.float64``); it equals
        numpy's (``t.dtype == np.float64``) and numpy takes it (see :mod:`.dtypes`)."""
        return dtype_of(self._data.dtype)

    device = property(lambda self: "cpu", doc="Always 'cpu' (there is no GPU here).")

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user (or with no graph): no ``grad_fn``."""
        return self._fn is None

    @property
    def grad_fn(self) -> BackwardFunction | None:
        """The operation that made this tensor (``None`` for a leaf)."""
        return None if self._fn is None else BackwardFunction(self)

    def is_inference(self) -> bool:
        """True for a tensor created under ``inference_mode()``."""
        return self._inference

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` on a leaf, in place; returns the tensor."""
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError(  # PyTorch's type
                f"requires_grad: only floating-point tensors can require gradients, this one "
                f"has dtype {self.dtype}; make it with float values (e.g. .double() or "
                "Tensor(x, dtype=float))"
            )
        if self._fn is not None and not requires_grad:
            raise RuntimeError(
                "requires_grad_: this tensor was computed by an operation, so it requires "
                "grad; use .detach() for a copy that does not"
            )
        self._requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after ``backward``."""
        if not self._requires_grad:
            raise RuntimeError(
                "retain_grad: this tensor does not require grad, so it gets no gradient"
            )
        self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> HookHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a tensor it
        returns replaces the gradient. Returns a handle with ``remove()``.

        >>> x = Tensor([1.0, 2.0], requires_grad=True)
        >>> handle = x.register_hook(lambda g: g * 10)
        >>> (x * x).sum().backward(); x.grad
        tensor([20., 40.])
        """
        if not self._requires_grad:
            raise RuntimeError(
                "register_hook: this tensor does not require grad, so no gradient reaches it"
            )
        if self._hooks is None:
            self._hooks = {}
        handle = HookHandle(self._hooks)
        self._hooks[handle.key] = hook
        return handle

    def backward(
        self,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        """Add the gradient of this tensor with respect to every leaf that requires
        grad to the leaf's ``.grad`` (only to ``inputs`` when given).

        A scalar needs no ``gradient``; any other tensor needs one of its shape (the
        vector of the vector-Jacobian product). The graph's saved values are freed
        unless ``retain_graph=True``. With ``create_graph=True`` the backward pass is
        itself recorded, so the gradients can be differentiated again.
        """
        autograd.backward(self, gradient, retain_graph, create_graph, inputs)

    # ---------------------------------------------------------- conversions

    def size(self, dim: int | None = None) -> tuple[int, ...] | int:
        """The shape, or the length of one axis (as ``torch.Tensor.size``)."""
        return self._data.shape if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        """The number of axes (``ndim``)."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of entries."""
        return self._data.size

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor: it has no first axis (use .item())")
        return len(self._data)

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor: it has no first axis (use .item())")
        return (self[i] for i in range(len(self._data)))

    def item(self) -> float | int | bool:
        """The value of a one-entry tensor as a Python number."""
        if STATE.tape is not None:
            traced_read(".item()")
        if self._data.size != 1:
            raise ValueError(
                f"item: only a tensor with one entry converts to a number, this one has "
                f"shape {self.shape}"
            )
        return self._data.item()

    def tolist(self) -> Any:
        """The entries as (nested) Python lists of numbers."""
        if STATE.tape is not None:
            traced_read(".tolist()")
        return self._data.tolist()

    def numpy(self, force: bool = False) -> np.ndarray:
        """The underlying numpy array (shared, not copied). As in PyTorch, a tensor that
        requires grad refuses (``t.detach().numpy()``), unless ``force=True``."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "numpy(): this tensor requires grad, so its array would leave the graph "
                "unnoticed; call tensor.detach().numpy() instead (as in PyTorch)"
            )
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # numpy 2 passes copy=True for np.array(t) and trusts us to copy.
        data = self._data
        if dtype is not None and np.dtype(dtype) != data.dtype:
            return data.astype(dtype)  # a new array already
        return data.copy() if copy else data

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy meets a tensor. Writing into an array (``array -= t``) works on the arrays and
        gives an array; ``np.exp(t)``, ``array * t`` and the like run the tensor's own
        operation, so the gradient comes with them."""
        if "out" in kwargs or method != "__call__":
            arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
            if "out" in kwargs:
                kwargs["out"] = tuple(getattr(o, "_data", o) for o in kwargs["out"])
            return getattr(ufunc, method)(*arrays, **kwargs)
        names = _UFUNCS.get(ufunc.__name__)
        if names is None or kwargs:
            raise TypeError(
                f"numpy's {ufunc.__name__} has no tensor operation here; use the tensor's own "
                "methods (x.exp(), x.clamp(...), ...) or apply it to x.detach().numpy()"
            )
        name, reflected = names
        if isinstance(inputs[0], Tensor):
            return getattr(inputs[0], name)(*inputs[1:])
        return getattr(inputs[1], reflected)(inputs[0])

    def __bool__(self) -> bool:
        if STATE.tape is not None:
            traced_read("bool()")
        if self._data.size != 1:
            raise RuntimeError(  # PyTorch's type (numpy's is ValueError)
                f"bool: the truth value of a tensor with shape {self.shape} is ambiguous; "
                "use (t > 0).any() or .all()"
            )
        return bool(self._data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iu" or self._data.size != 1:
            raise TypeError(
                f"only an integer tensor with one entry can be used as an index, got dtype "
                f"{self.dtype} and shape {self.shape}"
            )
        return int(self._data)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return format(repr(self), spec)

    def detach(self) -> Tensor:
        """The same values (shared) as a new leaf that does not require grad."""
        return leaf(self._data)

    def __getattr__(self, name: str) -> Any:
        # Reached only for a name the class lacks: a PyTorch method this Tensor does not
        # have is refused in those words (still an AttributeError, so hasattr() works).
        # A private name (an unset slot such as _view, which in-place operations probe
        # with getattr) misses at once, with no message built.
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(
            f"'Tensor' object has no attribute {name!r}: micrograd_edu's Tensor has part of "
            "torch.Tensor's methods (dir(Tensor) lists them), and no other: write it from "
            "those, or on .detach().numpy() where no gradient is needed"
        )

    def __repr__(self) -> str:
        data = self._data
        # Whole numbers print as "1." (as torch does), others with 4 decimals.
        with np.errstate(invalid="ignore"):  # inf and nan count as whole, without a warning
            is_whole = (
                data.dtype.kind == "f"
                and data.size
                and np.all((np.mod(data, 1) == 0) | ~np.isfinite(data))
            )
        body = np.array2string(
            data,
            separator=", ",
            prefix="tensor(",
            precision=4,
            floatmode="unique" if is_whole or data.dtype.kind != "f" else "fixed",
            suppress_small=True,
        )
        extra = ""
        if data.dtype not in (np.float64, np.int64, np.bool_):
            extra += f", dtype={dtype_of(data.dtype)}"
        if self._fn is not None:
            extra += f", grad_fn={self.grad_fn!r}"
        elif self._requires_grad:
            extra += ", requires_grad=True"
        return f"tensor({body}{extra})"

    # Tensors are hashed by identity (as in PyTorch), since == is elementwise.
    __hash__ = object.__hash__

    # How the mixins record an operation and make a tensor with no graph (see the
    # module docstring), and the hook of functions.apply, for any rule of the table.
    _apply = staticmethod(apply)
    _leaf = staticmethod(leaf)

    @classmethod
    def _rule(cls, rule: Any, *args: Any) -> Tensor:
        """Any rule of the table, by :func:`micrograd_edu.functions.apply` (a new rule's path)."""
        return apply(ELEMENTWISE.get(rule.name) or elementwise(rule), *args)


# numpy's ufuncs that are tensor operations: (method, reflected method).
_UFUNCS = {
    "add": ("__add__", "__radd__"),
    "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "divide": ("__truediv__", "__rtruediv__"),
    "power": ("__pow__", "__rpow__"),
    "matmul": ("__matmul__", "__rmatmul__"),
    "maximum": ("maximum", "maximum"),
    "minimum": ("minimum", "minimum"),
    "equal": ("__eq__", "__eq__"),
    "not_equal": ("__ne__", "__ne__"),
    "less": ("__lt__", "__gt__"),
    "less_equal": ("__le__", "__ge__"),
    "greater": ("__gt__", "__lt__"),
    "greater_equal": ("__ge__", "__le__"),
    **{
        name: (method, method)
        for name, method in [
            ("negative", "__neg__"),
            ("absolute", "abs"),
            ("exp", "exp"),
            ("log", "log"),
            ("log1p", "log1p"),
            ("sqrt", "sqrt"),
            ("sin", "sin"),
            ("cos", "cos"),
            ("tan", "tan"),
            ("tanh", "tanh"),
            ("square", "square"),
            ("isfinite", "isfinite"),
            ("isnan", "isnan"),
            ("isinf", "isinf"),
            ("sign", "sign"),
            ("floor", "floor"),
            ("ceil", "ceil"),
            ("trunc", "trunc"),
            ("logical_not", "logical_not"),
        ]
    },
}
