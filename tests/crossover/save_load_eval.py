"""Checkpoints: train a model with BatchNorm and Dropout, save the model's and the
optimiser's state_dict with torch.save, load them into fresh objects, check eval()
outputs agree, then resume training from the checkpoint as the original goes on."""

import io

import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)

n = torch.arange(32.0)
X = torch.stack([torch.sin(0.4 * n), torch.cos(0.3 * n), torch.sin(0.8 * n + 0.5)], dim=1)
Y = (X[:, 0] * X[:, 1] - X[:, 2]).unsqueeze(1)


def make_model():
    model = nn.Sequential(
        nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1)
    )
    with torch.no_grad():
        for k, p in enumerate(model.parameters()):
            p.copy_(0.3 * torch.sin(torch.arange(p.numel()) * 0.43 + k).reshape(p.shape))
    return model


def train(model, optimiser, steps):
    losses = []
    for _ in range(steps):
        model.train()
        model[3].p = 0.0  # the same numbers in both libraries: no random mask
        optimiser.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return losses


model = make_model()
optimiser = torch.optim.Adam(model.parameters(), lr=0.01)
losses = train(model, optimiser, 10)

checkpoint = io.BytesIO()
torch.save(
    {"model": model.state_dict(), "optimiser": optimiser.state_dict(), "epoch": 10}, checkpoint
)
checkpoint.seek(0)
state = torch.load(checkpoint)

restored = make_model()
print(restored.load_state_dict(state["model"]))
restored_optimiser = torch.optim.Adam(restored.parameters(), lr=0.01)
restored_optimiser.load_state_dict(state["optimiser"])

model.eval()
restored.eval()
with torch.no_grad():
    same = torch.equal(model(X), restored(X))
    outputs = restored(X).flatten().tolist()

resumed = train(restored, restored_optimiser, 5)
original = train(model, optimiser, 5)
assert resumed == original

result = losses + resumed + outputs + [float(same), float(state["epoch"])]
result += [v.sum().item() for v in state["model"].values()]
