"""``utils.data``: datasets and the ``DataLoader`` that batches them, as PyTorch's
``torch.utils.data``.

A dataset is anything with ``__getitem__`` and ``__len__``; ``TensorDataset(X, y)`` pairs
the rows of tensors. ``DataLoader`` draws indices from a sampler (in order, or shuffled each
epoch with ``shuffle=True``), groups them in batches of ``batch_size`` (the last one smaller
unless ``drop_last``) and joins each batch's samples with ``collate_fn``: tensors are
stacked along a new first axis, numbers become a tensor, tuples and dicts are collated item by
item.

Shuffling with a seeded ``Generator`` gives PyTorch's order, epoch after epoch (the loader
takes its draws from the generator exactly as PyTorch's does); without one it uses the
package's generator (see ``manual_seed``), whose order differs from PyTorch's.

>>> from micrograd_edu.tensor import arange
>>> from micrograd_edu.utils.random import Generator
>>> data = TensorDataset(arange(10.0).reshape(5, 2), arange(5))
>>> [y.tolist() for _, y in DataLoader(data, batch_size=2)]
[[0, 1], [2, 3], [4]]
>>> loader = DataLoader(data, batch_size=2, shuffle=True, generator=Generator().manual_seed(0))
>>> [y.tolist() for _, y in loader]
[[3, 1], [0, 4], [2]]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .. import init
from ..tensor import Tensor, stack, tensor
from .random import Generator

__all__ = [
    "Dataset",
    "TensorDataset",
    "Subset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "BatchSampler",
    "DataLoader",
    "default_collate",
]


class Dataset:
    """The base of map-style datasets: subclass it and give ``__getitem__`` and
    ``__len__``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")


class TensorDataset(Dataset):
    """Sample i is ``(t[i] for t in tensors)``: the tensors' rows, side by side."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset: give at least one tensor")
        sizes = [t.shape[0] if getattr(t, "ndim", 0) else None for t in tensors]
        if None in sizes or len(set(sizes)) != 1:
            shapes = [tuple(getattr(t, "shape", ())) for t in tensors]
            raise ValueError(
                f"TensorDataset: the tensors must have the same first dimension (one row per "
                f"sample), got shapes {shapes}"
            )
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Any, lengths: Sequence[int | float], generator: Any = None
) -> list[Subset]:
    """Split ``dataset`` at random into pieces of the given ``lengths`` (counts, or fractions
    that add up to 1, the remainder given out one by one from the first piece, as PyTorch
    does). With a seeded ``Generator`` the pieces are PyTorch's."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
    else:
        counts = [int(v) for v in lengths]
    if sum(counts) != n:
        raise ValueError(
            f"random_split: the lengths {list(lengths)} must add up to the dataset's length {n} "
            "(or be fractions that add up to 1)"
        )
    order = _permutation(n, generator)
    pieces, start = [], 0
    for count in counts:
        pieces.append(Subset(dataset, order[start : start + count]))
        start += count
    return pieces


def _permutation(n: int, generator: Any) -> list[int]:
    if isinstance(generator, Generator):
        return generator.permutation_list(n)
    return init.as_generator(generator).permutation(n).tolist()


class Sampler:
    """The base of samplers: an iterable of dataset indices."""

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data) - 1."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new random order of the indices each epoch (PyTorch's order with a seeded
    ``Generator``)."""

    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: Any = None,
        generator: Any = None,
    ) -> None:
        if replacement or num_samples is not None:
            raise NotImplementedError(
                "RandomSampler: replacement and num_samples are not supported here; shuffle "
                "the indices yourself and pass them as a sampler"
            )
        self.data_source, self.generator = data_source, generator

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # as PyTorch: a generator seeded from the default stream
            seed = int(init.as_generator(None).integers(0, 2**63 - 1))
            generator = Generator().manual_seed(seed)
        yield from _permutation(n, generator)
        _permutation(n, generator)  # PyTorch draws a second, empty, permutation: so do we

    def __len__(self) -> int:
        return len(self.data_source)


class BatchSampler(Sampler):
    """The sampler's indices in lists of ``batch_size`` (the last shorter unless
    ``drop_last``)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"BatchSampler: batch_size must be a positive int, got {batch_size!r}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def default_collate(batch: list) -> Any:
    """Join a list of samples into one batch: tensors (and numpy arrays) stacked along a new
    first axis, numbers made a tensor (floats of the default dtype), strings kept in a list,
    dicts and tuples collated entry by entry, as PyTorch's ``default_collate``."""
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(batch)
    if isinstance(first, np.ndarray):
        return stack([tensor(b) for b in batch])
    if isinstance(first, bool | np.bool_):
        return tensor(batch)
    if isinstance(first, int | np.integer):
        return tensor(np.asarray(batch, dtype=np.int64))
    if isinstance(first, float | np.floating):
        return tensor(np.asarray(batch, dtype=np.float64))
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: default_collate([b[key] for b in batch]) for key in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple stays one
        return type(first)(*(default_collate(list(s)) for s in zip(*batch, strict=True)))
    if isinstance(first, Sequence):
        if any(len(b) != len(first) for b in batch):
            raise RuntimeError("default_collate: each sample in a batch must be of equal size")
        return [default_collate(list(s)) for s in zip(*batch, strict=True)]
    raise TypeError(
        f"default_collate: a batch must hold tensors, numpy arrays, numbers, strings, dicts or "
        f"sequences; found {type(first).__name__}"
    )


class DataLoader:
    """Batches of a dataset, epoch after epoch (see the module docstring). ``num_workers``,
    ``pin_memory`` and the other process options are accepted and change nothing: batches
    are made in this process, in the same order."""

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Any = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        **_options: Any,
    ) -> None:
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (
            batch_size != 1 or shuffle or sampler is not None or drop_last
        ):
            raise ValueError(
                "DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                "shuffle, sampler, and drop_last"
            )
        if sampler is None:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers = num_workers
        self.collate_fn = collate_fn or (default_collate if batch_size is not None else _as_is)

    def __iter__(self) -> Iterator[Any]:
        # PyTorch's loader draws a seed for its workers (from the generator) as it starts an
        # epoch; drawn here too, so that the shuffles that follow are PyTorch's.
        if isinstance(self.generator, Generator):
            self.generator.random64()
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def _as_is(sample: Any) -> Any:
    return sample
