"""Chapter 10's checks: correct answers pass on any seed; each typical mistake of the
weighted cross-entropy backward gets the hint of its own model and no other; a wrong answer
no model explains gets what was seen, and no hint; the classifier is judged on held-out
labels the student's side never receives, and scikit-learn cannot be imported to answer."""

import numpy as np
import pytest
from grading_helpers import grade
from mistakes.chapter10 import BACKWARD, train_classifier
from mistakes.chapter10 import _by_differences as by_differences
from mistakes.chapter10 import _in_place as in_place
from mistakes.chapter10 import _linear_classifier as linear_classifier
from mistakes.chapter10 import _overflows as overflows
from mistakes.chapter10 import weighted_cross_entropy_backward as correct

from micrograd_edu import nn, optim
from micrograd_edu.grading import exercise
from micrograd_edu.grading.registry import HELD, draw_cases, inputs, judge, observe
from micrograd_edu.tensor import Tensor

# each typical mistake against its own hint and the others': tests/mistakes/chapter10.py


def slightly_off(logits, labels, weight):
    grad = correct(logits, labels, weight)
    grad[0, 0] += 0.03 * np.abs(grad).max()
    return grad


def scaled(logits, labels, weight):
    return correct(logits, labels, weight) * 1.03


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(8)])
def test_the_reference_backward_passes_on_any_seed(seed):
    result = grade(BACKWARD, {"weighted_cross_entropy_backward": correct}, seed)
    assert result.passed, [(c.name, c.reason) for c in result.checks]


def test_overflow_fails_only_at_large_logits_with_its_hint():
    result = grade(BACKWARD, {"weighted_cross_entropy_backward": overflows})
    small, large, _ = result.checks
    assert small.passed and not large.passed
    assert "inf or nan" in large.reason and "overflows to inf" in large.hint


def test_changing_the_callers_logits_fails_that_check_with_its_hint():
    result = grade(BACKWARD, {"weighted_cross_entropy_backward": in_place})
    *_, unchanged = result.checks
    assert not unchanged.passed and "caller's" in unchanged.reason
    assert "in-place" in unchanged.hint
    assert result.score == pytest.approx(2.25)  # partial credit for the rest


def test_a_mistake_no_model_explains_says_what_was_seen_and_gives_no_hint():
    result = grade(BACKWARD, {"weighted_cross_entropy_backward": slightly_off})
    first = result.checks[0]
    assert not first.passed and first.hint == ""
    assert (
        "right shape" in first.reason
        and "largest error is 0.03 times its largest entry" in first.reason
    )
    result = grade(BACKWARD, {"weighted_cross_entropy_backward": scaled})
    assert "every entry is 1.03 times the right one" in result.checks[0].reason
    assert result.checks[0].hint == ""


def test_a_wrong_shape_is_named():
    result = grade(
        BACKWARD, {"weighted_cross_entropy_backward": lambda z, y, w: correct(z, y, w).T}
    )
    assert "has shape" in result.checks[0].reason and result.checks[0].hint == ""


def test_autograd_records_nothing_while_the_backward_is_graded():
    def by_autograd(logits, labels, weight):
        import micrograd_edu as mg

        z = Tensor(logits, requires_grad=True)
        mg.cross_entropy(z, labels, weight=weight).backward()
        return z.grad

    result = grade(BACKWARD, {"weighted_cross_entropy_backward": by_autograd})
    assert result.score == 0 and result.checks[0].reason.startswith("raised ")


# The review's (enable_grad undoing the runner's no_grad), and the other ways to turn the
# recording back on: the engine is withheld whole, so none of them reaches its backward.
_SWITCHED_ON = {
    "enable_grad": "with mg.enable_grad():",
    "set_grad_enabled": "with set_grad_enabled(True):",
    "inference_mode": "with mg.inference_mode(False):",
}
_BY_AUTOGRAD = """
import numpy as np
import micrograd_edu as mg
from micrograd_edu.tensor.modes import set_grad_enabled
def weighted_cross_entropy_backward(logits, labels, weight):
    {switch}
        z = mg.Tensor(np.asarray(logits, float), requires_grad=True)
        mg.cross_entropy(z, np.asarray(labels),
                         weight=mg.Tensor(np.asarray(weight, float))).backward()
    return z.grad.data
"""
_DECORATED = """
import numpy as np
import micrograd_edu as mg
@mg.enable_grad()
def weighted_cross_entropy_backward(logits, labels, weight):
    z = mg.Tensor(np.asarray(logits, float), requires_grad=True)
    mg.cross_entropy(z, np.asarray(labels), weight=mg.Tensor(np.asarray(weight, float))).backward()
    return z.grad.data
"""


def test_turning_autograd_back_on_does_not_reach_the_engine_in_the_batch_grader(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    from micrograd_edu.grading import batch

    path = tmp_path / "enabled.ipynb"
    source = _BY_AUTOGRAD.format(switch=_SWITCHED_ON["enable_grad"])
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]), path)
    limits = batch.Limits(timeout=60, isolation="none")
    row = batch.grade_submission(path, [exercise(BACKWARD)], "any", limits)
    (result,) = row.results
    assert result.score == 0, [(c.name, c.reason) for c in result.checks]
    assert "is withheld while grading" in result.checks[0].reason, result.checks[0].reason


@pytest.mark.parametrize("switch", [*_SWITCHED_ON, "decorator"])
def test_turning_autograd_back_on_does_not_reach_the_engine(switch):
    from micrograd_edu import check

    source = (
        _DECORATED if switch == "decorator" else _BY_AUTOGRAD.format(switch=_SWITCHED_ON[switch])
    )
    namespace: dict = {}
    exec(source, namespace)  # the student's cell, run before check()
    feedback = check(BACKWARD, namespace=namespace)
    reasons = [(c.name, c.reason, c.hint) for c in feedback.result.checks]
    assert feedback.result.score == 0, reasons
    assert "is withheld while grading" in feedback.result.checks[0].reason, reasons
    assert "withheld while this exercise is graded" in feedback.result.checks[0].hint, reasons
    # and the engine answers again once the check is over
    assert namespace["weighted_cross_entropy_backward"]([[1.0, 2.0]], [0], [1.0, 1.0]).shape == (
        1,
        2,
    )


# --- the classifier ----------------------------------------------------------------


CLASSIFIER = "10.train_classifier"


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(3)])
def test_the_reference_classifier_reaches_both_targets_on_any_seed(seed):
    result = grade(CLASSIFIER, {"train_classifier": train_classifier}, seed)
    assert result.passed, [(c.name, c.reason) for c in result.checks]


def test_a_straight_line_cannot_pass_the_clusters():
    result = grade(CLASSIFIER, {"train_classifier": linear_classifier})
    clusters = result.checks[0]
    assert not clusters.passed and "held-out accuracy" in clusters.reason
    assert "no activation between its layers" in clusters.hint
    assert result.score == 0  # the first check gates the digits


WRONG_WORK = {  # issue 28: each scored full marks, the network's accuracy being high enough
    "the gradients never cleared": ({"cleared": False}, "never clears the gradients"),
    "the inputs unscaled": ({"scaled": False}, None),
    "ten classes built in": ({"classes": 10}, "fewer outputs than the data have classes"),
    "a learning rate of 1.0": ({"lr": 1.0}, None),
}


def _main_check(functions, seed="test"):
    """The classifier's first check alone (it gates the others: 0 there is 0 in all)."""
    from dataclasses import replace

    ex = exercise(CLASSIFIER)
    ex = replace(ex, checks=ex.checks[:1])
    cases = draw_cases(ex, seed)
    return judge(ex, cases, observe(ex, functions, cases)).checks[0]


@pytest.mark.parametrize("name", list(WRONG_WORK))
def test_a_training_the_reviewers_saw_pass_wrongly_now_scores_nothing(name):
    changes, hint = WRONG_WORK[name]
    first = _main_check({"train_classifier": lambda X, y, s: train_classifier(X, y, s, **changes)})
    assert not first.passed, first
    assert hint in first.hint if hint else first.hint == "", first


def _set_by_hand(X, labels, seed):
    """The review's way (it copied scikit-learn's weights): a network whose numbers are set
    by hand (here, from a training run elsewhere), then one token step at lr=1e-12."""
    trained, centre, spread = train_classifier(X, labels, seed)
    net = nn.Sequential(*(type(m)(*m.weight.shape[::-1]) if isinstance(m, nn.Linear) else m
                          for m in trained))  # fmt: skip
    for mine, theirs in zip(net.parameters(), trained.parameters(), strict=True):
        mine.data[...] = theirs.data
    opt = optim.SGD(net.parameters(), lr=1e-12)
    inputs = Tensor((np.asarray(X, float)[:10] - centre) / spread)
    opt.zero_grad()
    nn.CrossEntropyLoss()(net(inputs), np.asarray(labels)[:10]).backward()
    opt.step()
    return net, centre, spread


def test_a_network_set_by_hand_then_given_a_token_step_scores_nothing():
    result = grade(CLASSIFIER, {"train_classifier": _set_by_hand})
    assert result.score == 0, [(c.name, c.reason) for c in result.checks]
    assert "barely moved" in result.checks[0].reason, result.checks[0]


def test_a_training_that_ignores_its_seed_loses_that_check_only():
    def unseeded(X, labels, seed):
        return train_classifier(X, labels, int(np.random.default_rng().integers(1000)))

    result = grade(CLASSIFIER, {"train_classifier": unseeded})
    failed = [c for c in result.checks if not c.passed]
    assert [c.name for c in failed] == ["the same seed, the same network"]
    assert "from seed" in failed[0].hint and result.score == 2


def _lookup(X, labels, seed):
    return lambda X_new: labels[((np.asarray(X_new)[:, None] - X[None]) ** 2).sum(-1).argmin(1)]


def test_a_nearest_neighbour_lookup_scores_nothing():
    # issue 28: it passed; the grader now runs the returned network on rows it never sends
    result = grade(CLASSIFIER, {"train_classifier": _lookup})
    assert result.score == 0
    assert all("which the grader does not read" in c.reason for c in result.checks)
    assert not any(c.hint for c in result.checks)


def test_one_class_for_everything_gets_its_hint():
    def one_class(X, labels, seed):
        model = nn.Linear(np.shape(X)[1], 10, seed=0)
        model.weight.data[...] = 0.0
        model.bias.data[...] = np.eye(10)[0]
        return model

    result = grade(CLASSIFIER, {"train_classifier": one_class})
    assert all("same class" in c.hint for c in result.checks[:2])


def test_a_network_without_one_output_per_class_is_told_so():
    result = grade(
        CLASSIFIER,
        {
            "train_classifier": lambda X, y, s: nn.Sequential(
                nn.Linear(np.shape(X)[1], 1, seed=0), nn.Flatten(0)
            )
        },
    )
    assert (
        "which the grader does not read" in result.checks[0].reason
    )  # Flatten is not a layer it runs


def test_the_held_out_rows_and_labels_stay_with_the_judge():
    cases = draw_cases(exercise(CLASSIFIER), "any")
    assert all(HELD in case for check in cases for case in check)
    for check in inputs(cases):
        for case in check:
            assert set(case) == {"X", "labels", "seed"}
    held = [case[HELD] for check in cases for case in check]
    assert all(len(h["X"]) == len(h["labels"]) > 300 for h in held)


def test_scikit_learn_cannot_answer_in_the_batch_grader(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    from micrograd_edu.grading import batch

    source = (
        "def train_classifier(X, labels, seed):\n"
        "    from sklearn.neighbors import KNeighborsClassifier\n"
        "    return KNeighborsClassifier(1).fit(X, labels).predict\n"
    )
    path = tmp_path / "borrowed.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]), path)
    limits = batch.Limits(timeout=60, isolation="none")
    row = batch.grade_submission(path, [exercise(CLASSIFIER)], "any", limits)
    (result,) = row.results
    assert result.score == 0
    assert "sklearn is withheld" in result.checks[0].reason, result.checks[0].reason


def test_a_finite_difference_gradient_scores_nothing(monkeypatch):
    # issue 28: the derivation is the exercise; a difference quotient is close, not exact, and
    # on the batch of realistic size it takes two evaluations of the loss per logit
    from micrograd_edu.grading.runners import derivation

    monkeypatch.setattr(derivation, "LARGE_SECONDS", 0.3)
    result = grade(BACKWARD, {"weighted_cross_entropy_backward": by_differences})
    assert result.score == 0
    assert "difference quotient" in result.checks[0].hint


def _one_scale(X, labels, seed):
    # the review's (0/3 before: "one number per input"): one centre and one scale for all
    # the inputs, X.mean() and X.std() (its first line, a call of the reference, left out)
    X = np.asarray(X, float)
    rng = np.random.default_rng(seed)
    c, s = X.mean(), X.std()
    y = np.asarray(labels, int)
    Xn = (X - c) / s
    C = int(y.max()) + 1
    model = nn.Sequential(nn.Linear(X.shape[1], 128, seed=rng), nn.ReLU(), nn.Linear(128, C, seed=rng))  # fmt: skip # noqa: E501
    opt = optim.Adam(model.parameters(), lr=0.01)
    for _ in range(15):
        order = rng.permutation(len(Xn))
        for st in range(0, len(order), 128):
            rows = order[st:st+128]  # fmt: skip
            loss = nn.CrossEntropyLoss()(model(Tensor(Xn[rows])), y[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model, c, s


def test_a_centre_and_scale_that_fit_a_row_are_taken_whatever_their_shape():
    # one scale for all the inputs: the network is run and judged on its accuracy (the
    # grader's clusters, on scales of their own, want one per input: that is the check's)
    result = grade(CLASSIFIER, {"train_classifier": _one_scale}, "seed0")
    reasons = [c.reason for c in result.checks]
    assert reasons[0].startswith("held-out accuracy"), reasons
    assert not any("one number" in r for r in reasons), reasons
    from micrograd_edu.grading.networks import forward, network_problem
    from micrograd_edu.grading.runners.networks import read_network

    net = nn.Linear(3, 2, seed=0)
    x = np.arange(12.0).reshape(4, 3)
    for centre in (2.0, np.array([2.0]), np.full(3, 2.0), np.full((1, 3), 2.0)):
        seen = read_network((net, centre, centre * 2))
        assert network_problem(seen, 3) is None, np.shape(centre)
        assert np.allclose(forward(seen, x), net(Tensor((x - 2.0) / 4.0)).data)
    for centre in (np.full((3, 1), 2.0), np.full(2, 2.0)):
        problem = network_problem(read_network((net, centre, 2.0)), 3)
        assert problem.startswith("the centre and scale must each be one number"), problem
        assert str(np.shape(centre)) in problem, problem


def test_a_scale_of_zero_names_the_inputs_whose_spread_was_zero():
    # the review's s = X.std(0), unguarded: always-blank pixels get a scale of 0, and every
    # prediction is inf or nan; the reason says which inputs and why
    from micrograd_edu.grading.networks import network_problem

    seen = {
        "layers": [["Linear", [[1.0, 1.0, 1.0]], [0.0]]],
        "centre": [0.0, 0.0, 0.0],
        "scale": [0.0, 2.0, 0.0],
    }
    problem = network_problem(seen, 3)
    assert problem.startswith("the scale is 0 (or not a number) for 2 of the 3 inputs (0, 2)")
    assert "spread in the training data is 0" in problem
    assert network_problem({**seen, "scale": [1.0, 2.0, 3.0]}, 3) is None
