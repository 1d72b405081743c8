"""Chapter 07's checks beyond the mistakes of tests/mistakes/chapter07.py (which
test_grading_mistakes.py grades): a finite-difference backward (plain, extrapolated, or by
complex steps) scores 0 within the real time limit, as the exercises ask for the
derivation; the network may call the earlier exercises; the oracle (the engine's backward)
agrees with closed forms, central differences and PyTorch."""

import numpy as np
import pytest
from grading_helpers import grade
from mistakes.chapter07 import (
    relu_layer_backward,
    softmax_cross_entropy_backward,
    two_layer_backward,
)

from micrograd_edu import Tensor, cross_entropy
from micrograd_edu.grading import exercise
from micrograd_edu.grading.registry import draw_cases, judge, observe
from micrograd_edu.grading.runners import derivation as runner

SOFTMAX, LAYER, NETWORK = (
    "07.softmax_cross_entropy_backward",
    "07.relu_layer_backward",
    "07.two_layer_backward",
)


# --- answers as students write them (tests/mistakes/chapter07.py has the mistakes) -------

softmax_backward = softmax_cross_entropy_backward
layer_backward = relu_layer_backward
network_backward = two_layer_backward
NAMES = {
    SOFTMAX: "softmax_cross_entropy_backward",
    LAYER: "relu_layer_backward",
    NETWORK: "two_layer_backward",
}


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
@pytest.mark.parametrize("exercise_id", list(NAMES))
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


def test_the_right_arrays_in_another_order_are_told_the_order():
    # the review's: (dW2, db2, dW1, db1) for (dW1, db1, dW2, db2); no hint claims a cause
    def swapped(X, labels, W1, b1, W2, b2):
        dW1, db1, dW2, db2 = two_layer_backward(X, labels, W1, b1, W2, b2)
        return dW2, db2, dW1, db1

    result = grade(NETWORK, {"two_layer_backward": swapped})
    assert result.score == 0
    reason = result.checks[0].reason
    said = "shapes of (dW2, db2, dW1, db1) in that order: return them as (dW1, db1, dW2, db2)"
    assert said in reason
    assert not any(c.hint for c in result.checks)
