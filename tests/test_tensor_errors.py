"""Bad input: each mistake gets an error naming the operation and the shapes or values."""

import warnings

import numpy as np
import pytest

from micrograd_edu import (
    DomainError,
    Function,
    ShapeError,
    Tensor,
    Value,
    freeze,
    inference_mode,
    no_grad,
)
from micrograd_edu.tensor import concatenate, cross_entropy, mse_loss


def leaf(a):
    return Tensor(a, requires_grad=True)


def test_matmul_shape_mismatch_names_both_shapes():
    with pytest.raises(ShapeError, match=r"matmul.*\(2, 3\) and \(4, 5\)"):
        leaf(np.ones((2, 3))) @ Tensor(np.ones((4, 5)))
    with pytest.raises(ShapeError, match=r"matmul.*\(\).*\(3,\)"):
        Tensor(2.0) @ Tensor(np.ones(3))


def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(ShapeError, match=r"add: shapes \(2, 3\) and \(4,\) do not broadcast"):
        leaf(np.ones((2, 3))) + Tensor(np.ones(4))
    with pytest.raises(ShapeError, match=r"mul: shapes \(3,\) and \(2,\)"):
        Tensor(np.ones(3)) * np.ones(2)
    with pytest.raises(ShapeError, match=r"pow: shapes \(2, 3\) and \(2,\)"):
        leaf(np.ones((2, 3))) ** Tensor([2.0, 3.0])  # the domain check broadcasts first


def test_backward_from_non_scalar_needs_a_gradient():
    y = leaf(np.ones((2, 3))) * 2
    with pytest.raises(RuntimeError, match=r"scalar.*shape \(2, 3\).*gradient="):
        y.backward()


def test_backward_twice_names_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"second time.*retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad, 2 * 2 * np.array([1.0, 2.0]))


def test_gradient_of_wrong_shape_or_dtype():
    y = leaf(np.ones((2, 3))) * 2
    with pytest.raises(ShapeError, match=r"gradient has shape \(3, 2\).*\(2, 3\)"):
        y.backward(np.ones((3, 2)))
    with pytest.raises(TypeError, match="dtype float32.*float64"):
        y.backward(np.ones((2, 3), dtype=np.float32))


def test_function_returning_a_wrong_gradient_is_named():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return np.ones(5)

    y = Bad.apply(leaf(np.ones(3)))
    with pytest.raises(ShapeError, match=r"Bad.backward.*shape \(5,\).*shape \(3,\)"):
        y.sum().backward()

    class Float32(Bad):
        @staticmethod
        def backward(ctx, grad):
            return grad.data.astype(np.float32)

    with pytest.raises(TypeError, match=r"Float32.backward.*dtype float32.*float64"):
        Float32.apply(leaf(np.ones(3))).sum().backward()

    class TooMany(Bad):
        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    with pytest.raises(TypeError, match=r"TooMany.backward returned 2 gradients.*took 1"):
        TooMany.apply(leaf(np.ones(3))).sum().backward()


def test_integer_tensor_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating-point.*int64"):
        Tensor(np.arange(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="bool"):
        Tensor(np.ones(2, dtype=bool)).requires_grad_()
    assert Tensor(np.arange(3)).dtype == np.int64  # allowed without requires_grad


def test_inference_tensor_in_a_recorded_computation():
    w = leaf([1.0, 2.0])
    with inference_mode():
        x = Tensor([3.0, 4.0]) * 2
    with pytest.raises(RuntimeError, match=r"mul: an input was created under inference_mode"):
        w * x
    with no_grad():
        assert (w * x).grad_fn is None  # not recorded: allowed
    (w * x.clone()).sum().backward()  # the suggested way out
    np.testing.assert_allclose(w.grad, [6.0, 8.0])


def test_outside_a_domain_a_tensor_gives_ieee_values_silently_and_a_value_raises():
    # Tensor follows IEEE arithmetic, as numpy and PyTorch do (elementwise.py's docstring
    # says why); the scalar engine keeps its DomainError, naming the operation.
    inf, nan = np.inf, np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning either, as in PyTorch
        np.testing.assert_array_equal(
            leaf([[1.0, 0.0], [-3.0, 4.0]]).log().detach().numpy(),
            [[0.0, -inf], [nan, np.log(4.0)]],
        )
        quotient = leaf([1.0, 0.0, -1.0]) / Tensor([0.0, 0.0, 0.0])
        np.testing.assert_array_equal(quotient.detach().numpy(), [inf, nan, -inf])
        np.testing.assert_array_equal((leaf([-1.0, 4.0]) ** 0.5).detach().numpy(), [nan, 2.0])
        np.testing.assert_array_equal(leaf([-1.0]).sqrt().detach().numpy(), [nan])
        np.testing.assert_array_equal(leaf([-2.0]).log1p().detach().numpy(), [nan])
        x = leaf([0.0, 1.0])
        x.sqrt().sum().backward()  # the value is defined at 0, the slope is infinite
    np.testing.assert_array_equal(x.grad.numpy(), [inf, 0.5])
    with pytest.raises(DomainError, match=r"log\(0.0\): log is defined only for positive"):
        Value(0.0).log()


def test_shape_errors_of_other_operations():
    with pytest.raises(ShapeError, match=r"reshape.*\(2, 3\).*\(4,\)"):
        leaf(np.ones((2, 3))).reshape(4)
    with pytest.raises(ShapeError, match=r"cat.*\(2, 3\), \(2, 4\).*axis 0"):
        concatenate([Tensor(np.ones((2, 3))), Tensor(np.ones((2, 4)))])
    with pytest.raises(ShapeError, match=r"sum: dim 2 is out of range for .* shape \(2, 3"):
        leaf(np.ones((2, 3))).sum(axis=2)
    with pytest.raises(ShapeError, match=r"mse_loss.*\(3,\).*\(3, 1\)"):
        mse_loss(leaf(np.ones(3)), Tensor(np.ones((3, 1))))
    with pytest.raises(ShapeError, match=r"trace.*\(3,\)"):
        leaf(np.ones(3)).trace()


def test_cross_entropy_targets():
    logits = leaf(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="integer class indices.*float64"):
        cross_entropy(logits, np.array([0.0, 1.0]))
    with pytest.raises(ShapeError, match=r"\(2, 3\).*targets of shape \(2,\).*\(3,\)"):
        cross_entropy(logits, np.array([0, 1, 2]))
    with pytest.raises(IndexError, match="target 3 is not a class index in 0..2"):
        cross_entropy(logits, np.array([0, 3]))


def test_backward_on_a_tensor_without_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        Tensor([1.0]).sum().backward()


def test_item_and_bool_of_many_entries():
    with pytest.raises(ValueError, match=r"item.*\(2,\)"):
        Tensor([1.0, 2.0]).item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(Tensor([1.0, 2.0]))


def test_frozen_function_reports_a_new_shape():
    def loss(x, w):
        return (x @ w).sum()

    w = leaf(np.ones((3, 1)))
    step = freeze(loss, Tensor(np.ones((4, 3))), w)
    with pytest.raises(
        ShapeError, match=r"input 1 of \d+ was traced with shape \(4, 3\).*\(5, 3\)"
    ):
        step(Tensor(np.ones((5, 3))), w)
    with pytest.raises(TypeError, match="traced with 2 inputs, called with 1"):
        step(w)


def test_freeze_needs_a_scalar_when_it_replays_backward():
    with pytest.raises(ShapeError, match=r"returned shape \(3,\).*scalar"):
        freeze(lambda x: x * 2, leaf(np.ones(3)))
    with pytest.raises(TypeError, match="must return a Tensor"):
        freeze(lambda x: 3.0, leaf(np.ones(3)))
