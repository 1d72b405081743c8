"""Making tensors, with PyTorch's names: ``tensor``, ``zeros``, ``ones``, ``full``,
``eye``, ``arange``, ``linspace``, ``rand``, ``randn``, their ``*_like`` forms,
``from_numpy`` and ``manual_seed``.

Floats are float64 unless ``dtype`` says otherwise (PyTorch's default is float32:
see the README's Tensor paragraph); ``tensor`` and ``arange`` keep integers as
int64, as PyTorch does, so ``tensor([0, 2, 1])`` serves as class labels and as an
index. Random tensors come from the package's generator, which
``manual_seed`` resets (the numbers are numpy's, not PyTorch's).

>>> tensor([0, 2, 1]).dtype, tensor([1.0, 2]).dtype
(dtype('int64'), dtype('float64'))
>>> zeros(2, 3).shape, ones((2,)), arange(3)
((2, 3), tensor([1., 1.]), tensor([0, 1, 2]))
>>> manual_seed(0); a = randn(2); manual_seed(0); bool((a == randn(2)).all())
True
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from .elementwise import as_dtype
from .shape import size_args
from .tensor import Tensor, as_array, leaf

__all__ = [
    "tensor",
    "zeros",
    "ones",
    "full",
    "empty",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "randint",
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    "from_numpy",
    "manual_seed",
    "as_generator",
    "Seed",
]


#: A seed: an int (a fresh generator: the same int, the same numbers), a generator
#: (shared, so several layers draw from one stream) or None (the package's default).
#: (Written with a forward reference: naming numpy.random here would import it.)
Seed = Union[int, "np.random.Generator", None]  # noqa: UP007

# The default generator, made on first use (numpy.random costs 10 ms to import) as if
# by manual_seed(0), and reset by manual_seed.
_default: Any = None


def as_generator(seed: Seed) -> np.random.Generator:
    """A ``numpy.random.Generator`` from an int seed, a generator, or ``None``.

    An int gives a fresh generator (the same int, the same numbers); a generator
    is returned as it is, so callers can share one stream; ``None`` means the
    package's default generator (see :func:`manual_seed`).

    >>> int(as_generator(5).integers(100)) == int(as_generator(5).integers(100))
    True
    """
    global _default
    if seed is None:
        if _default is None:
            _default = np.random.default_rng(0)
        return _default
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return np.random.default_rng(int(seed))
    raise TypeError(
        f"seed must be an int, a numpy.random.Generator or None, got {type(seed).__name__} {seed!r}"
    )


def _make(array: np.ndarray, requires_grad: bool) -> Tensor:
    t = leaf(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _float(dtype: Any) -> np.dtype:
    return np.dtype(np.float64) if dtype is None else as_dtype(dtype)


def tensor(data: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any) -> Tensor:
    """A tensor holding a copy of ``data``, its dtype inferred as ``torch.tensor`` does
    (ints int64, bools bool, floats float64).

    >>> tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    return _make(as_array(data, dtype, infer=True, op="tensor"), requires_grad)


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any) -> Tensor:
    """A tensor of zeros of shape ``size``."""
    return _make(np.zeros(size_args(size, "zeros"), _float(dtype)), requires_grad)


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any) -> Tensor:
    """A tensor of ones of shape ``size``."""
    return _make(np.ones(size_args(size, "ones"), _float(dtype)), requires_grad)


def empty(*size: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any) -> Tensor:
    """A tensor of shape ``size`` (filled with zeros here: nothing is left uninitialised)."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(
    size: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any
) -> Tensor:
    """A tensor of shape ``size`` filled with ``fill_value`` (its dtype if none is given)."""
    kind = dtype if dtype is not None else as_array(fill_value, None, True, "full").dtype
    return _make(np.full(size_args((size,), "full"), fill_value, as_dtype(kind)), requires_grad)


def eye(
    n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False, **_device: Any
) -> Tensor:
    """The n x m identity matrix (m = n by default)."""
    return _make(np.eye(int(n), None if m is None else int(m), dtype=_float(dtype)), requires_grad)


def arange(*bounds: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any) -> Tensor:
    """``start, start + step, ...`` below ``end`` (``arange(end)``, ``arange(start, end,
    step)``): int64 when every bound is an int, else float64."""
    if not 1 <= len(bounds) <= 3:
        raise TypeError(f"arange: give end, or start and end, and an optional step; got {bounds}")
    whole = all(isinstance(b, int | np.integer) for b in bounds)
    kind = dtype if dtype is not None else (np.int64 if whole else np.float64)
    return _make(np.arange(*bounds, dtype=as_dtype(kind)), requires_grad)


def linspace(
    start: float, end: float, steps: int, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included."""
    return _make(np.linspace(start, end, int(steps), dtype=_float(dtype)), requires_grad)


def rand(*size: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any) -> Tensor:
    """Uniform random numbers in [0, 1) of shape ``size`` (see :func:`manual_seed`)."""
    draw = as_generator(None).random(size_args(size, "rand"))
    return _make(draw.astype(_float(dtype)), requires_grad)


def randn(*size: Any, dtype: Any = None, requires_grad: bool = False, **_device: Any) -> Tensor:
    """Standard normal random numbers of shape ``size`` (see :func:`manual_seed`)."""
    draw = as_generator(None).standard_normal(size_args(size, "randn"))
    return _make(draw.astype(_float(dtype)), requires_grad)


def randint(low: int, high: int | None = None, size: Any = (), **_device: Any) -> Tensor:
    """Random integers in [low, high) (or [0, low)) of shape ``size``, as int64."""
    low, high = (0, low) if high is None else (low, high)
    draw = as_generator(None).integers(low, high, size_args((size,), "randint"))
    return _make(np.asarray(draw, dtype=np.int64), False)


def _like(make):
    def like(other: Any, *args: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        shape = np.shape(getattr(other, "_data", other))
        kind = dtype if dtype is not None else getattr(other, "dtype", None)
        return make(shape, *args, dtype=kind, requires_grad=requires_grad)

    like.__name__ = f"{make.__name__}_like"
    like.__doc__ = f"``{make.__name__}`` with the shape (and dtype) of ``other``."
    return like


zeros_like, ones_like, full_like = _like(zeros), _like(ones), _like(full)
rand_like, randn_like = _like(rand), _like(randn)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor that *shares* ``array``'s memory (no copy), as ``torch.from_numpy``.

    >>> a = np.zeros(2); t = from_numpy(a); a[0] = 5.0; t
    tensor([5., 0.])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy array, got {type(array).__name__}")
    return _make(array, False)


def manual_seed(seed: int) -> None:
    """Reset the package's random generator (``rand``, ``randn``, layers' weights,
    ``Dropout``, the initialisers of :mod:`micrograd_edu.init`) so that what follows is
    repeatable, as ``torch.manual_seed``.

    >>> manual_seed(3); a = as_generator(None).random()
    >>> manual_seed(3); a == as_generator(None).random()
    True
    """
    global _default
    _default = np.random.default_rng(seed)
