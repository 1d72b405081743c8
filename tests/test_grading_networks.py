"""The grader reads a trained network as plain numbers and runs them itself (chapters 09
and 10): on random networks of every layer it reads, its forward pass agrees with the
package's own module in ``eval()``, the independent oracle; what it does not read is
named, and never run."""

import numpy as np
import pytest

from micrograd_edu import nn, optim
from micrograd_edu.grading.networks import forward, network_problem
from micrograd_edu.grading.runners.networks import read_network
from micrograd_edu.tensor import Tensor


def _random_network(rng: np.random.Generator, inputs: int) -> nn.Sequential:
    layers, width = [], inputs
    for _ in range(rng.integers(1, 4)):
        out = int(rng.integers(1, 6))
        layers.append(nn.Linear(width, out, bias=bool(rng.integers(2))))
        width = out
        if rng.random() < 0.6:
            affine = bool(rng.integers(2))
            layers.append(nn.BatchNorm1d(width, affine=affine, momentum=float(rng.random())))
        pick = rng.integers(4)
        layers.append([nn.ReLU(), nn.Tanh(), nn.LeakyReLU(0.1), nn.Dropout(0.3)][pick])
    return nn.Sequential(*layers)


@pytest.mark.parametrize("seed", range(40))
def test_the_graders_forward_is_the_modules_in_eval(seed):
    rng = np.random.default_rng(seed)
    inputs = int(rng.integers(1, 5))
    model = _random_network(rng, inputs)
    x = rng.normal(size=(16, inputs)) * 3 + 1
    step = optim.SGD(model.parameters(), lr=0.05)
    for _ in range(3):  # training moves the running statistics and the affine numbers
        step.zero_grad()
        (model(Tensor(x)) ** 2).mean().backward()
        step.step()
    seen = read_network(model)
    assert network_problem(seen, inputs) is None, seen
    held_out = rng.normal(size=(7, inputs))
    expected = model.eval()(Tensor(held_out)).detach().numpy()
    assert np.allclose(forward(seen, held_out), expected, rtol=1e-10, atol=1e-12)


def test_what_it_does_not_read_is_named_and_not_run():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.Linear(2, 1)

        def forward(self, x):
            raise AssertionError("the grader ran a module's own forward")

    batch_statistics = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3, track_running_stats=False))
    for answer, named in ((Net(), "a module of type Net"), (batch_statistics, "BatchNorm1d")):
        problem = network_problem(read_network(answer), 2)
        assert named in problem and "does not read" in problem, problem
