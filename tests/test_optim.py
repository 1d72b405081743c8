"""Optimisers against updates computed by hand from their published formulas.

Parameters here are mostly plain objects with ``.data`` and ``.grad``: the
optimisers read nothing else, so the update tests do not depend on the Tensor
engine.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from micrograd_edu import nn, optim
from micrograd_edu.tensor import Tensor


def param(values, grad):
    return SimpleNamespace(data=np.array(values, dtype=float), grad=np.array(grad, dtype=float))


def test_sgd_step_is_p_minus_lr_grad():
    p = param([1.0, -2.0], [0.5, 3.0])
    optim.SGD([p], lr=0.1).step()
    assert np.array_equal(p.data, [1.0 - 0.1 * 0.5, -2.0 - 0.1 * 3.0])


def test_sgd_momentum_and_weight_decay_by_hand():
    lr, mu, wd = 0.1, 0.9, 0.01
    p = param([1.0], [2.0])
    opt = optim.SGD([p], lr=lr, momentum=mu, weight_decay=wd)
    x, buf = 1.0, None
    for grad in [2.0, -1.0, 0.5]:
        p.grad = np.array([grad])
        opt.step()
        g = grad + wd * x
        buf = g if buf is None else mu * buf + g
        x = x - lr * buf
        assert p.data[0] == pytest.approx(x, rel=1e-15)


def test_adam_steps_by_hand():
    lr, b1, b2, eps, wd = 0.01, 0.8, 0.99, 1e-6, 0.1
    p = param([0.3, -0.7], [0.0, 0.0])
    opt = optim.Adam([p], lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)
    x = np.array([0.3, -0.7])
    m = v = np.zeros(2)
    for t, grad in enumerate([[1.0, -2.0], [0.5, 0.5], [-3.0, 0.1]], start=1):
        p.grad = np.array(grad)
        opt.step()
        g = np.array(grad) + wd * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        x = x - lr * m_hat / (np.sqrt(v_hat) + eps)
        assert np.allclose(p.data, x, rtol=1e-13, atol=0)


def test_adam_first_step_moves_each_coordinate_by_lr():
    p = param([0.0, 0.0, 0.0], [1e-3, -50.0, 7.0])
    optim.Adam([p], lr=0.5, eps=0.0).step()
    assert np.allclose(p.data, [-0.5, 0.5, -0.5], rtol=1e-14)


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1, momentum=0.5), optim.Adam])
def test_a_parameter_without_grad_is_skipped_and_zero_grad_sets_none(make):
    a, b = param([1.0], [1.0]), param([2.0], [1.0])
    b.grad = None
    opt = make([a, b])
    opt.step()
    assert b.data[0] == 2.0 and a.data[0] < 1.0
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    opt.step()  # nothing has a gradient: nothing moves
    assert b.data[0] == 2.0


def test_updates_are_in_place():
    p = param([1.0], [1.0])
    array = p.data
    optim.Adam([p]).step()
    optim.SGD([p], lr=0.1, momentum=0.9).step()
    assert p.data is array


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: optim.SGD([], lr=0.1), r"SGD: got an empty parameter list"),
        (lambda: optim.Adam(iter([])), r"Adam: got an empty parameter list"),
        (lambda: optim.SGD([param([1.0], [1.0])], lr=0), r"SGD: lr must be a positive number"),
        (lambda: optim.Adam([param([1.0], [1.0])], lr=-1), r"Adam: lr must be a positive"),
        (lambda: optim.SGD([param([1.0], [1.0])], lr=1, momentum=-1), r"momentum must be"),
        (lambda: optim.Adam([param([1.0], [1.0])], betas=(1.0, 0.9)), r"betas must be"),
        (lambda: optim.Adam([param([1.0], [1.0])], eps=-1), r"eps must be"),
        (lambda: optim.SGD([1.0], lr=0.1), r"parameter 0 is a float"),
        (lambda: optim.SGD(param([1.0], [1.0]), lr=0.1), r"got a single SimpleNamespace"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_the_same_parameter_twice_is_refused():
    p = param([1.0], [1.0])
    with pytest.raises(ValueError, match="more than once"):
        optim.SGD([p, p], lr=0.1)


@pytest.mark.parametrize("gap", [False, True])
def test_many_parameters_move_as_if_each_had_its_own_adam(gap):
    rng = np.random.default_rng(0)
    shapes = [(2, 3), (3,), (1, 1)]
    together = [param(rng.normal(size=s), np.zeros(s)) for s in shapes]
    alone = [param(p.data.copy(), np.zeros(p.data.shape)) for p in together]
    opt = optim.Adam(together, lr=0.1)
    singles = [optim.Adam([p], lr=0.1) for p in alone]
    for step in range(4):
        for i, (p, q) in enumerate(zip(together, alone, strict=True)):
            grad = rng.normal(size=p.data.shape)
            # with a gap the second parameter has no gradient at first, so the steps
            # fall out of line and each parameter is updated on its own
            p.grad = q.grad = None if (gap and i == 1 and step == 0) else grad
        opt.step()
        for single in singles:
            single.step()
        for p, q in zip(together, alone, strict=True):
            assert np.array_equal(p.data, q.data)
    assert [opt.state[p]["step"] for p in together] == ([4, 3, 4] if gap else [4, 4, 4])


def test_the_model_itself_or_a_computed_tensor_is_refused():
    model = nn.Linear(2, 1, seed=0)
    with pytest.raises(TypeError, match=r"got the model itself; pass its parameters"):
        optim.Adam(model)
    computed = Tensor(np.ones(2), requires_grad=True) * 2
    with pytest.raises(ValueError, match="parameter 0 was computed by an operation"):
        optim.SGD([computed], lr=0.1)
    with pytest.raises(ValueError, match="lr must be a positive number, got '0.1'"):
        optim.SGD(model.parameters(), lr="0.1")
