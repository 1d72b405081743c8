"""Making tensors, with PyTorch's names: ``tensor``, ``zeros``, ``ones``, ``full``,
``eye``, ``arange``, ``linspace``, ``rand``, ``randn``, their ``*_like`` forms,
``from_numpy`` and ``manual_seed``.

Floats are float64 unless ``dtype`` says otherwise (PyTorch's default is float32:
see the README's Tensor paragraph); ``tensor`` and ``arange`` keep integers as
int64, as PyTorch does, so ``tensor([0, 2, 1])`` serves as class labels and as an
index. Random tensors come from the package's generator, which
``manual_seed`` resets (the numbers are numpy's, not PyTorch's).

>>> tensor([0, 2, 1]).dtype, tensor([1.0, 2]).dtype
(torch.int64, torch.float64)
>>> zeros(2, 3).shape, ones((2,)), arange(3)
((2, 3), tensor([1., 1.]), tensor([0, 1, 2]))
>>> manual_seed(0); a = randn(2); manual_seed(0); bool((a == randn(2)).all())
True
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from .dtypes import DEFAULT_FLOAT, as_dtype
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
    "empty_like",
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
    return DEFAULT_FLOAT if dtype is None else as_dtype(dtype)


# What PyTorch's factory functions take besides their own arguments: accepted here when they
# change nothing (the CPU, the strided layout), refused otherwise, never ignored.
_OPTIONS = {"dtype", "device", "requires_grad", "layout", "pin_memory", "memory_format"}


def _options(op: str, kwargs: dict, allowed: set = _OPTIONS) -> tuple[Any, bool]:
    """``(dtype, requires_grad)`` from a factory function's keywords, after checking the
    others (see :data:`_OPTIONS`)."""
    unknown = set(kwargs) - allowed
    if unknown:
        raise TypeError(f"{op}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    device = kwargs.get("device")
    if device is not None and str(device).split(":")[0] != "cpu":
        raise RuntimeError(
            f"{op}(device={device!r}): micrograd_edu runs on one device, the CPU; leave the "
            "device out or write 'cpu'"
        )
    layout = kwargs.get("layout")
    if layout is not None and str(layout) not in ("strided", "torch.strided"):
        raise NotImplementedError(f"{op}(layout={layout!r}): only the strided layout exists here")
    return kwargs.get("dtype"), bool(kwargs.get("requires_grad", False))


def _shape(op: str, size: tuple, kwargs: dict) -> tuple[int, ...]:
    """A shape given as ``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))``."""
    if "size" in kwargs:
        if size:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        size = (kwargs.pop("size"),)
    return size_args(size, op)


def tensor(data: Any, **kwargs: Any) -> Tensor:
    """A tensor holding a copy of ``data``, its dtype inferred as ``torch.tensor`` does
    (ints int64, bools bool, floats float64).

    >>> tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    dtype, requires_grad = _options("tensor", kwargs)
    return _make(as_array(data, dtype, infer=True, op="tensor"), requires_grad)


def zeros(*size: Any, **kwargs: Any) -> Tensor:
    """A tensor of zeros of shape ``size``."""
    shape = _shape("zeros", size, kwargs)
    dtype, requires_grad = _options("zeros", kwargs)
    return _make(np.zeros(shape, _float(dtype)), requires_grad)


def ones(*size: Any, **kwargs: Any) -> Tensor:
    """A tensor of ones of shape ``size``."""
    shape = _shape("ones", size, kwargs)
    dtype, requires_grad = _options("ones", kwargs)
    return _make(np.ones(shape, _float(dtype)), requires_grad)


def empty(*size: Any, **kwargs: Any) -> Tensor:
    """A tensor of shape ``size`` (filled with zeros here: nothing is left uninitialised)."""
    shape = _shape("empty", size, kwargs)
    dtype, requires_grad = _options("empty", kwargs)
    return _make(np.zeros(shape, _float(dtype)), requires_grad)


def full(size: Any, fill_value: Any, **kwargs: Any) -> Tensor:
    """A tensor of shape ``size`` filled with ``fill_value`` (its dtype if none is given)."""
    dtype, requires_grad = _options("full", kwargs)
    kind = dtype if dtype is not None else as_array(fill_value, None, True, "full").dtype
    value = getattr(fill_value, "_data", fill_value)
    return _make(np.full(size_args((size,), "full"), value, as_dtype(kind)), requires_grad)


def eye(n: int, m: int | None = None, **kwargs: Any) -> Tensor:
    """The n x m identity matrix (m = n by default)."""
    dtype, requires_grad = _options("eye", kwargs)
    return _make(np.eye(int(n), None if m is None else int(m), dtype=_float(dtype)), requires_grad)


def arange(*bounds: Any, **kwargs: Any) -> Tensor:
    """``start, start + step, ...`` below ``end`` (``arange(end)``, ``arange(start, end,
    step)``, or by keyword): int64 when every bound is an integer, else float64."""
    named = {k: kwargs.pop(k) for k in ("start", "end", "step") if k in kwargs}
    dtype, requires_grad = _options("arange", kwargs)
    if len(bounds) > 3 or (not bounds and "end" not in named):
        raise TypeError(f"arange: give end, or start and end, and an optional step; got {bounds}")
    positions = ("end",) if len(bounds) == 1 else ("start", "end", "step")[: len(bounds)]
    spec = {"start": 0, "step": 1, **dict(zip(positions, bounds, strict=True))}
    for key, value in named.items():
        if key in dict(zip(positions, bounds, strict=True)):
            raise TypeError(f"arange() got multiple values for argument {key!r}")
        spec[key] = value
    start, end, step = (getattr(spec[k], "_data", spec[k]) for k in ("start", "end", "step"))
    whole = all(np.asarray(b).dtype.kind in "iu" for b in (start, end, step))
    kind = dtype if dtype is not None else (np.int64 if whole else DEFAULT_FLOAT)
    return _make(np.arange(start, end, step, dtype=as_dtype(kind)), requires_grad)


def linspace(start: float, end: float, steps: int, **kwargs: Any) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included."""
    dtype, requires_grad = _options("linspace", kwargs)
    return _make(np.linspace(start, end, int(steps), dtype=_float(dtype)), requires_grad)


_RANDOM = _OPTIONS | {"generator"}


def rand(*size: Any, **kwargs: Any) -> Tensor:
    """Uniform random numbers in [0, 1) of shape ``size``, from ``generator`` or the
    package's (see :func:`manual_seed`)."""
    shape = _shape("rand", size, kwargs)
    dtype, requires_grad = _options("rand", kwargs, _RANDOM)
    draw = as_generator(kwargs.get("generator")).random(shape)
    return _make(draw.astype(_float(dtype)), requires_grad)


def randn(*size: Any, **kwargs: Any) -> Tensor:
    """Standard normal random numbers of shape ``size``, from ``generator`` or the
    package's (see :func:`manual_seed`)."""
    shape = _shape("randn", size, kwargs)
    dtype, requires_grad = _options("randn", kwargs, _RANDOM)
    draw = as_generator(kwargs.get("generator")).standard_normal(shape)
    return _make(draw.astype(_float(dtype)), requires_grad)


def randint(*args: Any, **kwargs: Any) -> Tensor:
    """Random integers in [low, high) of shape ``size``, as int64: ``randint(high, size)``,
    ``randint(low, high, size)``, or by keyword."""
    names = ("high", "size") if len(args) <= 2 and "high" not in kwargs else ("low", "high", "size")
    spec = {"low": 0, **dict(zip(names, args))}  # noqa: B905 (fewer args than names)
    for key in ("low", "high", "size"):
        if key in kwargs:
            if key in spec and key in names[: len(args)]:
                raise TypeError(f"randint() got multiple values for argument {key!r}")
            spec[key] = kwargs.pop(key)
    if "high" not in spec or "size" not in spec:
        raise TypeError(
            "randint(): give high and size, as randint(10, (3,)) or randint(0, 10, (3,))"
        )
    dtype, requires_grad = _options("randint", kwargs, _RANDOM)
    draw = as_generator(kwargs.get("generator")).integers(
        int(spec["low"]), int(spec["high"]), size_args((spec["size"],), "randint")
    )
    return _make(np.asarray(draw, dtype=as_dtype(dtype or np.int64)), requires_grad)


def _like(make):
    def like(other: Any, *args: Any, **kwargs: Any) -> Tensor:
        shape = np.shape(getattr(other, "_data", other))
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = getattr(other, "dtype", None)
        return make(shape, *args, **kwargs)

    like.__name__ = f"{make.__name__}_like"
    like.__doc__ = f"``{make.__name__}`` with the shape (and dtype) of ``other``."
    return like


zeros_like, ones_like, full_like, empty_like = _like(zeros), _like(ones), _like(full), _like(empty)
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
