"""The non-linear MLP experiment, timed: micrograd_edu vs hand-written numpy vs PyTorch.

10 Linear layers of width 10 with ReLU, He init, zero biases, Adam (lr 1e-3),
mini-batches of 32, 100 epochs over 1000 points: 3,200 steps. Every engine
starts from the same weights and sees the same batches, so their losses must
agree step by step (PyTorch in float64). Run as a plain script:

    python benchmarks/bench_mlp.py            # add --quick for 10 epochs

Targets: the tensor engine at most 0.5x PyTorch's time and at most 1.3x the
hand-written numpy loop. It also prints one MLP step of the scalar engine
against the tensor engine, the ratio the course quotes on vectorization.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

from micrograd_edu import optim, scalar_nn
from micrograd_edu.experiments import (
    deep_relu_net,
    from_scalar_mlp,
    nonlinear_batches,
    to_torch,
    train,
    train_torch,
)
from micrograd_edu.tensor import Tensor, mse_loss

try:
    import torch
except ImportError:  # PyTorch is an optional oracle
    torch = None

LR = 1e-3


def run_engine(batches, frozen: bool = False) -> list[float]:
    net = deep_relu_net()
    return train(net, optim.Adam(net.parameters(), lr=LR), batches, frozen=frozen)


def numpy_forward_backward(weights, biases, xb, yb):
    """The loss and the gradients [dW0, db0, dW1, ...], written out by hand."""
    last = len(weights) - 1
    acts = [xb]
    h = xb
    for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
        h = h @ w.T + b
        if k < last:
            h = np.maximum(h, 0.0)
        acts.append(h)
    diff = h - yb
    g = diff * (2.0 / diff.size)
    grads = [None] * (2 * len(weights))
    for k in range(last, -1, -1):
        if k < last:
            g = g * (acts[k + 1] > 0)
        grads[2 * k] = g.T @ acts[k]
        grads[2 * k + 1] = g.sum(axis=0)
        if k:
            g = g @ weights[k]
    return float(np.mean(diff * diff)), grads


def numpy_adam(params, grads, m, v, t):
    """Adam as anyone would write it: one parameter at a time."""
    b1, b2 = 0.9, 0.999
    c1, c2 = 1.0 - b1**t, (1.0 - b2**t) ** 0.5
    for p, g, mp, vp in zip(params, grads, m, v, strict=True):
        mp += (1.0 - b1) * (g - mp)
        vp *= b2
        vp += (1.0 - b2) * g * g
        p -= (LR / c1) * (mp / (np.sqrt(vp) / c2 + 1e-8))


def run_numpy(batches) -> list[float]:
    """The baseline: forward, backward and Adam written out by hand in numpy."""
    params = [p.data.copy() for p in deep_relu_net().parameters()]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    losses = []
    for t, (xb, yb) in enumerate(batches, start=1):
        loss, grads = numpy_forward_backward(params[0::2], params[1::2], xb, yb)
        numpy_adam(params, grads, m, v, t)
        losses.append(loss)
    return losses


def run_torch(batches) -> list[float]:
    net = to_torch(deep_relu_net())
    return train_torch(net, torch.optim.Adam(net.parameters(), lr=LR), batches)


class NoUpdate(optim.Optimizer):
    """Forgets the gradients and changes nothing: the training loop then costs
    its forward and backward passes alone."""

    def step(self) -> None:
        pass


def forward_backward_ours(batches, frozen: bool = False) -> None:
    net = deep_relu_net()
    train(net, NoUpdate(net.parameters(), lr=1.0), batches, frozen=frozen)


def forward_backward_numpy(batches) -> None:
    params = [p.data for p in deep_relu_net().parameters()]
    for xb, yb in batches:
        numpy_forward_backward(params[0::2], params[1::2], xb, yb)


def adam_ours(steps: int) -> None:
    net = deep_relu_net()
    for p in net.parameters():
        p.grad = np.ones_like(p.data)
    opt = optim.Adam(net.parameters(), lr=LR)
    for _ in range(steps):
        opt.step()


def adam_numpy(steps: int) -> None:
    params = [p.data for p in deep_relu_net().parameters()]
    grads = [np.ones_like(p) for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        numpy_adam(params, grads, m, v, t)


def scalar_vs_tensor(batches) -> tuple[float, float]:
    """Seconds per step (forward, loss, backward) of the same 10-layer MLP on one
    batch of 32: one ``Value`` per number (scalar_nn) vs one array per node."""
    mlp = scalar_nn.MLP(1, [10] * 9 + [1], seed=0)
    twin = from_scalar_mlp(mlp)
    xb, yb = batches[0]

    def scalar_step():
        mlp.zero_grad()
        rows = zip(xb.tolist(), yb.tolist(), strict=True)
        loss = sum((mlp(x) - y[0]) ** 2 for x, y in rows) / len(xb)
        loss.backward()

    def tensor_step():
        twin.zero_grad()
        mse_loss(twin(Tensor(xb)), Tensor(yb)).backward()

    [(t_scalar, _)] = timed((scalar_step,), repeat=3)
    [(t_tensor, _)] = timed((lambda: [tensor_step() for _ in range(100)],), repeat=3)
    return t_scalar, t_tensor / 100


def timed(*runs, repeat: int = 3):
    """Time each ``(fn, *args)`` in ``runs``, interleaved, ``repeat`` times; give
    each one's best time and last result. The machine is shared: interleaving
    exposes every run to the same load, and the minimum is the least disturbed."""
    best = [float("inf")] * len(runs)
    out = [None] * len(runs)
    for _ in range(repeat):
        for i, (fn, *args) in enumerate(runs):
            start = time.perf_counter()
            out[i] = fn(*args)
            best[i] = min(best[i], time.perf_counter() - start)
    return [(b, o) for b, o in zip(best, out, strict=True)]


def relative_difference(a, b, steps: int) -> float:
    a, b = np.asarray(a[:steps]), np.asarray(b[:steps])
    return float(np.max(np.abs(a - b) / np.abs(b)))


def verdict(ratio: float, target: float) -> str:
    return f"{ratio:5.2f}x  (target <= {target}: {'met' if ratio <= target else 'NOT met'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 epochs instead of 100")
    parser.add_argument("--profile", action="store_true", help="profile the tensor engine")
    args = parser.parse_args()
    batches = nonlinear_batches(10 if args.quick else 100)
    steps = len(batches)
    print(f"non-linear experiment: {steps} Adam steps, batch 32, 10 layers of width 10")

    (t_numpy, numpy_losses), (t_ours, our_losses), (t_frozen, frozen_losses) = timed(
        (run_numpy, batches), (run_engine, batches), (run_engine, batches, True)
    )
    print(f"  hand-written numpy      {t_numpy:6.2f} s   final batch MSE {numpy_losses[-1]:.5f}")
    print(f"  micrograd_edu           {t_ours:6.2f} s   final batch MSE {our_losses[-1]:.5f}")
    print(f"  micrograd_edu, frozen   {t_frozen:6.2f} s   final batch MSE {frozen_losses[-1]:.5f}")
    print(f"  micrograd_edu / numpy   {verdict(t_ours / t_numpy, 1.3)}")
    print(f"  frozen / numpy          {verdict(t_frozen / t_numpy, 1.3)}")
    for name, losses in (("", our_losses), ("frozen ", frozen_losses)):
        diff = relative_difference(losses, numpy_losses, steps)
        print(f"  {name}losses vs numpy: max relative difference over {steps} steps {diff:.1e}")
    if torch is not None:
        # One thread: for 10x10 matrices threads only add overhead, so this is
        # PyTorch's faster (and our stricter) setting.
        torch.set_num_threads(1)
        [(t_torch, torch_losses)] = timed((run_torch, batches), repeat=1)
        print(f"  PyTorch {torch.__version__} (1 thread) {t_torch:6.2f} s")
        print(f"  micrograd_edu / PyTorch {verdict(t_ours / t_torch, 0.5)}")
        print(f"  frozen / PyTorch        {verdict(t_frozen / t_torch, 0.5)}")
        for n in (100, steps):
            diff = relative_difference(our_losses, torch_losses, n)
            print(f"  losses vs PyTorch: max relative difference over {n} steps {diff:.1e}")
    else:
        print("  PyTorch is not installed: no PyTorch comparison")

    print("where the time goes, per step:")
    (t_fb_ours, _), (t_fb_frozen, _), (t_fb_numpy, _), (t_adam_ours, _), (t_adam_numpy, _) = timed(
        (forward_backward_ours, batches),
        (forward_backward_ours, batches, True),
        (forward_backward_numpy, batches),
        (adam_ours, steps),
        (adam_numpy, steps),
    )
    us = 1e6 / steps
    print(
        f"  forward+backward: micrograd_edu {t_fb_ours * us:5.0f} us ({t_fb_ours / t_fb_numpy:.2f}x"
        f" numpy), frozen {t_fb_frozen * us:5.0f} us ({t_fb_frozen / t_fb_numpy:.2f}x), "
        f"numpy {t_fb_numpy * us:5.0f} us"
    )
    print(
        f"  Adam step:        micrograd_edu {t_adam_ours * us:5.0f} us (one flat update), numpy "
        f"{t_adam_numpy * us:5.0f} us (per parameter)"
    )
    t_scalar, t_tensor = scalar_vs_tensor(batches)
    print("one step of the same MLP on a batch of 32 (forward, loss, backward):")
    print(
        f"  scalar Values {t_scalar * 1e3:7.1f} ms, tensor {t_tensor * 1e3:5.2f} ms: "
        f"vectorizing is {t_scalar / t_tensor:.0f}x faster"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run_engine, batches)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
