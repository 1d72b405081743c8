"""The non-linear MLP experiment, timed: micrograd_edu vs hand-written numpy vs PyTorch.

10 Linear layers of width 10 with ReLU, He init, zero biases, Adam (lr 1e-3),
mini-batches of 32, 100 epochs over 1000 points: 3,200 steps. Every engine
starts from the same weights and sees the same batches, so their losses must
agree step by step (PyTorch in float64). Run as a plain script:

    python benchmarks/bench_mlp.py            # add --quick for 10 epochs

Targets: the tensor engine at most 0.5x PyTorch's time and at most 1.3x the
hand-written numpy loop, for the dynamic graph and for ``train(frozen=True)``
(the step traced once by ``freeze`` and replayed). The whole loop includes the
optimiser, where micrograd_edu's Adam updates all parameters in one flat array
and the numpy baseline goes one parameter at a time, as it is usually written;
the per-step breakdown printed last separates forward+backward from Adam.
It also prints one MLP step of the scalar engine against the tensor engine,
the ratio the course quotes on vectorization.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats

import numpy as np
from timing import measure

from micrograd_edu import optim
from micrograd_edu.course.experiments import (
    deep_relu_net,
    from_scalar_mlp,
    nonlinear_batches,
    to_torch,
    train,
    train_torch,
)
from micrograd_edu.scalar import nn as scalar_nn
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
    params = [p.detach().numpy().copy() for p in deep_relu_net().parameters()]
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
    train(net, NoUpdate(net.parameters(), {}), batches, frozen=frozen)


def forward_backward_numpy(batches) -> None:
    params = [p.detach().numpy() for p in deep_relu_net().parameters()]
    for xb, yb in batches:
        numpy_forward_backward(params[0::2], params[1::2], xb, yb)


def adam_ours(steps: int) -> None:
    net = deep_relu_net()
    for p in net.parameters():
        p.grad = np.ones_like(p.detach().numpy())
    opt = optim.Adam(net.parameters(), lr=LR)
    for _ in range(steps):
        opt.step()


def adam_numpy(steps: int) -> None:
    params = [p.detach().numpy() for p in deep_relu_net().parameters()]
    grads = [np.ones_like(p) for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        numpy_adam(params, grads, m, v, t)


def scalar_vs_tensor(batches) -> tuple[float, float]:
    """Microseconds per step (forward, loss, backward) of the same 10-layer MLP on
    one batch of 32: one ``Value`` per number (scalar_nn) vs one array per node."""
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

    scalar = measure({"scalar": scalar_step}, number=1, repeat=3)["scalar"][0]
    tensor = measure({"tensor": tensor_step}, number=100, repeat=3)["tensor"][0]
    return scalar, tensor


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

    # Whole runs, timed in turns (best of 2 after a warm-up); each keeps its losses.
    losses: dict[str, list[float]] = {}
    runs = {
        "numpy": lambda: losses.__setitem__("numpy", run_numpy(batches)),
        "dynamic": lambda: losses.__setitem__("dynamic", run_engine(batches)),
        "frozen": lambda: losses.__setitem__("frozen", run_engine(batches, frozen=True)),
    }
    seconds = {name: best / 1e6 for name, (best, _) in measure(runs, 1, 2).items()}
    print(f"  hand-written numpy      {seconds['numpy']:6.2f} s")
    print(f"  micrograd_edu           {seconds['dynamic']:6.2f} s")
    print(f"  micrograd_edu, frozen   {seconds['frozen']:6.2f} s")
    print(f"  micrograd_edu / numpy   {verdict(seconds['dynamic'] / seconds['numpy'], 1.3)}")
    print(f"  frozen / numpy          {verdict(seconds['frozen'] / seconds['numpy'], 1.3)}")
    print(f"  final batch MSE {losses['dynamic'][-1]:.5f} (numpy {losses['numpy'][-1]:.5f})")
    for name in ("dynamic", "frozen"):
        diff = relative_difference(losses[name], losses["numpy"], steps)
        print(f"  {name} losses vs numpy: max relative difference over {steps} steps {diff:.1e}")
    if torch is not None:
        # One thread: for 10x10 matrices threads only add overhead, so this is
        # PyTorch's faster (and our stricter) setting.
        torch.set_num_threads(1)
        runs = {"torch": lambda: losses.__setitem__("torch", run_torch(batches))}
        seconds["torch"] = measure(runs, 1, 1)["torch"][0] / 1e6
        print(f"  PyTorch {torch.__version__} (1 thread) {seconds['torch']:6.2f} s")
        print(f"  micrograd_edu / PyTorch {verdict(seconds['dynamic'] / seconds['torch'], 0.5)}")
        print(f"  frozen / PyTorch        {verdict(seconds['frozen'] / seconds['torch'], 0.5)}")
        for n in (100, steps):
            diff = relative_difference(losses["dynamic"], losses["torch"], n)
            print(f"  losses vs PyTorch: max relative difference over {n} steps {diff:.1e}")
    else:
        print("  PyTorch is not installed: no PyTorch comparison")

    print("where the time goes, per step (us):")
    parts = {
        "forward+backward": lambda: forward_backward_ours(batches),
        "frozen forward+backward": lambda: forward_backward_ours(batches, True),
        "numpy forward+backward": lambda: forward_backward_numpy(batches),
        "Adam (one flat update)": lambda: adam_ours(steps),
        "numpy Adam (per parameter)": lambda: adam_numpy(steps),
    }
    for name, (best, _) in measure(parts, 1, 2).items():
        print(f"  {name:28s} {best / steps:6.0f}")
    t_scalar, t_tensor = scalar_vs_tensor(batches)
    print("one step of the same MLP on a batch of 32 (forward, loss, backward):")
    print(
        f"  scalar Values {t_scalar / 1e3:7.1f} ms, tensor {t_tensor / 1e3:5.2f} ms: "
        f"vectorizing is {t_scalar / t_tensor:.0f}x faster"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run_engine, batches)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
