"""The scalar MLP: shapes, seeding, and gradients against central differences."""

import pytest

from micrograd_edu import Value
from micrograd_edu.scalar.nn import MLP, Layer, Neuron


def hinge_loss(model, xs, ys):
    scores = [model(x) for x in xs]
    losses = [(1 + -y * s).relu() for y, s in zip(ys, scores, strict=True)]
    return sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())


XS = [[0.5, -1.0], [-0.3, 0.8], [1.2, 0.1]]
YS = [1.0, -1.0, 1.0]


def test_parameter_count_and_seeding():
    model = MLP(2, [16, 16, 1], seed=3)
    assert len(model.parameters()) == (2 * 16 + 16) + (16 * 16 + 16) + (16 + 1)
    same = MLP(2, [16, 16, 1], seed=3)
    other = MLP(2, [16, 16, 1], seed=4)
    data = [p.data for p in model.parameters()]
    assert data == [p.data for p in same.parameters()]
    assert data != [p.data for p in other.parameters()]
    assert all(-1.0 <= w <= 1.0 for w in data)


def test_layer_shapes_and_nonlinearity():
    layer = Layer(3, 4, rng=None)
    out = layer([1.0, 2.0, 3.0])
    assert len(out) == 4 and all(o.data >= 0.0 for o in out)  # ReLU
    linear = Neuron(2, nonlin=False)
    assert linear([1.0, 1.0]).op == "add"
    assert "ReLU" in repr(MLP(2, [3, 1]))


def test_gradients_match_central_differences():
    model = MLP(2, [4, 4, 1], seed=1)
    loss = hinge_loss(model, XS, YS)
    model.zero_grad()
    loss.backward()
    h = 1e-6
    for p in model.parameters():
        original = p.data
        p.data = original + h
        up = hinge_loss(model, XS, YS).data
        p.data = original - h
        down = hinge_loss(model, XS, YS).data
        p.data = original
        assert p.grad == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-8)


def test_zero_grad_and_a_training_step_lowers_the_loss():
    model = MLP(2, [8, 1], seed=0)
    before = hinge_loss(model, XS, YS)
    model.zero_grad()
    before.backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    for p in model.parameters():
        p.data -= 0.05 * p.grad
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())
    assert hinge_loss(model, XS, YS).data < before.data


def test_wrong_number_of_inputs():
    with pytest.raises(ValueError, match=r"Neuron: expected 2 inputs, got 3"):
        MLP(2, [3, 1])([1.0, 2.0, 3.0])


def test_inputs_may_be_values_and_get_gradients():
    model = MLP(2, [3, 1], seed=0)
    x = [Value(0.5), Value(-0.5)]
    model(x).backward()
    h = 1e-6
    for k in range(2):
        up, down = [0.5, -0.5], [0.5, -0.5]
        up[k] += h
        down[k] -= h
        numeric = (model(up).data - model(down).data) / (2 * h)
        assert x[k].grad == pytest.approx(numeric, rel=1e-6, abs=1e-9)
