"""Chapter 06's own tensor engine (MyTensor's operations, MyFunction, LogSumExp, gradcheck)
beyond the mistakes of tests/mistakes/chapter06.py (which test_grading_mistakes.py grades):
right answers written differently from the solution notebook pass on any seed, stubs earn
nothing, the submission never learns which backward gradcheck faces, and the checks'
oracles agree with the package's Tensor (and with PyTorch, when it is installed)."""

import numpy as np
import pytest
from grading_helpers import failed_checks, grade, spoilers
from mistakes.chapter06 import CORRECT, replacing_matmul, with_methods

import micrograd_edu as mg
from micrograd_edu.grading import chapter, exercise
from micrograd_edu.grading.arrays import numerical_gradients
from micrograd_edu.grading.chapter06_engine import _evaluate, _wants
from micrograd_edu.grading.chapter06_function import _engine_lse, _logsumexp
from micrograd_edu.grading.runners.chapter06_engine import _EXPRESSIONS, _params

ENGINE = [
    ex
    for ex in chapter("06")
    if ex.id not in {"06.unbroadcast", "06.matmul_backward", "06.quadratic_form_grad"}
]


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(8)])
def test_right_answers_pass_every_check_on_any_seed(seed):
    for ex in ENGINE:
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


def test_the_oracles_agree_with_the_package_tensor():
    # every case's expression, run on the package's Tensor: its value is the judge's, and its
    # gradients are the judge's central differences
    import random

    for ex in ENGINE[:5]:
        for check in ex.checks:
            for case in check.cases(random.Random(3)):
                tensors = [mg.Tensor(np.array(x), requires_grad=True) for x in case["inputs"]]
                out = _EXPRESSIONS[case["expr"]](tensors, _params(case))
                arrays = [t.data for t in tensors]
                want = _evaluate(case["expr"], arrays, case["params"])
                assert np.allclose(out.data, want), (ex.id, case["text"])
                out.backward(mg.Tensor(np.array(case["up"], dtype=float)))
                for t, want in zip(tensors, _wants(case), strict=True):
                    assert np.allclose(t.grad, want, atol=1e-6), (ex.id, case["text"])


def test_the_logsumexp_oracle_agrees_with_central_differences_and_torch():
    # the oracle is the engine's logsumexp and its backward, run by the grader
    rng = np.random.default_rng(0)
    x, up = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3))
    value, grad = _engine_lse(x, up)
    (numeric,) = numerical_gradients(lambda v: np.sum(up * np.log(np.exp(v).sum(-1))), x)
    assert np.allclose(value, np.log(np.exp(x).sum(-1))) and np.allclose(grad, numeric, atol=1e-8)
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 4)) * 400
    assert np.allclose(_logsumexp(x), torch.logsumexp(torch.tensor(x), dim=-1).numpy())


def test_a_matmul_that_replaces_grads_fails_only_on_x_at_x():
    result = grade(
        "06.my_matmul", {**CORRECT, "MyTensor": with_methods(__matmul__=replacing_matmul)}
    )
    assert failed_checks(result) == {"the same tensor on both sides"}
    assert "both sides" in result.checks[-1].hint


def test_stub_gradchecks_earn_nothing():
    for verdict in (True, False):
        result = grade("06.gradcheck", {**CORRECT, "gradcheck": lambda f, *xs, v=verdict: v})
        assert result.score == 0


def test_no_statement_or_hint_gives_the_answer():
    for ex in ENGINE:
        texts = [ex.statement] + [m.hint for c in ex.checks for m in c.mistakes]
        assert not spoilers(ex, texts), ex.id
    assert exercise("06.gradcheck").points == 3


def test_the_submission_never_sees_which_backward_is_broken():
    """What the child receives of 06.gradcheck's cases: inputs, never the flaw or the
    verdict; and the order of the cases changes with the seed."""
    from micrograd_edu.grading.registry import draw_cases, inputs

    ex = exercise("06.gradcheck")
    for seed in ("a", "b"):
        for check_cases in inputs(draw_cases(ex, seed)):
            for case in check_cases:
                assert set(case) <= {"function", "inputs", "stale"}, case
    orders = {
        tuple(c["held"]["flaw"] is None for c in draw_cases(ex, seed)[0]) for seed in "abcdefgh"
    }
    assert len(orders) > 1  # a checker cannot count its way to the verdicts


def test_a_reshape_where_a_sum_belongs_hears_why_no_reshape_fits():
    # unbroadcast by a reshape; the stacks' products reshaped to the inputs' shapes (matmul
    # on a vector is another check, where the same code fails for another cause)
    result = grade("06.unbroadcast", {**CORRECT, "unbroadcast": lambda g, s: g.reshape(s)})
    assert "no reshape makes them fit" in result.checks[0].hint
    from mistakes.chapter06 import reshaped_matmul

    result = grade("06.matmul_backward", {**CORRECT, "matmul_backward": reshaped_matmul})
    hints = {c.name: c.hint for c in result.checks if c.failed}
    assert "no reshape makes them fit" in hints["stacks of matrices, with broadcast batch axes"]
    assert hints["1-D vectors"] == hints["a stack times a vector"] == ""  # a raise of its own


def test_a_property_that_holds_but_earns_nothing_says_why():
    from micrograd_edu.grading.feedback import describe

    result = grade("06.gradcheck", {**CORRECT, "gradcheck": lambda f, *xs: True})
    lines = "\n".join(describe(result))
    assert "– large values (0/" in lines
    assert "not counted until “tells a right gradient from a wrong one” holds" in lines


# The review's submissions that had the engine's internals do the exercise, each reached by
# importlib (no public name holds them): every function of the engine raises while graded.
_INTERNALS = {
    "06.matmul_backward": """
import importlib
import numpy as np
_p = importlib.import_module('micrograd_edu.tensor.products')
def matmul_backward(A, B, dC):
    out = _p._matmul_vjp(np.asarray(dC, float), None,
                         (np.asarray(A, float), np.asarray(B, float)), (True, True))
    return tuple(out)
""",
    "06.sum": """
import importlib
import numpy as np
_r = importlib.import_module('micrograd_edu.tensor.reduce')
def sum(self, axis=None, keepdims=False):
    out = MyTensor(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum")
    ax = None if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    def _backward():
        self.grad += np.broadcast_to(
            _r.expand_reduced(out.grad, self.data.ndim, ax, keepdims), self.shape)
    out._backward = _backward
    return out
MyTensor.sum = sum
""",
    "06.logsumexp": """
import importlib
_r = importlib.import_module('micrograd_edu.tensor.reduce')
class LogSumExp(MyFunction):
    @staticmethod
    def forward(ctx, x):
        out = _r._logsumexp_forward(x, (-1,), False)
        ctx.save_for_backward(x, out)
        return out
    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        g = _r._logsumexp_vjp(grad, out, (x,), (True,), (-1,), False)
        return g[0] if isinstance(g, (tuple, list)) else g
""",
    # an operation's vjp kept in a table, and a closure captured before grading began
    "07.relu_layer_backward": """
import numpy as np
from micrograd_edu.nn.functional import LINEAR
from micrograd_edu.tensor.elementwise import ELEMENTWISE
_relu = ELEMENTWISE["relu"].vjp
def relu_layer_backward(X, W, b, dA):
    Z = X @ W + b
    (dZ,) = _relu(dA, np.maximum(Z, 0), (Z,), (True,))
    return tuple(LINEAR.vjp(dZ, None, (X, W.T, b), (True, True, True)))[:1] + (X.T @ dZ, dZ.sum(0))
""",
    "07.softmax_cross_entropy_backward": """
import numpy as np
from micrograd_edu.tensor import losses
def softmax_cross_entropy_backward(logits, labels):
    z = np.asarray(logits, float)
    return losses.CROSS_ENTROPY.vjp(np.float64(1), None, (z, np.asarray(labels)), (True, False))[0]
""",
}


@pytest.mark.parametrize("exercise_id", sorted(_INTERNALS))
def test_the_engine_internals_that_do_the_work_are_withheld_by_any_path(exercise_id):
    from micrograd_edu import check
    from micrograd_edu.tensor import reduce

    namespace = {**CORRECT, "MyTensor": with_methods()}  # its own class: the cell patches it
    exec(_INTERNALS[exercise_id], namespace)  # the student's cell, run before check()
    feedback = check(exercise_id, namespace=namespace)
    assert feedback.result.score == 0, [(c.name, c.reason) for c in feedback.result.checks]
    assert "is withheld while grading" in feedback.result.checks[0].reason
    # and the engine works again once the check is over
    assert reduce.expand_reduced(np.ones(2), 2, (0,), False).shape == (1, 2)
    assert (mg.Tensor([2.0], requires_grad=True) * 3).sum().item() == 6.0
