"""Chapter 07's typical mistakes, written as a student writes them: softmax cross-entropy's
backward over a batch, a ReLU layer's and a two-layer network's, derived by hand."""

import numpy as np

from micrograd_edu.grading.time_limit import TimeLimitExceeded
from mistakes import Example


def probabilities(z, axis=1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def onehot(z, labels):
    return np.eye(np.shape(z)[1])[np.asarray(labels)]


def softmax_cross_entropy_backward(logits, labels):
    z = np.asarray(logits, dtype=float)
    return (probabilities(z) - onehot(z, labels)) / len(z)


def softmax_by_log(logits, labels):  # through log-softmax, row by row, as lists
    out = []
    for row, label in zip(np.asarray(logits, dtype=float), labels, strict=True):
        log_p = row - (row.max() + np.log(np.exp(row - row.max()).sum()))
        g = np.exp(log_p)
        g[label] -= 1
        out.append(list(g / len(labels)))
    return out


def relu_layer_backward(X, W, b, dA):
    dZ = dA * (X @ W + b > 0)
    return dZ @ W.T, X.T @ dZ, dZ.sum(axis=0)


def layer_by_einsum(X, W, b, dA):  # einsum and a mask from the output, np.matrix for dW
    A = np.maximum(np.einsum("bd,dh->bh", X, W) + b, 0)
    dZ = np.where(A > 0, dA, 0)
    return np.einsum("bh,dh->bd", dZ, W), np.matrix(X.T @ dZ), list(dZ.sum(axis=0))


def two_layer_backward(X, labels, W1, b1, W2, b2):
    Z1 = X @ W1 + b1
    A1 = np.maximum(Z1, 0)
    dZ2 = softmax_cross_entropy_backward(A1 @ W2 + b2, labels)
    dZ1 = (dZ2 @ W2.T) * (Z1 > 0)
    return X.T @ dZ1, dZ1.sum(axis=0), A1.T @ dZ2, dZ2.sum(axis=0)


CORRECT = {
    "softmax_cross_entropy_backward": softmax_cross_entropy_backward,
    "relu_layer_backward": relu_layer_backward,
    "two_layer_backward": two_layer_backward,
}


def _s(wrong):
    """A softmax backward from wrong(P, one-hot labels, N, C)."""
    return lambda logits, labels: wrong(
        probabilities(np.asarray(logits, float)),
        onehot(logits, labels),
        len(logits),
        np.shape(logits)[1],
    )


def _l(wrong):
    """A layer backward from wrong(X, W, Z, dA, dZ), dZ the right gradient of Z."""

    def answer(X, W, b, dA):
        Z = X @ W + b
        return wrong(X, W, Z, dA, dA * (Z > 0))

    return answer


def _linear(dZ, X, W):
    return dZ @ W.T, X.T @ dZ, dZ.sum(axis=0)


def _n(dz2=None, hidden=None, axis=1):
    """A network backward with the logits' gradient dz2(P, Y, N) (P normalised along
    ``axis``), or the hidden ReLU's gate hidden(dA1, Z1), wrong."""

    def answer(X, labels, W1, b1, W2, b2):
        Z1 = X @ W1 + b1
        A1 = np.maximum(Z1, 0)
        p = probabilities(A1 @ W2 + b2, axis)
        y = onehot(p, labels)
        dZ2 = dz2(p, y, len(X)) if dz2 else (p - y) / len(X)
        dA1 = dZ2 @ W2.T
        dZ1 = hidden(dA1, Z1) if hidden else dA1 * (Z1 > 0)
        return X.T @ dZ1, dZ1.sum(axis=0), A1.T @ dZ2, dZ2.sum(axis=0)

    return answer


def _pre_activation_for_w2(X, labels, W1, b1, W2, b2):
    # the review's: the output layer's weights given the ReLU's input
    Z1 = X @ W1 + b1
    A1 = np.maximum(Z1, 0)
    dlog = softmax_cross_entropy_backward(A1 @ W2 + b2, labels)
    dZ1 = (dlog @ W2.T) * (Z1 > 0)
    return X.T @ dZ1, dZ1.sum(0), Z1.T @ dlog, dlog.sum(0)


def _tanh_network(X, labels, W1, b1, W2, b2):
    # the review's: a tanh hidden layer where the exercise's network has a ReLU
    A1 = np.tanh(X @ W1 + b1)
    dlog = softmax_cross_entropy_backward(A1 @ W2 + b2, labels)
    dZ1 = (dlog @ W2.T) * (1 - A1**2)
    return X.T @ dZ1, dZ1.sum(0), A1.T @ dlog, dlog.sum(0)


def _loss(z, labels):
    top = z.real.max(axis=1, keepdims=True)
    return np.mean(np.log(np.exp(z - top).sum(axis=1)) + top[:, 0] - z[np.arange(len(z)), labels])


def _differences(f, arrays, h=1e-5):
    """The gradient of f(*arrays) by central differences, one entry at a time."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros(a.shape)
        for i in np.ndindex(a.shape):
            up, down = [x.copy() for x in arrays], [x.copy() for x in arrays]
            up[k][i] += h
            down[k][i] -= h
            g[i] = (f(*up) - f(*down)) / (2 * h)
        grads.append(g)
    return grads


def slow_where_large(answer):
    """``answer``, which on the case of realistic size takes longer than the grader's limit
    (said at once here: the time limit itself is tested in test_grading_chapter07.py)."""

    def timed(*args):
        if max(np.size(a) for a in args) > 10_000:
            raise TimeLimitExceeded("the case of realistic size")
        return answer(*args)

    return timed


def _relu(z):
    return np.where(z > 0, z, 0)


NUMERIC = {
    "softmax_cross_entropy_backward": lambda logits, labels: _differences(
        lambda z: _loss(z, np.asarray(labels)), [np.asarray(logits, dtype=float)]
    )[0],
    "relu_layer_backward": lambda X, W, b, dA: tuple(
        _differences(lambda X, W, b: np.sum(dA * _relu(X @ W + b)), [X, W, b])
    ),
    "two_layer_backward": lambda X, labels, W1, b1, W2, b2: tuple(
        _differences(
            lambda W1, b1, W2, b2: _loss(_relu(X @ W1 + b1) @ W2 + b2, labels), [W1, b1, W2, b2]
        )
    ),
}

SOFTMAX, LAYER, NETWORK = (
    "07.softmax_cross_entropy_backward",
    "07.relu_layer_backward",
    "07.two_layer_backward",
)


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


def _in_place_softmax(z, y):
    z -= z.max(axis=1, keepdims=True)
    return softmax_cross_entropy_backward(z, y)


def _overflowing(z, y):
    with np.errstate(all="ignore"):
        return (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True) - onehot(z, y)) / len(z)


def _row_sums_by_product(z, y):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / (e @ np.ones(len(z)))[:, None]  # the row sums, with a vector of the wrong length
    return (p - onehot(z, y)) / len(z)


def _network_then_scaled(X, labels, W1, b1, W2, b2):
    grads = two_layer_backward(X, labels, W1, b1, W2, b2)
    X *= 2.0  # a line left from trying inputs of another scale: it writes into the caller's X
    return grads


def _in_place_layer(X, W, b, dA):
    dA *= X @ W + b > 0
    return relu_layer_backward(X, W, b, dA)


EXAMPLES = [
    one(SOFTMAX, "summed", _s(lambda p, y, n, c: p - y)),
    one(SOFTMAX, "over N·C", _s(lambda p, y, n, c: (p - y) / (n * c))),
    one(SOFTMAX, "softmax alone", _s(lambda p, y, n, c: p / n)),
    one(SOFTMAX, "label alone", _s(lambda p, y, n, c: -y / n)),
    one(SOFTMAX, "sign", _s(lambda p, y, n, c: (y - p) / n)),
    one(
        SOFTMAX,
        "down the batch",
        lambda z, y: (probabilities(np.asarray(z, float), axis=0) - onehot(z, y)) / len(z),
    ),
    one(SOFTMAX, "overflow", _overflowing),
    one(SOFTMAX, "in place", _in_place_softmax),
    one(
        SOFTMAX, "shapes that do not fit", _row_sums_by_product, label="ones of the batch's length"
    ),
    one(SOFTMAX, None, _s(lambda p, y, n, c: 1.03 * (p - y) / n), label="3 % off"),
    one(LAYER, "no ReLU", _l(lambda X, W, Z, dA, dZ: _linear(dA, X, W))),
    one(LAYER, "gate on the gradient", _l(lambda X, W, Z, dA, dZ: _linear(dA * (dA > 0), X, W))),
    one(
        LAYER,
        "gate without the bias",
        lambda X, W, b, dA: relu_layer_backward(X, W, np.zeros_like(b), dA),
    ),
    one(
        LAYER,
        "ReLU's output",
        _l(lambda X, W, Z, dA, dZ: _linear(dA * np.maximum(Z, 0), X, W)),
    ),
    one(
        LAYER,
        "averaged over the batch",
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ / len(X), dZ.mean(0))),
    ),
    # the review's: the bias's shares averaged; the gate taken from X
    one(LAYER, "bias averaged", _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ, dZ.mean(axis=0)))),
    one(LAYER, "gate on X", lambda X, W, b, dA: ((dA @ W.T) * (X > 0), X.T @ dA, dA.sum(axis=0))),
    one(LAYER, "first row for db", _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ, dZ[0]))),
    one(
        LAYER,
        "shapes that do not fit",
        _l(lambda X, W, Z, dA, dZ: (dZ @ W, X.T @ dZ, dZ.sum(0))),
        label="missing transpose",
    ),
    one(LAYER, "in place", _in_place_layer),
    # wrong shapes: what was seen is the shape, and no hint claims a cause
    one(
        LAYER,
        None,
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, dZ.T @ X, dZ.sum(0))),
        label="dW transposed",
    ),
    one(LAYER, None, _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ, dZ)), label="db not summed"),
    one(
        LAYER,
        None,
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ, dZ.sum(0, keepdims=True))),
        label="db kept 2-D",
    ),
    one(NETWORK, "summed", _n(lambda p, y, n: p - y)),
    one(NETWORK, "pre-activation for W2", _pre_activation_for_w2),
    one(NETWORK, "tanh hidden layer", _tanh_network),
    one(NETWORK, "sign", _n(lambda p, y, n: (y - p) / n)),
    one(NETWORK, "softmax alone", _n(lambda p, y, n: p / n)),
    one(
        NETWORK,
        "down the batch",
        _n(axis=0),
    ),
    one(NETWORK, "no ReLU", _n(hidden=lambda dA1, Z1: dA1)),
    one(NETWORK, "gate on the gradient", _n(hidden=lambda dA1, Z1: dA1 * (dA1 > 0))),
    one(NETWORK, "ReLU's output", _n(hidden=lambda dA1, Z1: dA1 * np.maximum(Z1, 0))),
    one(
        NETWORK,
        "shapes that do not fit",
        lambda X, labels, W1, b1, W2, b2: two_layer_backward(X, labels, W1, b1, W2.T, b2),
        label="missing transpose",
    ),
    one(NETWORK, "in place", _network_then_scaled, label="X scaled afterwards"),
    *(
        one(name, "difference quotient", slow_where_large(NUMERIC[name.split(".")[1]]), seeds=2)
        for name in (SOFTMAX, LAYER, NETWORK)
    ),
    *(
        one(name, "too slow", slow_where_large(CORRECT[name.split(".")[1]]), seeds=2)
        for name in (SOFTMAX, LAYER, NETWORK)
    ),
]

RIGHT = [
    one(SOFTMAX, None, softmax_by_log, label="by log-softmax, as lists"),
    one(LAYER, None, layer_by_einsum, label="einsum, np.matrix"),
]
