"""Regression tests for the 20 defects found against PyTorch 2.13 (issue 14), one or more
per defect, in the issue's order. Each compares with a closed form or central differences,
and with PyTorch itself where it is installed (float64 on both sides)."""

import math
import warnings

import numpy as np
import pytest
from central_differences import central_gradient

from micrograd_edu import Dual, Function, Tensor, Value, freeze, init, nn, no_grad, optim, tensor
from micrograd_edu.tensor import TracingWarning, cat, stack


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _t(torch, array, grad=True):
    return torch.tensor(np.asarray(array, dtype=float), dtype=torch.float64, requires_grad=grad)


CUBE = np.arange(27.0).reshape(3, 3, 3) / 7.0
WEIGHTS = np.sin(np.arange(27.0)).reshape(3, 3, 3)


@pytest.mark.parametrize("dims", [(2, 0, 1), (-1, 0, 1), (0, -1, -2), (-3, -1, -2), (1, -1, 0)])
def test_1_permute_with_negative_axes_has_the_right_gradient(dims):
    x = Tensor(CUBE, requires_grad=True)
    w = WEIGHTS.transpose([d % 3 for d in dims])
    (x.permute(*dims) * Tensor(w)).sum().backward()
    expected = central_gradient(lambda a: (a.transpose([d % 3 for d in dims]) * w).sum(), CUBE)
    np.testing.assert_allclose(x.grad.data, expected, atol=1e-8)
    if torch := _torch():
        tx = _t(torch, CUBE)
        (tx.permute(*dims) * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)


def test_1_permute_with_negative_axes_on_other_shapes():
    x = Tensor(np.ones((2, 3, 4, 5)), requires_grad=True)
    y = x.permute(-1, 0, -2, 1)
    assert y.shape == (5, 2, 4, 3)
    y.sum().backward()
    assert x.grad.shape == (2, 3, 4, 5)


@pytest.mark.parametrize("join", [cat, stack])
def test_2_joining_leaves_inputs_that_need_no_grad_alone(join):
    w = Tensor([1.0, 2.0], requires_grad=True)
    const = Tensor([3.0, 4.0])
    for _ in range(3):
        (join([w, const]) ** 2).sum().backward()
    assert const.grad is None
    np.testing.assert_allclose(w.grad.data, 3 * 2 * np.array([1.0, 2.0]))


def test_3_freeze_with_one_tensor_for_two_arguments_keeps_them_apart():
    def f(a, b):
        return (a * b + a).sum()

    x = Tensor([1.0, 2.0], requires_grad=True)
    frozen = freeze(f, x, x)
    a = Tensor([1.0, 2.0], requires_grad=True)
    b = Tensor([5.0, 7.0], requires_grad=True)
    out = frozen(a, b)  # forward and backward
    assert out.item() == pytest.approx(1 * 5 + 2 * 7 + 3)
    np.testing.assert_allclose(a.grad.data, [6.0, 8.0])  # b + 1
    np.testing.assert_allclose(b.grad.data, [1.0, 2.0])  # a


def test_4_the_derivative_of_x_to_the_zero_is_zero_in_every_engine():
    x = Tensor([0.0, 2.0, -1.5], requires_grad=True)
    (x**0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0, 0.0])
    v = Value(0.0)
    (v**0).backward()
    assert v.grad == 0.0
    assert (Dual(0.0, 1.0) ** 0).tangent == 0.0
    if torch := _torch():
        tx = _t(torch, [0.0, 2.0, -1.5])
        (tx**0).sum().backward()
        np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


def test_5_kaiming_uniform_uses_a():
    fan_in = 400
    w = Tensor(np.zeros((300, fan_in)))
    init.kaiming_uniform_(w, a=math.sqrt(5), seed=0)
    bound = 1 / math.sqrt(fan_in)  # gain sqrt(2 / (1 + 5)) times sqrt(3 / fan_in)
    assert np.abs(w.data).max() <= bound
    assert np.abs(w.data).max() > 0.99 * bound
    init.kaiming_uniform_(w, seed=0)  # the default nonlinearity is leaky_relu, a = 0
    assert np.abs(w.data).max() > 0.99 * math.sqrt(6 / fan_in)
    if torch := _torch():
        tw = torch.empty(300, fan_in, dtype=torch.float64)
        torch.nn.init.kaiming_uniform_(tw, a=math.sqrt(5))
        assert tw.abs().max().item() <= bound
        assert tw.abs().max().item() > 0.99 * bound


@pytest.mark.parametrize(
    "step",
    [
        lambda p: p.__isub__(0.1 * p.grad),
        lambda p: p.__iadd__(-0.1 * p.grad),
        lambda p: p.__imul__(0.5),
        lambda p: p.add_(p.grad, alpha=-0.1),
        lambda p: p.sub_(0.1 * p.grad),
        lambda p: p.mul_(0.5),
        lambda p: p.zero_(),
        lambda p: p.copy_(p - 0.1 * p.grad),
        lambda p: p.__setitem__(0, 0.0),
    ],
)
def test_6_a_hand_written_step_under_no_grad_keeps_the_parameter(step):
    lin = nn.Linear(3, 2, seed=0)
    nn.MSELoss()(lin(Tensor(np.ones((4, 3)))), Tensor(np.zeros((4, 2)))).backward()
    weight = lin.weight
    before = weight.data.copy()
    with no_grad():
        result = step(weight)
    if result is not None:
        lin.weight = result  # what `lin.weight -= ...` does with the returned object
    assert lin.weight is weight and isinstance(lin.weight, nn.Parameter)
    assert any(p is weight for p in lin.parameters())
    assert lin.state_dict()["weight"] is not None
    assert not np.array_equal(weight.data, before)
    weight.grad.zero_()
    assert not weight.grad.data.any()


def test_6_the_statement_form_rebinds_nothing():
    lin = nn.Linear(3, 1, seed=0)
    (lin(Tensor(np.ones((2, 3)))) ** 2).sum().backward()
    weight, expected = lin.weight, lin.weight.data - 0.1 * lin.weight.grad.data
    with no_grad():
        lin.weight -= 0.1 * lin.weight.grad
    assert lin.weight is weight
    np.testing.assert_allclose(lin.weight.data, expected)


def test_7_transpose_refuses_an_axis_out_of_range():
    x = Tensor(np.ones((2, 3, 4)))
    with pytest.raises(IndexError, match=r"transpose.*5.*\(2, 3, 4\)"):
        x.transpose(0, 5)
    assert x.transpose(0, -1).shape == (4, 3, 2)


def test_8_tensor_of_none_is_an_error():
    with pytest.raises(TypeError, match="None"):
        Tensor(None)
    with pytest.raises(TypeError, match="None"):
        tensor(None)


def test_9_max_over_a_nan_gives_the_gradient_to_the_nan():
    x = Tensor([1.0, np.nan, 3.0], requires_grad=True)
    y = x.max()
    assert np.isnan(y.item())
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 0.0])
    if torch := _torch():
        tx = _t(torch, [1.0, np.nan, 3.0])
        tx.max().backward()
        np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


def test_10_a_retained_graph_after_an_optimiser_step_is_refused():
    w = Tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    optim.SGD([w], lr=0.1).step()
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()


def test_11_integer_tensors_cannot_require_grad():
    with pytest.raises(RuntimeError, match="float"):
        Tensor(np.array([1, 2])).requires_grad = True
    with pytest.raises(RuntimeError, match="float"):
        tensor([1, 2], requires_grad=True)
    if torch := _torch():
        with pytest.raises(RuntimeError):
            torch.tensor([1, 2], requires_grad=True)


class SinCos(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sin(x), np.cos(x)

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        (x,) = ctx.saved_tensors
        return g_sin * np.cos(x) - g_cos * np.sin(x)


def test_12_a_function_with_two_outputs_gives_two_tensors():
    x = Tensor([0.3, 1.2], requires_grad=True)
    s, c = SinCos.apply(x)
    assert s.shape == c.shape == (2,)
    (2 * s + 3 * c).sum().backward()
    np.testing.assert_allclose(x.grad.data, 2 * np.cos(x.data) - 3 * np.sin(x.data))


def test_13_argmax_keepdim_and_a_dim_given_twice():
    x = Tensor(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]]))
    assert x.argmax(dim=1, keepdim=True).tolist() == [[1], [0]]
    assert x.argmax(dim=0).tolist() == [1, 0, 1]
    with pytest.raises(TypeError, match="dim"):
        x.sum(axis=1, dim=0)
    if torch := _torch():
        tx = torch.tensor(x.numpy())
        assert tx.argmax(dim=1, keepdim=True).tolist() == [[1], [0]]


def test_14_the_bool_error_recommends_methods_that_exist():
    x = Tensor([1.0, 0.0])
    with pytest.raises(RuntimeError, match=r"\.any\(\).*\.all\(\)") as error:
        bool(x)
    assert "ambiguous" in str(error.value)
    assert x.any().item() is True and x.all().item() is False


def test_15_a_0d_tensor_cannot_be_iterated():
    with pytest.raises(TypeError, match="0-d"):
        list(Tensor(1.0))
    assert [t.item() for t in Tensor([1.0, 2.0])] == [1.0, 2.0]


def test_16_tensor_plus_value_is_an_error_that_says_what_to_do():
    with pytest.raises(TypeError, match=r"Value.*\.data"):
        Tensor([1.0]) + Value(2.0)
    with pytest.raises(TypeError, match="Value"):
        Tensor([Value(1.0)])


def test_17_the_grad_of_a_0d_leaf_is_a_0d_tensor():
    x = Tensor(3.0, requires_grad=True)
    (x * x).backward()
    assert isinstance(x.grad, Tensor) and x.grad.shape == () and x.grad.item() == 6.0
    assert isinstance(x.grad.numpy(), np.ndarray) and isinstance(x.grad.data, Tensor)


def test_18_numpy_integers_as_axes_and_shapes():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    assert x.sum(axis=np.int64(1)).tolist() == [3.0, 12.0]
    assert x.reshape(np.int64(3), np.int32(2)).shape == (3, 2)
    assert x.transpose(np.int64(0), np.int64(1)).shape == (3, 2)
    assert x.reshape((np.int64(6),)).shape == (6,)


def test_19_micrographs_positional_value_gets_a_clear_error():
    a = Value(1.0)
    with pytest.raises(TypeError, match=r"second argument is the label.*operators record"):
        Value(2.0, (a,), "+")


def test_20_adam_accepts_numpy_numbers():
    w = Tensor([1.0], requires_grad=True)
    (w * 3).sum().backward()
    opt = optim.Adam([w], lr=np.float32(0.1), betas=(np.float64(0.9), 0.999))
    opt.step()
    np.testing.assert_allclose(w.data, [0.9], rtol=1e-6)


def test_freeze_warns_once_when_tracing_reads_a_value():
    def f(x):
        if x.sum().item() > 0:  # a branch steered by a value
            return (x * 2).sum()
        return (x * 3).sum()

    with pytest.warns(TracingWarning, match="branch") as caught:
        freeze(f, Tensor([1.0, 2.0], requires_grad=True))
    assert len([w for w in caught if w.category is TracingWarning]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        freeze(lambda x: (x * x).sum(), Tensor([1.0], requires_grad=True))
