"""torchlike's nn against PyTorch (float64): losses in every form (values, gradients and
second derivatives), BatchNorm in training and evaluation, buffers, forward hooks, clipping,
softmax's implicit dim, and state_dict's sharing."""

import copy

import numpy as np
import pytest
from torchlike_oracle import both

import micrograd_edu.torchlike as ours

RNG = np.random.default_rng(0)
INPUTS = {shape: RNG.normal(size=shape).round(2) for shape in [(4, 3), (3,), (2, 3, 2)]}
DIRECTIONS = {shape: RNG.normal(size=shape) for shape in INPUTS}
LABELS = {(4, 3): [0, 2, 1, 2], (3,): 1, (2, 3, 2): [[0, 2], [1, 1]]}
PROBABILITIES = {shape: RNG.random(shape) for shape in INPUTS}


def _derivatives(T, shape, expression, target):
    """The loss, its gradient, and the gradient of (gradient · v): a Hessian-vector product."""
    x = T.tensor(INPUTS[shape], requires_grad=True)
    names = {"T": T, "F": T.nn.functional, "nn": T.nn, "x": x, "t": T.tensor(target)}
    loss = eval(expression, names)
    (g,) = T.autograd.grad(loss.sum(), x, create_graph=True)
    (h,) = T.autograd.grad((g * T.tensor(DIRECTIONS[shape])).sum(), x, allow_unused=True)
    return [loss, g, T.zeros_like(x) if h is None else h]


W = "weight=T.tensor([1.0, 2.0, 0.5])"
CLASS_CASES = [
    "F.cross_entropy(x, t{r})",
    "F.cross_entropy(x, t, ignore_index=2{r})",
    "F.cross_entropy(x, t, " + W + "{r})",
    "F.cross_entropy(x, t, label_smoothing=0.2{r})",
    "F.cross_entropy(x, t, label_smoothing=0.1, " + W + ", ignore_index=1{r})",
    "nn.CrossEntropyLoss(" + W + ", label_smoothing=0.3{r})(x, t)",
    "F.nll_loss(x.log_softmax(dim), t{r})",
    "F.nll_loss(x.log_softmax(dim), t, " + W + ", ignore_index=0{r})",
    "nn.NLLLoss({r0})(x.log_softmax(dim), t)",
]
PROBABILITY_CASES = [
    "F.cross_entropy(x, t{r})",
    "F.cross_entropy(x, t, label_smoothing=0.2, " + W + "{r})",
    "F.binary_cross_entropy_with_logits(x, t{r})",
    "F.binary_cross_entropy_with_logits(x * 0, t, pos_weight=T.tensor(3.0){r})",
    "nn.BCEWithLogitsLoss(weight=T.tensor(2.0){r})(x, t)",
    "F.binary_cross_entropy(x.sigmoid(), t{r})",
    "nn.BCELoss({r0})(x.sigmoid(), t)",
    "F.l1_loss(x, t{r})",
    "F.mse_loss(x, t{r})",
]


def _cases(templates, targets):
    for shape in INPUTS:
        dim = 1 if len(shape) > 1 else 0
        for reduction in ("mean", "sum", "none"):
            for template in templates:
                expression = template.format(
                    r=f", reduction={reduction!r}", r0=f"reduction={reduction!r}"
                )
                yield shape, expression.replace("(dim)", f"({dim})"), targets[shape]


@pytest.mark.parametrize(
    "shape, expression, target",
    list(_cases(CLASS_CASES, LABELS)) + list(_cases(PROBABILITY_CASES, PROBABILITIES)),
)
def test_losses_agree_with_pytorch_to_the_second_derivative(shape, expression, target):
    if "l1_loss" in expression:  # PyTorch's second derivative of |x| is a tensor it cannot show
        both(lambda T: _derivatives(T, shape, expression, target)[:2])
    else:
        both(lambda T: _derivatives(T, shape, expression, target))


def test_cross_entropy_closed_forms():
    F, x = ours.nn.functional, ours.tensor([[2.0, 0.0, -1.0], [0.5, 0.5, 0.0]])
    logp = np.log(np.exp(x.numpy()) / np.exp(x.numpy()).sum(1, keepdims=True))
    t = ours.tensor([0, 2])
    assert F.cross_entropy(x, t).item() == pytest.approx(-(logp[0, 0] + logp[1, 2]) / 2)
    assert F.cross_entropy(x, ours.tensor([0, -100])).item() == pytest.approx(-logp[0, 0])
    smooth = 0.9 * -(logp[0, 0] + logp[1, 2]) / 2 + 0.1 / 3 * -logp.sum() / 2
    assert F.cross_entropy(x, t, label_smoothing=0.1).item() == pytest.approx(smooth)
    every = F.cross_entropy(x, ours.tensor([-100, -100]))
    assert np.isnan(every.item())  # nothing left to average, as PyTorch


@pytest.mark.parametrize(
    "call, message",
    [
        ("F.cross_entropy(ours.tensor([[1.0, 2.0]]), ours.tensor([2]))", "target 2"),
        (
            "F.cross_entropy(ours.tensor([[1.0, 2.0]]), ours.tensor([2]), ignore_index=0)",
            "target 2",
        ),
        ("F.cross_entropy(ours.tensor([[1, 2]]), ours.tensor([0]))", "must hold floats"),
        ("F.cross_entropy(ours.tensor([[1.0, 2.0]]), ours.tensor([0.5]))", "same shape"),
        ("F.nll_loss(ours.tensor([[1.0, 2.0]]), ours.tensor([0, 1]))", "expected targets of shape"),
        ("F.mse_loss(ours.tensor([1.0, 2.0]), ours.tensor([1.0]))", "PyTorch broadcasts them"),
        ("F.cross_entropy(ours.tensor([[1.0]]), ours.tensor([0]), reduction='avg')", "reduction"),
        ("F.binary_cross_entropy(ours.tensor([1.5]), ours.tensor([1.0]))", "probabilities"),
        ("F.mse_loss(ours.tensor([1.0]), ours.tensor([1.0]), size_average=True)", "reduction="),
    ],
)
def test_losses_refuse_what_they_cannot_mean_with_a_message(call, message):
    F = ours.nn.functional  # noqa: F841  (the calls use it)
    with pytest.raises((ValueError, TypeError, IndexError)) as error:
        eval(call)
    assert message in str(error.value)


def _batchnorm(T, make, shapes):
    bn = eval(make, {"nn": T.nn})
    with T.no_grad():
        for k, p in enumerate(bn.parameters()):
            p.copy_(T.tensor(np.cos(np.arange(p.numel()) + k)))
    out = []
    for shape in shapes:
        data = np.sin(np.arange(np.prod(shape)) * 1.3).reshape(shape)
        x = T.tensor(data, requires_grad=True)
        y = bn(x)
        (g,) = T.autograd.grad((y * T.tensor(np.cos(data))).sum(), x, create_graph=True)
        (h,) = T.autograd.grad((g * g).sum(), x)
        out += [y, g, h, [b.clone() for b in bn.buffers()]]
    bn.eval()
    out.append(bn(T.tensor(np.linspace(-1, 1, shapes[0][0] * 3).reshape(shapes[0][0], 3))))
    out.append(list(bn.state_dict()))
    return out


@pytest.mark.parametrize(
    "make",
    [
        "nn.BatchNorm1d(3)",
        "nn.BatchNorm1d(3, momentum=None)",
        "nn.BatchNorm1d(3, affine=False)",
        "nn.BatchNorm1d(3, eps=0.1, momentum=0.5)",
        "nn.BatchNorm1d(3, track_running_stats=False)",
        "nn.BatchNorm1d(3, bias=False)",
    ],
)
def test_batchnorm_trains_and_evaluates_as_pytorchs(make):
    both(lambda T: _batchnorm(T, make, [(5, 3), (4, 3, 2), (2, 3)]))


def test_batchnorm_normalises_each_channel_and_refuses_one_sample_in_training():
    bn = ours.nn.BatchNorm1d(2)
    y = bn(ours.tensor([[1.0, 10.0], [3.0, 30.0]]))
    np.testing.assert_allclose(y.detach().numpy(), [[-1, -1], [1, 1]], atol=1e-4)
    np.testing.assert_allclose(bn.running_var.numpy(), [0.9 + 0.1 * 2.0, 0.9 + 0.1 * 200.0])
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        bn(ours.tensor([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        bn(ours.tensor([1.0, 2.0]))
    assert bn.eval()(ours.tensor([[1.0, 2.0]])).shape == (1, 2)


def test_buffers_hooks_and_state_dict_behave_as_pytorchs():
    def run(T):
        class Counter(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = T.nn.Linear(2, 2)
                self.register_buffer("calls", T.zeros(()))
                self.register_buffer("scratch", T.ones(2), persistent=False)

            def forward(self, x):
                self.calls += 1
                return self.linear(x) * self.scratch

        net = T.nn.Sequential(Counter(), T.nn.ReLU())
        with T.no_grad():
            net[0].linear.weight.copy_(T.tensor([[1.0, -1.0], [0.5, 2.0]]))
            net[0].linear.bias.zero_()
        seen = []
        pre = net[0].register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        post = net[1].register_forward_hook(lambda m, args, out: out + 1)
        net[0].register_forward_hook(lambda m, args, out: seen.append(out.detach().clone()))
        first = net(T.tensor([[1.0, 2.0]]))
        pre.remove()
        post.remove()
        second = net(T.tensor([[1.0, 2.0]]))
        state = net.state_dict()
        snapshot = copy.deepcopy(state)
        with T.no_grad():
            net[0].linear.weight += 1  # the state shares the values, the deep copy does not
        return [
            first,
            second,
            seen,
            list(state),
            state["0.linear.weight"],
            snapshot["0.linear.weight"],
            [n for n, _ in net.named_buffers()],
            net[0].calls,
        ]

    both(run)


def test_register_buffer_refuses_names_and_values_it_cannot_take():
    m = ours.nn.Linear(2, 2)
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("forward", ours.zeros(1))
    with pytest.raises(TypeError, match="Tensor or None"):
        m.register_buffer("scale", 3.0)
    m.register_buffer("scale", ours.ones(1))
    with pytest.raises(TypeError, match="buffer 'scale'"):
        m.scale = 2.0


@pytest.mark.parametrize("clip", ["norm", "norm_inf", "norm_1", "value"])
def test_clipping_agrees_with_pytorch(clip):
    def run(T):
        ps = [T.nn.Parameter(T.zeros(3)), T.nn.Parameter(T.zeros(2, 2))]
        ps[0].grad = T.tensor([3.0, -4.0, 1.0])
        ps[1].grad = T.tensor([[0.5, -2.0], [1.0, 0.0]])
        u = T.nn.utils
        norm = {
            "norm": lambda: u.clip_grad_norm_(ps, max_norm=1.0),
            "norm_inf": lambda: u.clip_grad_norm_(ps, 2.0, norm_type=float("inf")),
            "norm_1": lambda: u.clip_grad_norm_(ps, 100.0, norm_type=1),
            "value": lambda: u.clip_grad_value_(ps, clip_value=0.75),
        }[clip]()
        return [norm, [p.grad for p in ps]]

    both(run)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 2), (2, 2, 2, 2)])
def test_softmax_without_dim_takes_pytorchs_implicit_dim(shape):
    data = np.arange(np.prod(shape), dtype=float).reshape(shape) / 5

    def run(T):
        x = T.tensor(data)
        return [T.nn.Softmax()(x), T.nn.LogSoftmax()(x), T.nn.functional.softmax(x)]

    with pytest.warns(UserWarning, match="Implicit dimension"):
        both(run)
