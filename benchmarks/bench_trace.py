"""Gradient of tr(x1 @ x2) for 30x30 float64 matrices: the YAAD seed's benchmark.

Three ways, timed in the same run:

* the hand-written numpy gradient (the baseline): the product, its trace, and
  the two matrix products with the identity that the chain rule asks for;
* micrograd_edu's Tensor (dynamic graph, backward);
* PyTorch eager, when installed: with its default threads (what a student
  gets) and with one thread (its best case for 30x30 on a busy machine).

Run: ``python benchmarks/bench_trace.py``. Prints microseconds (minimum and
median over many repeats) and the ratios against the targets: within 1.5x of
the hand-written gradient, at least 4x faster than PyTorch.
"""

from __future__ import annotations

import numpy as np
from timing import measure

from micrograd_edu import Tensor

N = 30
NUMBER = 200  # calls per timing
REPEAT = 40  # timings; we report the minimum and the median


def main() -> None:
    rng = np.random.default_rng(0)
    v1, v2 = rng.random((N, N)), rng.random((N, N))

    def by_hand():
        z1 = v1 @ v2
        np.trace(z1)
        g = np.eye(N)  # d tr(Z) / dZ
        return g @ v2.T, v1.T @ g

    x1, x2 = Tensor(v1, requires_grad=True), Tensor(v2, requires_grad=True)

    def ours():
        x1.grad = x2.grad = None
        (x1 @ x2).trace().backward()
        return x1.grad, x2.grad

    g1, g2 = ours()
    np.testing.assert_allclose(g1, v2.T)  # the closed form, before timing anything
    np.testing.assert_allclose(g2, v1.T)

    functions = {"numpy by hand": by_hand, "micrograd_edu": ours}
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        t1 = torch.tensor(v1, requires_grad=True)
        t2 = torch.tensor(v2, requires_grad=True)

        def pytorch():
            t1.grad = t2.grad = None
            torch.trace(torch.matmul(t1, t2)).backward()
            return t1.grad, t2.grad

        functions["pytorch eager"] = pytorch
    phases = {"": measure(functions, NUMBER, REPEAT)}
    if torch is not None:
        # PyTorch's default uses every core, which costs it dearly on a busy
        # machine; one thread is its best case at this size. Measure both,
        # each phase timing all three in turns.
        threads = torch.get_num_threads()
        phases = {f"pytorch with {threads} threads (default)": phases[""]}
        torch.set_num_threads(1)
        phases["pytorch with 1 thread"] = measure(functions, NUMBER, REPEAT)
        torch.set_num_threads(threads)

    print(f"gradient of tr(x1 @ x2), {N}x{N} float64 (us per call: min, median)")
    for phase, results in phases.items():
        print(phase)
        for name, (low, mid) in results.items():
            print(f"  {name:14s} {low:8.1f} {mid:8.1f}")
        ours_min = results["micrograd_edu"][0]
        ratio = ours_min / results["numpy by hand"][0]
        print(f"  micrograd_edu / by hand: {ratio:.2f}x  (target <= 1.5x)  met: {ratio <= 1.5}")
        if torch is not None:
            speedup = results["pytorch eager"][0] / ours_min
            print(f"  pytorch / micrograd_edu: {speedup:.2f}x  (target >= 4x)  met: {speedup >= 4}")
    if torch is None:
        print("pytorch not installed: that comparison is skipped")


if __name__ == "__main__":
    main()
