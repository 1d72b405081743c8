"""Weight initialisers, with explicit random generators.

Each initialiser fills an array (or a ``Tensor``) *in place* and
returns what it was given, like ``torch.nn.init``. Randomness always comes from
a :class:`numpy.random.Generator`: pass ``seed=`` an int (the same int gives the
same numbers) or a ``Generator`` (so several layers can share one stream).
Without ``seed`` the package's default generator is used (the one ``randn`` draws
from: :mod:`micrograd_edu.tensor.creation`); reset it with :func:`manual_seed` to
make a whole notebook repeatable, as ``torch.manual_seed`` does.

Fan-in and fan-out follow PyTorch's layout: a ``Linear`` weight has shape
``(out_features, in_features)``, so fan-in is the number of *columns*.

>>> import numpy as np
>>> w = np.empty((3, 4))
>>> _ = kaiming_normal_(w, seed=0)
>>> bool(np.array_equal(w, kaiming_normal_(np.empty((3, 4)), seed=0)))
True
>>> calculate_gain("relu") == 2**0.5
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .tensor.creation import Seed, as_generator, manual_seed

__all__ = [
    "Seed",
    "as_generator",
    "manual_seed",
    "calculate_gain",
    "uniform_",
    "normal_",
    "zeros_",
    "constant_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "xavier_uniform_",
    "xavier_normal_",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The gain PyTorch recommends for an activation (``relu`` → √2, ``tanh`` → 5/3).

    >>> calculate_gain("linear")
    1.0
    """
    if nonlinearity in ("linear", "identity", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1.0 + slope**2))
    raise ValueError(
        f"calculate_gain: unknown nonlinearity {nonlinearity!r}; "
        "use 'linear', 'sigmoid', 'tanh', 'relu' or 'leaky_relu'"
    )


def _array(target: Any, name: str) -> np.ndarray:
    # an array, a tensor's own array (its .data is a tensor), or another object's .data
    array = target if isinstance(target, np.ndarray) else getattr(target, "_data", None)
    if not isinstance(array, np.ndarray):
        array = getattr(target, "data", None)
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{name}: expected a numpy array or a Tensor, got {type(target).__name__}")
    return array


def _fans(array: np.ndarray, name: str) -> tuple[int, int]:
    if array.ndim < 2:
        raise ValueError(
            f"{name}: fan-in and fan-out need a weight with at least 2 dimensions, "
            f"got shape {array.shape}; initialise a bias with uniform_ or zeros_"
        )
    receptive = int(np.prod(array.shape[2:])) if array.ndim > 2 else 1
    return array.shape[1] * receptive, array.shape[0] * receptive


def uniform_(target: Any, low: float = 0.0, high: float = 1.0, *, seed: Seed = None) -> Any:
    """Fill with U(low, high).

    >>> w = uniform_(np.empty(1000), -2.0, 2.0, seed=1)
    >>> bool(-2 <= w.min() and w.max() < 2)
    True
    """
    array = _array(target, "uniform_")
    array[...] = as_generator(seed).uniform(low, high, size=array.shape)
    return target


def normal_(target: Any, mean: float = 0.0, std: float = 1.0, *, seed: Seed = None) -> Any:
    """Fill with N(mean, std²).

    >>> round(float(normal_(np.empty(100_000), 3.0, 0.5, seed=1).std()), 2)
    0.5
    """
    array = _array(target, "normal_")
    array[...] = as_generator(seed).normal(mean, std, size=array.shape)
    return target


def constant_(target: Any, value: float) -> Any:
    """Fill with ``value``.

    >>> constant_(np.empty(2), 7.0)
    array([7., 7.])
    """
    _array(target, "constant_")[...] = value
    return target


def zeros_(target: Any) -> Any:
    """Fill with zeros (the usual start for a bias).

    >>> zeros_(np.ones(2))
    array([0., 0.])
    """
    return constant_(target, 0.0)


def _kaiming_std(array: np.ndarray, a: float, mode: str, nonlinearity: str, name: str) -> float:
    fan_in, fan_out = _fans(array, name)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"{name}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_normal_(
    target: Any,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    *,
    seed: Seed = None,
) -> Any:
    """He initialisation: N(0, gain²/fan) (He et al., 2015). PyTorch's default
    ``nonlinearity="leaky_relu"`` with slope ``a`` gives gain √(2/(1 + a²)): √2 for a = 0.

    >>> w = kaiming_normal_(np.empty((400, 50)), seed=0)   # fan_in = 50
    >>> round(float(w.std() * 50**0.5), 1)                 # ≈ √2
    1.4
    """
    array = _array(target, "kaiming_normal_")
    std = _kaiming_std(array, a, mode, nonlinearity, "kaiming_normal_")
    return normal_(target, 0.0, std, seed=seed)


def kaiming_uniform_(
    target: Any,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    *,
    seed: Seed = None,
) -> Any:
    """He initialisation, uniform: U(−b, b) with b = √3 · gain/√fan (same variance),
    gain as in :func:`kaiming_normal_`. ``a=√5`` gives b = 1/√fan, the bound of
    PyTorch's ``Linear`` weights.

    >>> w = kaiming_uniform_(np.empty((400, 50)), seed=0)
    >>> bool(np.abs(w).max() <= 6**0.5 / 50**0.5)
    True
    """
    array = _array(target, "kaiming_uniform_")
    bound = math.sqrt(3.0) * _kaiming_std(array, a, mode, nonlinearity, "kaiming_uniform_")
    return uniform_(target, -bound, bound, seed=seed)


def xavier_normal_(target: Any, gain: float = 1.0, *, seed: Seed = None) -> Any:
    """Glorot initialisation: N(0, gain² · 2/(fan_in + fan_out)).

    >>> w = xavier_normal_(np.empty((300, 100)), seed=0)
    >>> round(float(w.std() * (400 / 2) ** 0.5), 1)
    1.0
    """
    fan_in, fan_out = _fans(_array(target, "xavier_normal_"), "xavier_normal_")
    return normal_(target, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), seed=seed)


def xavier_uniform_(target: Any, gain: float = 1.0, *, seed: Seed = None) -> Any:
    """Glorot initialisation, uniform: U(−b, b) with b = gain · √(6/(fan_in + fan_out)).

    >>> w = xavier_uniform_(np.empty((300, 100)), seed=0)
    >>> bool(np.abs(w).max() <= (6 / 400) ** 0.5)
    True
    """
    fan_in, fan_out = _fans(_array(target, "xavier_uniform_"), "xavier_uniform_")
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(target, -bound, bound, seed=seed)
