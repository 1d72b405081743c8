"""The micrograd demo: a 2-16-16-1 MLP learns two interleaved half-moons with a
max-margin loss, L2 regularisation and a hand-written SGD step with a decaying rate."""

import math

import torch

torch.set_default_dtype(torch.float64)

# Two half-moons, 40 points, deterministic (no random generator to agree on).
angles = torch.linspace(0, math.pi, 20)
upper = torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)
lower = torch.stack([1 - torch.cos(angles), 0.5 - torch.sin(angles)], dim=1)
X = torch.cat([upper, lower])
y = torch.cat([torch.ones(20), -torch.ones(20)])


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(2, 16),
            torch.nn.ReLU(),
            torch.nn.Linear(16, 16),
            torch.nn.ReLU(),
            torch.nn.Linear(16, 1),
        )

    def forward(self, x):
        return self.net(x).squeeze(1)


model = MLP()
with torch.no_grad():  # the same weights in both libraries
    for k, p in enumerate(model.parameters()):
        p.copy_(0.5 * torch.sin(torch.arange(p.numel()) * 0.37 + k).reshape(p.shape))

losses, accuracies = [], []
for step in range(60):
    scores = model(X)
    data_loss = torch.relu(1 - y * scores).mean()
    reg_loss = 1e-4 * sum((p * p).sum() for p in model.parameters())
    loss = data_loss + reg_loss
    model.zero_grad()
    loss.backward()
    lr = 1.0 - 0.9 * step / 60
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    losses.append(loss.item())
    accuracies.append(((scores > 0) == (y > 0)).float().mean().item())

result = losses + accuracies
