"""The losses of ``nn.functional``, with PyTorch's arguments and definitions.

Each is written from tensor operations, so its gradient, and its second derivative,
come from the engine. The common cases (mean squared error of equal shapes, cross-entropy of
a batch of logits against class labels) run as one fused operation of the engine, which
gives the same numbers.

Shapes follow PyTorch: the classes are axis 1 of ``(N, C, d1, ...)`` inputs (axis 0 of an
unbatched ``(C,)`` input), and the targets are class indices of shape ``(N, d1, ...)`` or
class probabilities of the input's shape. ``ignore_index`` drops the targets equal to it,
``label_smoothing`` mixes the uniform distribution into the targets, ``weight`` weighs each
class and the mean divides by the weights of the targets, as in PyTorch.

>>> import numpy as np
>>> from micrograd_edu.tensor import Tensor, tensor
>>> logits = Tensor([[2.0, 0.0, -1.0], [0.5, 0.5, 0.0]])
>>> cross_entropy(logits, tensor([0, 2]), label_smoothing=0.1)   # PyTorch: 0.8806
tensor(0.8806)
>>> cross_entropy(logits, tensor([0, -100]))     # the second row is ignored
tensor(0.1698)
>>> binary_cross_entropy_with_logits(Tensor([0.0, 3.0]), Tensor([1.0, 0.0]))
tensor(1.8709)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, tensor, where
from ..tensor import cross_entropy as _fused_cross_entropy
from ..tensor import mse_loss as _fused_mse_loss
from ..tensor.operation import ShapeError

__all__ = [
    "mse_loss",
    "l1_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "log_sigmoid",
]

REDUCTIONS = ("mean", "sum", "none")


def reduction_of(name: str, reduction: str, size_average: Any = None, reduce: Any = None) -> str:
    if size_average is not None or reduce is not None:
        raise TypeError(
            f"{name}: size_average and reduce are PyTorch's deprecated arguments; "
            "write reduction='mean', 'sum' or 'none'"
        )
    if reduction not in REDUCTIONS:
        raise ValueError(f"{name}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else tensor(x)


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


def _same_shape(name: str, input: Tensor, target: Tensor) -> None:  # noqa: A002
    if tuple(input.shape) != tuple(target.shape):
        raise ShapeError(
            f"{name}: input of shape {tuple(input.shape)} and target of shape "
            f"{tuple(target.shape)} must have the same shape (PyTorch broadcasts them with a "
            "warning; here it is refused, since it is almost always a mistake: reshape one)"
        )


def mse_loss(
    input: Tensor,  # noqa: A002
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The mean (or sum, or each) of the squared differences."""
    reduction = reduction_of("mse_loss", reduction, size_average, reduce)
    target = _tensor(target)
    if reduction == "mean" and input.numel() and tuple(input.shape) == tuple(target.shape):
        return _fused_mse_loss(input, target)
    return _pointwise("mse_loss", input, target, reduction, lambda d: d * d)


def l1_loss(
    input: Tensor,  # noqa: A002
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The mean (or sum, or each) of the absolute differences."""
    reduction = reduction_of("l1_loss", reduction, size_average, reduce)
    return _pointwise("l1_loss", input, _tensor(target), reduction, lambda d: d.abs())


def _pointwise(name: str, input: Tensor, target: Tensor, reduction: str, of: Any) -> Tensor:  # noqa: A002
    """``of(input - target)`` reduced, for targets of the input's shape."""
    _same_shape(name, input, target)
    return _reduce(of(input - target), reduction)


def _class_layout(name: str, input: Tensor) -> tuple[int, int]:  # noqa: A002
    """(the class axis, the number of classes) of an input, as PyTorch lays them out."""
    if input.dtype.kind != "f":
        raise TypeError(
            f"{name}: the input must hold floats (logits or log-probabilities), got dtype "
            f"{input.dtype}; convert it with .double() or .float()"
        )
    if input.ndim == 0:
        raise ShapeError(f"{name}: the input needs a class axis, got a 0-d tensor")
    axis = 1 if input.ndim >= 2 else 0
    return axis, input.shape[axis]


def _rows(x: Tensor, axis: int) -> Tensor:
    """``x`` with its class axis moved last and the others flattened: (rows, C)."""
    if axis == 1 and x.ndim > 2:
        x = x.permute(0, *range(2, x.ndim), 1)
    return x.reshape(-1, x.shape[-1])


def _class_weights(name: str, weight: Any, classes: int) -> np.ndarray | None:
    if weight is None:
        return None
    w = np.asarray(weight.detach().numpy() if isinstance(weight, Tensor) else weight, float)
    if w.shape != (classes,):
        raise ShapeError(
            f"{name}: weight has shape {w.shape}; it must hold one number per class, shape "
            f"({classes},)"
        )
    return w


def nll_loss(
    input: Tensor,  # noqa: A002
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of class ``target`` under log-probabilities ``input``."""
    reduction = reduction_of("nll_loss", reduction, size_average, reduce)
    losses, weights = _picked("nll_loss", input, _tensor(target), weight, ignore_index)
    return _weighted_reduce(losses, weights, reduction)


def _weighted_reduce(losses: Tensor, weights: Tensor, reduction: str) -> Tensor:
    """The mean divides by the targets' weights: nan when every target is ignored (with a
    zero gradient, as PyTorch's)."""
    if reduction != "mean":
        return losses.sum() if reduction == "sum" else losses
    total = weights.sum()
    return losses.sum() / total if total.item() else losses.sum() + float("nan")


def _picked(name: str, logp: Tensor, target: Tensor, weight: Any, ignore_index: int) -> tuple:
    """Each target's -log-probability times its class weight (0 where ignored), shaped as
    the targets, and those weights (a constant tensor)."""
    axis, classes = _class_layout(name, logp)
    batch = tuple(logp.shape[:axis]) + tuple(logp.shape[axis + 1 :])
    if target.dtype.kind not in "iu":
        raise TypeError(
            f"{name}: class targets must be integers (torch.long), got dtype {target.dtype}; "
            "class probabilities go to cross_entropy as a float tensor of the input's shape"
        )
    if tuple(target.shape) != batch:
        raise ShapeError(
            f"{name}: expected targets of shape {batch} for an input of shape "
            f"{tuple(logp.shape)}, got {tuple(target.shape)}"
        )
    labels = target.detach().numpy().reshape(-1)
    keep = labels != ignore_index
    wrong = labels[keep & ((labels < 0) | (labels >= classes))]
    if wrong.size:
        raise IndexError(
            f"{name}: target {int(wrong[0])} is out of bounds for {classes} classes "
            f"(they are 0 to {classes - 1})"
        )
    safe = np.where(keep, labels, 0)
    w = _class_weights(name, weight, classes)
    row_weight = (np.ones(labels.size) if w is None else w[safe]) * keep
    weights = tensor(row_weight.astype(logp.dtype).reshape(batch))
    picked = _rows(logp, axis)[np.arange(labels.size), safe].reshape(batch)
    return -picked * weights, weights


def cross_entropy(
    input: Tensor,  # noqa: A002
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Softmax cross-entropy of logits ``input`` against class indices or class
    probabilities ``target`` (see the module docstring)."""
    reduction = reduction_of("cross_entropy", reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(
            f"cross_entropy: label_smoothing must be between 0 and 1, got {label_smoothing}"
        )
    target = _tensor(target)
    axis, classes = _class_layout("cross_entropy", input)
    if target.dtype.kind == "f":
        return _probability_targets(input, target, weight, reduction, label_smoothing, ignore_index)
    fused = (
        input.ndim == 2
        and weight is None
        and reduction == "mean"
        and not label_smoothing
        and target.ndim == 1
        and target.shape[0] == input.shape[0] > 0
        and not (target.detach().numpy() == ignore_index).any()
    )
    if fused:
        return _fused_cross_entropy(input, target)
    logp = input.log_softmax(axis)
    losses, weights = _picked("cross_entropy", logp, target, weight, ignore_index)
    nll = _weighted_reduce(losses, weights, reduction)
    if not label_smoothing:
        return nll
    w = _class_weights("cross_entropy", weight, classes)
    shape = (classes,) + (1,) * (input.ndim - axis - 1)
    weighted = logp if w is None else logp * tensor(w.astype(input.dtype).reshape(shape))
    keep_mask = tensor(target.detach().numpy() != ignore_index)
    smooth = where(keep_mask, -weighted.sum(axis), 0.0)
    if reduction != "none":
        smooth = _weighted_reduce(smooth, weights if w is not None else keep_mask, reduction)
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _probability_targets(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Any,
    reduction: str,
    label_smoothing: float,
    ignore_index: int,
) -> Tensor:
    axis, classes = _class_layout("cross_entropy", input)
    if ignore_index != -100:
        raise ValueError(
            "cross_entropy: ignore_index applies to class-index targets; these targets are "
            "class probabilities (a float tensor)"
        )
    _same_shape("cross_entropy", input, target)
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    logp = input.log_softmax(axis)
    w = _class_weights("cross_entropy", weight, classes)
    if w is not None:
        shape = (classes,) + (1,) * (input.ndim - axis - 1)
        logp = logp * tensor(w.astype(input.dtype).reshape(shape))
    terms = logp * target
    if reduction == "none":
        return -terms.sum(axis)
    if reduction == "sum":
        return -terms.sum()
    rows = input.numel() // max(classes, 1)
    return -terms.sum() / rows if input.numel() else -terms.sum() * float("nan")


def floats_only(name: str, x: Tensor) -> None:
    """Refuse an integer tensor where PyTorch has no integer kernel, saying what to write."""
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"{name}: takes a floating-point tensor, got dtype {x.dtype} (PyTorch: not "
            f"implemented for integers); write {name}(x.float())"
        )


def log_sigmoid(x: Tensor) -> Tensor:
    """log(sigmoid(x)), without overflow, with exact first and second derivatives at every x
    (each branch sees only the inputs it is used for)."""
    floats_only("log_sigmoid", x)
    negative = x < 0
    below = where(negative, x, 0.0)
    above = where(negative, 0.0, x)
    return where(negative, below - below.exp().log1p(), -(-above).exp().log1p())


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Tensor:
    """-[p·t·log σ(x) + (1 − t)·log(1 − σ(x))], computed from the logits, as PyTorch does:
    (1 − t)·x − (1 + (p − 1)·t)·log σ(x), with ``pos_weight`` p (1 by default)."""
    reduction = reduction_of("binary_cross_entropy_with_logits", reduction, size_average, reduce)
    target = _tensor(target)
    _same_shape("binary_cross_entropy_with_logits", input, target)
    log_p = log_sigmoid(input)
    if pos_weight is not None:
        log_p = log_p * ((_tensor(pos_weight) - 1) * target + 1)
    loss = (1 - target) * input - log_p
    if weight is not None:
        loss = loss * _tensor(weight)
    return _reduce(loss, reduction)


def binary_cross_entropy(
    input: Tensor,  # noqa: A002
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-[t·log p + (1 − t)·log(1 − p)] for probabilities ``input``; each log is clamped at
    −100, as in PyTorch, so a probability of exactly 0 or 1 gives a finite loss."""
    reduction = reduction_of("binary_cross_entropy", reduction, size_average, reduce)
    target = _tensor(target)
    _same_shape("binary_cross_entropy", input, target)
    values = input.detach().numpy()
    if ((values < 0) | (values > 1)).any():
        raise ValueError(
            "binary_cross_entropy: the input must hold probabilities in [0, 1]; for logits "
            "use binary_cross_entropy_with_logits"
        )
    loss = -(target * _clamped_log(input) + (1 - target) * _clamped_log(1 - input))
    if weight is not None:
        loss = loss * _tensor(weight)
    return _reduce(loss, reduction)


def _clamped_log(p: Tensor) -> Tensor:
    positive = p > 0
    return where(positive, where(positive, p, 1.0).log().clamp(min=-100.0), -100.0)
