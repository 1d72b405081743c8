"""``utils``: PyTorch's ``torch.utils`` in miniature: :mod:`.data` (``TensorDataset``,
``DataLoader``, ``random_split``) and :mod:`.random` (``Generator``, ``randperm``)."""

from . import data, random

__all__ = ["data", "random"]
