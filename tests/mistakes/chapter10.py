"""Chapter 10's typical mistakes, written as a student writes them: the backward of
cross-entropy with class weights, and a classifier's training loop (a training takes a few
seconds: those examples run on one seed)."""

import numpy as np

from micrograd_edu import Tensor, nn, optim
from mistakes import Example
from mistakes.chapter07 import slow_where_large


def _softmax(z, axis=1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _parts(logits, labels, weight):
    z = np.asarray(logits, dtype=float)
    labels = np.asarray(labels, dtype=int)
    w = np.asarray(weight, dtype=float)
    return z, np.eye(z.shape[1])[labels], w[labels][:, None], w


def weighted_cross_entropy_backward(logits, labels, weight):
    z, onehot, rw, _ = _parts(logits, labels, weight)
    return rw * (_softmax(z) - onehot) / rw.sum()


def train_classifier(X, labels, seed, scaled=True, cleared=True, epochs=30, classes=None, lr=0.01):
    """The lecture's recipe, written another way (CrossEntropyLoss, StepLR); the keywords
    make the mistakes below."""
    X, labels = np.asarray(X, dtype=float), np.asarray(labels, dtype=int)
    centre, spread = (X.mean(axis=0), X.std(axis=0) + 1.0) if scaled else (0.0, 1.0)
    model = nn.Sequential(
        nn.Linear(X.shape[1], 128, seed=seed), nn.ReLU(),
        nn.Linear(128, classes or labels.max() + 1, seed=seed + 1),
    )  # fmt: skip
    opt = optim.Adam(model.parameters(), lr=lr)
    schedule = optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    rng = np.random.default_rng(seed)
    inputs = (X - centre) / spread
    for _ in range(epochs):
        order = rng.permutation(len(X))
        for start in range(0, len(X), 32):
            rows = order[start : start + 32]
            loss = nn.CrossEntropyLoss()(model(Tensor(inputs[rows])), labels[rows])
            if cleared:
                opt.zero_grad()
            loss.backward()
            opt.step()
        schedule.step()
    return (model, centre, spread) if scaled else model


CORRECT = {
    "weighted_cross_entropy_backward": weighted_cross_entropy_backward,
    "train_classifier": train_classifier,
}
SLOW = {"10.train_classifier"}  # the right answers' test runs it on one seed

BACKWARD, CLASSIFIER = "10.weighted_cross_entropy_backward", "10.train_classifier"


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


def _b(wrong):
    """A backward that returns ``wrong(p, onehot, rw, w, n)``: the softmax by row, the
    one-hot labels, each row's weight (a column), the class weights, the batch size."""

    def backward(logits, labels, weight):
        z, onehot, rw, w = _parts(logits, labels, weight)
        return wrong(_softmax(z), onehot, rw, w, len(z))

    return backward


def _overflows(logits, labels, weight):
    z, onehot, rw, _ = _parts(logits, labels, weight)
    with np.errstate(all="ignore"):
        e = np.exp(z)
        return rw * (e / e.sum(axis=1, keepdims=True) - onehot) / rw.sum()


def _in_place(logits, labels, weight):
    logits -= logits.max(axis=1, keepdims=True)
    return weighted_cross_entropy_backward(logits, labels, weight)


def _row_sums_by_product(logits, labels, weight):
    z, onehot, rw, _ = _parts(logits, labels, weight)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / (e @ np.ones(len(z)))[:, None]  # the row sums, with a vector of the wrong length
    return rw * (p - onehot) / rw.sum()


def _weighted_loss(z, labels, weight):
    top = z.max(axis=1, keepdims=True)
    losses = np.log(np.exp(z - top).sum(axis=1)) + top[:, 0] - z[np.arange(len(z)), labels]
    return np.sum(weight[labels] * losses) / np.sum(weight[labels])


def _by_differences(logits, labels, weight, h=1e-5):
    z, labels, weight = np.array(logits, float), np.asarray(labels), np.asarray(weight, float)
    grad = np.zeros_like(z)
    for i in np.ndindex(z.shape):  # central differences, entry by entry
        up, down = z.copy(), z.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (_weighted_loss(up, labels, weight) - _weighted_loss(down, labels, weight)) / (
            2 * h
        )
    return grad


def _one_class(X, labels, seed):
    model = nn.Linear(np.shape(X)[1], int(np.max(labels)) + 1, seed=0)
    model.weight.data[...] = 0.0
    model.bias.data[...] = np.eye(int(np.max(labels)) + 1)[0]
    return model


def _linear_classifier(X, labels, seed):
    X, labels = np.asarray(X, dtype=float), np.asarray(labels, dtype=int)
    centre, spread = X.mean(axis=0), X.std(axis=0) + 1.0
    model = nn.Linear(X.shape[1], labels.max() + 1, seed=seed)
    opt = optim.Adam(model.parameters(), lr=0.05)
    inputs = Tensor((X - centre) / spread)
    for _ in range(100):
        loss = nn.CrossEntropyLoss()(model(inputs), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model, centre, spread


def _unseeded(X, labels, seed):
    return train_classifier(X, labels, int(np.random.default_rng().integers(1000)))


def _by_the_engine(logits, labels, weight):
    # the review's: the engine's backward, which records nothing while this is graded
    from micrograd_edu import cross_entropy

    z = Tensor(np.asarray(logits, float), requires_grad=True)
    cross_entropy(z, labels, weight=weight).backward()
    return z.grad.data if hasattr(z.grad, "data") else z.grad


EXAMPLES = [
    one(BACKWARD, "engine asked", _by_the_engine, seeds=2),
    one(BACKWARD, "summed", _b(lambda p, y, rw, w, n: n * rw * (p - y) / rw.sum())),
    one(BACKWARD, "unweighted", _b(lambda p, y, rw, w, n: (p - y) / n)),
    # the review's: divided by all the class weights; the weight on the label's term alone
    one(BACKWARD, "over the class weights", _b(lambda p, y, rw, w, n: rw * (p - y) / w.sum())),
    one(BACKWARD, "label's term weighted", _b(lambda p, y, rw, w, n: (p - rw * y) / rw.sum())),
    one(BACKWARD, "over the rows", _b(lambda p, y, rw, w, n: rw * (p - y) / n)),
    one(BACKWARD, "weights by column", _b(lambda p, y, rw, w, n: w * (p - y) / rw.sum())),
    one(BACKWARD, "softmax alone", _b(lambda p, y, rw, w, n: rw * p / rw.sum())),
    one(BACKWARD, "sign", _b(lambda p, y, rw, w, n: rw * (y - p) / rw.sum())),
    one(
        BACKWARD,
        "down the batch",
        lambda z, labels, weight: (lambda z, y, rw, w: rw * (_softmax(z, axis=0) - y) / rw.sum())(
            *_parts(z, labels, weight)
        ),
    ),
    one(BACKWARD, "overflow", _overflows),
    one(BACKWARD, "in place", _in_place),
    one(BACKWARD, "shapes that do not fit", _row_sums_by_product),
    one(BACKWARD, "difference quotient", slow_where_large(_by_differences), seeds=2),
    one(BACKWARD, "too slow", slow_where_large(weighted_cross_entropy_backward), seeds=2),
    one(
        CLASSIFIER,
        "too few outputs",
        lambda X, y, s: train_classifier(X, y, s, classes=10),
        seeds=2,
    ),
    one(
        CLASSIFIER,
        "never cleared",
        lambda X, y, s: train_classifier(X, y, s, cleared=False, epochs=3),
        seeds=1,
    ),
    one(CLASSIFIER, "one class", _one_class, seeds=2),
    one(CLASSIFIER, "no activation", _linear_classifier, seeds=1),
    one(CLASSIFIER, "unseeded", _unseeded, seeds=1),
]
