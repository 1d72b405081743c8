"""Numerical differentiation: finite differences, gradients, Jacobians, gradcheck.

A derivative is a limit, ``f'(x) = lim (f(x + h) - f(x)) / h``; a computer can
only take one small ``h``. Two errors fight over its size:

* truncation: the difference quotient is not the derivative. The error shrinks
  like ``h`` for the one-sided differences and like ``h**2`` for the central one;
* rounding: ``f(x + h) - f(x)`` cancels most digits, leaving an error about
  ``eps * |f| / h`` that *grows* as ``h`` shrinks.

Balancing the two gives the default steps: ``sqrt(eps)`` (about 1.5e-8) for
forward and backward differences and ``cbrt(eps)`` (about 6e-6) for central
ones, scaled by ``max(1, |x|)``. :func:`step_size_study` measures that V shape.

>>> import math
>>> round(central_difference(math.sin, 0.0), 9)
1.0
>>> g, evaluations = gradient(lambda a, b: a * b, [2.0, 5.0])
>>> g.round(6).tolist(), evaluations
([5.0, 2.0], 4)

Numerical derivatives cost two evaluations of ``f`` per input (``2n`` for a
gradient), which is why nobody trains a network with them; they are the
independent oracle every other engine is tested against (:func:`gradcheck`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "forward_difference",
    "backward_difference",
    "central_difference",
    "gradient",
    "jacobian",
    "Gradient",
    "Jacobian",
    "gradcheck",
    "GradcheckResult",
    "step_size_study",
    "StepSizeStudy",
    "loglog_slope",
]

EPS = sys.float_info.epsilon


def _name(f: Any) -> str:
    return getattr(f, "__name__", type(f).__name__)


def _call(f: Any, at: tuple) -> str:
    """``f(1.0, 2.0)`` as text for an error message (long argument lists are cut)."""
    shown = ", ".join(repr(a) for a in at[:6]) + (", ..." if len(at) > 6 else "")
    return f"{_name(f)}({shown})"


def _check_callable(f: Any, where: str) -> None:
    if not callable(f):
        raise TypeError(f"{where}: f must be a function, got {type(f).__name__} {f!r}")


def _step(h: float | None, x: float, power: float, where: str) -> float:
    """The step to use at ``x``: ``h`` if given (checked), else ``eps**power * max(1, |x|)``."""
    if h is None:
        return EPS**power * max(1.0, abs(x))
    if not isinstance(h, (int, float)) or isinstance(h, bool) or not (math.isfinite(h) and h > 0):
        raise ValueError(f"{where}: the step h must be a finite positive number, got h={h!r}")
    return float(h)


def _outputs(value: Any, f: Any, where: str, at: tuple) -> np.ndarray:
    """``f``'s value as a 1-D float array (a scalar becomes one output), checked finite."""
    try:
        array = np.asarray(value)
        if array.dtype.kind not in "iuf":
            raise TypeError
        array = array.astype(float).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(
            f"{where}: {_call(f, at)} returned {value!r} ({type(value).__name__}), "
            "not a number or a sequence of numbers"
        ) from None
    if not np.all(np.isfinite(array)):
        raise ValueError(
            f"{where}: {_call(f, at)} returned {value!r}; finite differences need finite "
            "values, so evaluate f inside its domain"
        )
    return array


def _number(value: Any, f: Any, where: str, at: tuple) -> float:
    """A scalar function's value as a float."""
    array = _outputs(value, f, where, at)
    if array.size != 1:
        raise ValueError(
            f"{where}: {_call(f, at)} returned {array.size} values; it must return one number"
        )
    return float(array[0])


def _check_point(x: Any, where: str, name: str = "x") -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.floating, np.integer)):
        raise TypeError(f"{where}: {name} must be a real number, got {type(x).__name__} {x!r}")
    if not math.isfinite(x):
        raise ValueError(f"{where}: {name} must be finite, got {name}={x!r}")
    return float(x)


def _difference(where: str, f: Any, x: Any, h: Any, power: float, lo: int, hi: int) -> float:
    """``(f(x + hi*h) - f(x + lo*h)) / ((hi - lo) h)``, with its inputs and values checked."""
    _check_callable(f, where)
    x = _check_point(x, where)
    h = _step(h, x, power, where)
    at = lambda t: _number(f(t), f, where, (t,))
    return (at(x + hi * h) - at(x + lo * h)) / ((hi - lo) * h)


def forward_difference(f: Callable[[float], float], x: float, h: float | None = None) -> float:
    """``(f(x + h) - f(x)) / h``: error of order ``h``. Default ``h = sqrt(eps) max(1, |x|)``.

    >>> round(forward_difference(lambda t: t * t, 3.0), 6)
    6.0
    """
    return _difference("forward_difference", f, x, h, 1 / 2, 0, 1)


def backward_difference(f: Callable[[float], float], x: float, h: float | None = None) -> float:
    """``(f(x) - f(x - h)) / h``: error of order ``h``. Default ``h = sqrt(eps) max(1, |x|)``.

    >>> round(backward_difference(lambda t: t * t, 3.0), 6)
    6.0
    """
    return _difference("backward_difference", f, x, h, 1 / 2, -1, 0)


def central_difference(f: Callable[[float], float], x: float, h: float | None = None) -> float:
    """``(f(x + h) - f(x - h)) / 2h``: error of order ``h**2``. Default ``cbrt(eps) max(1, |x|)``.

    >>> round(central_difference(lambda t: t**3, 2.0), 8)
    12.0
    """
    return _difference("central_difference", f, x, h, 1 / 3, -1, 1)


class Gradient(NamedTuple):
    """A numerical gradient and the number of evaluations of ``f`` it cost."""

    gradient: np.ndarray
    evaluations: int


class Jacobian(NamedTuple):
    """A numerical Jacobian (``m`` outputs by ``n`` inputs) and the evaluations it cost."""

    jacobian: np.ndarray
    evaluations: int


def _central_jacobian(f: Callable[..., Any], xs: Sequence[float], h: float | None, where: str):
    """Central differences in each coordinate: the columns of the Jacobian, 2n evaluations."""
    _check_callable(f, where)
    if isinstance(xs, (int, float)) or len(xs) == 0:
        raise ValueError(f"{where}: xs must be a non-empty sequence of numbers, got {xs!r}")
    point = [_check_point(x, where) for x in xs]
    columns = []
    for i, x in enumerate(point):
        step = _step(h, x, 1 / 3, where)
        up, down = list(point), list(point)
        up[i], down[i] = x + step, x - step
        f_up = _outputs(f(*up), f, where, tuple(up))
        f_down = _outputs(f(*down), f, where, tuple(down))
        columns.append((f_up - f_down) / (2 * step))
    return np.stack(columns, axis=1), 2 * len(point)


def gradient(f: Callable[..., float], xs: Sequence[float], h: float | None = None) -> Gradient:
    """The gradient of a scalar ``f(*xs)`` by central differences, and its ``2n`` evaluations.

    >>> import math
    >>> g, n = gradient(lambda a, b: math.log(a) + a * b - math.sin(b), [2.0, 5.0])
    >>> g.round(6).tolist(), n
    ([5.5, 1.716338], 4)
    """
    matrix, evaluations = _central_jacobian(f, xs, h, "gradient")
    if matrix.shape[0] != 1:
        raise ValueError(
            f"gradient: {_name(f)} returned {matrix.shape[0]} outputs; a gradient needs a scalar "
            "function, use jacobian() for several outputs"
        )
    return Gradient(matrix[0], evaluations)


def jacobian(f: Callable[..., Any], xs: Sequence[float], h: float | None = None) -> Jacobian:
    """The ``m x n`` Jacobian of ``f(*xs)`` (m outputs) by central differences, ``2n`` evaluations.

    >>> J, n = jacobian(lambda a, b: [a * b, a + b], [2.0, 3.0])
    >>> J.round(6).tolist(), n
    ([[3.0, 2.0], [1.0, 1.0]], 4)
    """
    return Jacobian(*_central_jacobian(f, xs, h, "jacobian"))


# ----------------------------------------------------------------------------- gradcheck


@dataclass(frozen=True)
class GradcheckResult:
    """The verdict of :func:`gradcheck`: truthy iff every element is within tolerance.

    The worst element is the one furthest outside (or closest to leaving) its
    tolerance ``atol + rtol * |numeric|``: ``input`` says which argument holds it
    (an index, from 0; the text counts from 1, "input 2 of 3"), ``index`` where inside
    that argument (``()`` for a scalar).
    """

    passed: bool
    input: int
    index: tuple[int, ...]
    analytic: float
    numeric: float
    error: float
    tolerance: float
    evaluations: int
    inputs: int = 1  # how many arguments f took

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        where = f"input {self.input + 1} of {self.inputs}"
        where += f" at {list(self.index)}" if self.index else ""
        return (
            f"gradcheck {verdict}: worst element {where}: analytic {self.analytic:.10g}, "
            f"numeric {self.numeric:.10g}, |error| {self.error:.3g} "
            f"(tolerance {self.tolerance:.3g}, {self.evaluations} evaluations)"
        )


def _is_node(x: Any) -> bool:
    # numpy arrays and scalars have a .data too (their raw buffer): they are not nodes.
    return hasattr(x, "data") and not isinstance(x, (np.ndarray, np.generic))


def _data(x: Any) -> Any:
    return x.data if _is_node(x) else x


def _restore(template: Any, values: np.ndarray) -> Any:
    """``values`` in the form of ``template``: a float for a scalar, else an array of its shape."""
    if isinstance(template, np.ndarray) or np.ndim(template) > 0:
        return values.reshape(np.shape(template)).copy()
    return float(values[0])


def _leaf(x: Any, data: Any) -> Any:
    """A fresh leaf of ``x``'s type; tensors must ask for a gradient explicitly."""
    if hasattr(x, "requires_grad"):
        return type(x)(data, requires_grad=True)
    return type(x)(data)


def gradcheck(
    f: Callable[..., Any],
    *inputs: Any,
    grad_fn: Callable[..., Any] | None = None,
    h: float | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
) -> GradcheckResult:
    """Compare an automatic gradient of ``f`` at ``inputs`` with central differences.

    **With an AD engine** (``grad_fn`` not given), duck typing decides: each input
    is a leaf with ``.data`` (a float or an ndarray) and ``.grad``; ``f`` returns a
    node with ``.data`` and ``.backward()``. Fresh leaves ``type(x)(data)`` (with
    ``requires_grad=True`` when ``x`` has that attribute) are built for every
    evaluation, so the inputs' own ``.grad`` are left alone. A scalar output is
    checked with ``out.backward()``. A non-scalar output is checked through a
    vector-Jacobian product: a random cotangent ``v`` (seeded by ``seed``, a numpy
    array of the output's shape) is passed as ``out.backward(v)``, and the
    gradients are compared with those of ``sum(v * f)``. A leaf whose ``.grad``
    stays ``None`` counts as a zero gradient.

    **With a gradient function**, ``f`` takes plain numbers or arrays (``.data`` is
    read from inputs that have it; lists arrive as arrays), returns a scalar, and
    ``grad_fn`` takes the same arguments and returns a tuple with one gradient per
    input (with one input, the gradient itself).

    ``h`` is the central-difference step (default ``cbrt(eps) max(1, |x|)`` per
    element); an element passes when ``|analytic - numeric| <= atol + rtol |numeric|``.

    >>> import math
    >>> ok = gradcheck(math.sin, 0.5, grad_fn=math.cos)
    >>> bool(ok), ok.input, round(ok.analytic, 6)
    (True, 0, 0.877583)
    >>> bad = gradcheck(math.sin, 0.5, grad_fn=lambda x: -math.cos(x))
    >>> bad
    gradcheck FAILED: worst element input 1 of 1: analytic -0.8775825619, ...
    """
    _check_callable(f, "gradcheck")
    if not inputs:
        raise ValueError("gradcheck: give at least one input after f, e.g. gradcheck(f, x)")
    if grad_fn is None:
        for i, x in enumerate(inputs):
            if not _is_node(x):
                raise TypeError(
                    f"gradcheck: input {i + 1} of {len(inputs)} is a {type(x).__name__}, not an "
                    "engine node with .data and .grad; pass leaves (Value, Tensor), or plain data "
                    "together with grad_fn="
                )
    else:
        _check_callable(grad_fn, "gradcheck (grad_fn)")
    templates = [_data(x) for x in inputs]
    arrays = [np.asarray(t, dtype=float) for t in templates]

    def arguments(values: list[np.ndarray]) -> list[Any]:
        restored = [_restore(t, v) for t, v in zip(templates, values, strict=True)]
        if grad_fn is not None:
            return restored
        return [_leaf(x, d) for x, d in zip(inputs, restored, strict=True)]

    # The analytic side.
    cotangent = None
    start = arguments([a.reshape(-1) for a in arrays])  # lists arrive as arrays, as below
    if grad_fn is None:
        leaves = start
        out = f(*leaves)
        if not (_is_node(out) and hasattr(out, "backward")):
            raise TypeError(
                f"gradcheck: {_name(f)} returned a {type(out).__name__}, not a node with .data "
                "and .backward(); build the output from the inputs with the engine's operations"
            )
        out_data = np.asarray(_data(out), dtype=float)
        if out_data.ndim == 0:
            out.backward()
        else:
            cotangent = np.random.default_rng(seed).standard_normal(out_data.shape)
            out.backward(cotangent)
        grads = [
            np.zeros_like(a) if leaf.grad is None else leaf.grad
            for a, leaf in zip(arrays, leaves, strict=True)
        ]
    else:
        grads = grad_fn(*start)
        if len(inputs) == 1 and not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) != len(inputs):
            raise ValueError(
                f"gradcheck: grad_fn returned {len(grads)} gradients for {len(inputs)} inputs"
            )
    analytic = []
    for i, (a, g) in enumerate(zip(arrays, grads, strict=True)):
        g = np.asarray(g, dtype=float)
        if g.shape != a.shape:
            raise ValueError(
                f"gradcheck: the gradient of input {i + 1} of {len(inputs)} has shape {g.shape} "
                f"but the input has shape {a.shape}; a gradient must have its input's shape"
            )
        analytic.append(g.reshape(-1))

    # The numerical side: one scalar function of every element of every input.
    sizes = [a.size for a in arrays]
    splits = np.cumsum(sizes)[:-1]

    def scalarised(*flat: float) -> float:
        values = np.split(np.asarray(flat), splits)
        value = np.asarray(_data(f(*arguments(values))), dtype=float)
        if cotangent is not None:
            return float(np.sum(cotangent * value))
        if value.ndim != 0:
            raise ValueError(
                f"gradcheck: {_name(f)} returned shape {value.shape}; with grad_fn= f must "
                "return a scalar"
            )
        return float(value)

    scalarised.__name__ = _name(f)
    numeric, evaluations = gradient(
        scalarised, np.concatenate([a.reshape(-1) for a in arrays]).tolist(), h
    )

    # The verdict: the element furthest outside its tolerance.
    a_all = np.concatenate(analytic)
    error = np.abs(a_all - numeric)
    tolerance = atol + rtol * np.abs(numeric)
    ratio = np.where(np.isnan(error), np.inf, error / tolerance)
    k = int(np.argmax(ratio))
    which = int(np.searchsorted(splits, k, side="right"))
    offset = k - (int(splits[which - 1]) if which else 0)
    index = tuple(int(i) for i in np.unravel_index(offset, arrays[which].shape))
    return GradcheckResult(
        passed=bool(np.all(error <= tolerance)),
        input=which,
        index=index,
        analytic=float(a_all[k]),
        numeric=float(numeric[k]),
        error=float(error[k]),
        tolerance=float(tolerance[k]),
        evaluations=evaluations,
        inputs=len(inputs),
    )


# ----------------------------------------------------------------------------- step sizes


class StepSizeStudy(NamedTuple):
    """Errors of forward and central differences at each step ``h``, and the best steps."""

    hs: np.ndarray
    forward_errors: np.ndarray
    central_errors: np.ndarray
    best_forward_h: float
    best_central_h: float


def step_size_study(
    f: Callable[[float], float], x: float, hs: Sequence[float], exact: float
) -> StepSizeStudy:
    """Measure how the error of forward and central differences depends on ``h``.

    On a log-log plot both curves make a V: truncation error (slope 1 for forward,
    2 for central) on the right, rounding error ``~ eps/h`` (slope -1) on the left.
    The bottoms sit near ``sqrt(eps)`` and ``cbrt(eps)``.

    >>> import math
    >>> study = step_size_study(math.sin, 1.0, np.logspace(-12, -1, 111), math.cos(1.0))
    >>> 1e-9 < study.best_forward_h < 1e-7, 1e-6 < study.best_central_h < 1e-4
    (True, True)
    """
    _check_callable(f, "step_size_study")
    steps = np.asarray(hs, dtype=float).reshape(-1)
    if steps.size == 0 or not np.all(np.isfinite(steps) & (steps > 0)):
        raise ValueError(
            f"step_size_study: hs must be a non-empty sequence of finite positive steps, got {hs!r}"
        )
    exact = _check_point(exact, "step_size_study", "exact")
    forward = np.array([abs(forward_difference(f, x, h) - exact) for h in steps])
    central = np.array([abs(central_difference(f, x, h) - exact) for h in steps])
    return StepSizeStudy(
        steps, forward, central, float(steps[np.argmin(forward)]), float(steps[np.argmin(central)])
    )


def loglog_slope(hs: Sequence[float], errors: Sequence[float], h_min: float, h_max: float) -> float:
    """Least-squares slope of ``log10(error)`` against ``log10(h)`` for ``h_min <= h <= h_max``.

    Zero errors (exact by luck) are left out, since their logarithm is undefined.

    >>> hs = np.logspace(-4, -1, 10)
    >>> round(loglog_slope(hs, 3 * hs**2, 1e-4, 1e-1), 6)
    2.0
    """
    h = np.asarray(hs, dtype=float)
    e = np.asarray(errors, dtype=float)
    keep = (h >= h_min) & (h <= h_max) & (e > 0)
    if keep.sum() < 2:
        raise ValueError(
            f"loglog_slope: need at least two non-zero errors with {h_min} <= h <= {h_max}, "
            f"found {int(keep.sum())}"
        )
    return float(np.polyfit(np.log10(h[keep]), np.log10(e[keep]), 1)[0])
