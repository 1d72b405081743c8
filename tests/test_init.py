import math

import numpy as np
import pytest

from micrograd_edu import init


@pytest.mark.parametrize(
    "fill, expected_std",
    [
        (lambda w, s: init.kaiming_normal_(w, seed=s), math.sqrt(2 / 50)),
        (lambda w, s: init.kaiming_uniform_(w, seed=s), math.sqrt(2 / 50)),
        (lambda w, s: init.kaiming_normal_(w, mode="fan_out", seed=s), math.sqrt(2 / 200)),
        (lambda w, s: init.xavier_normal_(w, seed=s), math.sqrt(2 / 250)),
        (lambda w, s: init.xavier_uniform_(w, seed=s), math.sqrt(2 / 250)),
        (lambda w, s: init.xavier_uniform_(w, gain=5 / 3, seed=s), 5 / 3 * math.sqrt(2 / 250)),
    ],
)
def test_initialisers_have_the_variance_of_their_formula(fill, expected_std):
    w = fill(np.empty((200, 50)), 0)  # shape (out, in): fan_in 50, fan_out 200
    assert abs(w.std() / expected_std - 1) < 0.03
    assert abs(w.mean()) < 4 * expected_std / math.sqrt(w.size)  # 4 standard errors
    assert np.array_equal(w, fill(np.empty((200, 50)), 0))  # same seed, same numbers
    assert not np.array_equal(w, fill(np.empty((200, 50)), 1))


def test_uniform_bounds():
    w = init.kaiming_uniform_(np.empty((64, 8)), seed=0)
    bound = math.sqrt(6 / 8)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound


def test_manual_seed_makes_the_default_generator_repeatable():
    init.manual_seed(11)
    a = init.normal_(np.empty(3))
    init.manual_seed(11)
    assert np.array_equal(a, init.normal_(np.empty(3)))


def test_initialisers_fill_a_tensor_like_in_place():
    class Holder:
        data = np.ones((2, 3))

    holder = Holder()
    array = holder.data
    assert init.zeros_(holder) is holder
    assert array is holder.data and not array.any()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: init.kaiming_normal_(np.empty(3)), r"at least 2 dimensions, got shape \(3,\)"),
        (lambda: init.kaiming_normal_(np.empty((2, 2)), mode="fan"), r"mode must be"),
        (lambda: init.calculate_gain("swish"), r"unknown nonlinearity 'swish'"),
        (lambda: init.zeros_([1.0, 2.0]), r"expected a numpy array or a Tensor, got list"),
        (lambda: init.as_generator(1.5), r"seed must be an int"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
