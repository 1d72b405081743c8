"""Elementwise operations: arithmetic from the rule table, rounding, choosing entries
(``where``, ``clamp``, ``maximum``, ``minimum``), comparisons, bit logic and casts, each an
:class:`~micrograd_edu.tensor.operation.Op` with its forward and VJP side by side, and
:class:`Elementwise`, the mixin that gives them to ``Tensor``.

The arithmetic is not written here rule by rule: :func:`elementwise` builds one
operation from one entry of :data:`micrograd_edu.rules.RULES`, the table ``Value``,
``Dual`` and symbolic ``diff`` read too. Its forward is the rule's value on arrays;
its VJP multiplies ``g`` by the rule's partial derivative and sums it back to the
input's shape (:func:`~micrograd_edu.tensor.shape.unbroadcast`), since a broadcast
input was used once per copy.

**Outside a domain**, a tensor operation gives what IEEE arithmetic gives, as numpy and
PyTorch do: ``log(0)`` is ``-inf``, ``sqrt(-1)`` and ``0/0`` are ``nan``, ``1/0`` is
``inf``, silently. (The scalar engines, ``Value`` and ``Dual``, raise
:class:`~micrograd_edu.DomainError` instead: their lectures step through single numbers,
where an error at the operation that left the domain says more than a ``nan`` further on.
No lecture relies on a tensor raising, and two behaviours for one ``Tensor`` class, chosen
by where a tensor was made, would leave tensors of both kinds meeting in one program,
``micrograd_edu.torchlike`` and the course alike.)

**dtypes.** Two inputs of different dtypes are promoted by PyTorch's rule
(:mod:`~micrograd_edu.tensor.dtypes`: ``int32 + 1`` stays int32, ``int32 + float32`` is
float32); the functions of real numbers (``exp``, ``log``, ``sqrt``, ...) make integers
float64, the default float.

>>> from micrograd_edu import Tensor
>>> x = Tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
>>> (x * 2 + 1).clamp(min=0)
tensor([[3., 0.],
        [7., 9.]], grad_fn=<ClampBackward>)
>>> Tensor([0.0, -1.0]).log().tolist()
[-inf, nan]
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..rules import NUMPY, RULES, Rule
from .dtypes import DEFAULT_FLOAT, as_dtype, number_array, promoted
from .operation import Op, ShapeError, data_of, namespace_of, row_major, saves_all, saves_none
from .shape import unbroadcast

__all__ = [
    "Elementwise",
    "elementwise",
    "ELEMENTWISE",
    "ROUNDING",
    "ROUNDED_DIVIDE",
    "FLOOR_DIVIDE",
    "REMAINDER",
    "TIED",
    "WHERE",
    "CLAMP",
    "MAXIMUM",
    "MINIMUM",
    "CAST",
    "CLONE",
    "CONTIGUOUS",
    "same_dtype",
]


# --------------------------------------------------------- arithmetic, from the rules


def same_dtype(xs: tuple) -> tuple:
    """Two arrays of one dtype: as they are when they already share one, else promoted by
    PyTorch's rule (see the module docstring)."""
    return xs if xs[0].dtype is xs[1].dtype else promoted(xs)


# Rules whose value or derivative may leave the reals (division by 0, log of a negative,
# overflow): numpy's warnings are silenced there, as PyTorch gives inf and nan silently.
_QUIET = {name for name, rule in RULES.items() if rule.domain is not None} | {"exp"}


# What PyTorch keeps for backward where the rule's partial reads something else (the same
# numbers): a division keeps its inputs, not its result (recomputed from them here), relu
# its result, not its input (whose sign the result keeps). A value changed in place after
# the operation is then refused exactly where PyTorch refuses it.
_RECOMPUTED_OUT = {"div"}
_INPUT_FROM_OUT = {"relu"}


def _floating(rule: Rule) -> bool:
    """Whether the rule maps integers to reals (exp, log, sin, ...): its inputs are then
    made float64 first, PyTorch's default float (numpy would pick by the integer's size)."""
    if rule.arity != 1:
        return False
    with np.errstate(all="ignore"):
        return rule.value(NUMPY, np.ones(1, np.int8)).dtype.kind == "f"


def elementwise(rule: Rule) -> Op:
    """Build the tensor operation for one entry of the rule table.

    >>> op = elementwise(RULES["mul"])
    >>> a, b = np.array([1.0, 2.0]), np.array(3.0)
    >>> op.forward(a, b)
    array([3., 6.])
    >>> op.vjp(np.ones(2), op.forward(a, b), (a, b), (True, True))
    (array([3., 3.]), array(3.))
    """
    value, partials, name = rule.value, rule.partials, rule.name
    quiet, floating = name in _QUIET, _floating(rule)

    def forward(*xs):
        if len(xs) == 2:
            xs = same_dtype(xs)
        elif floating and xs[0].dtype.kind in "biu":
            xs = (xs[0].astype(DEFAULT_FLOAT),)
        try:
            if quiet:
                with np.errstate(all="ignore"):
                    return value(NUMPY, *xs)
            return value(NUMPY, *xs)
        except ValueError as error:
            # numpy's own words for shapes that do not broadcast, said again with the op
            if type(error) is ValueError and len(xs) == 2 and "broadcast" in str(error):
                raise _broadcast_error(name, xs) from None
            raise

    probed = [_probe(partial, rule.arity) for partial in partials]
    reads = [r for r, _, _ in probed]
    reads_out = [o for _, o, _ in probed]
    recompute = name in _RECOMPUTED_OUT
    if recompute:
        reads = [r | (set(range(rule.arity)) if o else set()) for r, o in zip(reads, reads_out)]  # noqa: B905
        reads_out = [False] * rule.arity
    elif name in _INPUT_FROM_OUT:
        reads_out = [o or bool(r) for r, o in zip(reads, reads_out)]  # noqa: B905
        reads = [set()] * rule.arity

    def saves(needs: tuple) -> tuple:
        return tuple(any(n and i in r for n, r in zip(needs, reads)) for i in range(len(needs)))  # noqa: B905

    def saves_out(needs: tuple) -> bool:
        return any(n and o for n, o in zip(needs, reads_out))  # noqa: B905

    if rule.arity == 1:
        (partial,) = partials
        from_out = name in _INPUT_FROM_OUT

        def vjp(g, out, xs, needs):
            args = (out,) if from_out else xs
            if quiet:
                with np.errstate(all="ignore"):
                    return (_times(g, partial(namespace_of(g), out, *args)),)
            return (_times(g, partial(namespace_of(g), out, *args)),)

    else:  # two inputs, either of which may have been broadcast
        partial_a, partial_b = partials

        def both(g, out, a, b, needs):
            space = namespace_of(g)
            if recompute:
                out = value(space, a, b)
            ga = _times(g, partial_a(space, out, a, b)) if needs[0] else None
            gb = _times(g, partial_b(space, out, a, b)) if needs[1] else None
            return ga, gb

        def vjp(g, out, xs, needs):
            a, b = xs
            if quiet:
                with np.errstate(all="ignore"):
                    ga, gb = both(g, out, a, b, needs)
            else:
                ga, gb = both(g, out, a, b, needs)
            return (
                None if ga is None else unbroadcast(ga, a.shape),
                None if gb is None else unbroadcast(gb, b.shape),
            )

    # _times passes g on when a partial is the constant 1.0 (add, sub): not fresh then.
    fresh = not any(type(result) is float and result == 1.0 for _, _, result in probed)
    return Op(name, forward, vjp, saves, fresh, saves_out)


def _times(g: np.ndarray, d: Any) -> np.ndarray:
    # Rules write constant partials as floats: skip multiplying by 1.0 and -1.0, and a 0.0
    # gives zeros tied to nothing (not g * 0.0, which is nan for an infinite g and, under
    # create_graph, would keep g's graph).
    if type(d) is float:
        if d == 1.0:
            return g
        if d == -1.0:
            return -g
        if d == 0.0:
            if isinstance(g, np.ndarray | np.generic):
                return np.zeros_like(g)
            return g._leaf(np.zeros_like(g._data))
    return g * d


def _broadcast_error(name: str, xs: tuple) -> ShapeError:
    shapes = " and ".join(str(np.shape(x)) for x in xs)
    return ShapeError(
        f"{name}: shapes {shapes} do not broadcast: aligned from the right, each pair of "
        "axis lengths must be equal or one of them 1 (reshape one input, e.g. x.reshape(-1, 1))"
    )


class _Probe:
    """Stands for an argument of a partial, to learn which arguments it reads."""

    def __init__(self, index: int, seen: set[int]) -> None:
        self.index, self.seen = index, seen

    def _use(self, *others: Any) -> _Probe:
        self.seen.add(self.index)
        for other in others:
            if isinstance(other, _Probe):
                other.seen.add(other.index)
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _use
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = _use
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __and__ = __or__ = _use
    __hash__ = object.__hash__


_PROBE_SPACE = SimpleNamespace(**{n: (lambda *a: a[0]._use(*a)) for n in vars(NUMPY)})


def _probe(partial: Callable[..., Any], arity: int) -> tuple[set[int], bool, Any]:
    """Run a partial on stand-ins: the inputs it reads, whether it reads ``out`` (the
    operation's result, which backward then keeps), and what it returned (a plain float
    for a constant partial)."""
    seen: set[int] = set()
    try:
        result = partial(_PROBE_SPACE, *[_Probe(i, seen) for i in range(-1, arity)])
    except PermissionError:  # withheld while an exercise is graded: it reads every input
        seen.update(range(-1, arity))
        result = None
    if isinstance(result, _Probe):
        seen.add(result.index)
    return seen - {-1}, -1 in seen, result


#: One tensor operation per rule, built by :func:`elementwise`.
ELEMENTWISE: dict[str, Op] = {name: elementwise(rule) for name, rule in RULES.items()}


# ------------------------------------------------- rounding, integer division, ties


def _no_gradient(g, out, xs, needs, *static):
    # Piecewise constant: the derivative is 0 where it exists, as PyTorch's rounding gives.
    if isinstance(g, np.ndarray | np.generic):
        return (np.zeros(np.shape(xs[0]), dtype=g.dtype),)
    return (g._leaf(np.zeros(xs[0].shape, dtype=g.dtype)),)


def _round(a, how):
    if how == "trunc":
        return np.trunc(a)
    if how in ("floor", "ceil"):
        return getattr(np, how)(a)
    return np.round(a, how)  # decimals (numpy rounds half to even, as PyTorch does)


#: ``round``, ``floor``, ``ceil``, ``trunc``: results that require grad, with gradient 0.
ROUNDING = Op("round", _round, _no_gradient, saves_none, fresh=True)


def _floor_divide_forward(a, b):
    a, b = same_dtype((a, b))
    with np.errstate(all="ignore"):
        return np.floor_divide(a, b)


def _floor_divide_vjp(g, out, xs, needs):
    raise RuntimeError(
        "backward: the derivative of floor division (//) is not defined (PyTorch: not "
        "implemented); divide with / and round the result outside the graph, or detach()"
    )


FLOOR_DIVIDE = Op("floor_divide", _floor_divide_forward, _floor_divide_vjp, saves_none)


def _remainder_forward(a, b):
    a, b = same_dtype((a, b))
    with np.errstate(all="ignore"):
        return np.mod(a, b)  # the sign of the divisor, as Python's % and PyTorch's


def _remainder_vjp(g, out, xs, needs):
    # a % b = a - floor(a / b) * b: g for a, -floor(a / b) g for b. Recorded, the floor is
    # an operation on a and b (with gradient 0), as in PyTorch's formula: a later pass
    # reaches them through it (their hooks run, with 0).
    a, b = xs
    ga = unbroadcast(g, a.shape) if needs[0] else None
    gb = None
    if needs[1]:
        if isinstance(g, np.ndarray | np.generic):
            with np.errstate(all="ignore"):
                quotient = np.floor_divide(a, b)
        else:
            quotient = a.div(b, rounding_mode="floor")
        gb = unbroadcast(-g * quotient, b.shape)
    return ga, gb


REMAINDER = Op("remainder", _remainder_forward, _remainder_vjp, lambda needs: (needs[1], needs[1]))


def _rounded_divide(a, b, mode):
    a, b = same_dtype((a, b))
    with np.errstate(all="ignore"):
        if mode == "floor":
            return np.floor_divide(a, b)
        quotient = np.trunc(np.true_divide(a, b))
    return quotient if a.dtype.kind == "f" else quotient.astype(a.dtype)


def _zero_gradients(g, out, xs, needs, *static):
    zeros = [np.zeros(np.shape(x), dtype=g.dtype) if n else None for x, n in zip(xs, needs)]  # noqa: B905
    if isinstance(g, np.ndarray | np.generic):
        return tuple(zeros)
    return tuple(None if z is None else g._leaf(z) for z in zeros)


#: ``div(..., rounding_mode="floor" or "trunc")``: gradient 0, as PyTorch's.
ROUNDED_DIVIDE = Op("div", _rounded_divide, _zero_gradients, saves_none, fresh=True)


def _tied_vjp(g, out, xs, needs):
    # Zeros for x, not nothing: PyTorch's formulas of this kind (leaky_relu_backward's
    # ``self: zeros_like(grad)``) send x a gradient of zeros, which its hooks see.
    return g, _zero_gradients(g, out, xs, (False, needs[1]))[1]


#: ``value`` made to depend on ``x`` with derivative 0: PyTorch's backward formulas that read
#: an input give gradients that require grad (leaky_relu's), and so must ours.
TIED = Op("tie", lambda value, x: value, _tied_vjp, saves_none)


# --------------------------------------------------------------- choosing entries
# Each gradient goes to the entry that was chosen; the choice itself (a mask) is a
# constant, as in PyTorch.


def _chosen(g, mask, shape):
    """``g`` where ``mask`` holds, 0 elsewhere (set, not multiplied: a nan in ``g`` stays
    where it was chosen), summed back to ``shape`` (when given)."""
    if isinstance(g, np.ndarray | np.generic):
        out = np.where(mask, g, 0.0).astype(g.dtype, copy=False)
    else:
        out = g.where(np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), g.shape)), 0.0)
    return out if shape is None else unbroadcast(out, shape)


def _chosen_between(g, other, mask):
    """``other`` where ``mask`` holds, ``g`` elsewhere (arrays or tensors)."""
    if isinstance(g, np.ndarray | np.generic):
        return np.where(mask, other, g).astype(g.dtype, copy=False)
    return other.where(np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), g.shape)), g)


def _where_forward(a, b, condition):
    a, b = same_dtype((a, b))
    return np.where(condition, a, b)


def _where_vjp(g, out, xs, needs, condition):
    a, b = xs
    return (
        _chosen(g, condition, a.shape) if needs[0] else None,
        _chosen(g, ~condition, b.shape) if needs[1] else None,
    )


WHERE = Op("where", _where_forward, _where_vjp, saves_none, fresh=True)


def _bounds(xs, has_low, has_high):
    """clamp's inputs: the tensor, then its low and its high bound where given (else None)."""
    x, *rest = xs
    low = rest.pop(0) if has_low else None
    high = rest.pop(0) if has_high else None
    return x, low, high


def _clamp_forward(*xs_and_flags):
    *xs, has_low, has_high = xs_and_flags
    if any(x.dtype is not xs[0].dtype for x in xs):
        xs = promoted(tuple(xs))
    x, low, high = _bounds(xs, has_low, has_high)
    if low is not None and high is not None:  # min > max gives max everywhere, as PyTorch
        return np.minimum(np.maximum(x, low), high)
    return np.clip(x, low, high)


def _clamp_vjp(g, out, xs, needs, has_low, has_high):
    # clamp(x, low, high) = min(max(x, low), high). PyTorch's subgradient, which the
    # differential tests hold us to: x where low <= x <= high (ties go to x), low where
    # x < low < high, high where x > high or high < low (so x < low == high sends none).
    x, low, high = (None if v is None else _array(v) for v in _bounds(xs, has_low, has_high))
    from_x = np.ones(np.shape(out), dtype=bool)
    if low is not None:
        from_x = from_x & (x >= low)
    if high is not None:
        from_x = from_x & (x <= high)
    grads = [_chosen(g, from_x, xs[0].shape) if needs[0] else None]
    if low is not None:
        from_low = (x < low) & (True if high is None else low < high)
        grads.append(_chosen(g, from_low, xs[1].shape) if needs[1] else None)
    if high is not None:
        from_high = (x > high) | (False if low is None else high < low)
        grads.append(_chosen(g, from_high, xs[-1].shape) if needs[-1] else None)
    return tuple(grads)


CLAMP = Op("clamp", _clamp_forward, _clamp_vjp, saves_all, fresh=True)


def _pick(name: str, pick, loses):
    def forward(a, b):
        return pick(*same_dtype((a, b)))

    def vjp(g, out, xs, needs):
        a, b = (_array(x) for x in xs)
        # PyTorch's rule, entry by entry: ties share the gradient equally, the input that
        # lost gets none, and where a nan made the comparison fail both get all of it.
        # The loser's entries are set to 0, not multiplied by it (a nan gradient stays away).
        tie = a == b
        half = g * 0.5
        ga = gb = None
        if needs[0]:
            ga = unbroadcast(
                _chosen(_chosen_between(g, half, tie), ~loses(a, b), None), xs[0].shape
            )
        if needs[1]:
            gb = unbroadcast(
                _chosen(_chosen_between(g, half, tie), ~loses(b, a), None), xs[1].shape
            )
        return ga, gb

    return Op(name, forward, vjp, lambda needs: (True, True), fresh=True)


def _array(x):
    return x if isinstance(x, np.ndarray) else x._data


MAXIMUM = _pick("maximum", np.maximum, np.less)
MINIMUM = _pick("minimum", np.minimum, np.greater)


# ----------------------------------------------------------------------- casts


def _cast_vjp(g, out, xs, needs, dtype):
    return (g.astype(xs[0].dtype),)  # astype copies: fresh


CAST = Op("to", lambda a, dtype: a.astype(dtype), _cast_vjp, saves_none, fresh=True)
CLONE = Op("clone", np.copy, lambda g, out, xs, needs: (g,), lambda needs: (False,))


def _contiguous_vjp(g, out, xs, needs):
    return (g,)


CONTIGUOUS = Op("contiguous", row_major, _contiguous_vjp, saves_none)


def _comparable(op: str, other: Any) -> Any:
    """``other`` as something a tensor compares with, or raise (PyTorch's TypeError)."""
    if other is None or isinstance(other, str):
        raise TypeError(
            f"{op}: cannot compare a tensor with {type(other).__name__} {other!r}; give a "
            "tensor or a number (to test for None, write `x is None`)"
        )
    return data_of(other)


_DTYPE_ARGS = {"dtype", "device", "copy", "non_blocking", "memory_format"}


class Elementwise:
    """The elementwise operations of ``Tensor`` (a mixin of
    :class:`~micrograd_edu.tensor.tensor.Tensor`, which provides ``_apply``: see its
    module). Each returns a new tensor; the arithmetic reads its operation from
    :data:`ELEMENTWISE`, built from the rule of the same name."""

    __slots__ = ()

    # --------------------------------------------------------------- arithmetic
    # A reflected operator has self on the right: 2 - x calls x.__rsub__(2).

    def __add__(self, other: Any):
        return self._apply(ELEMENTWISE["add"], self, other)

    def __radd__(self, other: Any):
        return self._apply(ELEMENTWISE["add"], other, self)

    def __sub__(self, other: Any):
        return self._apply(ELEMENTWISE["sub"], self, other)

    def __rsub__(self, other: Any):
        return self._apply(ELEMENTWISE["sub"], other, self)

    def __mul__(self, other: Any):
        return self._apply(ELEMENTWISE["mul"], self, other)

    def __rmul__(self, other: Any):
        return self._apply(ELEMENTWISE["mul"], other, self)

    def __truediv__(self, other: Any):
        return self._apply(ELEMENTWISE["div"], self, other)

    def __rtruediv__(self, other: Any):
        return self._apply(ELEMENTWISE["div"], other, self)

    def __floordiv__(self, other: Any):
        return self._apply(FLOOR_DIVIDE, self, other)

    def __rfloordiv__(self, other: Any):
        return self._apply(FLOOR_DIVIDE, other, self)

    def __mod__(self, other: Any):
        return self._apply(REMAINDER, self, other)

    def __rmod__(self, other: Any):
        return self._apply(REMAINDER, other, self)

    def __pow__(self, other: Any):
        return self._apply(ELEMENTWISE["pow"], self, other)

    def __rpow__(self, other: Any):
        return self._apply(ELEMENTWISE["pow"], other, self)

    def __neg__(self):
        return self._apply(ELEMENTWISE["neg"], self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self._apply(ELEMENTWISE["abs"], self)

    abs = absolute = __abs__

    def neg(self):
        """``-self``."""
        return self._apply(ELEMENTWISE["neg"], self)

    negative = neg

    def reciprocal(self):
        """``1 / self``."""
        return self._apply(ELEMENTWISE["div"], 1.0, self)

    def exp(self):
        return self._apply(ELEMENTWISE["exp"], self)

    def log(self):
        return self._apply(ELEMENTWISE["log"], self)

    def log1p(self):
        return self._apply(ELEMENTWISE["log1p"], self)

    def sqrt(self):
        return self._apply(ELEMENTWISE["sqrt"], self)

    def sin(self):
        return self._apply(ELEMENTWISE["sin"], self)

    def cos(self):
        return self._apply(ELEMENTWISE["cos"], self)

    def tan(self):
        return self._apply(ELEMENTWISE["tan"], self)

    def tanh(self):
        return self._apply(ELEMENTWISE["tanh"], self)

    def sigmoid(self):
        return self._apply(ELEMENTWISE["sigmoid"], self)

    def relu(self):
        return self._apply(ELEMENTWISE["relu"], self)

    def step(self):
        return self._apply(ELEMENTWISE["step"], self)

    def sign(self):
        """-1, 0 or 1 by the sign of each entry (0 for nan, as in PyTorch); gradient 0."""
        return self._apply(ELEMENTWISE["sign"], self)

    # PyTorch's method names for the operators: x.add(y), x.mul(2), x.pow(3), ...

    def add(self, other: Any, *, alpha: Any = 1):
        """``self + alpha * other``."""
        return self._apply(ELEMENTWISE["add"], self, other if alpha == 1 else other * alpha)

    def sub(self, other: Any, *, alpha: Any = 1):
        """``self - alpha * other``."""
        return self._apply(ELEMENTWISE["sub"], self, other if alpha == 1 else other * alpha)

    subtract = sub

    def mul(self, other: Any):
        """``self * other``."""
        return self._apply(ELEMENTWISE["mul"], self, other)

    multiply = mul

    def div(self, other: Any, *, rounding_mode: str | None = None):
        """``self / other``; ``rounding_mode="floor"`` rounds down (``//``), ``"trunc"``
        towards 0."""
        if rounding_mode is None:
            return self._apply(ELEMENTWISE["div"], self, other)
        if rounding_mode in ("floor", "trunc"):
            return self._apply(ROUNDED_DIVIDE, self, other, static=(rounding_mode,))
        raise ValueError(
            f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}"
        )

    divide = true_divide = div

    def floor_divide(self, other: Any):
        """``self // other`` (rounds down; no gradient, as in PyTorch)."""
        return self._apply(FLOOR_DIVIDE, self, other)

    def remainder(self, other: Any):
        """``self % other``, with the sign of ``other``."""
        return self._apply(REMAINDER, self, other)

    def pow(self, other: Any):
        """``self ** other``."""
        return self._apply(ELEMENTWISE["pow"], self, other)

    def square(self):
        """x * x, elementwise."""
        return self._apply(ELEMENTWISE["mul"], self, self)

    # ------------------------------------------------------------ rounding

    def round(self, decimals: int = 0):
        """Entries rounded to ``decimals`` places, half to even (gradient 0, as PyTorch's)."""
        return self._apply(ROUNDING, self, static=(int(decimals),))

    def floor(self):
        """The largest integer below each entry (gradient 0)."""
        return self._apply(ROUNDING, self, static=("floor",))

    def ceil(self):
        """The smallest integer above each entry (gradient 0)."""
        return self._apply(ROUNDING, self, static=("ceil",))

    def trunc(self):
        """Each entry rounded towards 0 (gradient 0)."""
        return self._apply(ROUNDING, self, static=("trunc",))

    # --------------------------------------------------------- choosing entries

    def clamp(self, min: Any = None, max: Any = None):  # noqa: A002
        """Entries limited to [min, max] (numbers or tensors, which broadcast): the gradient
        goes to this tensor where an entry was inside, else to the bound it took."""
        if min is None and max is None:
            raise ValueError("clamp: at least one of min and max must be given (not None)")
        bounds = [b for b in (min, max) if b is not None]
        return self._apply(CLAMP, self, *bounds, static=(min is not None, max is not None))

    clip = clamp

    def where(self, condition: Any, other: Any):
        """This tensor where ``condition`` holds, ``other`` elsewhere (``torch.where``)."""
        mask = np.asarray(data_of(condition), dtype=bool)
        return self._apply(WHERE, self, other, static=(mask,))

    def masked_fill(self, mask: Any, value: Any):
        """``value`` where ``mask`` holds, this tensor elsewhere (``value`` a number or a
        0-d tensor, which gets the gradient of the entries it fills)."""
        mask = np.asarray(data_of(mask))
        if mask.dtype != np.bool_:
            raise TypeError(f"masked_fill: the mask must be a bool tensor, got dtype {mask.dtype}")
        if np.ndim(data_of(value)) != 0:
            raise ValueError(
                "masked_fill: value must be a number or a 0-d tensor, got shape "
                f"{np.shape(data_of(value))}; use torch.where(mask, values, x) for a tensor"
            )
        if isinstance(value, type(self)):
            value = value.to(self._data.dtype)
        else:
            value = np.array(value, dtype=self._data.dtype)
        try:
            mask = np.broadcast_to(mask, self._data.shape)
        except ValueError:
            raise ShapeError(
                f"masked_fill: a mask of shape {mask.shape} does not broadcast to the tensor's "
                f"shape {self._data.shape}"
            ) from None
        return self._apply(WHERE, value, self, static=(mask,))

    def maximum(self, other: Any):
        """The larger of two entries, elementwise (ties share the gradient)."""
        return self._apply(MAXIMUM, self, other)

    def minimum(self, other: Any):
        """The smaller of two entries, elementwise (ties share the gradient)."""
        return self._apply(MINIMUM, self, other)

    # ----------------------------------------------------------------- casts

    def to(self, *args: Any, **kwargs: Any):
        """The tensor with entries of a dtype (differentiable for floats), as PyTorch's
        ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)`` and the keywords
        ``dtype=``, ``device=``, ``copy=``. The device must be the CPU. Without ``copy=True``
        a tensor already of that dtype is returned as it is."""
        unknown = set(kwargs) - _DTYPE_ARGS
        if unknown:
            raise TypeError(f"to() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        dtype, devices = kwargs.get("dtype"), [kwargs.get("device")]
        for a in args:
            if isinstance(a, str) or type(a).__name__ == "device":
                devices.append(a)
            elif hasattr(a, "_data") and hasattr(a, "dtype"):  # to(other): its dtype
                dtype = a.dtype
            elif dtype is None:
                dtype = a
            else:
                raise TypeError(f"to(): got two dtypes, {dtype} and {a}; give one")
        for device in devices:
            if device is not None and str(device).split(":")[0] != "cpu":
                raise RuntimeError(
                    f"to({device!r}): micrograd_edu runs on one device, the CPU; leave the "
                    "device out or write 'cpu'"
                )
        target = self._data.dtype if dtype is None else as_dtype(dtype)
        if target == self._data.dtype:
            return self.clone() if kwargs.get("copy") else self
        if target.kind not in "fc":  # integers and bools carry no gradient
            return self._leaf(self._data.astype(target))
        return self._apply(CAST, self, static=(target,))

    def astype(self, dtype: Any):
        """The tensor as ``dtype`` (numpy's name for :meth:`to`)."""
        return self.to(dtype=dtype)

    def float(self):
        """As float32."""
        return self.to(np.float32)

    def double(self):
        """As float64."""
        return self.to(np.float64)

    def half(self):
        """As float16."""
        return self.to(np.float16)

    def long(self):
        """As int64."""
        return self.to(np.int64)

    def int(self):
        """As int32."""
        return self.to(np.int32)

    def bool(self):
        """As bool."""
        return self.to(np.bool_)

    def cpu(self):
        """This tensor (there is only the CPU)."""
        return self

    def type_as(self, other: Any):
        """As ``other``'s dtype."""
        return self.to(other.dtype)

    def is_floating_point(self) -> bool:
        """Whether the entries are floats."""
        return self._data.dtype.kind == "f"

    def clone(self):
        """A copy of the values that stays in the graph (its gradient passes through);
        also turns an inference tensor into an ordinary one."""
        return self._apply(CLONE, self)

    def contiguous(self):
        """The tensor with its entries in row-major order: itself when they are already,
        else a copy that stays in the graph (as PyTorch's)."""
        if self._data.flags.c_contiguous:
            return self
        return self._apply(CONTIGUOUS, self)

    def copy(self):
        """A detached copy of the values (numpy's name; PyTorch's is ``.detach().clone()``)."""
        return self._leaf(self._data.copy())

    # -------------------------------------------------- comparisons (no gradient)

    def eq(self, other: Any):
        """``self == other``, elementwise, as a bool tensor."""
        return self._leaf(np.equal(self._data, _comparable("eq", other)))

    def ne(self, other: Any):
        """``self != other``, elementwise."""
        return self._leaf(np.not_equal(self._data, _comparable("ne", other)))

    def lt(self, other: Any):
        """``self < other``, elementwise."""
        return self._leaf(np.less(self._data, _comparable("lt", other)))

    def le(self, other: Any):
        """``self <= other``, elementwise."""
        return self._leaf(np.less_equal(self._data, _comparable("le", other)))

    def gt(self, other: Any):
        """``self > other``, elementwise."""
        return self._leaf(np.greater(self._data, _comparable("gt", other)))

    def ge(self, other: Any):
        """``self >= other``, elementwise."""
        return self._leaf(np.greater_equal(self._data, _comparable("ge", other)))

    __lt__, __le__, __gt__, __ge__ = lt, le, gt, ge

    def __eq__(self, other: Any):
        # With None (or a string), Python's answer: not equal (PyTorch's too).
        return NotImplemented if other is None or isinstance(other, str) else self.eq(other)

    def __ne__(self, other: Any):
        return NotImplemented if other is None or isinstance(other, str) else self.ne(other)

    # ------------------------------------------------- bit logic (bools and integers)

    def _bits(self, ufunc: np.ufunc, other: Any, op: str):
        a, b = self._data, data_of(other)
        if isinstance(other, bool | int) and not isinstance(other, np.generic):
            b = number_array(other, a.dtype)
        if np.asarray(b).dtype.kind in "fc" or a.dtype.kind in "fc":
            raise TypeError(
                f"{op}: bit operations take bool and integer tensors, got dtypes {a.dtype} and "
                f"{np.asarray(b).dtype}; compare first (x > 0) to get a bool tensor"
            )
        return self._leaf(ufunc(*same_dtype((a, np.asarray(b)))))

    def __and__(self, other: Any):
        return self._bits(np.bitwise_and, other, "&")

    __rand__ = bitwise_and = __and__

    def __or__(self, other: Any):
        return self._bits(np.bitwise_or, other, "|")

    __ror__ = bitwise_or = __or__

    def __xor__(self, other: Any):
        return self._bits(np.bitwise_xor, other, "^")

    __rxor__ = bitwise_xor = __xor__

    def __invert__(self):
        if self._data.dtype.kind in "fc":
            raise TypeError(
                f"~: bit inversion takes bool and integer tensors, got dtype {self._data.dtype}"
            )
        return self._leaf(np.invert(self._data))

    bitwise_not = __invert__

    def logical_not(self):
        """``not`` of each entry, as bools."""
        return self._leaf(np.logical_not(self._data))

    def isfinite(self):
        """Whether each entry is a finite number, as bools."""
        return self._leaf(np.isfinite(self._data))

    def isnan(self):
        """Whether each entry is nan, as bools."""
        return self._leaf(np.isnan(self._data))

    def isinf(self):
        """Whether each entry is infinite, as bools."""
        return self._leaf(np.isinf(self._data))
