"""The ownership rule of gradient arrays (the backward module's docstring), place by place.

A VJP may pass the upstream gradient on (add gives it to both inputs, reshape a view of
it); accumulation must never write into an array another node, a hook or a user holds;
``.grad`` never shares memory with another tensor's gradient or data. Each place that
could break that is tested here on programs with fan-out, against central differences
on numpy (always) and PyTorch in float64 (where installed).
"""

import numpy as np
import pytest
from central_differences import central_gradient

from micrograd_edu import Dual, Function, Tensor, Value, freeze, nn, optim
from micrograd_edu.tensor import from_numpy
from micrograd_edu.tensor.backward import grad

try:
    import torch
except ImportError:  # PyTorch is an optional oracle
    torch = None

X = np.array([[0.7, -1.2, 0.4], [1.5, 0.3, -0.8]])
C = np.array([2.0, -1.5, 0.9])


def gradients(program, *arrays):
    """Each input's gradient of the scalar ``program`` by central differences on numpy."""

    def along(i):
        def f(a):
            args = list(arrays)
            args[i] = a
            return float(program(*args))

        return f

    return [central_gradient(along(i), a) for i, a in enumerate(arrays)]


def torch_gradients(program, *arrays):
    if torch is None:
        return None
    xs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    program(*xs).backward()
    return [x.grad.numpy() for x in xs]


def check(program, *arrays, passes=1):
    """Run ``program`` on leaves ``passes`` times (gradients accumulate) and compare each
    leaf's ``.grad`` with the oracles; return the leaves."""
    leaves = [Tensor(a, requires_grad=True) for a in arrays]
    for _ in range(passes):
        program(*leaves).backward()
    for leaf, expected in zip(leaves, gradients(program, *arrays), strict=True):
        np.testing.assert_allclose(leaf.grad.data, passes * expected, rtol=1e-6, atol=1e-8)
    reference = torch_gradients(program, *arrays)
    if reference is not None:
        for leaf, expected in zip(leaves, reference, strict=True):
            np.testing.assert_allclose(leaf.grad.data, passes * expected, rtol=1e-12, atol=1e-14)
    assert_private(leaves)
    return leaves


def assert_private(leaves, others=()):
    """No leaf's .grad shares memory with another's, with any leaf's data, or with
    ``others`` (arrays the user passed in)."""
    arrays = [t.data for t in leaves] + list(others)
    for i, t in enumerate(leaves):
        if t.grad is None:
            continue
        mine = t.grad.data
        for j, u in enumerate(leaves):
            if j != i and u.grad is not None:
                assert not np.shares_memory(mine, u.grad.data), (i, j)
        for a in arrays:
            assert not np.shares_memory(mine, a)


# ----------------------------------------------------------- fan-out through the walk


def the_issues_program(x, c):
    n6 = (x * x) / c
    n8 = x + x
    return (n8 + n6).sum()


def the_issues_program_reordered(x, c):
    n8 = x + x
    n6 = (x * x) / c
    return (n8 + n6).sum()


@pytest.mark.parametrize("program", [the_issues_program, the_issues_program_reordered])
def test_the_issues_program_in_both_orders(program):
    x, c = check(program, np.array([0.7]), np.array([2.0]))
    assert x.grad.item() == pytest.approx(2.7) and c.grad.item() == pytest.approx(-0.1225)


# Operations whose VJP passes the upstream gradient on, or a view of it, each with its
# numpy twin (for the oracle). The programs below route a leaf through two of them.
PASS_ON = {
    "add 0": (lambda x: x + 0.0, lambda x: x + 0.0),
    "sub 0": (lambda x: x - 0.0, lambda x: x - 0.0),
    "clone": (lambda x: x.clone(), lambda x: x.copy()),
    "reshape": (lambda x: x.reshape(-1).reshape(2, 3), lambda x: x.reshape(-1).reshape(2, 3)),
    "view": (lambda x: x.view(3, 2).view(2, 3), lambda x: x.reshape(3, 2).reshape(2, 3)),
    "transpose": (lambda x: x.T.T, lambda x: x.T.T),
    "permute": (lambda x: x.permute(1, 0).permute(1, 0), lambda x: x.T.T),
    "expand": (lambda x: x.expand(2, 3), lambda x: np.broadcast_to(x, (2, 3))),
    "unsqueeze": (lambda x: x.unsqueeze(0).squeeze(0), lambda x: x[None][0]),
    "slice": (lambda x: x[:, :], lambda x: x[:, :]),
    "flip": (lambda x: x.flip(0).flip(0), lambda x: x[::-1][::-1]),
    "cat": (
        lambda x: Tensor.__getitem__(_cat([x, x]), slice(0, 2)),
        lambda x: np.concatenate([x, x])[0:2],
    ),
}


def _cat(xs):
    from micrograd_edu.tensor import cat

    return cat(xs)


def _programs(tensor_pass, numpy_pass):
    def fan_out(x, c, P):
        twice = P(x) + P(x)
        return (twice + (x * x) / c).sum()

    def reused(x, c, P):
        u = P(x)
        v = u + u
        return (v + u * c).sum()

    def issue_order(x, c, P):
        n6 = (x * x) / c
        n8 = P(x) + P(x)
        return (n8 * 1.5 + n6).sum()

    for template in (fan_out, reused, issue_order):

        def program(x, c, template=template):
            is_numpy = isinstance(x, np.ndarray)
            return template(x, c, numpy_pass if is_numpy else tensor_pass)

        program.__name__ = template.__name__
        yield program


@pytest.mark.parametrize("name", PASS_ON)
def test_fan_out_through_operations_that_pass_the_gradient_on(name):
    tensor_pass, numpy_pass = PASS_ON[name]
    for program in _programs(tensor_pass, numpy_pass):
        if torch is not None and name in ("expand", "cat", "unsqueeze", "flip", "transpose"):
            # numpy's spelling differs from torch's: the central differences judge alone
            leaves = [Tensor(a, requires_grad=True) for a in (X, C)]
            program(*leaves).backward()
            for leaf, expected in zip(leaves, gradients(program, X, C), strict=True):
                np.testing.assert_allclose(leaf.grad.data, expected, rtol=1e-6, atol=1e-8)
            assert_private(leaves)
        else:
            check(program, X, C)


def test_a_second_pass_accumulates_without_touching_a_pending_gradient():
    x, c = check(the_issues_program, X, C, passes=2)
    held = x.grad  # the user holds .grad: it accumulates in place, as in PyTorch
    the_issues_program(x, c).backward()
    expected = gradients(the_issues_program, X, C)
    np.testing.assert_allclose(held.data, 3 * expected[0], rtol=1e-6)
    assert held is x.grad


def test_a_seed_the_user_passes_is_never_written_into_nor_kept():
    x = Tensor(X, requires_grad=True)
    seed = np.ones_like(X) * 0.5
    before = seed.copy()
    for _ in range(3):
        y = x.reshape(6).reshape(2, 3) + 0.0  # passes the seed on to the leaf
        y.backward(seed)
    np.testing.assert_array_equal(seed, before)
    np.testing.assert_allclose(x.grad.data, 1.5 * np.ones_like(X))
    assert not np.shares_memory(x.grad.data, seed)


def test_a_leaf_as_the_root_gets_a_copy_of_its_seed():
    x = Tensor(X, requires_grad=True)
    seed = Tensor(np.full_like(X, 2.0))
    x.backward(seed)
    x.backward(seed)
    np.testing.assert_array_equal(seed.data, np.full_like(X, 2.0))
    np.testing.assert_array_equal(x.grad.data, np.full_like(X, 4.0))


def test_the_shared_seed_of_a_scalar_cannot_be_changed_through_a_gradient():
    s = Tensor(3.0, requires_grad=True)
    s.backward()
    s.grad.data[...] = 100.0  # the user's own .grad
    (g,) = grad(s * 1.0 + 0.0, s)
    g.data[...] = -7.0  # a returned gradient, also the user's
    y = Tensor([1.0, 2.0], requires_grad=True)
    (y.sum() + 0.0).backward()
    np.testing.assert_array_equal(y.grad.data, [1.0, 1.0])
    (h,) = grad(s + 0.0, s)
    assert h.item() == 1.0


def test_grad_returns_an_array_of_its_own_for_each_input():
    a, b = Tensor(X, requires_grad=True), Tensor(X * 2, requires_grad=True)
    ga, gb = grad((a + b).sum(), [a, b])  # add gives both inputs the same array
    assert not np.shares_memory(ga.data, gb.data)
    ga.data[...] = 5.0
    np.testing.assert_array_equal(gb.data, np.ones_like(X))
    v = np.full_like(X, 3.0)
    (gv,) = grad(a + 0.0, a, grad_outputs=from_numpy(v))  # shares v's memory
    assert not np.shares_memory(gv.data, v)
    assert a.grad is None and b.grad is None


def test_backward_with_inputs_stores_copies():
    a, b = Tensor(X, requires_grad=True), Tensor(X, requires_grad=True)
    (a + b).sum().backward(inputs=[a, b])
    (a + b).sum().backward(inputs=[a])
    np.testing.assert_array_equal(a.grad.data, 2 * np.ones_like(X))
    np.testing.assert_array_equal(b.grad.data, np.ones_like(X))


def test_retained_gradients_of_inner_tensors_are_their_own():
    def program(x, c):
        y = x + x
        z = y * 1.0 + 0.0
        return (z + y + (x * x) / c).sum(), y, z

    x, c = Tensor(X, requires_grad=True), Tensor(C, requires_grad=True)
    for _ in range(2):
        loss, y, z = program(x, c)
        y.retain_grad()
        z.retain_grad()
        loss.backward()
    np.testing.assert_array_equal(z.grad.data, np.ones_like(X))
    np.testing.assert_array_equal(y.grad.data, 2 * np.ones_like(X))
    assert_private([x, c, y, z])
    expected = gradients(lambda x, c: program(x, c)[0], X, C)
    np.testing.assert_allclose(x.grad.data, 2 * expected[0], rtol=1e-6)


def test_assigning_grad_copies_the_tensor_assigned():
    w, x = Tensor(X, requires_grad=True), Tensor(X * 0.0, requires_grad=True)
    x.grad = w  # the classic alias: .grad would be w's data
    other = Tensor(X, requires_grad=True)
    other.grad = x.grad
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(w.data, X)
    np.testing.assert_array_equal(x.grad.data, X + 3.0)
    np.testing.assert_array_equal(other.grad.data, X)


# ------------------------------------------------------------------------------- hooks


def hooked(program, hook_on, hook, passes=1):
    """Run a program with ``hook`` on one of its tensors, in both engines."""
    results = []
    engines = [("ours", lambda a: Tensor(a, requires_grad=True))]
    # PyTorch refuses an in-place change of the expanded gradient an inner tensor gets
    in_place_inner = hook_on == "inner" and "mul_" in hook.__code__.co_names
    if torch is not None and not in_place_inner:
        engines.append(
            ("torch", lambda a: torch.tensor(a, dtype=torch.float64, requires_grad=True))
        )
    for _, make in engines:
        x, c = make(X), make(C)
        for _ in range(passes):
            loss, inner = program(x, c)
            target = {"x": x, "inner": inner}[hook_on]
            target.register_hook(hook)
            loss.backward()
        results.append((x, c))
    return results


def _returns_none(value):
    return None


def _sibling_program(x, c):
    z = x * c
    y = x * 1.0 + 0.0  # y's gradient is the same array as z's, and y is visited first
    return (y + z).sum(), y


@pytest.mark.parametrize("hook_on", ["x", "inner"])
@pytest.mark.parametrize(
    "name, hook, scale",
    [
        ("returns its argument", lambda g: g, 1.0),
        ("returns a new gradient", lambda g: g * 10.0, 10.0),
        ("changes its argument in place", lambda g: g.mul_(10.0), 10.0),
        ("changes it in place and returns None", lambda g: _returns_none(g.mul_(10.0)), 10.0),
    ],
)
def test_hooks_change_only_their_own_tensors_gradient(hook_on, name, hook, scale):
    ours, *theirs = hooked(_sibling_program, hook_on, hook)
    x, c = ours
    # dL/dx = 1 (through y) + c (through z): a hook on x scales both, one on y the first
    c_row = np.broadcast_to(C, X.shape)
    expected = scale * (1.0 + c_row) if hook_on == "x" else scale + c_row
    np.testing.assert_allclose(x.grad.data, expected)
    np.testing.assert_allclose(c.grad.data, X.sum(axis=0))
    for tx, tc in theirs:
        np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(c.grad.data, tc.grad.numpy(), rtol=1e-12)


def test_a_hook_changing_its_argument_in_place_leaves_a_sibling_leaf_alone():
    a, b = Tensor(X, requires_grad=True), Tensor(X, requires_grad=True)
    a.register_hook(lambda g: g.mul_(10.0))
    b.register_hook(lambda g: None)
    (a + b).sum().backward()  # add gives a and b one array
    np.testing.assert_array_equal(a.grad.data, np.full_like(X, 10.0))
    np.testing.assert_array_equal(b.grad.data, np.ones_like(X))


def test_a_hook_that_keeps_its_argument_keeps_what_it_was_given():
    kept = []
    x = Tensor(X, requires_grad=True)
    x.register_hook(kept.append)
    for _ in range(3):
        (x + x).sum().backward()
    for g in kept:
        np.testing.assert_array_equal(g.data, 2 * np.ones_like(X))
    np.testing.assert_array_equal(x.grad.data, 6 * np.ones_like(X))
    for g in kept:
        assert not np.shares_memory(g.data, x.grad.data)


def test_a_hook_returning_the_wrong_shape_is_named():
    x = Tensor(X, requires_grad=True)
    x.register_hook(lambda g: g.sum())
    with pytest.raises(ValueError, match=r"register_hook: a hook returned a gradient of shape"):
        (x * 2.0).sum().backward()


# ------------------------------------------------------------------------ create_graph


def test_create_graph_gives_each_leaf_its_own_gradient():
    a, b = Tensor(X, requires_grad=True), Tensor(X, requires_grad=True)
    (a + b).sum().backward(create_graph=True)
    assert a.grad is not b.grad and not np.shares_memory(a.grad.data, b.grad.data)
    (a * 2.0).sum().backward()  # accumulates into a's gradient only
    np.testing.assert_array_equal(a.grad.data, 3 * np.ones_like(X))
    np.testing.assert_array_equal(b.grad.data, np.ones_like(X))


def test_second_derivatives_through_fan_out():
    def f_numpy(x, c):
        return np.sum((x + x) * x / c + x * x * x)

    def first(x, c):  # the gradient in x, by hand, for the oracle
        return 4 * x / c + 3 * x * x

    x, c = Tensor(X, requires_grad=True), Tensor(C, requires_grad=True)
    (g,) = grad(((x + x) * x / c + x * x * x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.data, gradients(f_numpy, X, C)[0], rtol=1e-6)
    (g * g).sum().backward()
    expected = gradients(lambda x, c: np.sum(first(x, c) ** 2), X, C)
    np.testing.assert_allclose(x.grad.data, expected[0], rtol=1e-5)
    np.testing.assert_allclose(c.grad.data, expected[1], rtol=1e-5)
    if torch is not None:
        tx, tc = (torch.tensor(a, requires_grad=True) for a in (X, C))
        (tg,) = torch.autograd.grad(((tx + tx) * tx / tc + tx**3).sum(), tx, create_graph=True)
        (tg * tg).sum().backward()
        np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(c.grad.data, tc.grad.numpy(), rtol=1e-12)


# ------------------------------------------------------------------------------ freeze


@pytest.mark.parametrize("program", [the_issues_program, the_issues_program_reordered])
def test_freeze_replays_fan_out_with_private_gradients(program):
    x, c = Tensor(X, requires_grad=True), Tensor(C, requires_grad=True)
    step = freeze(program, x, c)
    x.grad = c.grad = None
    for _ in range(2):
        step(x, c)
    expected = gradients(program, X, C)
    np.testing.assert_allclose(x.grad.data, 2 * expected[0], rtol=1e-6)
    np.testing.assert_allclose(c.grad.data, 2 * expected[1], rtol=1e-6)
    assert_private([x, c])


def test_freeze_gives_two_inputs_that_share_a_gradient_two_arrays():
    a, b = Tensor(X, requires_grad=True), Tensor(X, requires_grad=True)
    step = freeze(lambda a, b: (a + b).sum(), a, b)
    a.grad = b.grad = None
    step(a, b)
    step(a, b)
    np.testing.assert_array_equal(a.grad.data, 2 * np.ones_like(X))
    assert_private([a, b])


# ---------------------------------------------------------------------- Function.apply


class SameTwice(Function):
    """x + y, whose backward returns one array for both inputs."""

    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class ChangesItsArgument(Function):
    """2x, whose backward doubles its argument in place and returns it."""

    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, grad):
        grad *= 2.0
        return grad


class ReturnsASavedInput(Function):
    """x**2 / 2 for an upstream gradient of ones: the gradient is x itself."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x / 2.0

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return x


def test_a_function_returning_one_array_twice():
    def program(x, c):
        if isinstance(x, np.ndarray):
            return np.sum((x + c) * 3.0 + x)
        return (SameTwice.apply(x, c) * 3.0 + x).sum()

    x, c = Tensor(X, requires_grad=True), Tensor(np.broadcast_to(C, X.shape).copy(), True)
    for _ in range(2):
        program(x, c).backward()
    expected = gradients(program, X, np.broadcast_to(C, X.shape).copy())
    np.testing.assert_allclose(x.grad.data, 2 * expected[0], rtol=1e-6)
    np.testing.assert_allclose(c.grad.data, 2 * expected[1], rtol=1e-6)
    assert_private([x, c])


def test_a_function_changing_its_gradient_in_place_changes_nothing_else():
    x = Tensor(X, requires_grad=True)
    y = x * 1.0 + 0.0
    (ChangesItsArgument.apply(y) + y).sum().backward()  # y's two consumers share g
    np.testing.assert_array_equal(x.grad.data, 3 * np.ones_like(X))


def test_a_function_returning_a_saved_input_as_the_gradient():
    x = Tensor(X, requires_grad=True)
    for _ in range(2):
        ReturnsASavedInput.apply(x).sum().backward()
    np.testing.assert_array_equal(x.data, X)
    np.testing.assert_array_equal(x.grad.data, 2 * X)
    assert not np.shares_memory(x.grad.data, x.data)


# ------------------------------------------------------------------------- optimisers

OPTIMISERS = {
    "SGD": dict(lr=0.1),
    "SGD momentum": dict(lr=0.1, momentum=0.9),
    "SGD nesterov decay": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "SGD dampening": dict(lr=0.1, momentum=0.9, dampening=0.5),
    "Adam": dict(lr=0.05),
    "Adam decay": dict(lr=0.05, weight_decay=0.1),
    "AdamW": dict(lr=0.05, weight_decay=0.1),
}


def _make_optimiser(module, name, params):
    kind = name.split()[0]
    return getattr(module, kind)(params, **OPTIMISERS[name])


def _train(make, optimiser_module, name, steps=4):
    w, c = make(X), make(C)
    opt = _make_optimiser(optimiser_module, name, [w, c])
    history = []
    for step in range(steps):
        opt.zero_grad(set_to_none=step % 2 == 0)  # both ways of clearing
        loss = the_issues_program(w, c) + (w * w).sum()
        loss.backward()
        before = [p.grad.detach().clone() for p in (w, c)]
        opt.step()
        for p, g in zip((w, c), before, strict=True):  # a step never changes a gradient
            np.testing.assert_array_equal(p.grad.numpy(), g.numpy())
        history.append([p.detach().numpy().copy() for p in (w, c)])
    return opt, (w, c), history


@pytest.mark.parametrize("name", OPTIMISERS)
def test_optimiser_steps_never_share_memory_with_a_gradient(name):
    opt, (w, c), history = _train(lambda a: nn.Parameter(a.copy()), optim, name)
    for p in (w, c):
        buffers = [v for v in opt.state[p].values() if isinstance(v, np.ndarray)]
        for b in buffers:
            assert not np.shares_memory(b, p.grad.data)
            assert not np.shares_memory(b, p.data)
        assert not np.shares_memory(p.grad.data, p.data)
    if torch is not None:
        _, _, theirs = _train(
            lambda a: torch.tensor(a, dtype=torch.float64, requires_grad=True),
            torch.optim,
            name,
        )
        for ours_step, their_step in zip(history, theirs, strict=True):
            for a, b in zip(ours_step, their_step, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_zero_grad_in_place_does_not_reach_a_momentum_buffer():
    w = nn.Parameter(X.copy())
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    (w * 3.0).sum().backward()
    opt.step()
    buffer = opt.state[w]["momentum_buffer"].copy()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(opt.state[w]["momentum_buffer"], buffer)
    np.testing.assert_array_equal(w.grad.data, np.zeros_like(X))


# ----------------------------------------------------------------------- Value and Dual


def test_value_fan_out_against_central_differences():
    def program(x, c):
        n6 = (x * x) / c
        n8 = x + x
        return n8 + n6

    x, c = Value(0.7), Value(2.0)
    program(x, c).backward()
    expected = gradients(lambda x, c: program(float(x), float(c)), np.array(0.7), np.array(2.0))
    assert (x.grad, c.grad) == pytest.approx((float(expected[0]), float(expected[1])), rel=1e-8)


def test_value_never_writes_into_an_array_a_user_set_as_grad():
    x = Value(0.7)
    held = np.zeros(())
    x.grad = held
    (x * x + x).backward()
    assert held == 0.0 and x.grad == pytest.approx(2.4)


def test_dual_tangents_are_numbers_of_their_own():
    seed = np.float64(1.0)
    x = Dual(0.7, seed)
    y = x * x + x
    assert type(y.tangent) is float and y.tangent == pytest.approx(2.4)
    assert seed == 1.0 and x.tangent == 1.0


# -------------------------------------------------------- the contract of Op.fresh


def _fresh_cases():
    """Every operation that declares ``fresh``, with inputs (and static arguments)."""
    from micrograd_edu.nn.functional import LEAKY_RELU, LINEAR
    from micrograd_edu.tensor import elementwise as E
    from micrograd_edu.tensor import indexing as I
    from micrograd_edu.tensor import losses as L
    from micrograd_edu.tensor import products as M
    from micrograd_edu.tensor import reduce as R
    from micrograd_edu.tensor import shape as S

    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, (4,))
    m = rng.uniform(0.5, 1.5, (4, 2))
    index = np.argmax(a, axis=1)[:, None]
    rules = [op for op in E.ELEMENTWISE.values() if op.fresh]
    cases = [(op, (a, b) if _arity(op) == 2 else (a,), ()) for op in rules]
    cases += [
        (M.MATMUL, (a, m), ()),
        (M.MATMUL, (b, m), ()),
        (M.MATMUL, (a, b), ()),
        (M.MATMUL, (rng.random((2, 3, 4)), m), ()),
        (M.DOT, (b, b.copy()), ()),
        (M.TRACE, (a,), ()),
        (L.SOFTMAX, (a,), (1,)),
        (L.LOG_SOFTMAX, (a,), (0,)),
        (L.MSE_LOSS, (a, a * 2), ()),
        (L.CROSS_ENTROPY, (a, np.array([0, 3, 1])), ()),
        (R.SUM, (a,), ((1,), False)),
        (R.SUM, (a,), (None, False)),
        (R.MEAN, (a,), ((0,), True)),
        (R.AMAX, (a,), ((1,), False)),
        (R.AMIN, (a,), (None, False)),
        (R.MAX, (a,), (None, False)),
        (R.MIN, (np.array([1.0, np.nan, 0.5, np.nan]),), (None, False)),
        (R.VAR, (a,), ((1,), 1, False)),
        (R.VAR, (a,), (None, 0, True)),
        (R.VAR, (a[:, :1],), ((1,), 1, False)),  # no degrees of freedom left: inf and nan
        (R.SELECT, (a,), (1, True, index)),
        (R.PROD, (a,), (1,)),
        (R.PROD, (a,), (None,)),
        (R.CUMSUM, (a,), (0,)),
        (R.LOGSUMEXP, (a,), ((1,), False)),
        (R.NORM, (a,), (None, False)),
        (R.ROOT, (a,), ()),
        (I.GETITEM, (a,), (I.torch_index((slice(None), 1)),)),
        (I.GETITEM, (a,), (I.torch_index([0, 0, 2]),)),
        (I.GETITEM, (a,), (I.torch_index((0, [1, 1])),)),
        (I.GATHER, (a,), (1, np.array([[0, 1], [2, 3], [1, 1]]))),
        (E.ROUNDING, (a,), (0,)),
        (E.ROUNDING, (a,), ("floor",)),
        (E.ROUNDED_DIVIDE, (a, b), ("floor",)),
        (E.ROUNDED_DIVIDE, (a, b), ("trunc",)),
        (S.REPEAT, (a,), ((2, 1),)),
        (S.REPEAT, (np.array(1.5),), ((),)),
        (E.CAST, (a,), (np.float32,)),
        (E.WHERE, (a, b), (a > 1.0,)),
        (E.CLAMP, (a, np.array(0.8), np.array(1.2)), (True, True)),
        (E.CLAMP, (a, b), (False, True)),
        (E.MAXIMUM, (a, b), ()),
        (E.MINIMUM, (a, b), ()),
        (LINEAR, (a, m.T, np.ones(2)), ()),
        (LINEAR, (a, m.T), ()),
        (LEAKY_RELU, (a - 1.0,), (0.1,)),
    ]
    declared = {id(v) for mod in (E, I, L, M, R, S) for v in vars(mod).values() if _fresh(v)}
    declared |= {id(op) for op in rules} | {id(LINEAR), id(LEAKY_RELU)}
    assert declared == {id(op) for op, _, _ in cases}, "a fresh operation has no case here"
    return cases


def _fresh(value):
    from micrograd_edu.tensor.operation import Op

    return isinstance(value, Op) and value.fresh


def _arity(op):
    from micrograd_edu.rules import RULES

    return RULES[op.name].arity


def test_every_fresh_operation_returns_arrays_nothing_else_holds():
    cases = _fresh_cases()
    for op, xs, static in cases:
        out = np.asarray(op.forward(*xs, *static))
        g = np.random.default_rng(1).random(out.shape)
        needs = tuple(x.dtype.kind == "f" for x in xs)
        grads = [v for v in op.vjp(g, out, xs, needs, *static) if v is not None]
        held = [g, out, *xs]
        for i, v in enumerate(grads):
            assert isinstance(v, np.ndarray | np.generic), op.name  # a generic is immutable
            for h in held + grads[:i]:
                assert not np.shares_memory(v, h), f"{op.name}: a gradient shares memory"
    fresh = {op.name for op, _, _ in cases}
    assert {"matmul", "linear", "mul", "sum", "getitem", "where"} <= fresh


def test_operations_that_pass_the_gradient_on_do_not_declare_fresh():
    from micrograd_edu.tensor import elementwise as E
    from micrograd_edu.tensor import shape as S

    for op in (E.ELEMENTWISE["add"], E.ELEMENTWISE["sub"], S.RESHAPE, S.TRANSPOSE, S.FLIP):
        assert not op.fresh, op.name


def test_np_array_of_a_tensor_is_a_copy_and_asarray_shares():
    t = Tensor(X)
    assert not np.shares_memory(np.array(t), t.data)  # numpy 2 asks __array__ to copy
    assert np.shares_memory(np.asarray(t), t.data)
    assert np.array(t, dtype=np.float32).dtype == np.float32
