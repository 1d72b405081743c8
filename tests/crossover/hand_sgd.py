"""Recover a linear model with a hand-written SGD step under no_grad, the step
most PyTorch tutorials write first: p -= lr * p.grad, then p.grad.zero_()."""

import torch

torch.set_default_dtype(torch.float64)

X = torch.linspace(-1, 1, 30).reshape(10, 3)
true_w = torch.tensor([[2.0], [-3.0], [0.5]])
y = X @ true_w + 0.25 + 0.01 * torch.cos(torch.arange(10.0)).unsqueeze(1)

model = torch.nn.Linear(3, 1)
with torch.no_grad():
    model.weight.fill_(0.1)
    model.bias.zero_()
loss_fn = torch.nn.MSELoss()

losses = []
for _ in range(200):
    loss = loss_fn(model(X), y)
    loss.backward()
    with torch.no_grad():
        model.weight -= 0.3 * model.weight.grad
        model.bias -= 0.3 * model.bias.grad
        model.weight.grad.zero_()
        model.bias.grad.zero_()
    losses.append(loss.item())

assert len(list(model.parameters())) == 2  # the step kept the parameters
result = losses + model.weight.flatten().tolist() + model.bias.tolist()
