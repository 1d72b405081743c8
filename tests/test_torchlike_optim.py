"""torchlike's optimisers and schedules against PyTorch (float64), step for step, and against
closed forms where PyTorch is not installed."""

import numpy as np
import pytest
from torchlike_oracle import both

import micrograd_edu.torchlike as ours

SCHEDULES = {
    "step": "T.optim.lr_scheduler.StepLR(opt, 2, 0.5)",
    "exponential": "T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)",
    "multistep": "T.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3, 3], gamma=0.5)",
    "lambda": "T.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))",
    "multiplicative": "T.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.95)",
    "cosine": "T.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)",
}


def _rates(T, schedules, manual_at=-1, steps=10):
    groups = [
        {"params": [T.nn.Parameter(T.zeros(2))], "lr": 0.5},
        {"params": [T.nn.Parameter(T.zeros(1))]},
    ]
    opt = T.optim.SGD(groups, lr=1.0)
    made = [eval(s, {"T": T, "opt": opt}) for s in schedules]
    rates = []
    for step in range(steps):
        opt.step()
        for schedule in made:
            schedule.step()
        if step == manual_at:
            for group in opt.param_groups:
                group["lr"] *= 0.3
        rates += [g["lr"] for g in opt.param_groups] + made[0].get_last_lr()
    return rates


@pytest.mark.parametrize("name", SCHEDULES)
@pytest.mark.parametrize("second", [None, "step", "exponential", "cosine"])
@pytest.mark.parametrize("manual_at", [-1, 2])
def test_schedules_chain_and_follow_a_rate_set_by_hand_as_pytorchs(name, second, manual_at):
    schedules = [SCHEDULES[name]] + ([SCHEDULES[second]] if second else [])
    both(lambda T: _rates(T, schedules, manual_at))


def test_a_rate_set_by_hand_carries_on_from_there():
    # The chainable form: StepLR halves the rate it finds, not the initial one (closed form).
    rates = _rates(ours, [SCHEDULES["step"]], manual_at=2, steps=6)
    first_group = rates[0::4]  # each step: two groups and get_last_lr()
    assert first_group == pytest.approx([0.5, 0.25, 0.075, 0.0375, 0.0375, 0.01875])


def test_two_schedules_on_one_optimiser_multiply():
    rates = _rates(ours, [SCHEDULES["exponential"], SCHEDULES["step"]], steps=4)
    assert rates[0::4] == pytest.approx(
        [0.5 * 0.9, 0.5 * 0.9**2 * 0.5, 0.5 * 0.9**3 * 0.5, 0.5 * 0.9**4 * 0.25]
    )


@pytest.mark.filterwarnings("ignore:.*epoch")
def test_step_with_an_epoch_uses_the_closed_form_and_state_dict_round_trips():
    def run(T):
        opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0)
        schedule = T.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        opt.step()
        schedule.step(7)
        saved = {k: v for k, v in schedule.state_dict().items() if not k.startswith("_")}
        again = T.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
        again.load_state_dict(schedule.state_dict())
        return [opt.param_groups[0]["lr"], saved["last_epoch"], again.step_size, again.gamma]

    assert both(run) == [0.25, 7, 3, 0.5]


def _trajectory(T, make, steps=12):
    a = T.nn.Parameter(T.tensor([[0.5, -1.0], [2.0, 0.3]]))
    b = T.nn.Parameter(T.tensor([0.1, -0.2]))
    c = T.nn.Parameter(T.tensor([1.0]))
    opt = make(T, [a, b, c])
    out = []
    for k in range(steps):
        opt.zero_grad()
        loss = ((a @ b).tanh() ** 2).sum() + (b**3).sum()
        if k >= 3:  # c has no gradient for three steps
            loss = loss + (c * b.sum()).sum()
        loss.backward()
        opt.step()
        state = opt.state_dict()["state"]
        out.append([loss.item(), [p.detach().clone() for p in (a, b, c)], sorted(state)])
    return out


OPTIMISERS = {
    "adam": lambda T, ps: T.optim.Adam(ps, lr=0.05),
    "adam amsgrad": lambda T, ps: T.optim.Adam(ps, lr=0.05, amsgrad=True, weight_decay=0.1),
    "adam maximize": lambda T, ps: T.optim.Adam(ps, lr=0.05, maximize=True),
    "adamw amsgrad": lambda T, ps: T.optim.AdamW(ps, lr=0.05, amsgrad=True),
    "rmsprop": lambda T, ps: T.optim.RMSprop(ps, lr=0.01),
    "rmsprop centered": lambda T, ps: T.optim.RMSprop(
        ps, lr=0.01, alpha=0.3, momentum=0.5, centered=True, weight_decay=0.1
    ),
    "rmsprop momentum": lambda T, ps: T.optim.RMSprop(ps, lr=0.01, momentum=0.9, eps=1e-3),
    "sgd maximize": lambda T, ps: T.optim.SGD(ps, lr=0.01, momentum=0.9, maximize=True),
}


@pytest.mark.parametrize("name", OPTIMISERS)
def test_optimisers_follow_pytorch_and_give_state_only_to_parameters_with_gradients(name):
    steps = both(lambda T: _trajectory(T, OPTIMISERS[name]))
    assert steps[0][2] == [0, 1] and steps[-1][2] == [0, 1, 2]


def test_rmsprop_first_step_closed_form():
    p = ours.nn.Parameter(ours.tensor([1.0, -2.0]))
    p.grad = ours.tensor([2.0, 0.5])
    ours.optim.RMSprop([p], lr=0.01, alpha=0.75).step()
    # v = 0.25 g², so the step is lr·g/√v = 2·lr (plus eps), whatever g is
    np.testing.assert_allclose(p.detach().numpy(), [1.0 - 0.02, -2.0 - 0.02], rtol=1e-6)


def test_adam_amsgrad_steps_on_the_largest_second_moment():
    p = ours.nn.Parameter(ours.tensor([0.0]))
    opt = ours.optim.Adam([p], lr=0.1, betas=(0.0, 0.5), amsgrad=True)
    for g in (4.0, 0.0):
        p.grad = ours.tensor([g])
        opt.step()
    state = opt.state[p]
    assert state["max_exp_avg_sq"][0] == 8.0 and state["exp_avg_sq"][0] == 4.0
    assert p.item() == pytest.approx(-0.1)  # the second step has m = 0: no move
