"""The course's synthetic data sets, and a mini-batch iterator.

Every function takes ``seed=`` (an int or a ``numpy.random.Generator``), so a
notebook that passes the same seed sees the same numbers on every machine.
Arrays are float64 and shaped for a model: inputs ``(n, features)``, targets
``(n, 1)``.

>>> X, y, beta = linear_regression(n=4, seed=0)
>>> X.shape, y.shape, beta.shape
((4, 5), (4, 1), (5,))
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..init import Seed, as_generator

__all__ = ["linear_regression", "piecewise_truth", "piecewise", "two_moons", "Batches"]


def linear_regression(
    n: int = 10_000, m: int = 5, noise: float = 0.1, *, seed: Seed = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A linear problem: y = X·β + ε with X ~ U(−1, 1), β ~ N(−1, 1), ε ~ N(0, noise²).

    Returns ``X`` (n, m), ``y`` (n, 1) and the true ``beta`` (m,), which a
    linear model without bias should recover.

    >>> X, y, beta = linear_regression(seed=1)
    >>> X.shape, y.shape
    ((10000, 5), (10000, 1))
    >>> bool(np.abs(y[:, 0] - X @ beta).std() < 0.11)
    True
    """
    _require_positive(n=n, m=m)
    rng = as_generator(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, m))
    beta = rng.normal(-1.0, 1.0, size=m)
    y = X @ beta + rng.normal(0.0, noise, size=n)
    return X, y[:, None], beta


def piecewise_truth(x: np.ndarray | float) -> np.ndarray:
    """The noiseless non-linear target: −3x² − 2 for x < 0, e^{1.5x}·sin(10x) otherwise.

    It jumps at 0 (from −2 to 0) and oscillates on the right, which is what makes
    a deep ReLU network work for its fit.

    >>> piecewise_truth(np.array([-1.0, 0.0]))
    array([-5.,  0.])
    """
    x = np.asarray(x, dtype=float)
    return np.where(x < 0, -3.0 * x**2 - 2.0, np.exp(1.5 * x) * np.sin(10.0 * x))


def piecewise(
    n: int = 1000, noise: float = 0.1, *, seed: Seed = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Noisy samples of :func:`piecewise_truth` at x ~ U(−1, 1).

    Returns ``x`` (n, 1) and ``y`` (n, 1).

    >>> x, y = piecewise(seed=0)
    >>> x.shape, y.shape
    ((1000, 1), (1000, 1))
    >>> bool(np.abs(y - piecewise_truth(x)).std() < 0.11)
    True
    """
    _require_positive(n=n)
    rng = as_generator(seed)
    x = rng.uniform(-1.0, 1.0, size=(n, 1))
    return x, piecewise_truth(x) + rng.normal(0.0, noise, size=(n, 1))


def two_moons(n: int = 200, noise: float = 0.1, *, seed: Seed = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles, a classic non-linearly separable problem.

    The upper moon is (cos t, sin t) and the lower one (1 − cos t, ½ − sin t)
    for t evenly spaced in [0, π]; Gaussian noise of std ``noise`` is added to
    both coordinates and the rows are shuffled. Returns ``X`` (n, 2) and labels
    ``y`` (n,) in {0, 1} (1 for the lower moon); n//2 points are in the upper moon.

    >>> X, y = two_moons(n=10, noise=0.0, seed=0)
    >>> X.shape, int(y.sum())
    ((10, 2), 5)
    """
    _require_positive(n=n)
    rng = as_generator(seed)
    n_upper = n // 2
    t_upper = np.linspace(0.0, np.pi, n_upper)
    t_lower = np.linspace(0.0, np.pi, n - n_upper)
    upper = np.stack([np.cos(t_upper), np.sin(t_upper)], axis=1)
    lower = np.stack([1.0 - np.cos(t_lower), 0.5 - np.sin(t_lower)], axis=1)
    X = np.concatenate([upper, lower]) + rng.normal(0.0, noise, size=(n, 2))
    y = np.concatenate([np.zeros(n_upper), np.ones(n - n_upper)])
    order = rng.permutation(n)
    return X[order], y[order]


class Batches:
    """Mini-batches of one or more arrays, reshuffled at every pass.

    ``for xb, yb in Batches(x, y, batch_size=32, seed=0)`` is one epoch; iterate
    again for the next epoch, with a new order drawn from the same seeded
    generator (so two ``Batches`` with the same seed give the same epochs).
    The last batch is smaller when ``batch_size`` does not divide the number of
    rows, unless ``drop_last=True`` drops it.

    >>> x = np.arange(5.0)
    >>> [b.tolist() for (b,) in Batches(x, batch_size=2, shuffle=False)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    >>> len(Batches(x, batch_size=2, drop_last=True))
    2
    """

    def __init__(
        self,
        *arrays: np.ndarray,
        batch_size: int,
        shuffle: bool = True,
        drop_last: bool = False,
        seed: Seed = 0,
    ) -> None:
        if not arrays:
            raise ValueError("Batches: give at least one array to split into batches")
        lengths = {len(a) for a in arrays}
        if len(lengths) != 1:
            shapes = ", ".join(str(np.shape(a)) for a in arrays)
            raise ValueError(
                f"Batches: the arrays must have the same number of rows, got shapes {shapes}"
            )
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"Batches: batch_size must be a positive int, got {batch_size!r}")
        self.arrays = tuple(np.asarray(a) for a in arrays)
        self.n = lengths.pop()
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.rng = as_generator(seed)

    def __len__(self) -> int:
        if self.drop_last:
            return self.n // self.batch_size
        return -(-self.n // self.batch_size)

    def indices(self) -> Iterator[np.ndarray]:
        """The row indices of each batch of one epoch (draws a new order if shuffling)."""
        order = self.rng.permutation(self.n) if self.shuffle else np.arange(self.n)
        for k in range(len(self)):
            yield order[k * self.batch_size : (k + 1) * self.batch_size]

    def __iter__(self) -> Iterator[tuple[np.ndarray, ...]]:
        for index in self.indices():
            yield tuple(a[index] for a in self.arrays)


def _require_positive(**sizes: int) -> None:
    for name, value in sizes.items():
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
