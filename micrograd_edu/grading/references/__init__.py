"""The reference versions of steps that later exercises build on (``Exercise.requires``).

While an exercise that needs an earlier step is checked, the reference replaces the
student's version of that step, so one wrong answer does not fail the exercises built
on it. These are answers, so this module stays with the grader: the sandbox does not
mount it, and the batch grader sends a reference's source to a submission's process
only after that process has reported its own version of the step. There the sources of
an exercise's references run in one scope, so a function may call another reference of
this module that the same exercise requires; otherwise each is self-contained.
"""

from __future__ import annotations

from typing import Any


def central_quotient(f: Any, x: float, h: float) -> float:
    """The central difference (f(x + h) - f(x - h)) / 2h."""
    return (f(x + h) - f(x - h)) / (2 * h)


def quotient_reference(u: Any, du: Any, v: Any, dv: Any) -> Any:
    """The quotient rule on expressions."""
    return (du * v - u * dv) / v**2


def topological_order(root: Any) -> list:
    """Every node ``root`` depends on, each after its parents (no recursion)."""
    order, seen, stack = [], {id(root)}, [(root, iter(root.parents))]
    while stack:
        node, parents = stack[-1]
        for parent in parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, iter(parent.parents)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def backward_reference(root: Any) -> None:
    """Backward as PyTorch does it: inner adjoints afresh, the inputs' grads add up
    (it calls ``topological_order``: an exercise that requires it requires that too)."""
    order = topological_order(root)
    for node in order:
        if node.parents:
            node.grad = 0.0
    root.grad = 1.0
    for node in order[::-1]:
        node._backward()


def work_reference(n: int, m: int) -> tuple[int, int]:
    """The engines' work for the Jacobian of chapter 05's program(n, m): forward mode's
    operations, then reverse mode's operations recorded plus those its sweeps pass."""
    ops, below = 2 * n - 1 + 2 * m, 2 * n + 1
    return n * ops, ops + m * below


def minibatch_indices(n: int, batch_size: int, rng: Any) -> list:
    """One permutation of range(n), cut into consecutive batches."""
    order = rng.permutation(n)
    return [order[k : k + batch_size] for k in range(0, n, batch_size)]


def unbroadcast_reference(grad: Any, shape: tuple) -> Any:
    """``grad`` summed over the axes broadcasting added or stretched, back to ``shape``."""
    import numpy as np

    grad = np.asarray(grad, dtype=float)
    extra = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(extra))) if extra > 0 else grad
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def matmul_backward_reference(a: Any, b: Any, dc: Any) -> tuple:
    """(dA, dB) for C = A @ B: vectors as one-row (left) or one-column (right) matrices,
    stacks product by product, a factor shared by the stack summing its shares (it calls
    ``unbroadcast_reference``: an exercise that requires it requires that too)."""
    import numpy as np

    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    dc2 = np.asarray(dc, dtype=float)
    dc2 = dc2[..., None] if b.ndim == 1 else dc2
    dc2 = dc2[..., None, :] if a.ndim == 1 else dc2
    da = unbroadcast_reference(dc2 @ np.swapaxes(b2, -1, -2), a2.shape)
    db = unbroadcast_reference(np.swapaxes(a2, -1, -2) @ dc2, b2.shape)
    return da.reshape(a.shape), db.reshape(b.shape)


def softmax_cross_entropy_backward(logits: Any, labels: Any) -> Any:
    """∂L/∂logits for L the mean cross-entropy of the rows."""
    import numpy as np

    z = np.asarray(logits, dtype=float)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(z)), np.asarray(labels)] -= 1.0
    return p / len(z)


def relu_layer_backward(x: Any, w: Any, b: Any, da: Any) -> tuple:
    """(dX, dW, db) for A = relu(X @ W + b), given dA."""
    import numpy as np

    dz = np.asarray(da, dtype=float) * (x @ w + b > 0)
    return dz @ w.T, x.T @ dz, dz.sum(axis=0)
