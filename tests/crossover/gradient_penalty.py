"""A gradient penalty (as in WGAN-GP): the norm of d(critic)/d(input) is pushed to 1,
which differentiates a gradient again (create_graph=True); trained with Adam."""

import torch

torch.set_default_dtype(torch.float64)

critic = torch.nn.Sequential(torch.nn.Linear(2, 12), torch.nn.Tanh(), torch.nn.Linear(12, 1))
with torch.no_grad():
    for k, p in enumerate(critic.parameters()):
        p.copy_(0.6 * torch.sin(torch.arange(p.numel()) * 0.71 + 2 * k).reshape(p.shape))
optimizer = torch.optim.Adam(critic.parameters(), lr=0.01)

points = torch.stack([torch.linspace(-2, 2, 16), torch.cos(torch.linspace(0, 3, 16))], dim=1)
losses = []
for _ in range(40):
    x = points.clone().requires_grad_(True)
    out = critic(x)
    (g,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    penalty = ((g.norm(dim=1) - 1) ** 2).mean()
    loss = out.mean() + 10 * penalty
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())

result = losses + [p.sum().item() for p in critic.parameters()]
