"""Hessian-vector products by double backward (Pearlmutter's trick): Newton's method with
conjugate gradients (Hessian-free) on a small logistic regression."""

import torch

torch.set_default_dtype(torch.float64)

n = torch.arange(40.0)
X = torch.stack([torch.sin(0.3 * n), torch.cos(0.7 * n), torch.sin(1.3 * n + 1.0)], dim=1)
y = (X @ torch.tensor([1.5, -2.0, 0.5]) + 0.3 * torch.cos(5 * n) > 0).double()
w = torch.zeros(3, requires_grad=True)


def loss_fn(w):
    logits = X @ w
    return torch.nn.functional.binary_cross_entropy_with_logits(logits, y) + 0.01 * (w * w).sum()


def hvp(w, v):
    (g,) = torch.autograd.grad(loss_fn(w), w, create_graph=True)
    (hv,) = torch.autograd.grad((g * v).sum(), w)
    return hv


losses, products = [], []
for _step in range(6):
    loss = loss_fn(w)
    (g,) = torch.autograd.grad(loss, w)
    # Conjugate gradients for H p = -g, with Hessian-vector products only.
    p = torch.zeros(3)
    r = -g
    d = r.clone()
    for _ in range(3):
        Hd = hvp(w, d)
        alpha = (r @ r) / (d @ Hd)
        p = p + alpha * d
        r_new = r - alpha * Hd
        beta = (r_new @ r_new) / (r @ r)
        d = r_new + beta * d
        r = r_new
    with torch.no_grad():
        w += p
    losses.append(loss.item())
    products += hvp(w, torch.ones(3)).tolist()

result = losses + products + w.tolist()
