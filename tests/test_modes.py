"""The autograd modes table: default, no_grad, inference_mode."""

import numpy as np
import pytest

from micrograd_edu import Tensor, enable_grad, inference_mode, is_grad_enabled, no_grad
from micrograd_edu.tensor.modes import is_inference_mode


def test_default_mode_records():
    w = Tensor([1.0], requires_grad=True)
    assert is_grad_enabled() and not is_inference_mode()
    y = w * 2
    assert y.requires_grad and y.grad_fn is not None


@pytest.mark.parametrize("mode", [no_grad, inference_mode])
def test_modes_record_nothing(mode):
    w = Tensor([1.0], requires_grad=True)
    with mode():
        assert not is_grad_enabled()
        y = w * 2 + 1
        v = Tensor([2.0], requires_grad=True) * 3  # requires_grad has no effect here
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert not v.requires_grad
    assert is_grad_enabled()


@pytest.mark.parametrize("mode", [no_grad, inference_mode])
def test_modes_as_decorators_restore_state_after_errors(mode):
    @mode()
    def predict(w):
        assert not is_grad_enabled()
        return w * 3

    assert predict(Tensor([1.0], requires_grad=True)).grad_fn is None
    assert is_grad_enabled()
    with pytest.raises(ZeroDivisionError), mode():
        raise ZeroDivisionError
    assert is_grad_enabled() and not is_inference_mode()


def test_decorator_can_recurse():
    @no_grad()
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    assert depth(3) == 3 and is_grad_enabled()


def test_no_grad_tensors_are_ordinary_later():
    w = Tensor([2.0], requires_grad=True)
    with no_grad():
        x = Tensor([3.0]) * 1
    (w * x).sum().backward()
    np.testing.assert_allclose(w.grad, [3.0])


def test_inference_tensors_refused_later_only_when_saved_for_backward():
    # PyTorch's rule: an inference tensor may take part in a recorded computation, but
    # not be saved for its backward (x + w needs neither value; x * w needs x for dw).
    with inference_mode():
        x = Tensor([3.0]) * 1
        assert is_inference_mode() and x.is_inference()
    assert (x * 2).data[0] == 6.0  # nothing requires grad: not recorded, allowed
    w = Tensor([1.0], requires_grad=True)
    y = w + x
    y.backward()
    assert y.requires_grad and w.grad.tolist() == [1.0]
    with pytest.raises(RuntimeError, match="inference_mode.*cannot be saved for backward"):
        w * x
    with pytest.raises(RuntimeError, match="inference tensor cannot be changed in place"):
        with no_grad():
            x += 1
    with inference_mode():
        x += 1  # inside inference_mode it may
    assert x.tolist() == [4.0]


def test_enable_grad_inside_no_grad():
    w = Tensor([1.0], requires_grad=True)
    with no_grad():
        with enable_grad():
            assert is_grad_enabled()
            y = w * 2
        assert not is_grad_enabled()
    assert y.grad_fn is not None


def test_no_grad_inside_inference_mode_keeps_inference_tensors():
    with inference_mode(), no_grad():
        x = Tensor([1.0]) * 1
    with pytest.raises(RuntimeError, match="inference_mode"):
        Tensor([1.0], requires_grad=True) * x


def test_requires_grad_switch_freezes_part_of_a_model():
    w1 = Tensor([1.0, 2.0], requires_grad=True)
    w2 = Tensor([3.0, 4.0], requires_grad=True).requires_grad_(False)
    (w1 * w2).sum().backward()
    np.testing.assert_allclose(w1.grad, [3.0, 4.0])
    assert w2.grad is None
    with pytest.raises(RuntimeError, match="detach"):
        (w1 * 2).requires_grad_(False)
