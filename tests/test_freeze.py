"""freeze: the compiled replay against the dynamic graph it was traced from."""

import numpy as np
import pytest

from micrograd_edu import Tensor, freeze
from micrograd_edu.tensor import cross_entropy, mse_loss

RNG = np.random.default_rng(2)
SHAPES = [(2, 8), (8,), (8, 3), (3,)]


def classifier_loss(x, targets, W1, b1, W2, b2):
    h = (x @ W1 + b1).relu()
    return cross_entropy(h @ W2 + b2, targets)


def new_params():
    return [Tensor(RNG.normal(size=s), requires_grad=True) for s in SHAPES]


def batch(n=6):
    return Tensor(RNG.normal(size=(n, 2))), Tensor(RNG.integers(0, 3, size=n))


def dynamic_grads(f, inputs, params):
    copies = [Tensor(p.data.copy(), requires_grad=True) for p in params]
    value = f(*inputs, *copies)
    value.backward()
    return value.item(), [c.grad for c in copies]


def test_replay_equals_the_dynamic_graph_for_new_inputs():
    params = new_params()
    step = freeze(classifier_loss, *batch(), *params)
    for _ in range(3):
        inputs = batch()
        for p in params:
            p.grad = None
        value = step(*inputs, *params)
        expected_value, expected = dynamic_grads(classifier_loss, inputs, params)
        assert value.item() == pytest.approx(expected_value, rel=1e-14)
        assert value.grad_fn is None
        for p, g in zip(params, expected, strict=True):
            np.testing.assert_allclose(p.grad, g, rtol=1e-13)


def test_frozen_training_follows_the_dynamic_training():
    start = new_params()
    dyn = [Tensor(p.data.copy(), requires_grad=True) for p in start]
    frz = [Tensor(p.data.copy(), requires_grad=True) for p in start]
    x, targets = batch(16)
    step = freeze(classifier_loss, x, targets, *frz)
    for _ in range(30):
        classifier_loss(x, targets, *dyn).backward()
        step(x, targets, *frz)
        for p in dyn + frz:
            p.data -= 0.1 * p.grad
            p.grad = None
    for a, b in zip(dyn, frz, strict=True):
        np.testing.assert_allclose(a.data, b.data, rtol=1e-12)


def test_captured_tensors_are_read_at_each_call_and_get_gradients():
    w = Tensor(RNG.normal(size=(3, 1)), requires_grad=True)

    def loss(x):
        return mse_loss(x @ w, Tensor(np.zeros((4, 1))))

    x = Tensor(RNG.normal(size=(4, 3)))
    step = freeze(loss, x)
    w.data *= 2  # changed in place after tracing: the replay sees it
    value = step(x)
    assert value.item() == pytest.approx(np.mean((x.data @ w.data) ** 2))
    np.testing.assert_allclose(w.grad, 2 * x.data.T @ (x.data @ w.data) / 4)


def test_gradients_accumulate_like_backward():
    w = Tensor([1.0, 2.0], requires_grad=True)
    step = freeze(lambda w: (w * w).sum(), w)
    step(w)
    step(w)
    np.testing.assert_allclose(w.grad, 2 * 2 * np.array([1.0, 2.0]))


def test_inputs_without_requires_grad_get_no_gradient_and_arrays_are_accepted():
    x, w = Tensor([1.0, 2.0]), Tensor([3.0, 4.0], requires_grad=True)
    step = freeze(lambda x, w: (x * w).sum(), x, w)
    value = step(np.array([5.0, 6.0]), w)
    assert value.item() == 5 * 3 + 6 * 4
    assert x.grad is None
    np.testing.assert_allclose(w.grad, [5.0, 6.0])


def test_source_is_straight_line():
    w = Tensor([1.0, 2.0], requires_grad=True)
    step = freeze(lambda w: (w * w).sum(), w)
    body = step.source.splitlines()[1:]
    assert not any(line.strip().startswith(("for", "while", "if")) for line in body)
    assert step.instructions == 2 and "mul" in step.source and "sum" in step.source
    assert repr(step).startswith("<frozen <lambda>((2,)): 2 operations")


def test_forward_only_when_nothing_requires_grad():
    step = freeze(lambda x: x.exp().sum(), Tensor([0.0, 1.0]))
    assert step(Tensor([0.0, 0.0])).item() == 2.0
    assert "vjp" not in step.source


def test_the_same_tensor_passed_twice():
    w = Tensor([1.0, 2.0], requires_grad=True)
    step = freeze(lambda a, b: (a * b).sum(), w, w)
    step(w, w)
    np.testing.assert_allclose(w.grad, [2.0, 4.0])


def test_float32_stays_float32_in_the_replay():
    w = Tensor(np.ones((3, 2), dtype=np.float32), requires_grad=True)
    x = Tensor(np.ones((4, 3), dtype=np.float32))
    step = freeze(lambda x, w: (x @ w).amax(axis=1).sum(), x, w)
    assert step(x, w).dtype == np.float32 and w.grad.dtype == np.float32
