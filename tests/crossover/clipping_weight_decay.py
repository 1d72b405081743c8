"""Gradient clipping by norm and by value, weight decay (SGD with momentum, AdamW, RMSprop)
and a cosine schedule: three copies of one regression model, trained side by side."""

import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)

n = torch.arange(48.0)
X = torch.stack([torch.sin(0.2 * n), torch.cos(0.5 * n), torch.sin(0.9 * n)], dim=1)
Y = (X**2).sum(dim=1, keepdim=True) + 0.1 * torch.cos(3 * n).unsqueeze(1)


def make_model():
    model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
    with torch.no_grad():
        for k, p in enumerate(model.parameters()):
            p.copy_(0.4 * torch.cos(torch.arange(p.numel()) * 0.37 + k).reshape(p.shape))
    return model


setups = []
for make_optimiser in (
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-3),
    lambda ps: torch.optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    lambda ps: torch.optim.RMSprop(ps, lr=0.01, momentum=0.5, weight_decay=1e-2),
):
    model = make_model()
    optimiser = make_optimiser(model.parameters())
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=20)
    setups.append((model, optimiser, schedule))

loss_fn = nn.MSELoss()
result = []
for _epoch in range(25):
    for k, (model, optimiser, schedule) in enumerate(setups):
        optimiser.zero_grad()
        loss = loss_fn(model(X), Y)
        loss.backward()
        if k == 0:
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
        elif k == 1:
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type=float("inf"))
        else:
            nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
            norm = torch.zeros(())
        optimiser.step()
        schedule.step()
        result += [loss.item(), float(norm), schedule.get_last_lr()[0]]

result += [p.sum().item() for model, _, _ in setups for p in model.parameters()]
