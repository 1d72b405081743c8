"""One training step of a small MLP: the dynamic graph against its frozen replay.

The model is written with tensors alone (weights W1, b1, W2, b2, W3, b3, no
``nn``): 2 inputs, two hidden layers of 16 tanh units, 1 output, mean squared
error over a batch of 64. One step is forward + backward. ``freeze`` traces
the step once; its replay runs the same numpy functions without building
Python nodes. Gradients of both are compared before timing.

Run: ``python benchmarks/bench_freeze.py``. Prints microseconds per step
(minimum and median, the two taking turns) and the speed-up (target > 1).
"""

from __future__ import annotations

import numpy as np
from timing import measure

from micrograd_edu import Tensor, freeze
from micrograd_edu.tensor import mse_loss

BATCH, WIDTH = 64, 16
NUMBER, REPEAT = 200, 25


def mlp_loss(x, y, W1, b1, W2, b2, W3, b3):
    h = (x @ W1 + b1).tanh()
    h = (h @ W2 + b2).tanh()
    return mse_loss(h @ W3 + b3, y)


def main() -> None:
    rng = np.random.default_rng(0)
    x = Tensor(rng.normal(size=(BATCH, 2)))
    y = Tensor(rng.normal(size=(BATCH, 1)))
    shapes = [(2, WIDTH), (WIDTH,), (WIDTH, WIDTH), (WIDTH,), (WIDTH, 1), (1,)]
    params = [Tensor(rng.normal(size=s) * 0.5, requires_grad=True) for s in shapes]

    def dynamic():
        for p in params:
            p.grad = None
        mlp_loss(x, y, *params).backward()

    step = freeze(mlp_loss, x, y, *params)

    def frozen():
        for p in params:
            p.grad = None
        step(x, y, *params)

    dynamic()
    expected = [p.grad for p in params]
    frozen()
    for g, p in zip(expected, params, strict=True):
        np.testing.assert_allclose(p.grad, g, rtol=1e-12)

    results = measure({"dynamic graph": dynamic, "frozen replay": frozen}, NUMBER, REPEAT)
    print(f"MLP 2-{WIDTH}-{WIDTH}-1, batch {BATCH}, one step (us: min, median)")
    for name, (low, mid) in results.items():
        print(f"  {name:14s} {low:8.1f} {mid:8.1f}")
    speedup = results["dynamic graph"][0] / results["frozen replay"][0]
    print(f"dynamic / frozen: {speedup:.2f}x  (target > 1x)  met: {speedup > 1}")


if __name__ == "__main__":
    main()
