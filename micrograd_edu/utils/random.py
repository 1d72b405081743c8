"""``Generator`` and ``randperm``: PyTorch's CPU random generator, for shuffling.

PyTorch's CPU generator is a Mersenne Twister (mt19937) seeded with the low 32 bits of its
seed, and ``randperm`` shuffles ``0 .. n-1`` with one 32-bit draw per position. Written out
here on numpy's MT19937, the same seed gives the same permutation as PyTorch, so a
``DataLoader`` that shuffles with a seeded ``Generator`` visits the samples in PyTorch's
order. (Normal and uniform draws, ``randn`` and ``rand``, come from numpy and differ from
PyTorch's: see the README.) A ``Generator`` is also a ``numpy.random.Generator``, so it can
be passed wherever the package takes one.

>>> g = Generator().manual_seed(0)
>>> randperm(6, generator=g).tolist()
[2, 5, 3, 0, 1, 4]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import init
from ..tensor import Tensor, tensor

__all__ = ["Generator", "randperm"]

DEFAULT_SEED = 67280421310721  # the seed of a fresh torch.Generator()


def _mt19937_state(seed: int) -> dict:
    """The state mt19937's ``init_genrand`` makes from a 32-bit seed (what PyTorch does)."""
    key = np.zeros(624, dtype=np.uint32)
    value = seed & 0xFFFFFFFF
    key[0] = value
    for i in range(1, 624):
        value = (1812433253 * (value ^ (value >> 30)) + i) & 0xFFFFFFFF
        key[i] = value
    return {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}


class Generator(np.random.Generator):
    """``torch.Generator``: see the module docstring."""

    def __init__(self, device: Any = "cpu") -> None:
        if str(device).split(":")[0] != "cpu":
            raise RuntimeError(f"Generator({device!r}): the CPU is the only device here")
        super().__init__(np.random.MT19937(0))
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Seed it (PyTorch keeps the low 32 bits); returns the generator itself."""
        if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
            raise TypeError(f"manual_seed: the seed must be an int, got {seed!r}")
        self._seed = int(seed)
        self.bit_generator.state = _mt19937_state(self._seed)
        return self

    def initial_seed(self) -> int:
        """The seed it was last seeded with."""
        return self._seed

    def random32(self) -> int:
        """The next 32-bit number of the stream (PyTorch's ``random()``)."""
        return int(self.bit_generator.random_raw())

    def random64(self) -> int:
        """Two 32-bit numbers as one 64-bit number, high word first (PyTorch's
        ``random64()``)."""
        high = self.random32()
        return (high << 32) | self.random32()

    def permutation_list(self, n: int) -> list[int]:
        """0 .. n-1 shuffled as PyTorch's ``randperm`` shuffles them."""
        order = list(range(n))
        for i in range(n - 1):
            j = i + self.random32() % (n - i)
            order[i], order[j] = order[j], order[i]
        return order


def randperm(n: int, *, generator: Any = None, dtype: Any = np.int64, **_device: Any) -> Tensor:
    """The numbers 0 .. n-1 in random order (int64): PyTorch's order with a ``Generator``,
    numpy's with another generator or none."""
    if not isinstance(n, int | np.integer) or n < 0:
        raise ValueError(f"randperm: n must be an int >= 0, got {n!r}")
    if isinstance(generator, Generator):
        order = generator.permutation_list(int(n))
    else:
        order = init.as_generator(generator).permutation(int(n)).tolist()
    return tensor(np.asarray(order, dtype=dtype))
