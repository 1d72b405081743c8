"""Chapter 07's exercises: a whole layer's backward, derived by hand.

The oracle is the tensor engine's backward (autograd on the same computation, in the
grader's process; tests/test_grading_chapter07.py checks it against central differences
and PyTorch). A derived formula is exact to rounding, and the comparison asks for that:
a difference quotient is not (its error is about 1e-10 of the gradient at best), and the
cases put some units' inputs within 1e-8 of the ReLU's kink, which a difference quotient
steps across. Each main check also runs one case of realistic size, where a derived
backward takes milliseconds and any method that evaluates the loss once or twice per
entry of the gradient takes minutes. Batch sizes, widths and class counts are drawn all
different, so that a missing transpose shows as a wrong shape or a product that does
not fit.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from ..tensor import Tensor, cross_entropy
from .arrays import random_matrix
from .chapter06 import WITHHELD as ENGINE
from .derivation import (
    COMMON,
    NUMERIC_KINK,
    Grads,
    Logits,
    close_not_exact,
    engine_grads,
    given,
    judge_parts,
    large,
    logits_of,
    model_is,
    right_parts,
    softmax_mistakes,
    softmax_model,
    softmax_right,
)
from .registry import Case, Check, Exercise, Mistake, register
from .runners.derivation import LARGE, LARGE_SECONDS, LAYER, NETWORK, SOFTMAX, run_backward
from .steps import reference_steps

# Derived, not computed: the engine whole, so that no recording switch (enable_grad,
# set_grad_enabled, a decorator) undoing the runner's no_grad lets it answer; torch too
WITHHELD = (*ENGINE, "torch")

KINK = (1e-9, 1e-8)  # how far from 0 some units' inputs are put


# --- 1. softmax cross-entropy over a batch -------------------------------------------


def _softmax_cases(
    scale: float = 3.0, batch_one: bool = False, count: int = 3, with_large: bool = False
):
    def cases(rng: random.Random) -> list[Case]:
        out = []
        # no two cases of a check share a batch size or a class count: an answer off by N
        # (or by C) is then off by a different factor on each case, which no constant is
        sizes, classes = rng.sample(range(2, 9), count), rng.sample(range(2, 9), count)
        for n, c in zip(sizes, classes, strict=True):
            n = 1 if batch_one else n
            logits = np.array(random_matrix(rng, n, c)) * scale / 2
            labels = [rng.randrange(c) for _ in range(n)]
            out.append({"logits": logits.tolist(), "labels": labels, "as_list": batch_one})
        return out + ([large(rng)] if with_large else [])

    return cases


def _softmax_right(case: Case) -> Grads:
    return softmax_right(SOFTMAX, case)


_SOFTMAX_MISTAKES = (
    *COMMON,
    Mistake(
        softmax_model(SOFTMAX, lambda k: k.right * k.n),
        "it is N times the gradient, for a batch of N rows: L is the mean of the rows' "
        "losses, so how much does one row's loss count in L?",
        name="summed",
    ),
    Mistake(
        softmax_model(SOFTMAX, lambda k: k.right / k.c),
        "it is divided by the number of logits, N·C: L is the mean over the N rows; each "
        "row's loss already sums over its C classes",
        name="over N·C",
    ),
    Mistake(
        softmax_model(SOFTMAX, lambda k: k.lse),
        "every entry of your answer is positive, so raising any logit would raise the loss; "
        "but raising the label's own logit must lower it. That logit appears in the loss a "
        "second time, not only inside the normalising sum",
        name="softmax alone",
    ),
    Mistake(
        softmax_model(SOFTMAX, lambda k: k.right - k.lse),
        "only the label's own logit has a gradient in your answer: the normalising sum "
        "holds every logit of the row, so raising any of them raises the loss",
        name="label alone",
    ),
    *softmax_mistakes(SOFTMAX),
)

_SOFTMAX_WHAT = {"grad": "the gradient"}

SOFTMAX_EXERCISE = register(
    Exercise(
        "07.softmax_cross_entropy_backward",
        "The backward of softmax cross-entropy over a batch",
        2,
        "softmax_cross_entropy_backward(logits, labels) returns ∂L/∂logits, with the shape "
        "(N, C) of logits, for L the mean over the N rows of each row's cross-entropy "
        "−log softmax(row)[label] (as torch.nn.functional.cross_entropy computes). labels "
        "(N integers in 0..C-1) may be an array or a list. Derive it: the check compares "
        "with the engine's gradient to rounding, which a difference quotient does not "
        f"reach, also on {LARGE[SOFTMAX[0]][0]:,} rows of {LARGE[SOFTMAX[0]][1]} logits "
        f"within {LARGE_SECONDS:g} s.",
        (SOFTMAX[0],),
        (
            Check(
                "exact on batches of several sizes, and on a large one",
                "",
                _softmax_cases(with_large=True),
                run_backward(SOFTMAX[0]),
                judge_parts(SOFTMAX, _softmax_right, _SOFTMAX_WHAT, 1e-13),
                weight=2.0,
                mistakes=_SOFTMAX_MISTAKES,
                right=right_parts(SOFTMAX, _softmax_right),
            ),
            Check(
                "finite and right for logits in the hundreds",
                "",
                _softmax_cases(scale=800.0),
                run_backward(SOFTMAX[0]),
                judge_parts(SOFTMAX, _softmax_right, _SOFTMAX_WHAT, 1e-9),
                mistakes=_SOFTMAX_MISTAKES,
                right=right_parts(SOFTMAX, _softmax_right),
            ),
            Check(
                "a batch of one, labels as a list, the logits left unchanged",
                "",
                _softmax_cases(batch_one=True, count=2),
                run_backward(SOFTMAX[0]),
                judge_parts(SOFTMAX, _softmax_right, _SOFTMAX_WHAT, 1e-13, unchanged=True),
                mistakes=_SOFTMAX_MISTAKES,
                right=right_parts(SOFTMAX, _softmax_right),
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- 2. a ReLU layer: A = relu(X W + b) -------------------------------------------------


def _kinked(rng: random.Random, x: np.ndarray, w: np.ndarray, bias: np.ndarray, every: int):
    """``bias`` moved so that in every ``every``-th unit one row's input lies within
    ``KINK`` of 0 (of either sign, never 0); the (row, unit) pairs."""
    kinks = []
    for j in range(0, w.shape[1], every):
        r = rng.randrange(x.shape[0])
        bias[j] = -(x[r] @ w[:, j]) + rng.choice([-1, 1]) * rng.uniform(*KINK)
        kinks.append([r, j])
    return bias, kinks


def _layer_cases(batch_one: bool = False, count: int = 3, with_large: bool = False):
    """X (B, D), W (D, H), b (H,), dA (B, H), with B, D and H all different; every other
    unit has a row at the kink."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for _ in range(count):
            batch, d, h = rng.sample(range(2, 7), 3)
            batch = 1 if batch_one else batch
            x, w = np.array(random_matrix(rng, batch, d)), np.array(random_matrix(rng, d, h))
            b, kinks = _kinked(rng, x, w, np.array(random_matrix(rng, h)), every=2)
            case = {"X": x.tolist(), "W": w.tolist(), "b": b.tolist()}
            out.append({**case, "dA": random_matrix(rng, batch, h), "kinks": kinks})
        return out + ([large(rng)] if with_large else [])

    return cases


def _layer_right(case: Case) -> Grads:
    x, w, b, da = given(LAYER, case).values()
    grads = engine_grads(lambda X, W, B: ((X @ W + B).relu() * Tensor(da)).sum(), x, w, b)
    return dict(zip(("dX", "dW", "db"), grads, strict=True))


def _relu_back(at: np.ndarray, arriving: np.ndarray) -> np.ndarray:
    """What the engine's ReLU, evaluated at ``at``, passes back of the gradient ``arriving``
    (a mistake's model feeds it the wrong place, or the wrong gradient)."""
    (passed,) = engine_grads(lambda t: (t.relu() * Tensor(arriving)).sum(), at)
    return passed


def _linear_grads(x: np.ndarray, w: np.ndarray, b: np.ndarray, dz: np.ndarray) -> list:
    """The engine's gradients of X, W and b for X @ W + b, when ``dz`` reaches it."""
    return engine_grads(lambda X, W, B: ((X @ W + B) * Tensor(dz)).sum(), x, w, b)


def _layer(wrong: Callable[..., list]) -> Callable[[Case, dict], bool]:
    """A mistake's (dX, dW, db): ``wrong(X, W, b, dA)``."""

    def model(case: Case) -> Grads:
        return dict(zip(("dX", "dW", "db"), wrong(*given(LAYER, case).values()), strict=True))

    return model_is(model, _layer_right)


def _averaged(case: Case) -> Grads:
    """The right gradients with the weights' divided by the batch size."""
    right, rows = _layer_right(case), len(given(LAYER, case)["X"])
    return {**right, "dW": right["dW"] / rows, "db": right["db"] / rows}


def _bias_averaged(case: Case) -> Grads:
    """The right gradients with the bias's alone divided by the batch size (a mean over
    the rows where the shares add up)."""
    right, rows = _layer_right(case), len(given(LAYER, case)["X"])
    return {**right, "db": right["db"] / rows}


def _first_row_for_db(case: Case) -> Grads:
    """The right gradients, with the first row's share for the bias's."""
    x, w, b, da = given(LAYER, case).values()
    return {**_layer_right(case), "db": _relu_back(x @ w + b, da)[0]}


def _smooth_units(case: Case, weight: str) -> np.ndarray:
    """Which units of the case have no row at the kink."""
    units = {j for _, j in case["kinks"]}
    return np.array([j not in units for j in range(np.shape(case[weight])[1])])


def _layer_smooth(case: Case) -> dict:
    """The entries no kink reaches: dW and db of units without one, dX of rows without one."""
    (rows, inputs), unit = np.shape(case["X"]), _smooth_units(case, "W")
    row = np.array([r not in {r for r, _ in case["kinks"]} for r in range(rows)])
    return {
        "dX": np.repeat(row[:, None], inputs, 1),
        "dW": np.tile(unit, (len(case["W"]), 1)),
        "db": unit,
    }


_LAYER_MISTAKES = (
    *COMMON,
    Mistake(
        _layer(lambda x, w, b, da: _linear_grads(x, w, b, da)),
        "your gradients are those of the layer without its ReLU: the gradient reaching XW + b "
        "is the one reaching A, passed on only where the ReLU passed its input",
        name="no ReLU",
    ),
    Mistake(
        _layer(lambda x, w, b, da: _linear_grads(x, w, b, _relu_back(da, da))),
        "whether the ReLU passes a gradient back depends on the ReLU's own input in the "
        "forward pass, not on the sign of the gradient arriving",
        name="gate on the gradient",
    ),
    Mistake(
        _layer(lambda x, w, b, da: _linear_grads(x, w, b, _relu_back(x @ w, da))),
        "the ReLU's input is XW + b: with the bias left out, some units pass or stop "
        "gradients where the forward pass did the opposite",
        name="gate without the bias",
    ),
    Mistake(
        _layer(lambda x, w, b, da: _linear_grads(x, w, b, da * np.maximum(x @ w + b, 0))),
        "the ReLU's derivative is 1 where it passes its input and 0 elsewhere, not the "
        "ReLU's output",
        name="ReLU's output",
    ),
    Mistake(
        model_is(_averaged, _layer_right),
        "divided by the batch size: the gradient arriving already says how much each row's "
        "output counts in L, so each row's share counts in full",
        name="averaged over the batch",
    ),
    *(  # (where one batch size fails, the bias's gradient is a constant factor off)
        Mistake(
            model_is(_bias_averaged, _layer_right),
            "b is used once in every row of the batch, and each use sends back its full "
            "share: the bias's gradient adds the rows' shares up, it does not average them",
            name="bias averaged",
            factor=factor,
        )
        for factor in (None, lambda c: 0 < c < 1)
    ),
    Mistake(
        _layer(
            lambda x, w, b, da: [
                _linear_grads(x, w, b, da)[0] * (x > 0),
                *_linear_grads(x, w, b, da)[1:],
            ]
        ),
        "the ReLU's side is decided by its own input, XW + b, not by the layer's input X: "
        "the gradient of XW + b is the one reaching A, kept only where XW + b was positive",
        name="gate on X",
    ),
    Mistake(
        model_is(_first_row_for_db, _layer_right),
        "b was added to every row of the batch, and each row's use of it sends back its share: "
        "the bias's gradient has the bias's shape",
        name="first row for db",
    ),
    Mistake(close_not_exact(_layer_right, _layer_smooth), NUMERIC_KINK, name="difference quotient"),
)

# (a gradient of the wrong shape, such as dW laid out transposed or db left with the batch's
# rows, is told its shape and the one it must have: that is what was seen)

_LAYER_WHAT = {"dX": "the gradient of X", "dW": "the gradient of W", "db": "the gradient of b"}

LAYER_EXERCISE = register(
    Exercise(
        "07.relu_layer_backward",
        "The backward of a ReLU layer over a batch",
        2,
        "relu_layer_backward(X, W, b, dA) returns (dX, dW, db) for A = relu(X @ W + b), with "
        "X of shape (B, D), W (D, H), b (H,) and dA = ∂L/∂A of shape (B, H); each gradient "
        "has the shape of what it differentiates, also for a batch of one row. Derive it: "
        "the check compares with the engine's gradients to rounding, with some units' inputs "
        "within 1e-8 of the ReLU's kink (where no difference quotient is right), and on a "
        f"layer of realistic size within {LARGE_SECONDS:g} s.",
        (LAYER[0],),
        (
            Check(
                "dX, dW and db exact on non-square shapes, and on a large layer",
                "",
                _layer_cases(with_large=True),
                run_backward(LAYER[0]),
                judge_parts(LAYER, _layer_right, _LAYER_WHAT),
                weight=2.0,
                mistakes=_LAYER_MISTAKES,
                right=right_parts(LAYER, _layer_right),
            ),
            Check(
                "a batch of one, the arrays passed in left unchanged",
                "",
                _layer_cases(batch_one=True, count=2),
                run_backward(LAYER[0]),
                judge_parts(LAYER, _layer_right, _LAYER_WHAT, unchanged=True),
                mistakes=_LAYER_MISTAKES,
                right=right_parts(LAYER, _layer_right),
            ),
        ),
        withheld=WITHHELD,
    )
)


# --- 3. a two-layer network, by hand ----------------------------------------------------


def _network_cases(batch_one: bool = False, count: int = 3, with_large: bool = False):
    """X (B, D), labels (B,), W1 (D, H), b1 (H,), W2 (H, C), b2 (C,): B, D, H and C all
    different; every other unit has a row at the kink."""

    def cases(rng: random.Random) -> list[Case]:
        out = []
        for batch in rng.sample(range(2, 9), count):  # each case a batch size of its own
            d, h, c = rng.sample([n for n in range(2, 9) if n != batch], 3)
            batch = 1 if batch_one else batch
            x, w1 = np.array(random_matrix(rng, batch, d)), np.array(random_matrix(rng, d, h))
            b1, kinks = _kinked(rng, x, w1, np.array(random_matrix(rng, h)), every=2)
            labels = [rng.randrange(c) for _ in range(batch)]
            case = {"X": x.tolist(), "labels": labels, "W1": w1.tolist(), "b1": b1.tolist()}
            case |= {"W2": random_matrix(rng, h, c), "b2": random_matrix(rng, c)}
            out.append({**case, "kinks": kinks})
        return out + ([large(rng)] if with_large else [])

    return cases


def _network_right(case: Case) -> Grads:
    x, labels, *weights = given(NETWORK, case).values()
    grads = engine_grads(
        lambda w1, b1, w2, b2: cross_entropy((Tensor(x) @ w1 + b1).relu() @ w2 + b2, labels),
        *weights,
    )
    return dict(zip(NETWORK[2], grads, strict=True))


def _network_from_logits(case: Case, logits_grad: Callable[[Logits], np.ndarray]) -> Grads:
    """The four gradients the engine backpropagates from the logits' gradient
    ``logits_grad(parts)`` (a softmax mistake, made at the logits of the network)."""
    x, labels, *weights = given(NETWORK, case).values()
    w1, b1, w2, b2 = (Tensor(a, requires_grad=True) for a in weights)
    logits = (Tensor(x) @ w1 + b1).relu() @ w2 + b2
    at_logits = {"logits": np.array(logits.data).tolist(), "labels": np.asarray(labels).tolist()}
    logits.backward(Tensor(logits_grad(logits_of(SOFTMAX, at_logits))))
    return {
        k: np.array(t.grad.data, dtype=float)
        for k, t in zip(NETWORK[2], (w1, b1, w2, b2), strict=True)
    }


def _network_hidden(case: Case, gate: Callable[..., np.ndarray]) -> Grads:
    """The output layer's gradients right, the first layer's from the gradient reaching its
    output as ``gate(dA1, Z1)`` passes it (a mistake at the hidden ReLU)."""
    x, labels, w1, b1, w2, b2 = given(NETWORK, case).values()
    z1 = x @ w1 + b1
    (da1,) = engine_grads(
        lambda a1: cross_entropy(a1 @ Tensor(w2) + Tensor(b2), labels), np.maximum(z1, 0)
    )
    dw1, db1, _ = engine_grads(
        lambda W, B, X: ((X @ W + B) * Tensor(gate(da1, z1))).sum(), w1, b1, x
    )
    right = _network_right(case)
    return {**right, "dW1": dw1, "db1": db1}


def _network_by_hand(case: Case, hidden: str) -> Grads:
    """The four gradients of a network whose hidden layer is another (``"tanh"``), or the
    right network's with the output layer's weights given the ReLU's input Z1 for its
    input (``"pre-activation"``)."""
    x, labels, w1, b1, w2, b2 = given(NETWORK, case).values()
    z1 = x @ w1 + b1
    if hidden == "pre-activation":
        right = _network_right(case)
        logits = np.maximum(z1, 0) @ w2 + b2
        (dlogits,) = engine_grads(lambda t: cross_entropy(t, labels), logits)
        return {**right, "dW2": z1.T @ dlogits}
    grads = engine_grads(
        lambda w1, b1, w2, b2: cross_entropy((Tensor(x) @ w1 + b1).tanh() @ w2 + b2, labels),
        w1,
        b1,
        w2,
        b2,
    )
    return dict(zip(NETWORK[2], grads, strict=True))


def _network(
    logits_grad: Callable[[Logits], np.ndarray] | None = None,
    gate: Callable[..., np.ndarray] | None = None,
) -> Callable[[Case, dict], bool]:
    """A mistake at the logits (``logits_grad``) or at the hidden ReLU (``gate``)."""
    if logits_grad is not None:
        return model_is(lambda case: _network_from_logits(case, logits_grad), _network_right)
    return model_is(lambda case: _network_hidden(case, gate), _network_right)


def _network_smooth(case: Case) -> dict:
    """The entries no kink reaches: the output layer's, and the first layer's for the
    units without a row at the kink."""
    unit = _smooth_units(case, "W1")
    out = {k: np.ones(np.shape(case[k[1:]]), bool) for k in ("dW2", "db2")}
    return {**out, "dW1": np.tile(unit, (len(case["W1"]), 1)), "db1": unit}


_NETWORK_MISTAKES = (
    *COMMON,
    Mistake(
        _network(lambda k: k.right * k.n),
        "every gradient is N times the right one, for a batch of N rows: L is the mean of "
        "the rows' losses",
        name="summed",
    ),
    Mistake(
        None,
        "every gradient has the opposite sign: raising the label's own logit must lower the loss",
        name="sign",
        factor=-1.0,
    ),
    Mistake(
        _network(lambda k: k.lse),
        "the gradient at the logits has no term for the label: the label's own logit appears "
        "in the loss a second time, not only inside the normalising sum",
        name="softmax alone",
    ),
    Mistake(
        _network(lambda k: k.right + (k.pc - k.p) / k.n),
        "each row is one example: its probabilities are normalised over its own classes, "
        "along the row, not down the batch",
        name="down the batch",
    ),
    Mistake(
        _network(gate=lambda da1, z1: da1),
        "W2 and b2 are right, W1 and b1 are those of a network without the ReLU: the gradient "
        "reaching the first layer passes only where the ReLU passed its input",
        name="no ReLU",
    ),
    Mistake(
        _network(gate=lambda da1, z1: _relu_back(da1, da1)),
        "W2 and b2 are right; for the first layer, whether the ReLU passes a gradient back "
        "depends on its own input in the forward pass, not on the sign of the gradient",
        name="gate on the gradient",
    ),
    Mistake(
        _network(gate=lambda da1, z1: da1 * np.maximum(z1, 0)),
        "W2 and b2 are right; the ReLU's derivative is 1 where it passes its input and 0 "
        "elsewhere, not the ReLU's output",
        name="ReLU's output",
    ),
    Mistake(
        model_is(lambda case: _network_by_hand(case, "pre-activation"), _network_right),
        "W1, b1 and b2 are right; the output layer's input is what the ReLU gave, not what "
        "went into it",
        name="pre-activation for W2",
    ),
    Mistake(
        model_is(lambda case: _network_by_hand(case, "tanh"), _network_right),
        "your gradients are those of a network whose hidden layer is tanh: this network's "
        "hidden layer is a ReLU",
        name="tanh hidden layer",
    ),
    Mistake(
        close_not_exact(_network_right, _network_smooth), NUMERIC_KINK, name="difference quotient"
    ),
)

_NETWORK_WHAT = {k: f"the gradient of {k[1:]}" for k in NETWORK[2]}

NETWORK_EXERCISE = register(
    Exercise(
        "07.two_layer_backward",
        "A two-layer network's backward, by hand",
        3,
        "two_layer_backward(X, labels, W1, b1, W2, b2) returns (dW1, db1, dW2, db2), the "
        "gradients of L, the mean softmax cross-entropy of the logits relu(X @ W1 + b1) @ W2 "
        "+ b2 against labels, with X of shape (B, D), labels B integers in 0..C-1, W1 (D, H), "
        "b1 (H,), W2 (H, C) and b2 (C,). Derive it: the check compares with the engine's "
        "gradients to rounding, with units at the ReLU's kink, and on a network of realistic "
        f"size within {LARGE_SECONDS:g} s.",
        (NETWORK[0],),
        (
            Check(
                "all four gradients exact on small networks, and on a large one",
                "",
                _network_cases(with_large=True),
                run_backward(NETWORK[0]),
                judge_parts(NETWORK, _network_right, _NETWORK_WHAT),
                weight=2.0,
                mistakes=_NETWORK_MISTAKES,
                right=right_parts(NETWORK, _network_right),
            ),
            Check(
                "a batch of one, the arrays passed in left unchanged",
                "",
                _network_cases(batch_one=True, count=2),
                run_backward(NETWORK[0]),
                judge_parts(NETWORK, _network_right, _NETWORK_WHAT, unchanged=True),
                mistakes=_NETWORK_MISTAKES,
                right=right_parts(NETWORK, _network_right),
            ),
        ),
        requires=reference_steps(
            **{SOFTMAX[0]: "softmax_cross_entropy_backward", LAYER[0]: "relu_layer_backward"}
        ),
        withheld=WITHHELD,
    )
)
