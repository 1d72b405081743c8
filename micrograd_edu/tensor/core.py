"""The ``Tensor`` class and :func:`apply`, the one function that records graphs.

Every operation on tensors goes through :func:`apply`: it runs the
operation's ``forward`` on the arrays and, when some input requires a gradient
(and the mode records, see :mod:`micrograd_edu.modes`), keeps the operation and
its inputs on the result. ``backward`` then walks the graph from the result to
the leaves in reverse topological order, calling each operation's ``vjp`` (see
:mod:`micrograd_edu.ops`) and summing the gradients that reach each tensor.

>>> x = Tensor([[1.0, 2.0]], requires_grad=True)
>>> y = (x * x).sum()
>>> y
tensor(5., grad_fn=<SumBackward>)
>>> y.backward()
>>> x.grad
array([[2., 4.]])
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import Any

import numpy as np

from .. import array_ops as A
from ..autograd import BackwardFunction, run_backward
from ..functions import attach_rules
from ..modes import STATE
from ..ops import ELEMENTWISE, Op, ShapeError
from ..rules import Rule

__all__ = ["Tensor", "apply"]

_FLOATS = (np.float32, np.float64)


class Tensor:
    """An n-dimensional array with reverse-mode automatic differentiation,
    named and behaving like ``torch.Tensor``.

    Python numbers and lists become float64; numpy arrays keep their dtype
    (float32 stays float32, ints and bools are allowed without
    ``requires_grad``); ``dtype=`` chooses. An operation outside its domain
    (``log`` of 0, division by 0, ...) raises :class:`~micrograd_edu.DomainError`
    naming the operation and the first bad entry, instead of returning NaN
    that would surface far downstream.

    >>> w = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x = Tensor([1.0, 1.0])
    >>> loss = (w @ x).relu().sum()
    >>> loss.backward()
    >>> w.grad
    array([[1., 1.],
           [1., 1.]])
    """

    __slots__ = (
        "data",
        "grad",
        "requires_grad",
        "parents",
        "op",
        "label",
        "_fn",
        "_saved",
        "_order",
        "_retains_grad",
        "_inference",
        "__weakref__",
    )
    __array_ufunc__ = None  # so `array * tensor` calls Tensor.__rmul__ instead of numpy

    def __init__(
        self,
        data: Any,
        requires_grad: bool = False,
        dtype: Any = None,
        label: str = "",
    ) -> None:
        if isinstance(data, Tensor):
            data = data.data
        if dtype is not None:
            array = np.array(data, dtype=dtype)
        elif isinstance(data, np.ndarray | np.generic):
            array = np.array(data)  # a copy, keeping the dtype (ints, bools, float32)
            if array.dtype.kind == "f" and array.dtype not in _FLOATS:
                array = array.astype(np.float64)
        else:
            array = np.array(data, dtype=np.float64)
        _init(self, array)
        self.label = label
        if requires_grad:
            self.requires_grad_(True)

    # ---------------------------------------------------------------- basics

    shape = property(lambda self: self.data.shape, doc="The tuple of axis lengths.")
    ndim = property(lambda self: self.data.ndim, doc="The number of axes.")
    dtype = property(lambda self: self.data.dtype, doc="The numpy dtype of the entries.")
    T = property(lambda self: self.transpose(), doc="The transpose (axes reversed).")

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user (or with no graph): no ``grad_fn``."""
        return self._fn is None

    @property
    def grad_fn(self) -> BackwardFunction | None:
        """The operation that made this tensor (``None`` for a leaf)."""
        if self._fn is None:
            return None
        return BackwardFunction(self)

    def size(self, axis: int | None = None) -> tuple[int, ...] | int:
        """The shape, or the length of one axis (as ``torch.Tensor.size``)."""
        return self.data.shape if axis is None else self.data.shape[axis]

    def numel(self) -> int:
        """The number of entries."""
        return self.data.size

    def __len__(self) -> int:
        return len(self.data)

    def item(self) -> float | int | bool:
        """The value of a one-entry tensor as a Python number."""
        if self.data.size != 1:
            raise ValueError(
                f"item: only a tensor with one entry converts to a number, this one has "
                f"shape {self.shape}"
            )
        return self.data.item()

    def numpy(self) -> np.ndarray:
        """The underlying array (shared, not copied; use ``detach`` in a graph)."""
        return self.data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.data if dtype is None else self.data.astype(dtype)

    def detach(self) -> Tensor:
        """The same values as a new leaf that does not require grad."""
        return _leaf(self.data)

    def clone(self) -> Tensor:
        """A copy of the values that stays in the graph (its gradient passes through);
        also turns an inference tensor into an ordinary one."""
        return apply(_CLONE, self)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` on a leaf, in place; returns the tensor."""
        if requires_grad and self.data.dtype.kind not in "fc":
            raise TypeError(
                f"requires_grad: only floating-point tensors can require gradients, this one "
                f"has dtype {self.dtype}; create it with float values (e.g. Tensor(x, "
                "dtype=float))"
            )
        if self._fn is not None and not requires_grad:
            raise RuntimeError(
                "requires_grad_: this tensor was computed by an operation, so it requires "
                "grad; use .detach() for a copy that does not"
            )
        self.requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after ``backward``."""
        if not self.requires_grad:
            raise RuntimeError(
                "retain_grad: this tensor does not require grad, so it gets no gradient"
            )
        self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def __repr__(self) -> str:
        data = self.data
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
            extra += f", dtype={data.dtype}"
        if self._fn is not None:
            extra += f", grad_fn={self.grad_fn!r}"
        elif self.requires_grad:
            extra += ", requires_grad=True"
        return f"tensor({body}{extra})"

    # Tensors are hashed by identity (as in PyTorch), since == is elementwise.
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        if self.data.size != 1:
            raise ValueError(
                f"bool: the truth value of a tensor with shape {self.shape} is ambiguous; "
                "use (t > 0).any() or .all()"
            )
        return bool(self.data)

    def __float__(self) -> float:
        return float(self.item())

    # -------------------------------------------------------------- backward

    def backward(self, gradient: Any = None, retain_graph: bool = False) -> None:
        """Compute the gradient of this tensor with respect to every leaf that
        requires grad, adding it to the leaf's ``.grad``.

        A scalar needs no ``gradient``; any other tensor needs one of its shape
        (the vector in the vector-Jacobian product). The graph's saved values
        are freed unless ``retain_graph=True``.
        """
        run_backward(self, gradient, retain_graph)

    # ------------------------------------------------------ shapes and views

    def reshape(self, *shape: Any) -> Tensor:
        """The same entries in a new shape (one axis may be -1)."""
        shape = tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return apply(A.RESHAPE, self, static=(shape,))

    def transpose(self, *axes: int) -> Tensor:
        """Reverse the axes (no argument, like ``.T``) or swap two of them
        (``x.transpose(0, 1)``, as ``torch.transpose``)."""
        if not axes:
            return apply(A.TRANSPOSE, self, static=(None,))
        if len(axes) != 2 or self.ndim < 2:
            raise ShapeError(
                f"transpose: give two axes to swap (or none to reverse them all), got {axes} "
                f"for shape {self.shape}; use permute for a full reordering"
            )
        order = list(range(self.ndim))
        i, j = (a % self.ndim for a in axes)
        order[i], order[j] = order[j], order[i]
        return apply(A.TRANSPOSE, self, static=(tuple(order),))

    def permute(self, *axes: int) -> Tensor:
        """Reorder all the axes: ``x.permute(2, 0, 1)`` puts axis 2 first."""
        axes = tuple(axes[0]) if len(axes) == 1 and not isinstance(axes[0], int) else axes
        if sorted(a % max(self.ndim, 1) for a in axes) != list(range(self.ndim)):
            raise ShapeError(
                f"permute: {axes} is not an order of all {self.ndim} axes of shape {self.shape}"
            )
        return apply(A.TRANSPOSE, self, static=(axes,))

    def __getitem__(self, index: Any) -> Tensor:
        return apply(A.GETITEM, self, static=(_plain_index(index),))

    # ------------------------------------------------------------ reductions

    def sum(self, axis: Any = None, keepdims: bool = False, **torch_names: Any) -> Tensor:
        """Sum over ``axis`` (an int, a tuple, or all). ``dim``/``keepdim`` work too."""
        return _reduce(A.SUM, self, axis, keepdims, torch_names)

    def mean(self, axis: Any = None, keepdims: bool = False, **torch_names: Any) -> Tensor:
        """Mean over ``axis`` (an int, a tuple, or all). ``dim``/``keepdim`` work too."""
        return _reduce(A.MEAN, self, axis, keepdims, torch_names)

    def max(self, axis: Any = None, keepdims: bool = False, **torch_names: Any) -> Tensor:
        """Largest entry over ``axis``; tied entries share the gradient equally."""
        return _reduce(A.MAX, self, axis, keepdims, torch_names)

    def argmax(self, axis: int | None = None, **torch_names: Any) -> Tensor:
        """Index of the largest entry (no gradient)."""
        axis = torch_names.get("dim", axis)
        return _leaf(np.argmax(self.data, axis=axis))

    # ------------------------------------------------------------ linear algebra

    def __matmul__(self, other: Any) -> Tensor:
        return apply(A.MATMUL, self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return apply(A.MATMUL, other, self)

    def dot(self, other: Any) -> Tensor:
        """Inner product of two 1-D tensors."""
        return apply(A.DOT, self, other)

    def trace(self) -> Tensor:
        """Sum of the diagonal of a matrix."""
        return apply(A.TRACE, self)

    # ------------------------------------------------------ softmax and losses

    def softmax(self, axis: int = -1, **torch_names: Any) -> Tensor:
        """exp(x) / sum(exp(x)) along ``axis``, computed without overflow."""
        return apply(A.SOFTMAX, self, static=(torch_names.get("dim", axis),))

    def log_softmax(self, axis: int = -1, **torch_names: Any) -> Tensor:
        """log(softmax(x)) along ``axis``, computed stably (no log of 0)."""
        return apply(A.LOG_SOFTMAX, self, static=(torch_names.get("dim", axis),))

    # ------------------------------------------------ comparisons (no gradient)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _leaf(self.data == _data(other))

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _leaf(self.data != _data(other))

    def __lt__(self, other: Any) -> Tensor:
        return _leaf(self.data < _data(other))

    def __le__(self, other: Any) -> Tensor:
        return _leaf(self.data <= _data(other))

    def __gt__(self, other: Any) -> Tensor:
        return _leaf(self.data > _data(other))

    def __ge__(self, other: Any) -> Tensor:
        return _leaf(self.data >= _data(other))


# --------------------------------------------------------------------------
# Elementwise operators and methods: one per rule, from the table
# --------------------------------------------------------------------------


def _unary(rule: Rule) -> Callable[[Tensor], Tensor]:
    op = ELEMENTWISE[rule.name]
    return lambda self: apply(op, self)


def _binary(rule: Rule, reflected: bool) -> Callable[[Tensor, Any], Tensor]:
    op = ELEMENTWISE[rule.name]
    if reflected:  # 2 - x calls x.__rsub__(2): self is the right operand
        return lambda self, other: apply(op, other, self)
    return lambda self, other: apply(op, self, other)


attach_rules(Tensor, _unary, _binary)


# --------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------

_new = object.__new__

# Recorded tensors are numbered in creation order: a tensor always comes after
# its inputs, which is the order backward needs (see autograd.run_backward).
_creation = count()


def _init(
    t: Tensor, array: np.ndarray, parents: tuple = (), fn: Op | None = None, saved: Any = None
) -> None:
    """Fill every slot of a new tensor: a leaf, or with ``fn`` the recorded
    result of ``fn`` on ``parents``. Each slot is set once, not filled as for a
    leaf and then overwritten: the saving pays for the creation number
    (``_order``, which backward sorts by), so recording costs no more with it."""
    t.data = array
    t.grad = None
    t.parents = parents
    t.label = ""
    t._fn = fn
    t._saved = saved
    t._retains_grad = False
    t._inference = STATE.inference
    if fn is None:
        t.requires_grad = False
        t.op = ""
        t._order = 0
    else:
        t.requires_grad = True
        t.op = fn.name
        t._order = next(_creation)


def _leaf(array: Any) -> Tensor:
    t = _new(Tensor)
    _init(t, np.asarray(array))
    return t


def _data(x: Any) -> Any:
    return x.data if isinstance(x, Tensor) else x


def apply(op: Op, *inputs: Any, static: tuple = ()) -> Tensor:
    """Run ``op`` on ``inputs`` (tensors, numbers or arrays) and record it in
    the graph when some input requires grad and the mode records.

    This is the one place where graphs are built; ``Function.apply`` and every
    operator go through it.

    >>> from micrograd_edu.ops import ELEMENTWISE
    >>> x = Tensor([1.0, 2.0], requires_grad=True)
    >>> apply(ELEMENTWISE["mul"], x, 3)
    tensor([3., 6.], grad_fn=<MulBackward>)
    """
    for x in inputs:
        if not isinstance(x, Tensor):
            inputs = _constants(inputs)
            break
    # Spelled out for one and two inputs: a comprehension costs a few hundred
    # nanoseconds, a large share of an operation on small arrays.
    if len(inputs) == 2:
        a, b = inputs
        xs, needs = (a.data, b.data), (a.requires_grad, b.requires_grad)
    elif len(inputs) == 1:
        xs, needs = (inputs[0].data,), (inputs[0].requires_grad,)
    else:
        xs, needs = tuple([t.data for t in inputs]), tuple([t.requires_grad for t in inputs])
    data = np.asarray(op.forward(*xs, *static))
    out = _new(Tensor)
    if True in needs and STATE.enabled:
        for t in inputs:
            if t._inference:
                raise RuntimeError(
                    f"{op.name}: an input was created under inference_mode(), so it cannot "
                    "take part in a recorded computation; create it outside inference_mode() "
                    "or use no_grad() there instead (or .clone() it outside)"
                )
        _init(out, data, inputs, op, (xs, needs, static))
    else:
        _init(out, data)
    if STATE.tape is not None:
        STATE.tape.append((op, inputs, out, needs, static))
    return out


def _constants(inputs: tuple) -> tuple[Tensor, ...]:
    """Wrap the numbers and arrays among ``inputs`` as constant tensors. A
    number takes the float dtype of the tensors, so ``x32 * 2`` stays float32."""
    like = next(x.data.dtype for x in inputs if isinstance(x, Tensor))
    return tuple(
        x
        if isinstance(x, Tensor)
        else _leaf(np.array(x, dtype=like) if _is_number(x, like) else np.asarray(x))
        for x in inputs
    )


def _is_number(x: Any, like: np.dtype) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and like.kind == "f"


def _plain_index(index: Any) -> Any:
    if isinstance(index, tuple):
        return tuple(_data(i) for i in index)
    return _data(index)


def _reduce(op: Op, t: Tensor, axis: Any, keepdims: bool, torch_names: dict) -> Tensor:
    axis = torch_names.pop("dim", axis)
    keepdims = torch_names.pop("keepdim", keepdims)
    if torch_names:
        raise TypeError(f"{op.name}: unexpected arguments {sorted(torch_names)}")
    if axis is not None:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        if any(not -t.ndim <= a < t.ndim for a in axes):
            raise ShapeError(f"{op.name}: axis {axes} is out of range for shape {t.shape}")
        axis = tuple(sorted(a % t.ndim for a in axes))
    return apply(op, t, static=(axis, bool(keepdims)))


_CLONE = Op("clone", np.copy, lambda g, out, xs, needs: (g,))
