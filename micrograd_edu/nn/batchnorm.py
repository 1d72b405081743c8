"""Batch normalisation (Ioffe & Szegedy, 2015): ``BatchNorm1d`` and ``BatchNorm2d``, with
PyTorch's training and evaluation behaviour, buffers and defaults.

In training, each channel is normalised by the batch's mean and (biased) variance, and the
running statistics move towards them: r ← (1 − momentum)·r + momentum·batch, with the
*unbiased* variance, as PyTorch does (``momentum=None``: a plain average of every batch so
far). In ``eval()`` the running statistics normalise instead, so one sample gives the same
answer alone as in a batch. Channels are axis 1: (N, C) or (N, C, L) for ``BatchNorm1d``,
(N, C, H, W) for ``BatchNorm2d``.

>>> import numpy as np
>>> from micrograd_edu.tensor import Tensor
>>> bn = BatchNorm1d(2)
>>> y = bn(Tensor([[1.0, 10.0], [3.0, 30.0]]))
>>> y.detach().numpy().round(4).tolist(), bn.running_mean.tolist()
([[-1.0, -1.0], [1.0, 1.0]], [0.2, 2.0])
>>> bn.eval()(Tensor([[1.0, 10.0]])).shape
(1, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .module import Module, Parameter, check_device

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Module):
    _dims: tuple[int, ...] = ()  # the input ranks the layer accepts

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        check_device(type(self).__name__, device)
        if not isinstance(num_features, int | np.integer) or num_features < 1:
            raise ValueError(
                f"{type(self).__name__}: num_features must be a positive int, got {num_features!r}"
            )
        self.num_features, self.eps, self.momentum = int(num_features), eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.has_bias = affine and bias
        kind = np.dtype(np.float64 if dtype is None else dtype)
        if affine:
            self.weight = Parameter(np.ones(num_features, kind))
        else:
            self.register_parameter("weight", None)
        if self.has_bias:
            self.bias = Parameter(np.zeros(num_features, kind))
        else:
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(num_features, kind)))
            self.register_buffer("running_var", Tensor(np.ones(num_features, kind)))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batch seen."""
        if self.track_running_stats:
            self.running_mean._data[...] = 0.0
            self.running_var._data[...] = 1.0
            self.num_batches_tracked._data[...] = 0

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in self._dims:
            wanted = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(
                f"{type(self).__name__}: expected {wanted} input (got {x.ndim}D input of "
                f"shape {tuple(x.shape)})"
            )
        if x.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}({self.num_features}): the input has {x.shape[1]} "
                f"channels on axis 1 (shape {tuple(x.shape)})"
            )
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked._data[...] += 1
            if self.momentum is None:  # a plain average of the batches so far
                factor = 1.0 / float(self.num_batches_tracked._data)
        return F.batch_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            training=self.training or not self.track_running_stats,
            momentum=factor,
            eps=self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.has_bias}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over every axis but C."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs over every axis but C."""

    _dims = (4,)
