"""Chapter 09's typical mistakes, written as a student writes them: mini-batches, recovering β
by gradient descent, and a training loop (a training takes a second or two: those examples
run on one seed)."""

import numpy as np

from micrograd_edu import Tensor, nn, optim
from mistakes import Example


def minibatch_indices(n, batch_size, rng):
    order = rng.permutation(n)
    return [order[k : k + batch_size] for k in range(0, n, batch_size)]


def fit_linear(X, y, steps=500):
    y = np.asarray(y, dtype=float).reshape(-1)
    lr = 1.0 / np.linalg.eigvalsh(2.0 / len(X) * X.T @ X).max()
    beta = np.zeros(X.shape[1])
    for _ in range(steps):
        beta -= lr * 2.0 / len(X) * X.T @ (X @ beta - y)
    return beta


def train_model(x, y, seed, epochs=60, lr=5e-3, cleared=True, activation=nn.ReLU):
    """The solution notebook's loop; the keywords make the mistakes below."""
    rng = np.random.default_rng(seed)
    layers = [nn.Linear(1, 64, seed=rng), activation(), nn.Linear(64, 64, seed=rng), activation()]
    model = nn.Sequential(
        *layers, nn.Linear(64, 64, seed=rng), activation(), nn.Linear(64, 1, seed=rng)
    )
    opt = optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        if epoch == 3 * epochs // 4:
            opt.lr = lr / 10
        for batch in minibatch_indices(len(x), 32, rng):
            if cleared:
                opt.zero_grad()
            loss = ((model(Tensor(x[batch])) - Tensor(y[batch])) ** 2).mean()
            loss.backward()
            opt.step()
    return model


CORRECT = {
    "minibatch_indices": minibatch_indices,
    "fit_linear": fit_linear,
    "train_model": train_model,
}
SLOW = {"09.train_model"}  # the right answers' test runs it on one seed


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


BATCHES, LINEAR, TRAIN = "09.minibatch_indices", "09.fit_linear", "09.train_model"


def _with_replacement(n, batch_size, rng):
    rows = rng.integers(0, n, size=n)
    return [rows[k : k + batch_size] for k in range(0, n, batch_size)]


def _batch_order_only(n, bs, rng):
    # the review's: batches of neighbouring rows, only their order drawn from rng
    b = [np.arange(i, min(i + bs, n)) for i in range(0, n, bs)]
    return [b[k] for k in rng.permutation(len(b))]


def _global_generator(n, batch_size, rng):
    order = np.random.permutation(n)  # numpy's global generator, not rng
    return [order[k : k + batch_size] for k in range(0, n, batch_size)]


def _broadcasts(X, y):
    # β as a column (m, 1): X @ beta is (n, 1), and a flat y (n,) makes the residual (n, n)
    lr = 1.0 / np.linalg.eigvalsh(2.0 / len(X) * X.T @ X).max()
    beta = np.zeros((X.shape[1], 1))
    for _ in range(30):
        beta = beta - lr * 2.0 / len(X) * X.T @ (X @ beta - y)
    return beta


def _fixed_lr(X, y):
    y = np.asarray(y, dtype=float).reshape(-1)
    beta = np.zeros(X.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):  # where it diverges, to inf
        for _ in range(2000):
            beta -= 1.0 * 2.0 / len(X) * X.T @ (X @ beta - y)
    return beta


def _one_rate(lr, steps=500):
    """The review's descent with one learning rate for every data set and no scaling."""

    def fit_linear(X, y):
        y = np.asarray(y, float).reshape(-1)
        b = np.zeros(X.shape[1])
        with np.errstate(over="ignore", invalid="ignore"):
            for _ in range(steps):
                b -= lr * 2 / len(X) * X.T @ (X @ b - y)
        return b

    return fit_linear


def _standardised(X, y, steps=300):
    # features scaled to one size first: then a single learning rate suits every data set
    y = np.asarray(y, float).reshape(-1)
    s = X.std(axis=0)
    Xs = X / s
    b = np.zeros(X.shape[1])
    for _ in range(steps):
        b = b - 0.2 * 2 / len(X) * Xs.T @ (Xs @ b - y)
    return b / s


def _column_y(X, y, steps=500):
    # the review's: y used as it came, a column (n, 1) when given so
    X = np.asarray(X, float)
    n, m = X.shape
    s = np.sqrt((X**2).mean(axis=0))
    Xs = X / s
    lr = 1.0 / np.linalg.eigvalsh(2 / n * Xs.T @ Xs).max()
    b = np.zeros(m)
    for _ in range(steps):
        b -= lr * (2 / n) * Xs.T @ (Xs @ b - y)
    return b / s


def _scaled_in_place(X, y):
    scale = np.abs(X).max(axis=0)
    X /= scale  # into the caller's X
    return fit_linear(X, y) / scale


def _constant(x, y, seed):
    model = nn.Linear(1, 1, seed=0)
    model.weight.data[...] = 0.0
    model.bias.data[...] = float(np.mean(y))
    return model


def _linear_stack(x, y, seed):
    return train_model(x, y, seed, epochs=5, activation=nn.Identity)


def _unseeded(x, y, seed):
    return train_model(x, y, int(np.random.default_rng().integers(1000)))


EXAMPLES = [
    one(BATCHES, "with replacement", _with_replacement),
    one(
        BATCHES,
        "last batch dropped",
        lambda n, b, rng: minibatch_indices(n, b, rng)[: n // b],
    ),
    one(
        BATCHES,
        "even sizes",
        lambda n, b, rng: np.array_split(rng.permutation(n), -(-n // b)),
    ),
    one(
        BATCHES,
        "stored order",
        lambda n, b, rng: [np.arange(k, min(k + b, n)) for k in range(0, n, b)],
    ),
    one(
        BATCHES,
        "same order",
        lambda n, b, rng: minibatch_indices(n, b, np.random.default_rng(0)),
    ),
    one(BATCHES, "not from rng", _global_generator),
    one(BATCHES, "batches shuffled", _batch_order_only),
    one(LINEAR, "β as a column", _broadcasts, seeds=2),
    one(LINEAR, "diverged", _fixed_lr, seeds=3, also=("stopped short",)),
    one(LINEAR, "in place", _scaled_in_place, seeds=3),
    one(LINEAR, "y as a column", _column_y, seeds=2),
    # one learning rate, no scaling: it diverges on features tens long (lr 0.1, the review's),
    # and, small enough not to, barely moves on features a few hundredths long
    one(LINEAR, "diverged", _one_rate(0.1), seeds=3, label="lr 0.1", also=("stopped short",)),
    one(LINEAR, "stopped short", _one_rate(1e-3, steps=20000), seeds=3, label="lr 1e-3"),
    one(
        TRAIN,
        "never cleared",
        lambda x, y, s: train_model(x, y, s, epochs=6, cleared=False),
        seeds=1,
    ),
    one(TRAIN, "flat", _constant, seeds=2),
    one(TRAIN, "no activation", _linear_stack, seeds=1),
    one(TRAIN, "blew up", lambda x, y, s: train_model(x, y, s, epochs=3, lr=1e4), seeds=1),
    one(TRAIN, "unseeded", _unseeded, seeds=1),
]

RIGHT = [one(LINEAR, None, _standardised, label="standardised, one rate")]
