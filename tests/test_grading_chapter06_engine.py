"""Chapter 06's own tensor engine (MyTensor's operations, MyFunction, LogSumExp, gradcheck):
correct answers, written differently from the solution notebook, pass on any seed; each
typical mistake fails its check with a hint about that mistake; the checks' oracles agree
with the package's Tensor (and with PyTorch, when it is installed)."""

import numpy as np
import pytest
from grading_helpers import explained, failed_checks, grade, spoilers

import micrograd_edu as mg
from micrograd_edu.grading import chapter, exercise
from micrograd_edu.grading.chapter06_engine import _evaluate, _wants
from micrograd_edu.grading.chapter06_function import _logsumexp
from micrograd_edu.grading.runners.chapter06_engine import _EXPRESSIONS, _params


def unbroadcast(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.sum(axis=i, keepdims=True)
    return grad


def matmul_backward(a, b, dc):
    # numpy's own matmul rules, through the einsum of each case
    a2, b2 = np.atleast_2d(a), b[:, None] if b.ndim == 1 else b
    dc2 = np.asarray(dc, dtype=float)
    dc2 = dc2[..., None] if b.ndim == 1 else dc2
    dc2 = dc2[..., None, :] if a.ndim == 1 else dc2
    da = unbroadcast(np.einsum("...ij,...kj->...ik", dc2, b2), a2.shape)
    db = unbroadcast(np.einsum("...ji,...jk->...ik", a2, dc2), b2.shape)
    return da.reshape(a.shape), db.reshape(b.shape)


class MyTensor:
    __array_ufunc__ = None

    def __init__(self, data, parents=(), op=""):
        self.data = np.array(data, dtype=float)
        self.grad = np.zeros_like(self.data)
        self.parents, self.op = tuple(parents), op
        self._backward = lambda: None

    @property
    def shape(self):
        return self.data.shape

    def _node(self, data, parents, rule):
        out = type(self)(data, parents)

        def _backward():
            for parent, grad in zip(parents, rule(out.grad), strict=True):
                parent.grad = parent.grad + grad

        out._backward = _backward
        return out

    def _wrap(self, other):
        return other if isinstance(other, type(self)) else type(self)(other)

    def __mul__(self, other):
        other = self._wrap(other)
        return self._node(
            self.data * other.data,
            (self, other),
            lambda g: (
                unbroadcast(g * other.data, self.shape),
                unbroadcast(g * self.data, other.shape),
            ),
        )

    __rmul__ = __mul__

    def __add__(self, other):
        other = self._wrap(other)
        return self._node(
            self.data + other.data,
            (self, other),
            lambda g: (unbroadcast(g, self.shape), unbroadcast(g, other.shape)),
        )

    def __radd__(self, other):
        return self.__add__(other)

    def broadcast_to(self, shape):
        return self._node(
            np.broadcast_to(self.data, shape), (self,), lambda g: (unbroadcast(g, self.shape),)
        )

    def sum(self, axis=None, keepdims=False):
        axes = range(self.data.ndim) if axis is None else np.atleast_1d(axis)
        kept = [
            1 if i in {a % self.data.ndim for a in axes} else n for i, n in enumerate(self.shape)
        ]
        return self._node(
            self.data.sum(axis=axis, keepdims=keepdims),
            (self,),
            lambda g: (np.broadcast_to(np.reshape(g, kept), self.shape),),
        )

    def reshape(self, *shape):
        return self._node(
            self.data.reshape(*shape), (self,), lambda g: (np.reshape(g, self.shape),)
        )

    def permute(self, *axes):
        order = [a % self.data.ndim for a in axes]
        back = [order.index(i) for i in range(len(order))]
        return self._node(
            np.transpose(self.data, order), (self,), lambda g: (np.transpose(g, back),)
        )

    def transpose(self, dim0, dim1):
        return self._node(
            np.swapaxes(self.data, dim0, dim1), (self,), lambda g: (np.swapaxes(g, dim0, dim1),)
        )

    def __matmul__(self, other):
        other = self._wrap(other)
        return self._node(
            self.data @ other.data,
            (self, other),
            lambda g: matmul_backward(self.data, other.data, g),
        )


def gradcheck(f, *inputs):
    v = np.random.default_rng(1).uniform(0.5, 1.5, np.shape(f(*inputs).data))  # no v near 0
    v *= np.where(np.random.default_rng(2).random(v.shape) < 0.5, -1, 1)
    for x in inputs:
        x.grad = None
    f(*inputs).backward(v)
    for x in inputs:
        flat = x.data.reshape(-1)  # a view: changing it changes x.data
        for i in range(flat.size):
            original = flat[i]
            values = []
            for step in (1e-6, -1e-6):
                flat[i] = original + step
                values.append(np.sum(v * f(*inputs).data))
            flat[i] = original
            numeric = (values[0] - values[1]) / 2e-6
            if not np.isclose(x.grad.reshape(-1)[i], numeric, rtol=1e-3, atol=1e-5):
                return False
    return True


class Context:
    def __init__(self):
        self.saved_tensors = ()

    def save_for_backward(self, *arrays):
        self.saved_tensors = arrays


class MyFunction:
    @classmethod
    def apply(cls, *args):
        ctx = Context()
        out = MyTensor(
            cls.forward(ctx, *(a.data if isinstance(a, MyTensor) else a for a in args)),
            [a for a in args if isinstance(a, MyTensor)],
        )

        def _backward():
            grads = cls.backward(ctx, out.grad)
            if not isinstance(grads, tuple):
                grads = (grads,)
            for a, g in zip(args, grads, strict=True):
                if isinstance(a, MyTensor) and g is not None:
                    if np.shape(g) != a.shape:
                        raise ValueError(
                            f"{cls.__name__}: gradient {np.shape(g)} for input {a.shape}"
                        )
                    a.grad = a.grad + g

        out._backward = _backward
        return out


class LogSumExp(MyFunction):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        top = np.max(x, axis=-1)
        return top + np.log(np.sum(np.exp(x - top[..., None]), axis=-1))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        e = np.exp(x - np.max(x, axis=-1, keepdims=True))
        return grad[..., None] * e / e.sum(axis=-1, keepdims=True)


CORRECT = {
    "MyTensor": MyTensor,
    "MyFunction": MyFunction,
    "LogSumExp": LogSumExp,
    "gradcheck": gradcheck,
    "unbroadcast": unbroadcast,
    "matmul_backward": matmul_backward,
}
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


def test_the_logsumexp_oracle_agrees_with_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).normal(size=(3, 4)) * 400
    assert np.allclose(_logsumexp(x), torch.logsumexp(torch.tensor(x), dim=-1).numpy())


def _with(name, **methods):
    """CORRECT with ``name`` replaced by a subclass overriding ``methods``."""
    return {**CORRECT, name: type(name, (CORRECT[name],), methods)}


def _without(name):
    """CORRECT with a MyTensor that lacks the method ``name``."""
    kept = {k: v for k, v in vars(MyTensor).items() if k not in (name, "__dict__", "__weakref__")}
    return {**CORRECT, "MyTensor": type("MyTensor", (), kept)}


def _rule(forward, backward):
    """A MyTensor method: forward(self, *args) -> data, backward(self, g, *args) -> grad."""

    def method(self, *args, **kwargs):
        out = type(self)(forward(self, *args, **kwargs), (self,))

        def _backward():
            self.grad = self.grad + backward(self, out.grad, *args, **kwargs)

        out._backward = _backward
        return out

    return method


def _replacing_add(self, other):
    other = self._wrap(other)
    out = type(self)(self.data + other.data, (self, other))

    def _backward():
        self.grad = unbroadcast(out.grad, self.shape)
        other.grad = unbroadcast(out.grad, other.shape)

    out._backward = _backward
    return out


def _unreduced_add(self, other):
    other = self._wrap(other)
    out = type(self)(self.data + other.data, (self, other))

    def _backward():
        self.grad += out.grad
        other.grad += out.grad

    out._backward = _backward
    return out


def _unwrapped_add(self, other):
    out = type(self)(self.data + other.data, (self, other))

    def _backward():
        self.grad += unbroadcast(out.grad, self.shape)
        other.grad += unbroadcast(out.grad, other.shape)

    out._backward = _backward
    return out


MISTAKES = [
    # (exercise, functions, the check that fails, a word of its hint)
    (
        "06.broadcast",
        _with("MyTensor", __add__=_replacing_add),
        "the same tensor twice",
        "replaces",
    ),
    (
        "06.broadcast",
        _with("MyTensor", __add__=_unreduced_add),
        "x + y, shapes that broadcast",
        "copied",
    ),
    (
        "06.broadcast",
        _with("MyTensor", __add__=_unwrapped_add),
        "a number or an array on either side",
        "make it a MyTensor",
    ),
    (
        "06.broadcast",
        _without("__radd__"),
        "a number or an array on either side",
        "__radd__",
    ),
    (
        "06.broadcast",
        _with(
            "MyTensor",
            broadcast_to=_rule(
                lambda s, shape: np.broadcast_to(s.data, shape),
                lambda s, g, shape: unbroadcast(g, s.shape) * s.data.size / g.size,
            ),
        ),
        "x.broadcast_to(shape)",
        "averaged",
    ),
    (
        "06.sum",
        _with(
            "MyTensor",
            sum=_rule(
                lambda s, axis=None, keepdims=False: s.data.sum(axis=axis, keepdims=keepdims),
                lambda s, g, axis=None, keepdims=False: g + np.zeros(s.shape),
            ),
        ),
        "over one axis",
        "summed axes are gone",
    ),
    (
        "06.sum",
        _with(
            "MyTensor",
            sum=_rule(
                lambda s, axis=None, keepdims=False: s.data.sum(axis=axis, keepdims=keepdims),
                lambda s, g, axis=None, keepdims=False: (
                    np.broadcast_to(
                        np.expand_dims(g, axis) if axis is not None and not keepdims else g, s.shape
                    )
                    * g.size
                    / s.data.size
                ),
            ),
        ),
        "over one axis",
        "mean's rule",
    ),
    (
        "06.sum",
        _with(
            "MyTensor",
            sum=_rule(
                lambda s, axis=None, keepdims=False: s.data.sum(axis=axis),
                lambda s, g, axis=None, keepdims=False: np.broadcast_to(
                    np.expand_dims(g, axis) if axis is not None else g, s.shape
                ),
            ),
        ),
        "keepdims=True",
        "keepdims=True keeps",
    ),
    (
        "06.sum",
        _with(
            "MyTensor",
            sum=_rule(
                lambda s, axis=None, keepdims=False: s.data.sum(axis=axis, keepdims=keepdims),
                lambda s, g, axis=None, keepdims=False: np.broadcast_to(
                    g.reshape([1 if i in np.atleast_1d(axis) else n for i, n in enumerate(s.shape)])
                    if axis is not None
                    else g,
                    s.shape,
                ),
            ),
        ),
        "negative axes",
        "negative axis",
    ),
    (
        "06.reshape",
        _with(
            "MyTensor",
            reshape=_rule(lambda s, *shape: s.data.reshape(*shape), lambda s, g, *shape: g),
        ),
        "to a new shape",
        "x's shape",
    ),
    (
        "06.reshape",
        _with(
            "MyTensor",
            reshape=_rule(
                lambda s, *shape: s.data.reshape(shape), lambda s, g, *shape: g.reshape(s.shape)
            ),
        ),
        "a shape given as one tuple",
        "accept both",
    ),
    (
        "06.permute",
        _with(
            "MyTensor",
            permute=_rule(
                lambda s, *axes: np.transpose(s.data, axes),
                lambda s, g, *axes: np.transpose(g, axes),
            ),
        ),
        "orders of three axes",
        "its own inverse",
    ),
    (
        "06.permute",
        _with(
            "MyTensor",
            permute=_rule(
                lambda s, *axes: np.transpose(s.data, axes),
                lambda s, g, *axes: np.transpose(g, np.argsort(axes)),
            ),
        ),
        "negative axes",
        "negative axis",
    ),
    ("06.permute", _without("transpose"), "transpose(dim0, dim1)", "torch.transpose"),
    (  # right for matrices only: a permute of two axes on a tensor of three
        "06.permute",
        _with("MyTensor", transpose=lambda self, dim0, dim1: self.permute(dim1, dim0)),
        "transpose(dim0, dim1)",
        "an order of all three",
    ),
]


def _fails_with(exercise_id, functions, failing, hint):
    """On several seeds, ``failing`` fails with ``hint`` in its hint, and every failed
    check says why."""
    for seed in ("a", "b", "c"):
        result = grade(exercise_id, functions, seed)
        assert failing in failed_checks(result), (seed, result.checks)
        check = next(c for c in result.checks if c.name == failing)
        assert hint in check.hint, (seed, check)
        assert explained(result), (seed, result.checks)


@pytest.mark.parametrize("exercise_id, functions, failing, hint", MISTAKES)
def test_each_mistake_fails_its_check_with_its_hint(exercise_id, functions, failing, hint):
    _fails_with(exercise_id, functions, failing, hint)


def _replacing_matmul(self, other):
    other = self._wrap(other)
    out = type(self)(self.data @ other.data, (self, other))

    def _backward():
        da, db = matmul_backward(self.data, other.data, out.grad)
        self.grad, other.grad = da, db

    out._backward = _backward
    return out


def test_a_matmul_that_replaces_grads_fails_only_on_x_at_x():
    result = grade("06.my_matmul", _with("MyTensor", __matmul__=_replacing_matmul))
    assert failed_checks(result) == {"the same tensor on both sides"}
    assert "both sides" in result.checks[-1].hint


def _checker(**changes):
    """gradcheck with one thing changed: the cotangent, the entries, inputs or tolerance."""

    def check(f, *inputs):
        v = (
            np.ones(np.shape(f(*inputs).data))
            if changes.get("ones")
            else np.random.default_rng(1).uniform(0.5, 1.5, np.shape(f(*inputs).data))
        )
        if not changes.get("stale"):
            for x in inputs:
                x.grad = None
        f(*inputs).backward(v)
        checked = inputs[:1] if changes.get("first_only") else inputs
        for x in checked:
            indices = list(np.ndindex(x.data.shape))[: changes.get("entries")]
            for index in indices:
                original = x.data[index]
                x.data[index] = original + 1e-6
                up = np.sum(v * f(*inputs).data)
                x.data[index] = (
                    original
                    - 1e-6 * (1 if changes.get("restore") else 2)
                    + (0 if changes.get("restore") else 1e-6)
                )
                down = np.sum(v * f(*inputs).data)
                if changes.get("restore"):
                    x.data[index] = original
                else:
                    x.data[index] += 1e-6  # back by adding h: rounding may leave a trace
                numeric = (up - down) / 2e-6
                rtol = changes.get("rtol", 1e-3)
                atol = changes.get("atol", 1e-5)
                if abs(x.grad[index] - numeric) > atol + rtol * abs(numeric):
                    return False
        return True

    return {**CORRECT, "gradcheck": check}


@pytest.mark.parametrize(
    "changes, failing, hint",
    [
        (
            {"ones": True, "restore": True},
            "a flaw in one entry, one input, or one direction",
            "ones",
        ),
        (
            {"entries": 1, "restore": True},
            "a flaw in one entry, one input, or one direction",
            "every entry",
        ),
        ({"entries": 1, "restore": True}, "tells a right gradient from a wrong one", "transposed"),
        (
            {"first_only": True, "restore": True},
            "a flaw in one entry, one input, or one direction",
            "second input",
        ),
        ({"rtol": 0.1, "restore": True}, "tells a right gradient from a wrong one", "few percent"),
        ({"rtol": 0, "restore": True}, "large values", "rounding error"),
        ({"stale": True, "restore": True}, "inputs that already hold gradients", "earlier pass"),
        ({}, "the inputs are left as they were", "put that value back"),
    ],
)
def test_each_gradcheck_mistake_fails_its_check_with_its_hint(changes, failing, hint):
    _fails_with("06.gradcheck", _checker(**changes), failing, hint)


def test_stub_gradchecks_earn_nothing():
    for verdict in (True, False):
        result = grade("06.gradcheck", {**CORRECT, "gradcheck": lambda f, *xs, v=verdict: v})
        assert result.score == 0


def _apply_with(**changes):
    class Broken(MyFunction):
        @classmethod
        def apply(cls, *args):
            ctx = Context()
            if changes.get("tensors_to_forward"):
                handed = args
            elif changes.get("wrap_numbers"):
                handed = [a.data if isinstance(a, MyTensor) else np.array(a) for a in args]
            else:
                handed = [a.data if isinstance(a, MyTensor) else a for a in args]
            out = MyTensor(cls.forward(ctx, *handed), [a for a in args if isinstance(a, MyTensor)])

            def _backward():
                grads = cls.backward(ctx, out.grad)
                if not changes.get("bare") and not isinstance(grads, tuple):
                    grads = (grads,)
                for a, g in zip(args, grads, strict=False):
                    if changes.get("checked") and np.shape(g) != a.shape:
                        raise ValueError(f"{cls.__name__}: gradient of shape {np.shape(g)}")
                    if changes.get("none") or isinstance(a, MyTensor) and g is not None:
                        if changes.get("replace"):
                            a.grad = g
                        else:
                            a.grad += g

            out._backward = _backward
            return out

    return {**CORRECT, "MyFunction": Broken}


@pytest.mark.parametrize(
    "changes, failing, hint",
    [
        (
            {"tensors_to_forward": True},
            "apply records forward's result, and backward's gradients",
            "arrays",
        ),
        ({"wrap_numbers": True}, "an argument that is not a tensor", "as it is"),
        ({"none": True}, "an argument that is not a tensor", "None"),
        ({"replace": True}, "the same tensor twice", "one share"),
        ({"bare": True}, "one input, its gradient returned alone", "tuple"),
        ({"bare": True, "checked": True}, "one input, its gradient returned alone", "one row"),
        ({}, "a gradient of the wrong shape is refused", "both shapes"),
    ],
)
def test_each_apply_mistake_fails_its_check_with_its_hint(changes, failing, hint):
    _fails_with("06.function", _apply_with(**changes), failing, hint)


def _lse(forward, backward):
    return {
        **CORRECT,
        "LogSumExp": type(
            "LogSumExp",
            (MyFunction,),
            {"forward": staticmethod(forward), "backward": staticmethod(backward)},
        ),
    }


def _saving(f):
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return f(x)

    return forward


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _right_backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return _softmax(x) * grad[..., None]


@pytest.mark.parametrize(
    "functions, failing, hint",
    [
        (
            _lse(_saving(lambda x: np.log(np.exp(x).sum(axis=-1))), _right_backward),
            "entries near ±1000",
            "inf or nan",
        ),
        (
            _lse(
                _saving(lambda x: np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1))),
                _right_backward,
            ),
            "a vector, rows and a stack",
            "added back",
        ),
        (
            _lse(
                _saving(_logsumexp),
                lambda ctx, grad: np.exp(ctx.saved_tensors[0]) * grad[..., None],
            ),
            "a vector, rows and a stack",
            "add up",
        ),
        (
            _lse(_saving(lambda x: _logsumexp(x)[..., None]), _right_backward),
            "a vector, rows and a stack",
            "without its last axis",
        ),
        (
            _lse(_saving(_logsumexp), lambda ctx, grad: _softmax(ctx.saved_tensors[0])),
            "a vector, rows and a stack",
            "not used",
        ),
        (
            _lse(_saving(_logsumexp), lambda ctx, grad: _softmax(ctx.saved_tensors[0]) * grad),
            "a vector, rows and a stack",
            "length 1",
        ),
    ],
)
def test_each_logsumexp_mistake_fails_its_check_with_its_hint(functions, failing, hint):
    _fails_with("06.logsumexp", functions, failing, hint)


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
    for exercise_id in ("06.unbroadcast", "06.matmul_backward"):
        functions = {**CORRECT, "unbroadcast": lambda grad, shape: grad.reshape(shape)}
        if exercise_id == "06.matmul_backward":  # its own unbroadcast is the grader's
            functions["matmul_backward"] = lambda a, b, dc: (
                (dc @ np.swapaxes(b, -1, -2)).reshape(a.shape),
                (np.swapaxes(a, -1, -2) @ dc).reshape(b.shape),
            )
        result = grade(exercise_id, functions)
        hints = [c.hint for c in result.checks if not c.passed]
        assert any("no reshape makes them fit" in h for h in hints), (exercise_id, result.checks)


def test_a_property_that_holds_but_earns_nothing_says_why():
    from micrograd_edu.grading.feedback import describe

    result = grade("06.gradcheck", {**CORRECT, "gradcheck": lambda f, *xs: True})
    lines = "\n".join(describe(result))
    assert "✔ large values (0/" in lines and "once the first property holds" in lines


def _sum_int_axes_only(self, axis=None, keepdims=False):
    out = type(self)(self.data.sum(axis=axis, keepdims=keepdims), (self,))

    def _backward():
        shape = [1] * self.data.ndim if axis is None else list(self.shape)
        if axis is not None:
            shape[axis] = 1  # an int only: a tuple of axes raises here
        self.grad = self.grad + np.broadcast_to(out.grad.reshape(shape), self.shape)

    out._backward = _backward
    return out


def _averaging_sum(self, axis=None, keepdims=False):
    out = type(self)(self.data.sum(axis=axis, keepdims=keepdims), (self,))

    def _backward():
        g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
        self.grad = self.grad + np.broadcast_to(g, self.shape) * g.size / self.data.size

    out._backward = _backward
    return out


def _averaging_broadcast_to(self, shape):
    out = type(self)(np.broadcast_to(self.data, shape), (self,))

    def _backward():
        self.grad = self.grad + unbroadcast(out.grad, self.shape) * self.data.size / out.data.size

    out._backward = _backward
    return out


@pytest.mark.parametrize(
    "exercise_id, methods, hint, never",
    [
        ("06.sum", {"sum": _sum_int_axes_only}, "a tuple of several axes", "negative axis"),
        ("06.sum", {"sum": _averaging_sum}, "divided by the number", "only one use's share"),
        (
            "06.broadcast",
            {"broadcast_to": _averaging_broadcast_to},
            "averaged instead of summed",
            "only one use's share",
        ),
    ],
    ids=["tuple axes unhandled", "sum averaged", "broadcast_to averaged"],
)
def test_a_hint_from_a_coincidence_is_not_given(exercise_id, methods, hint, never):
    # issue 28: a mean's 1/2 over two rows looked like a lost share of x used twice, and tuple
    # axes that raised looked like negative axes mishandled
    for seed in [f"seed{i}" for i in range(6)]:
        result = grade(exercise_id, _with("MyTensor", **methods), seed)
        hints = [c.hint for c in result.checks if not c.passed and c.hint]
        assert hints and any(hint in h for h in hints), (seed, hints)
        assert not any(never in h for h in hints), (seed, hints)
