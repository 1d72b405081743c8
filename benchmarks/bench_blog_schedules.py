"""The post's two experiments with its own schedules, against the chapter's mini-batches.

The autodiff-library post trained both experiments one sample per step, in the data's
order, each sample's squared error divided by n, for 100 epochs: 1,000,000 steps of
momentum SGD (lr 0.01, momentum 0.9) for the linear model and 100,000 steps of Adam
(lr 1e-3) for the 10-layer ReLU network. Chapter 09 runs the first epoch of each (and
all 100 when its BLOG_SCHEDULE switch is on); this runs all of them on the tensor engine
and checks the post's outcomes:

* linear: β recovered to within 0.01 in every coordinate (the post's run: 0.002);
* non-linear: a training MSE below 0.05, against the noise floor 0.01 (the post shows
  its fit, not a number; the chapter's 3,200 mini-batch steps reach 0.0126).

A wrong outcome fails (exit 1). The times, and the chapter's mini-batch runs next to
them, are printed: batching is the factor between the two schedules on one engine
(chapter 09 measures vectorisation, the scalar engine against the tensor one, apart).

Run: ``python benchmarks/bench_blog_schedules.py``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from micrograd_edu import Tensor, data, nn, no_grad, optim
from micrograd_edu.course.experiments import (
    deep_relu_net,
    nonlinear_batches,
    per_sample,
    squared_error_over,
    train,
)
from micrograd_edu.tensor import mse_loss


def linear(schedule: str) -> tuple[float, float]:
    """Seconds, and the largest |β̂ - β|, for the post's or the chapter's schedule."""
    X, y, beta = data.linear_regression(n=10_000, m=5, noise=0.1, seed=0)
    model = nn.Linear(5, 1, bias=False, seed=0)
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    start = time.perf_counter()
    if schedule == "post":
        train(model, opt, per_sample(X, y, 100), squared_error_over(len(X)))
    else:
        train(model, opt, [(X, y)] * 200)  # chapter 09: one full-batch step per epoch
    return time.perf_counter() - start, float(np.abs(model.weight.data[0] - beta).max())


def nonlinear(schedule: str) -> tuple[float, float]:
    """Seconds, and the training MSE, for the post's or the chapter's schedule."""
    x, y = data.piecewise(seed=0)
    net = deep_relu_net(seed=1)
    opt = optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.999))
    start = time.perf_counter()
    if schedule == "post":
        train(net, opt, per_sample(x, y, 100), squared_error_over(len(x)))
    else:
        train(net, opt, nonlinear_batches(epochs=100, seed=1))
    seconds = time.perf_counter() - start
    with no_grad():
        return seconds, mse_loss(net(Tensor(x)), Tensor(y)).item()


def main() -> int:
    ok = True
    rows = [
        ("linear", "largest |β̂ - β|", linear, 0.01),
        ("non-linear", "training MSE", nonlinear, 0.05),
    ]
    for name, measure, run, bound in rows:
        post_seconds, post_value = run("post")
        chapter_seconds, chapter_value = run("chapter")
        met = post_value < bound
        ok &= met
        for who, seconds, value in (
            ("post", post_seconds, post_value),
            ("chapter", chapter_seconds, chapter_value),
        ):
            print(f"{name}, the {who}'s schedule: {seconds:6.1f} s, {measure} {value:.4f}")
        print(
            f"  the post's outcome ({measure} < {bound}): {'met' if met else 'WRONG'};"
            f" its schedule takes {post_seconds / chapter_seconds:.0f}x the chapter's time"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
