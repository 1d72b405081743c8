"""Chapter 09's checks: correct answers pass on any seed, each mistake fails its check; the
training exercise grades the network the student's loop trained, run by the grader on
points the submission never holds, on functions no published one gives."""

import numpy as np
import pytest
from grading_helpers import failed_checks, grade

# the right answers (train_model: the solution notebook's loop, which passes on 50 of 50 seeds)
from mistakes.chapter09 import CORRECT, fit_linear, minibatch_indices, train_model
from mistakes.chapter09 import _broadcasts as broadcasts
from mistakes.chapter09 import _fixed_lr as fixed_lr

from micrograd_edu import Tensor, nn, optim
from micrograd_edu.grading import chapter
from micrograd_edu.grading.registry import draw_cases, exercise, judge, observe


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(6)])
def test_reference_answers_pass_on_any_seed(seed):
    for ex in chapter("09"):
        if ex.id == "09.train_model":
            continue  # a second or two per seed: the test below runs it on eight
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


# Four grader seeds here (bench_training_verdicts.py runs fifty): an optimiser that ignored
# `opt.lr = 5e-4` failed about one in four.
@pytest.mark.parametrize("seed", ["b", "seed0", "seed1", "seed2"])
def test_the_reference_training_reaches_the_targets(seed):
    result = grade("09.train_model", CORRECT, seed)
    assert result.passed, [(c.name, c.reason) for c in result.checks]


def test_each_minibatch_mistake_fails_the_check_aimed_at_it():
    def with_replacement(n, batch_size, rng):
        rows = rng.integers(0, n, size=n)
        return [rows[k : k + batch_size] for k in range(0, n, batch_size)]

    def drops_last(n, batch_size, rng):
        return minibatch_indices(n, batch_size, rng)[: n // batch_size]

    def equal_split(n, batch_size, rng):
        return np.array_split(rng.permutation(n), -(-n // batch_size))

    def fixed_seed(n, batch_size, rng):
        return minibatch_indices(n, batch_size, np.random.default_rng(0))

    def unshuffled(n, batch_size, rng):
        return [np.arange(k, min(k + batch_size, n)) for k in range(0, n, batch_size)]

    def global_generator(n, batch_size, rng):
        order = np.random.permutation(n)  # numpy's global generator, not rng
        return [order[k : k + batch_size] for k in range(0, n, batch_size)]

    def fails(wrong):
        return failed_checks(grade("09.minibatch_indices", {"minibatch_indices": wrong}))

    assert "every row exactly once per epoch" in fails(with_replacement)
    assert fails(drops_last) == {
        "every row exactly once per epoch",
        "batches of batch_size, the last one smaller",
    }
    assert fails(equal_split) == {"batches of batch_size, the last one smaller"}
    assert fails(fixed_seed) == {"shuffled, and differently every epoch"}
    assert fails(unshuffled) == {"shuffled, and differently every epoch"}
    assert fails(global_generator) == {
        "the order is drawn from rng: the same generator state, the same epoch"
    }
    # each gets the hint of its own mistake, and no other
    phrases = {
        with_replacement: "drawn with replacement",
        drops_last: "the last, smaller batch is missing",
        equal_split: "nearly equal sizes",
        fixed_seed: "the same order",
        unshuffled: "in their stored order",
        global_generator: "not from numpy's global one",
    }
    for wrong, phrase in phrases.items():
        result = grade("09.minibatch_indices", {"minibatch_indices": wrong})
        hints = [c.hint for c in result.checks if c.failed]
        assert hints and all(phrase in h for h in hints), (wrong.__name__, hints)
        assert not any(p in h for h in hints for p in phrases.values() if p != phrase)


def test_each_linear_mistake_fails_the_check_aimed_at_it():
    def column(X, y):
        return fit_linear(X, y)[:, None]

    def fails(wrong):
        return failed_checks(grade("09.fit_linear", {"fit_linear": wrong}))

    assert "recovers β when y is a column (n, 1)" in fails(broadcasts)
    # one learning rate for every data set: too short for tiny features, too long for large
    assert fails(fixed_lr) == {
        "recovers β when the features are a few hundredths long",
        "recovers β when the features are tens long",
    }
    assert "recovers β when y is flat (n,)" in fails(column)


def _constant(value):
    model = nn.Linear(1, 1, seed=0)
    model.weight.data[...] = 0.0
    model.bias.data[...] = value
    return model


def test_a_network_that_does_not_learn_scores_nothing_and_is_told_why():
    result = grade("09.train_model", {"train_model": lambda x, y, seed: _constant(y.mean())})
    assert result.score == 0
    assert all("same number for every x" in c.hint for c in result.checks[:2])


LOOKUPS = {  # wrong work that answers from the training rows, not from a trained network
    "nearest neighbour": lambda x, y, seed: (
        lambda q: y[np.abs(x[:, 0][None] - np.asarray(q)[:, 0][:, None]).argmin(axis=1)]
    ),
    "a Module whose forward looks the rows up": lambda x, y, seed: type(
        "Lookup",
        (nn.Module,),
        {
            "forward": lambda self, q: Tensor(
                y[np.abs(x[:, 0][None] - q.data[:, 0][:, None]).argmin(1)]
            )
        },
    )(),
    "a Sequential that hides a lookup": lambda x, y, seed: nn.Sequential(
        nn.Linear(1, 1, seed=0),
        type("Nearest", (nn.Module,), {"forward": lambda self, q: q})(),
    ),
}


@pytest.mark.parametrize("name", list(LOOKUPS))
def test_a_lookup_of_the_training_rows_scores_nothing(name):
    # issue 28: a 1-nearest-neighbour predictor with no network passed; the grader now runs
    # the returned network itself, on points the submission's process never holds
    result = grade("09.train_model", {"train_model": LOOKUPS[name]})
    assert result.score == 0
    assert all("which the grader does not read" in c.reason for c in result.checks)
    assert not any(c.hint for c in result.checks if not c.passed)  # no cause it did not have


def test_the_held_out_points_and_the_function_stay_with_the_grader():
    from micrograd_edu.grading.registry import inputs

    ex = exercise("09.train_model")
    for check_cases in inputs(draw_cases(ex, "any")):
        for case in check_cases:
            assert set(case) == {"seed", "x", "y"} and len(case["x"]) == 1000


def test_the_functions_are_drawn_not_chosen_from_a_list():
    from micrograd_edu.course.data import piecewise_truth
    from micrograd_edu.grading.chapter09 import _function
    from micrograd_edu.grading.registry import HELD

    ex = exercise("09.train_model")
    drawn = [draw_cases(ex, f"seed{i}")[0][0][HELD]["function"] for i in range(6)]
    assert len({f["c"] for f in drawn}) == 6  # a jump's place of its own, every time
    x = np.linspace(-1, 1, 101)
    assert not any(np.allclose(_function(f, x), piecewise_truth(x)) for f in drawn)


def test_a_network_with_standardised_inputs_is_run_as_returned():
    def standardised(x, y, seed):
        centre, scale = x.mean(axis=0), x.std(axis=0)
        model = train_model((x - centre) / scale, y, seed)
        return model, centre, scale

    assert grade("09.train_model", {**CORRECT, "train_model": standardised}).passed


def test_the_training_exercise_gets_the_reference_minibatches():
    def train_with_broken_batches(x, y, seed):
        batches = minibatch_indices_in_namespace(len(x), 32, np.random.default_rng(0))
        assert sorted(np.concatenate(batches).tolist()) == list(range(len(x)))
        return _constant(0.0)

    namespace = {"minibatch_indices": lambda n, b, rng: []}

    def minibatch_indices_in_namespace(*args):
        return namespace["minibatch_indices"](*args)

    namespace["train_model"] = train_with_broken_batches
    ex = exercise("09.train_model")
    cases = draw_cases(ex, "x")
    result = judge(ex, cases, observe(ex, namespace, cases))
    assert all("AssertionError" not in c.reason for c in result.checks)
    assert namespace["minibatch_indices"](3, 2, None) == []  # restored afterwards


def by_lstsq(X, y):
    return np.linalg.lstsq(X, np.asarray(y).reshape(-1), rcond=None)[0]


def test_a_closed_form_solver_scores_nothing_in_the_notebook_and_in_the_batch(tmp_path):
    # The exercise asks for gradient descent: the shortcut is withheld in both graders,
    # so check() and the gradebook give the same verdict.
    from micrograd_edu import check
    from micrograd_edu.grading import batch

    feedback = check("09.fit_linear", namespace={"fit_linear": by_lstsq, "np": np})
    assert feedback.result.score == 0
    assert "numpy.linalg.lstsq is withheld" in feedback.result.checks[0].reason
    assert np.linalg.lstsq is not None and np.linalg.lstsq([[1.0]], [2.0])[0][0] == 2.0  # back
    nbformat = pytest.importorskip("nbformat")
    source = "import numpy as np\n\ndef fit_linear(X, y):\n    return np.linalg.lstsq(X, y)[0]\n"
    path = tmp_path / "shortcut.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]), path)
    limits = batch.Limits(timeout=60, isolation="none")
    row = batch.grade_submission(path, [exercise("09.fit_linear")], "any", limits)
    (result,) = row.results
    assert result.score == 0 and "numpy.linalg.lstsq is withheld" in result.checks[0].reason


def test_a_training_loop_that_never_clears_its_gradients_is_told_so():
    def never_zeroed(x, y, seed):
        rng = np.random.default_rng(seed)
        model = nn.Sequential(
            nn.Linear(1, 64, seed=rng), nn.ReLU(), nn.Linear(64, 1, seed=rng)
        )  # fmt: skip
        opt = optim.Adam(model.parameters(), lr=5e-3)
        for _ in range(10):
            for batch in minibatch_indices(len(x), 32, rng):
                loss = ((model(Tensor(x[batch])) - Tensor(y[batch])) ** 2).mean()
                loss.backward()  # no zero_grad: the gradients add up
                opt.step()
        return model

    result = grade("09.train_model", {**CORRECT, "train_model": never_zeroed})
    assert result.score == 0
    for c in result.checks[:2]:  # the two fits (it is seeded: the same seed, the same model)
        assert "held-out MSE" in c.reason and "never clears the gradients" in c.hint
        assert "Adam" not in c.hint and "128" not in c.hint  # no recipe


def test_a_training_that_ignores_its_seed_is_told_so():
    def unseeded(x, y, seed):
        return CORRECT["train_model"](x, y, int(np.random.default_rng().integers(1000)))

    result = grade("09.train_model", {**CORRECT, "train_model": unseeded})
    failed = {c.name: c for c in result.checks if not c.passed}
    assert set(failed) == {"the same seed, the same network"}  # it trains as well as ever
    assert "draw every random choice" in failed["the same seed, the same network"].hint
    assert result.score == 2


def test_fit_linear_leaves_its_inputs_alone_and_has_no_factorisation_to_borrow():
    def scaled_in_place(X, y):
        X /= X.std(axis=0)  # writes into the caller's X
        return fit_linear(X, y) / np.asarray([1.0])  # (wrong β too: scaled features)

    result = grade("09.fit_linear", {"fit_linear": scaled_in_place})
    unchanged = next(c for c in result.checks if c.name == "X and y left as they were given")
    assert not unchanged.passed and "in-place" in unchanged.hint

    def by_svd(X, y):
        u, s, vt = np.linalg.svd(X, full_matrices=False)
        return vt.T @ ((u.T @ np.asarray(y).reshape(-1)) / s)

    from micrograd_edu import check

    feedback = check("09.fit_linear", namespace={"fit_linear": by_svd, "np": np})
    assert feedback.result.score == 0 and "svd is withheld" in feedback.result.checks[0].reason


def test_a_fit_that_breaks_only_on_a_column_y_keeps_the_rest():
    # the main property is recovering β; a y given as (n, 1) is a case of it (issue 28's
    # audit: it gated everything, so a descent right on flat y scored 0)
    def flat_only(X, y, steps=300):
        lr = 1.0 / np.linalg.eigvalsh(2.0 / len(X) * X.T @ X).max()
        beta = np.zeros(X.shape[1])
        for _ in range(steps):
            beta = beta - lr * 2.0 / len(X) * X.T @ (X @ beta - y)  # (n,) - (n, 1): (n, n)
        return beta

    result = grade("09.fit_linear", {"fit_linear": flat_only})
    assert failed_checks(result) == {"recovers β when y is a column (n, 1)"}
    assert result.score == 1.6  # one check of five lost


@pytest.mark.parametrize("clear", ["zero_grad", "the module's zero_grad", "in place", "never"])
def test_a_loop_is_seen_to_clear_its_gradients_however_it_clears_them(clear):
    from micrograd_edu.grading.runners.networks import trained

    def train():
        rng = np.random.default_rng(0)
        x = rng.normal(size=(64, 1))
        model = nn.Sequential(nn.Linear(1, 8, seed=0), nn.ReLU(), nn.Linear(8, 1, seed=1))
        opt = optim.Adam(model.parameters(), lr=0.01)
        for _ in range(5):
            if clear == "zero_grad":
                opt.zero_grad()
            elif clear == "the module's zero_grad":
                model.zero_grad()
            elif clear == "in place":
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.data[...] = 0.0
            ((model(Tensor(x)) - Tensor(x**2)) ** 2).mean().backward()
            opt.step()
        return model

    seen = trained(train)
    assert seen["backward"] == 5 and seen["stale"] == (4 if clear == "never" else 0)


def test_a_network_without_an_activation_is_told_it_is_a_straight_line():
    def stacked_linear(x, y, seed):
        model = nn.Sequential(nn.Linear(1, 32, seed=seed), nn.Linear(32, 1, seed=seed + 1))
        opt = optim.Adam(model.parameters(), lr=0.01)
        for _ in range(100):
            opt.zero_grad()
            ((model(Tensor(x)) - Tensor(y)) ** 2).mean().backward()
            opt.step()
        return model

    result = grade("09.train_model", {"train_model": stacked_linear})
    assert result.score == 0
    assert all("a straight line" in c.hint for c in result.checks[:2] if not c.passed)


def _closed_form(x, y, seed):
    """A network whose numbers come from least squares on random ReLU features: no loop."""
    rng = np.random.default_rng(seed)
    hidden = nn.Linear(1, 400, seed=rng)
    hidden.weight.data[...] = rng.normal(0, 8, size=hidden.weight.data.shape)
    hidden.bias.data[...] = rng.uniform(-8, 8, size=hidden.bias.data.shape)
    features = np.maximum(np.asarray(x) @ hidden.weight.data.T + hidden.bias.data, 0)
    design = np.hstack([features, np.ones((len(x), 1))])
    coef = np.linalg.solve(design.T @ design + 1e-3 * np.eye(401), design.T @ np.asarray(y))
    out = nn.Linear(400, 1, seed=rng)
    out.weight.data[...] = coef[:-1].T
    out.bias.data[...] = coef[-1]
    return nn.Sequential(hidden, nn.ReLU(), out)


def test_a_network_fitted_without_a_training_loop_scores_nothing():
    # issue 28: the exercise is the loop; a network reaching the target by a closed-form fit
    # is told what it reached and why it earns nothing
    result = grade("09.train_model", {"train_model": _closed_form})
    assert result.score == 0, [(c.name, c.reason) for c in result.checks]
    first = result.checks[0]
    assert "held-out MSE" in first.reason and "no backward pass ran" in first.reason, first


# The review's: a piecewise-linear interpolant of bin means set by hand in a ReLU network,
# then three token gradient steps at lr=1e-12 (MSE 0.011: full marks before)
_SET_BY_HAND = """
import numpy as np
from micrograd_edu import Tensor, nn, optim
from micrograd_edu.tensor import mse_loss
def train_model(x, y, seed):
    x = np.asarray(x, float).ravel(); y = np.asarray(y, float).ravel()
    K = 60
    edges = np.linspace(x.min(), x.max(), K + 1)
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, K - 1)
    cen = np.array([x[idx == k].mean() if (idx == k).any() else (edges[k] + edges[k+1]) / 2
                    for k in range(K)])
    val = np.array([y[idx == k].mean() if (idx == k).any() else np.nan for k in range(K)])
    ok = ~np.isnan(val); cen, val = cen[ok], val[ok]
    slopes = np.diff(val) / np.diff(cen)
    a = np.concatenate([[slopes[0]], np.diff(slopes)])
    l1 = nn.Linear(1, len(a)); l2 = nn.Linear(len(a), 1)
    l1.weight.data[...] = np.ones_like(l1.weight.data)
    l1.bias.data[...] = -cen[:-1] + 0 * l1.bias.data
    w2 = a.reshape(l2.weight.data.shape) if l2.weight.data.size == len(a) else a
    l2.weight.data[...] = w2
    # ReLU(x - c0) fails left of c0: handle with constant val[0] at x<c0 via bias
    l2.bias.data[...] = val[0]
    net = nn.Sequential(l1, nn.ReLU(), l2)
    opt = optim.SGD(net.parameters(), lr=1e-12)
    for _ in range(3):
        opt.zero_grad(); mse_loss(net(Tensor(x.reshape(-1,1))),
                                  Tensor(y.reshape(-1,1))).backward(); opt.step()
    return net
"""


def test_a_network_set_by_hand_then_given_token_steps_scores_nothing():
    namespace: dict = {}
    exec(_SET_BY_HAND, namespace)
    result = grade("09.train_model", {"train_model": namespace["train_model"]})
    assert result.score == 0, [(c.name, c.reason) for c in result.checks]
    first = result.checks[0]
    assert "held-out MSE" in first.reason and "barely moved" in first.reason, first


_THROUGH_THE_COURSE_LOOP = """
import importlib
import numpy as np
from micrograd_edu import nn, optim
_e = importlib.import_module('micrograd_edu.course.experiments')
def train_model(x, y, seed):
    rng = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(1, 64, seed=rng), nn.ReLU(), nn.Linear(64, 64, seed=rng),
                          nn.ReLU(), nn.Linear(64, 1, seed=rng))
    opt = optim.Adam(model.parameters(), lr=1e-2)
    X, Y = np.asarray(x, float), np.asarray(y, float)
    batches = []
    for ep in range(40):
        batches += [(X[i], Y[i]) for i in minibatch_indices(len(X), 64, rng)]
    _e.train(model, opt, batches)
    return model
"""


def test_training_through_the_course_loop_scores_nothing():
    # the review's submission: the statement asks for a loop you write, and the course's
    # own loop (experiments.train) is withheld, by any path
    from micrograd_edu import check
    from micrograd_edu.course import experiments

    namespace = {"minibatch_indices": CORRECT["minibatch_indices"]}
    exec(_THROUGH_THE_COURSE_LOOP, namespace)
    feedback = check("09.train_model", namespace=namespace, time_limit=None)
    assert feedback.result.score == 0, [c.reason for c in feedback.result.checks]
    assert "experiments.train is withheld" in feedback.result.checks[0].reason
    assert experiments.per_sample is not None and callable(experiments.train)  # back after
