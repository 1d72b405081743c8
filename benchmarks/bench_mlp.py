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

import micrograd_edu as mg
from micrograd_edu import data, optim
from micrograd_edu.experiments import deep_relu_net, train

try:
    import torch
except ImportError:  # PyTorch is an optional oracle
    torch = None

LR = 1e-3


def batch_list(epochs: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    x, y = data.piecewise(seed=seed)
    loader = data.Batches(x, y, batch_size=32, seed=seed)
    return [batch for _ in range(epochs) for batch in loader]


def run_engine(batches, seed: int = 0) -> list[float]:
    net = deep_relu_net(seed=seed)
    return train(net, optim.Adam(net.parameters(), lr=LR), batches)


def run_frozen(batches, seed: int = 0) -> list[float]:
    """The same loop, with the forward/backward graph recorded once and replayed."""
    net = deep_relu_net(seed=seed)
    opt = optim.Adam(net.parameters(), lr=LR)

    def loss_of(xb, yb):
        return mg.tensor.mse_loss(net(xb), yb)

    xb, yb = batches[0]
    step = mg.freeze(loss_of, mg.Tensor(xb), mg.Tensor(yb))
    losses = []
    for xb, yb in batches:
        opt.zero_grad()
        loss = step(mg.Tensor(xb), mg.Tensor(yb))
        loss.backward()
        opt.step()
        losses.append(float(loss.data))
    return losses


def run_numpy(batches, seed: int = 0) -> list[float]:
    """The baseline: forward, backward and Adam written out by hand in numpy."""
    params = [p.data.copy() for p in deep_relu_net(seed=seed).parameters()]
    weights, biases = params[0::2], params[1::2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    last = len(weights) - 1
    losses = []
    for t, (xb, yb) in enumerate(batches, start=1):
        acts = [xb]
        h = xb
        for k, (w, b) in enumerate(zip(weights, biases)):
            h = h @ w.T + b
            if k < last:
                h = np.maximum(h, 0.0)
            acts.append(h)
        diff = h - yb
        losses.append(float(np.mean(diff * diff)))
        g = diff * (2.0 / diff.size)
        grads = [None] * len(params)
        for k in range(last, -1, -1):
            if k < last:
                g = g * (acts[k + 1] > 0)
            grads[2 * k] = g.T @ acts[k]
            grads[2 * k + 1] = g.sum(axis=0)
            if k:
                g = g @ weights[k]
        c1, c2 = 1.0 - b1**t, (1.0 - b2**t) ** 0.5
        for p, gp, mp, vp in zip(params, grads, m, v):
            mp += (1.0 - b1) * (gp - mp)
            vp *= b2
            vp += (1.0 - b2) * gp * gp
            p -= (LR / c1) * (mp / (np.sqrt(vp) / c2 + eps))
    return losses


def run_torch(batches, seed: int = 0) -> list[float]:
    net = torch.nn.Sequential(
        *[
            module
            for k in range(10)
            for module in (
                [torch.nn.Linear(1 if k == 0 else 10, 1 if k == 9 else 10).double()]
                + ([torch.nn.ReLU()] if k < 9 else [])
            )
        ]
    )
    state = deep_relu_net(seed=seed).state_dict()
    net.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    opt = torch.optim.Adam(net.parameters(), lr=LR)
    tensors = [(torch.from_numpy(xb), torch.from_numpy(yb)) for xb, yb in batches]
    losses = []
    for xb, yb in tensors:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def relative_difference(a, b, steps: int) -> float:
    a, b = np.asarray(a[:steps]), np.asarray(b[:steps])
    return float(np.max(np.abs(a - b) / np.abs(b)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 epochs instead of 100")
    parser.add_argument("--profile", action="store_true", help="profile the tensor engine")
    args = parser.parse_args()
    epochs = 10 if args.quick else 100
    batches = batch_list(epochs)
    print(f"non-linear experiment: {len(batches)} Adam steps, batch 32, 10 layers of width 10")

    t_numpy, numpy_losses = timed(run_numpy, batches)
    t_ours, our_losses = timed(run_engine, batches)
    t_frozen, frozen_losses = timed(run_frozen, batches)
    print(f"  hand-written numpy   {t_numpy:6.2f} s   final MSE {numpy_losses[-1]:.5f}")
    print(f"  micrograd_edu        {t_ours:6.2f} s   final MSE {our_losses[-1]:.5f}")
    print(f"  micrograd_edu frozen {t_frozen:6.2f} s   final MSE {frozen_losses[-1]:.5f}")
    print(
        f"  loss vs numpy, max relative difference: {relative_difference(our_losses, numpy_losses, len(batches)):.1e}"
    )
    for name, t in (("dynamic", t_ours), ("frozen", t_frozen)):
        ratio = t / t_numpy
        print(
            f"  {name} / numpy = {ratio:.2f} (target <= 1.3: {'met' if ratio <= 1.3 else 'NOT met'})"
        )
    if torch is not None:
        t_torch, torch_losses = timed(run_torch, batches)
        print(
            f"  PyTorch {torch.__version__:10s} {t_torch:6.2f} s   final MSE {torch_losses[-1]:.5f}"
        )
        for steps in (100, len(batches)):
            diff = relative_difference(our_losses, torch_losses, steps)
            print(
                f"  loss vs PyTorch over the first {steps} steps, max relative difference {diff:.1e}"
            )
        for name, t in (("dynamic", t_ours), ("frozen", t_frozen)):
            ratio = t / t_torch
            print(
                f"  {name} / PyTorch = {ratio:.2f} (target <= 0.5: {'met' if ratio <= 0.5 else 'NOT met'})"
            )
    else:
        print("  PyTorch not installed: no PyTorch comparison")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run_engine, batches)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
