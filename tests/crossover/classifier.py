"""A three-class classifier: CrossEntropyLoss, SGD with momentum and weight decay,
a StepLR schedule, integer class targets, accuracy by argmax."""

import torch

torch.set_default_dtype(torch.float64)

t = torch.arange(60.0)
X = torch.stack([torch.sin(0.3 * t), torch.cos(0.7 * t), torch.sin(1.1 * t + 0.5)], dim=1)
targets = torch.tensor([int(v) % 3 for v in (X[:, 0] * 2 + X[:, 1] + 2).tolist()])

model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(0.4 * torch.cos(torch.arange(p.numel()) * 0.53 + k).reshape(p.shape))

loss_fn = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, weight_decay=1e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)

losses, rates = [], []
for _ in range(60):
    optimizer.zero_grad()
    logits = model(X)
    loss = loss_fn(logits, targets)
    loss.backward()
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())
    rates.append(optimizer.param_groups[0]["lr"])

with torch.no_grad():
    accuracy = (model(X).argmax(dim=1) == targets).float().mean().item()
result = losses + rates + [accuracy]
