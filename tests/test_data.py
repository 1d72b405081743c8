import numpy as np
import pytest

from micrograd_edu import data


def test_linear_regression_is_seeded_and_follows_its_model():
    X, y, beta = data.linear_regression(seed=3)
    X2, y2, beta2 = data.linear_regression(seed=3)
    assert np.array_equal(X, X2) and np.array_equal(y, y2) and np.array_equal(beta, beta2)
    assert not np.array_equal(beta, data.linear_regression(seed=4)[2])
    assert X.shape == (10_000, 5) and y.shape == (10_000, 1) and beta.shape == (5,)
    assert X.min() >= -1 and X.max() < 1
    # least squares on the data recovers beta up to the noise (oracle: numpy's lstsq)
    fitted = np.linalg.lstsq(X, y[:, 0], rcond=None)[0]
    assert np.allclose(fitted, beta, atol=0.01)
    residual = y[:, 0] - X @ beta
    assert abs(residual.std() - 0.1) < 0.005 and abs(residual.mean()) < 0.005


def test_linear_regression_beta_is_drawn_around_minus_one():
    betas = np.concatenate([data.linear_regression(n=1, seed=s)[2] for s in range(400)])
    assert abs(betas.mean() + 1) < 0.1 and abs(betas.std() - 1) < 0.1


def test_piecewise_truth_matches_its_two_formulas():
    x = np.array([-1.0, -0.5, -1e-9, 0.0, 0.1, 1.0])
    expected = [
        -3 * x0**2 - 2 if x0 < 0 else np.exp(1.5 * x0) * np.sin(10 * x0) for x0 in x.tolist()
    ]
    assert np.allclose(data.piecewise_truth(x), expected, rtol=0, atol=1e-15)
    assert data.piecewise_truth(0.0) == 0.0


def test_piecewise_samples_noise_around_the_truth():
    x, y = data.piecewise(seed=1)
    assert x.shape == y.shape == (1000, 1)
    assert x.min() >= -1 and x.max() < 1
    noise = y - data.piecewise_truth(x)
    assert abs(noise.std() - 0.1) < 0.01
    assert np.array_equal(y, data.piecewise(seed=1)[1])


def test_two_moons_lie_on_their_circles_without_noise():
    X, y = data.two_moons(n=101, noise=0.0, seed=0)
    assert X.shape == (101, 2) and y.shape == (101,)
    assert int((y == 0).sum()) == 50 and int((y == 1).sum()) == 51
    upper, lower = X[y == 0], X[y == 1]
    assert np.allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0)  # centre (0, 0)
    assert np.allclose(np.hypot(lower[:, 0] - 1, lower[:, 1] - 0.5), 1.0)  # centre (1, ½)
    assert upper[:, 1].min() >= -1e-12 and lower[:, 1].max() <= 0.5 + 1e-12
    # rows are shuffled: labels are not sorted
    assert not np.array_equal(y, np.sort(y))


def test_batches_cover_every_row_once_per_epoch_and_reshuffle():
    x = np.arange(10.0)[:, None]
    y = 2 * x
    loader = data.Batches(x, y, batch_size=3, seed=0)
    assert len(loader) == 4
    epochs = []
    for _ in range(2):
        batches = list(loader)
        assert [len(b[0]) for b in batches] == [3, 3, 3, 1]
        for xb, yb in batches:
            assert np.array_equal(yb, 2 * xb)  # rows stay paired
        seen = np.concatenate([xb[:, 0] for xb, _ in batches])
        assert sorted(seen.tolist()) == list(range(10))
        epochs.append(seen)
    assert not np.array_equal(epochs[0], epochs[1])
    again = data.Batches(x, y, batch_size=3, seed=0)
    assert np.array_equal(np.concatenate([b[0][:, 0] for b in again]), epochs[0])


def test_batches_drop_last_and_no_shuffle():
    x = np.arange(7.0)
    batches = [b.tolist() for (b,) in data.Batches(x, batch_size=3, shuffle=False, drop_last=True)]
    assert batches == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_a_shared_generator_is_used_as_given():
    rng = np.random.default_rng(7)
    a = data.piecewise(n=5, seed=rng)[0]
    b = data.piecewise(n=5, seed=rng)[0]
    assert not np.array_equal(a, b)  # the stream moved on


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: data.Batches(np.zeros(3), np.zeros(4), batch_size=2), r"same number of rows"),
        (lambda: data.Batches(np.zeros(3), batch_size=0), r"batch_size must be a positive"),
        (lambda: data.Batches(batch_size=2), r"at least one array"),
        (lambda: data.linear_regression(n=0), r"n must be a positive int, got 0"),
        (lambda: data.piecewise(seed="x"), r"seed must be an int"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
