"""A tutorial's classifier: TensorDataset and a shuffling DataLoader (seeded generator),
BatchNorm1d, CrossEntropyLoss, Adam and StepLR, accuracy by `_, pred = torch.max(out, 1)`
in eval() mode."""

import math

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)

# Three classes on a spiral, 90 points (deterministic: no random generator to agree on).
t = torch.linspace(0, 1, 30)
points, labels = [], []
for k in range(3):
    angle = 4 * t + 2 * math.pi * k / 3
    points.append(torch.stack([t * torch.cos(angle), t * torch.sin(angle)], dim=1))
    labels.append(torch.full((30,), k))
X, y = torch.cat(points), torch.cat(labels)

loader = DataLoader(
    TensorDataset(X, y), batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(7)
)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 32)
        self.bn1 = nn.BatchNorm1d(32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn1(self.fc1(x))))


model = Net()
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(0.5 * torch.sin(torch.arange(p.numel()) * 0.61 + k).reshape(p.shape))

criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.02)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)

losses = []
for _epoch in range(15):
    model.train()
    running = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        running += loss.item() * inputs.size(0)
    scheduler.step()
    losses.append(running / len(loader.dataset))

model.eval()
correct = 0
with torch.no_grad():
    for inputs, targets in DataLoader(TensorDataset(X, y), batch_size=32):
        out = model(inputs)
        _, pred = torch.max(out, 1)
        correct += (pred == targets).sum().item()
accuracy = correct / len(X)

result = losses + [accuracy, scheduler.get_last_lr()[0]]
result += model.bn1.running_mean.tolist() + model.bn1.running_var.tolist()
