"""Chapter 07's checks: a layer's backward derived by hand.

Right answers, written in several ways a student would, score full marks on any seed;
each typical mistake fails with its own hint and no other; a finite-difference backward
(plain, extrapolated, or by complex steps) scores 0, as the exercises ask for the
derivation; a missing transpose gets a hint, not a bare numpy error; the oracle (the
engine's backward) agrees with closed forms, central differences and PyTorch."""

import numpy as np
import pytest
from grading_helpers import grade, spoilers

from micrograd_edu import Tensor, cross_entropy
from micrograd_edu.grading import exercise
from micrograd_edu.grading.registry import draw_cases, judge, observe
from micrograd_edu.grading.runners import derivation as runner

SOFTMAX, LAYER, NETWORK = (
    "07.softmax_cross_entropy_backward",
    "07.relu_layer_backward",
    "07.two_layer_backward",
)


# --- answers as students write them ----------------------------------------------------


def probabilities(z, axis=1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def onehot(z, labels):
    return np.eye(np.shape(z)[1])[np.asarray(labels)]


def softmax_backward(logits, labels):
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


def layer_backward(X, W, b, dA):
    dZ = dA * (X @ W + b > 0)
    return dZ @ W.T, X.T @ dZ, dZ.sum(axis=0)


def layer_by_einsum(X, W, b, dA):  # einsum and a mask from the output, np.matrix for dW
    A = np.maximum(np.einsum("bd,dh->bh", X, W) + b, 0)
    dZ = np.where(A > 0, dA, 0)
    return np.einsum("bh,dh->bd", dZ, W), np.matrix(X.T @ dZ), list(dZ.sum(axis=0))


def network_backward(X, labels, W1, b1, W2, b2):
    Z1 = X @ W1 + b1
    A1 = np.maximum(Z1, 0)
    dZ2 = softmax_backward(A1 @ W2 + b2, labels)
    dZ1 = (dZ2 @ W2.T) * (Z1 > 0)
    return X.T @ dZ1, dZ1.sum(axis=0), A1.T @ dZ2, dZ2.sum(axis=0)


RIGHT = {
    SOFTMAX: [softmax_backward, softmax_by_log],
    LAYER: [layer_backward, layer_by_einsum],
    NETWORK: [network_backward],
}
NAMES = {
    SOFTMAX: "softmax_cross_entropy_backward",
    LAYER: "relu_layer_backward",
    NETWORK: "two_layer_backward",
}


@pytest.mark.parametrize("seed", ["seed0", "seed1", "seed2"])
@pytest.mark.parametrize("exercise_id", list(RIGHT))
def test_right_answers_written_any_way_score_full_marks(exercise_id, seed):
    for answer in RIGHT[exercise_id]:
        result = grade(exercise_id, {NAMES[exercise_id]: answer}, seed)
        assert result.score == result.max_score, [(c.name, c.reason) for c in result.checks]


NOTEBOOK = """
import numpy as np

def softmax_cross_entropy_backward(logits, labels):
    return logits  # wrong: the grader's own stands in while exercise 3 is checked

def relu_layer_backward(X, W, b, dA):
    return X, W, b  # wrong too

def two_layer_backward(X, labels, W1, b1, W2, b2):
    hidden = np.maximum(X @ W1 + b1, 0)
    d_logits = softmax_cross_entropy_backward(hidden @ W2 + b2, labels)
    _, dW1, db1 = relu_layer_backward(X, W1, b1, d_logits @ W2.T)
    return [dW1, db1, hidden.T @ d_logits, d_logits.sum(axis=0)]
"""


def test_the_network_may_call_the_earlier_exercises_even_when_they_are_wrong():
    namespace = {}
    exec(NOTEBOOK, namespace)
    ex = exercise(NETWORK)
    cases = draw_cases(ex, "seed0")
    result = judge(ex, cases, observe(ex, namespace, cases))
    assert result.score == 3, [(c.name, c.reason) for c in result.checks]
    assert namespace["softmax_cross_entropy_backward"](1, 2) == 1  # the notebook's own again


# --- the oracle --------------------------------------------------------------------------


def _cases(exercise_id, seed="oracle"):
    return [case for cases in draw_cases(exercise(exercise_id), seed) for case in cases]


def test_the_engine_oracle_is_the_closed_form_on_every_case():
    from micrograd_edu.grading import chapter07

    for case in _cases(SOFTMAX):
        given = runner.inputs(NAMES[SOFTMAX], ("logits", "labels"), case)
        want = softmax_backward(given["logits"], given["labels"])
        assert np.allclose(chapter07._softmax_right(case)["grad"], want, rtol=1e-12, atol=1e-15)
    for case in _cases(LAYER):
        given = runner.inputs(NAMES[LAYER], ("X", "W", "b", "dA"), case)
        want = layer_backward(*given.values())
        got = chapter07._layer_right(case)
        assert all(
            np.allclose(got[k], w, rtol=1e-12, atol=1e-15) for k, w in zip(got, want, strict=True)
        )
    for case in _cases(NETWORK):
        given = runner.inputs(NAMES[NETWORK], runner.NETWORK[1], case)
        want = network_backward(*given.values())
        got = chapter07._network_right(case)
        assert all(
            np.allclose(got[k], w, rtol=1e-12, atol=1e-15) for k, w in zip(got, want, strict=True)
        )


def test_the_closed_forms_match_central_differences_away_from_kinks():
    rng = np.random.default_rng(0)
    X, labels = rng.normal(size=(5, 4)), rng.integers(0, 3, 5)
    W1, b1, W2, b2 = (
        rng.normal(size=(4, 6)),
        rng.normal(size=6),
        rng.normal(size=(6, 3)),
        rng.normal(size=3),
    )

    def loss(W1, b1, W2, b2):
        z = np.maximum(X @ W1 + b1, 0) @ W2 + b2
        top = z.max(axis=1, keepdims=True)
        return np.mean(np.log(np.exp(z - top).sum(axis=1)) + top[:, 0] - z[np.arange(5), labels])

    from micrograd_edu.grading.arrays import numerical_gradients

    numeric = numerical_gradients(loss, W1, b1, W2, b2)
    exact = network_backward(X, labels, W1, b1, W2, b2)
    assert all(np.allclose(n, e, atol=1e-7) for n, e in zip(numeric, exact, strict=True))


def test_the_oracle_agrees_with_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    for case in _cases(NETWORK)[:4]:
        X, labels, *weights = runner.inputs(NAMES[NETWORK], runner.NETWORK[1], case).values()
        ts = [torch.tensor(w, requires_grad=True) for w in weights]
        hidden = torch.relu(torch.tensor(X) @ ts[0] + ts[1])
        torch.nn.functional.cross_entropy(hidden @ ts[2] + ts[3], torch.tensor(labels)).backward()
        from micrograd_edu.grading import chapter07

        ours = chapter07._network_right(case)
        for t, name in zip(ts, runner.NETWORK[2], strict=True):
            assert np.allclose(t.grad.numpy(), ours[name], rtol=1e-12, atol=1e-15)
    z = Tensor(np.array([[800.0, 0.0, -3.0]]), requires_grad=True)
    cross_entropy(z, [0]).backward()
    assert np.all(np.isfinite(z.grad.data))


# --- the derivation, not a difference quotient --------------------------------------------


def _loss(z, labels):
    top = z.real.max(axis=1, keepdims=True)
    return np.mean(np.log(np.exp(z - top).sum(axis=1)) + top[:, 0] - z[np.arange(len(z)), labels])


def _differences(f, arrays, h, richardson=False):
    """The gradient of f(*arrays) by central differences (Richardson's extrapolation of
    two of them when asked), one entry at a time, as a student would loop."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros(a.shape)
        for i in np.ndindex(a.shape):

            def quotient(step, k=k, i=i):
                up, down = [x.copy() for x in arrays], [x.copy() for x in arrays]
                up[k][i] += step
                down[k][i] -= step
                return (f(*up) - f(*down)) / (2 * step)

            g[i] = (4 * quotient(h) - quotient(2 * h)) / 3 if richardson else quotient(h)
        grads.append(g)
    return grads


def _complex_steps(f, arrays):
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros(a.shape)
        for i in np.ndindex(a.shape):
            moved = [x.astype(complex) for x in arrays]
            moved[k][i] += 1e-30j
            g[i] = f(*moved).imag / 1e-30
        grads.append(g)
    return grads


def _relu(z):
    return np.where(z.real > 0, z, 0)


def _numeric_answers(method):
    def softmax(logits, labels):
        return method(lambda z: _loss(z, np.asarray(labels)), [np.asarray(logits, dtype=float)])[0]

    def layer(X, W, b, dA):
        return tuple(method(lambda X, W, b: np.sum(dA * _relu(X @ W + b)), [X, W, b]))

    def network(X, labels, W1, b1, W2, b2):
        def loss(W1, b1, W2, b2):
            return _loss(_relu(X @ W1 + b1) @ W2 + b2, labels)

        return tuple(method(loss, [W1, b1, W2, b2]))

    return {SOFTMAX: softmax, LAYER: layer, NETWORK: network}


METHODS = {
    "central differences": lambda f, arrays: _differences(f, arrays, 1e-5),
    "Richardson's extrapolation": lambda f, arrays: _differences(f, arrays, 1e-3, True),
    "complex steps": _complex_steps,
}


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("exercise_id", list(RIGHT))
def test_a_numerical_backward_scores_nothing(exercise_id, method, monkeypatch):
    monkeypatch.setattr(runner, "LARGE_SECONDS", 0.3)  # the large case's limit, kept short here
    answer = _numeric_answers(METHODS[method])[exercise_id]
    result = grade(exercise_id, {NAMES[exercise_id]: answer})
    assert result.score == 0, [(c.name, c.passed, c.reason) for c in result.checks]
    first = result.checks[0]
    if method == "complex steps":  # exact, but one evaluation per entry: only slow
        assert "took longer" in first.reason and "for each entry" in first.hint, first
    else:  # close, not exact; and too slow on the large case
        assert "difference quotient" in first.hint, first


# --- each mistake, its own hint ----------------------------------------------------------


def _s(wrong):
    return lambda logits, labels: wrong(
        probabilities(np.asarray(logits, float)),
        onehot(logits, labels),
        len(logits),
        np.shape(logits)[1],
    )


def _l(wrong):
    def answer(X, W, b, dA):
        Z = X @ W + b
        return wrong(X, W, Z, dA, dA * (Z > 0))

    return answer


def _linear(dZ, X, W):
    return dZ @ W.T, X.T @ dZ, dZ.sum(axis=0)


def _n(dz2=None, hidden=None):
    def answer(X, labels, W1, b1, W2, b2):
        Z1 = X @ W1 + b1
        A1 = np.maximum(Z1, 0)
        p = probabilities(A1 @ W2 + b2)
        y = onehot(p, labels)
        dZ2 = dz2(p, y, len(X)) if dz2 else (p - y) / len(X)
        dA1 = dZ2 @ W2.T
        dZ1 = hidden(dA1, Z1) if hidden else dA1 * (Z1 > 0)
        return X.T @ dZ1, dZ1.sum(axis=0), A1.T @ dZ2, dZ2.sum(axis=0)

    return answer


MISTAKES = {  # (exercise, the mistake as written): a phrase of the one hint it must get
    (SOFTMAX, "summed, not averaged"): (_s(lambda p, y, n, c: p - y), "N times the gradient"),
    (SOFTMAX, "over every logit"): (_s(lambda p, y, n, c: (p - y) / (n * c)), "N·C"),
    (SOFTMAX, "softmax alone"): (_s(lambda p, y, n, c: p / n), "a second time"),
    (SOFTMAX, "the label's term alone"): (_s(lambda p, y, n, c: -y / n), "only the label's own"),
    (SOFTMAX, "sign"): (_s(lambda p, y, n, c: (y - p) / n), "opposite sign"),
    (SOFTMAX, "down the batch"): (
        lambda z, y: (probabilities(np.asarray(z, float), axis=0) - onehot(z, y)) / len(z),
        "not down the batch",
    ),
    (SOFTMAX, "overflow"): (
        lambda z, y: (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True) - onehot(z, y)) / len(z),
        "overflows",
    ),
    (SOFTMAX, "in place"): (
        lambda z, y: softmax_backward(z.__isub__(z.max(axis=1, keepdims=True)), y),
        "in-place",
    ),
    (LAYER, "no mask"): (_l(lambda X, W, Z, dA, dZ: _linear(dA, X, W)), "without its ReLU"),
    (LAYER, "mask from dA"): (
        _l(lambda X, W, Z, dA, dZ: _linear(dA * (dA > 0), X, W)),
        "not on the sign of the gradient arriving",
    ),
    (LAYER, "bias left out"): (
        lambda X, W, b, dA: layer_backward(X, W, np.zeros_like(b), dA),
        "with the bias left out",
    ),
    (LAYER, "relu for its derivative"): (
        _l(lambda X, W, Z, dA, dZ: _linear(dA * np.maximum(Z, 0), X, W)),
        "not the ReLU's output",
    ),
    (LAYER, "dW transposed"): (
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, dZ.T @ X, dZ.sum(0))),
        "laid out transposed",
    ),
    (LAYER, "averaged over the batch"): (
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ / len(X), dZ.mean(0))),
        "divided by the batch size",
    ),
    (LAYER, "db not summed"): (
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ, dZ)),
        "the bias's shape",
    ),
    (LAYER, "db kept 2-D"): (
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ, dZ.sum(0, keepdims=True))),
        "the bias's shape",
    ),
    (LAYER, "db the first row"): (
        _l(lambda X, W, Z, dA, dZ: (dZ @ W.T, X.T @ dZ, dZ[0])),
        "the bias's shape",
    ),
    (LAYER, "missing transpose"): (
        _l(lambda X, W, Z, dA, dZ: (dZ @ W, X.T @ dZ, dZ.sum(0))),
        "shapes that do not fit",
    ),
    (LAYER, "in place"): (
        lambda X, W, b, dA: (dA.__imul__(X @ W + b > 0), layer_backward(X, W, b, dA))[1],
        "in-place",
    ),
    (NETWORK, "summed, not averaged"): (_n(lambda p, y, n: p - y), "N times the right one"),
    (NETWORK, "sign"): (_n(lambda p, y, n: (y - p) / n), "opposite sign"),
    (NETWORK, "softmax alone"): (_n(lambda p, y, n: p / n), "a second time"),
    (NETWORK, "no mask"): (_n(hidden=lambda dA1, Z1: dA1), "without the ReLU"),
    (NETWORK, "mask from the gradient"): (
        _n(hidden=lambda dA1, Z1: dA1 * (dA1 > 0)),
        "for the first layer, whether",
    ),
    (NETWORK, "relu for its derivative"): (
        _n(hidden=lambda dA1, Z1: dA1 * np.maximum(Z1, 0)),
        "not the ReLU's output",
    ),
    (NETWORK, "missing transpose"): (
        lambda X, labels, W1, b1, W2, b2: network_backward(X, labels, W1, b1, W2.T, b2),
        "shapes that do not fit",
    ),
}
PHRASES = {phrase for _, phrase in MISTAKES.values()}


@pytest.mark.parametrize("key", list(MISTAKES), ids=[f"{e[3:]}: {m}" for e, m in MISTAKES])
def test_each_mistake_gets_its_own_hint_and_no_other(key):
    exercise_id, _ = key
    wrong, phrase = MISTAKES[key]
    for seed in ("seed0", "seed1"):
        result = grade(exercise_id, {NAMES[exercise_id]: wrong}, seed)
        assert result.score < result.max_score
        hints = [c.hint for c in result.checks if not c.passed and c.hint]
        assert hints and all(phrase in h for h in hints), (seed, hints)
        assert not any(p in h for h in hints for p in PHRASES - {phrase})
        shown = [c.reason for c in result.checks if not c.reason.startswith("raised")] + hints
        assert not spoilers(exercise(exercise_id), shown)
        if key[1] not in ("in place", "overflow"):  # those two fail a secondary check only
            assert result.score == 0, [(c.name, c.reason) for c in result.checks]


def test_a_mistake_no_model_explains_says_what_was_seen_without_a_hint():
    def slightly_off(X, W, b, dA):
        dX, dW, db = layer_backward(X, W, b, dA)
        return dX, dW * 1.03, db

    result = grade(LAYER, {"relu_layer_backward": slightly_off})
    first = result.checks[0]
    assert not first.passed and first.hint == ""
    assert "every entry is 1.03 times the right one" in first.reason


def test_a_wrong_return_is_named():
    result = grade(LAYER, {"relu_layer_backward": lambda X, W, b, dA: X})
    assert "it must return a tuple of 3 arrays" in result.checks[0].reason
    result = grade(NETWORK, {"two_layer_backward": lambda *a: a[:2]})
    assert "it returned 2 things; it must return 4 arrays" in result.checks[0].reason
