"""Chapter 09's checks: correct answers pass on any seed, each mistake fails its check."""

import numpy as np
import pytest
from grading_helpers import failed_checks, grade

from micrograd_edu import Tensor, nn, optim
from micrograd_edu.grading import chapter
from micrograd_edu.grading.registry import draw_cases, exercise, judge, observe


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


def train_model(x, y, seed):  # the solution notebook's, which passes on 50 of 50 seeds
    rng = np.random.default_rng(seed)
    model = nn.Sequential(
        nn.Linear(1, 64, seed=rng), nn.ReLU(), nn.Linear(64, 64, seed=rng), nn.ReLU(),
        nn.Linear(64, 64, seed=rng), nn.ReLU(), nn.Linear(64, 1, seed=rng),
    )  # fmt: skip
    opt = optim.Adam(model.parameters(), lr=5e-3)
    for epoch in range(60):
        if epoch == 45:
            opt.lr = 5e-4
        for batch in minibatch_indices(len(x), 32, rng):
            opt.zero_grad()
            loss = ((model(Tensor(x[batch])) - Tensor(y[batch])) ** 2).mean()
            loss.backward()
            opt.step()
    return lambda x_new: model(Tensor(x_new)).data


CORRECT = {
    "minibatch_indices": minibatch_indices,
    "fit_linear": fit_linear,
    "train_model": train_model,
}


@pytest.mark.parametrize("seed", [f"seed{i}" for i in range(6)])
def test_reference_answers_pass_on_any_seed(seed):
    for ex in chapter("09"):
        if ex.id == "09.train_model":
            continue  # a second or two per seed: the test below runs it on eight
        result = grade(ex.id, CORRECT, seed)
        assert result.passed, (ex.id, [(c.name, c.reason) for c in result.checks])


# Eight grader seeds: an optimiser that ignored `opt.lr = 5e-4` failed about one in four.
@pytest.mark.parametrize("seed", ["b"] + [f"seed{i}" for i in range(7)])
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
        hints = [c.hint for c in result.checks if not c.passed]
        assert hints and all(phrase in h for h in hints), (wrong.__name__, hints)
        assert not any(p in h for h in hints for p in phrases.values() if p != phrase)


def test_each_linear_mistake_fails_the_check_aimed_at_it():
    def broadcasts(X, y):
        # (n,) - (n, 1) makes an (n, n) residual: slow as well as wrong, so few steps here
        beta = np.zeros(X.shape[1])
        for _ in range(3):
            beta -= 0.3 * 2.0 / len(X) * X.T @ (X @ beta - y).mean(axis=-1)
        return beta

    def fixed_lr(X, y):
        y = np.asarray(y, dtype=float).reshape(-1)
        beta = np.zeros(X.shape[1])
        for _ in range(300):
            beta -= 0.5 * 2.0 / len(X) * X.T @ (X @ beta - y)
        return beta

    def column(X, y):
        return fit_linear(X, y)[:, None]

    def fails(wrong):
        return failed_checks(grade("09.fit_linear", {"fit_linear": wrong}))

    assert "recovers β when y is a column (n, 1)" in fails(broadcasts)
    assert fails(fixed_lr) == {"recovers β when the features have different scales"}
    assert "recovers β when y is flat (n,)" in fails(column)


def test_a_model_that_does_not_learn_fails_and_predictions_must_match_the_rows():
    def mean_only(x, y, seed):
        return lambda x_new: np.full(len(x_new), y.mean())

    def one_number(x, y, seed):
        return lambda x_new: 0.0

    ex = "09.train_model"
    assert grade(ex, {"train_model": mean_only}).score == 0
    result = grade(ex, {"train_model": one_number})
    assert "one number per row" in result.checks[0].reason


def test_the_training_exercise_gets_the_reference_minibatches():
    def train_with_broken_batches(x, y, seed):
        batches = minibatch_indices_in_namespace(len(x), 32, np.random.default_rng(0))
        assert sorted(np.concatenate(batches).tolist()) == list(range(len(x)))
        return lambda x_new: np.zeros(len(x_new))

    namespace = {"minibatch_indices": lambda n, b, rng: []}

    def minibatch_indices_in_namespace(*args):
        return namespace["minibatch_indices"](*args)

    namespace["train_model"] = train_with_broken_batches
    ex = exercise("09.train_model")
    cases = draw_cases(ex, "x")
    result = judge(ex, cases, observe(ex, namespace, cases))
    assert all("AssertionError" not in c.reason for c in result.checks)
    assert namespace["minibatch_indices"](3, 2, None) == []  # restored afterwards


# A lookup table of the held-out targets scored MSE 0 while the child split the data itself
# (issue 10): it searches every frame above it and every object in memory for them.
SNOOPER = """
import gc, sys
import numpy as np

def train_model(x, y, seed):
    frames, frame = [], sys._getframe(1)
    while frame is not None:
        frames.append(frame.f_locals)
        frame = frame.f_back
    found = []
    for obj in frames + gc.get_objects():
        values = obj.values() if isinstance(obj, dict) else [obj]
        for v in values:
            if not isinstance(v, (list, np.ndarray)) or len(v) != 500:
                continue
            try:
                a = np.asarray(v, dtype=float).reshape(-1)
            except Exception:
                continue
            if a.size == 500:
                found.append(a)
    def predict(x_new):
        x_new = np.asarray(x_new, dtype=float).reshape(-1)
        for a in found:
            if not np.allclose(a, x_new):
                return a  # a length-500 array that is not x_test: the targets?
        return np.zeros(len(x_new))
    return predict
"""


def test_the_held_out_targets_never_reach_the_students_side(tmp_path):
    from micrograd_edu.grading import batch
    from micrograd_edu.grading.registry import HELD, inputs

    cases = draw_cases(exercise("09.train_model"), "any")
    assert all(HELD in case for check in cases for case in check)
    assert not any(HELD in case for check in inputs(cases) for case in check)
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SNOOPER)])
    path = tmp_path / "snooper.ipynb"
    nbformat.write(notebook, path)
    limits = batch.Limits(timeout=60, isolation="none")  # the split, not the sandbox, keeps them
    row = batch.grade_submission(path, [exercise("09.train_model")], "any", limits)
    (result,) = row.results
    assert result.score == 0 and result.status == "failed", result
    held_out = [c for c in result.checks if c.name.startswith("held-out MSE")]
    assert held_out and all("held-out MSE" in c.reason for c in held_out), result.checks


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
        return lambda x_new: model(Tensor(x_new)).data

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
    assert "the same seed, the same model" in failed
    assert "draw every random choice" in failed["the same seed, the same model"].hint
