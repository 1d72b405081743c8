"""torchlike's utils.data, Generator and save/load against PyTorch: batches, shuffles with a
seeded generator (PyTorch's order, epoch after epoch), random_split, and checkpoints."""

import io

import numpy as np
import pytest
from torchlike_oracle import both, pytorch

import micrograd_edu.torchlike as ours
from micrograd_edu.utils.data import DataLoader, TensorDataset, default_collate


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**33 + 5])
@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_randperm_with_a_seeded_generator_is_pytorchs(seed, n):
    both(lambda T: T.randperm(n, generator=T.Generator().manual_seed(seed)))


def test_a_fresh_generator_starts_from_pytorchs_default_seed():
    both(lambda T: [T.randperm(9, generator=T.Generator()), T.Generator().initial_seed()])


@pytest.mark.parametrize(
    "options",
    [
        dict(batch_size=3),
        dict(batch_size=4, drop_last=True),
        dict(batch_size=3, shuffle=True, seed=7),
        dict(batch_size=2, shuffle=True, drop_last=True, seed=0),
        dict(batch_size=20, shuffle=True, seed=3),
        dict(batch_size=None),
    ],
)
def test_dataloader_batches_and_shuffles_as_pytorchs(options):
    def run(T):
        options_ = dict(options)
        seed = options_.pop("seed", None)
        if seed is not None:
            options_["generator"] = T.Generator().manual_seed(seed)
        data = T.utils.data
        dataset = data.TensorDataset(T.arange(22.0).reshape(11, 2), T.arange(11))
        loader = data.DataLoader(dataset, **options_)
        epochs = [[[x.clone(), y.clone()] for x, y in loader] for _ in range(3)]
        return [len(loader), epochs]

    both(run)


def test_random_split_with_a_seeded_generator_is_pytorchs():
    def run(T):
        parts = T.utils.data.random_split(
            range(10), [0.3, 0.7], generator=T.Generator().manual_seed(1)
        )
        counts = T.utils.data.random_split(range(6), [2, 4], generator=T.Generator().manual_seed(5))
        return [[list(p) for p in parts], [list(p) for p in counts]]

    both(run)


def test_collate_joins_samples_as_pytorch_does():
    batch = default_collate([(ours.tensor([1.0, 2.0]), 3, 0.5, "a", {"k": 1})] * 2)
    assert batch[0].shape == (2, 2) and batch[1].dtype == ours.int64
    assert batch[2].dtype == ours.float64 and batch[3] == ["a", "a"]
    assert batch[4]["k"].tolist() == [1, 1]


def test_tensor_dataset_and_loader_say_what_is_wrong():
    with pytest.raises(ValueError, match="same first dimension"):
        TensorDataset(ours.zeros(3, 2), ours.zeros(4))
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(TensorDataset(ours.zeros(3)), sampler=[0, 1], shuffle=True)


def test_shuffling_without_a_generator_follows_manual_seed():
    def order():
        ours.manual_seed(4)
        loader = DataLoader(TensorDataset(ours.arange(8)), batch_size=8, shuffle=True)
        return [b[0].tolist() for b in loader]

    first = order()
    assert first == order() and sorted(first[0]) == list(range(8)) and first[0] != list(range(8))


def _round_trip(T, obj):
    buffer = io.BytesIO()
    T.save(obj, buffer)
    buffer.seek(0)
    return T.load(buffer)


def test_save_and_load_a_checkpoint_as_pytorch_does():
    def run(T):
        model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
        with T.no_grad():
            for k, p in enumerate(model.parameters()):
                p.copy_(T.arange(float(p.numel())).reshape(p.shape) + k)
        model(T.tensor([[1.0, 2.0], [3.0, -1.0]]))
        opt = T.optim.Adam(model.parameters(), lr=0.1)
        model[0].weight.sum().backward()
        opt.step()
        shared = T.tensor([1.0, 2.0])
        back = _round_trip(
            T,
            {
                "model": model.state_dict(),
                "optimiser": opt.state_dict(),
                "epoch": 3,
                "pair": [shared, shared],
                "p": T.nn.Parameter(shared),
            },
        )
        fresh = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
        fresh.load_state_dict(back["model"])
        return [
            list(back["model"]),
            [back["model"][k] for k in back["model"]],
            back["epoch"],
            back["pair"][0] is back["pair"][1],
            type(back["p"]).__name__,
            back["p"].requires_grad,
            sorted(back["optimiser"]["state"]),
            back["optimiser"]["param_groups"][0]["lr"],
            [p.clone() for p in fresh.parameters()],
            list(fresh.state_dict()),
        ]

    both(run)


def test_save_writes_a_path_whole_and_refuses_code(tmp_path):
    path = tmp_path / "model.pt"
    ours.save(ours.nn.Linear(2, 1).state_dict(), path)
    assert sorted(ours.load(path)) == ["bias", "weight"] and list(tmp_path.iterdir()) == [path]
    with pytest.raises(TypeError, match=r"save its state_dict\(\)"):
        ours.save(ours.nn.Linear(2, 1), tmp_path / "whole.pt")
    with pytest.raises(TypeError, match="files here hold data"):
        ours.save({"f": lambda: 1}, tmp_path / "code.pt")
    assert not (tmp_path / "whole.pt").exists() and len(list(tmp_path.iterdir())) == 1
    values = _round_trip(ours, {"nan": float("nan"), "dtype": ours.float32, (1, 2): "key"})
    assert np.isnan(values["nan"]) and values["dtype"] == ours.float32 and values[(1, 2)] == "key"


def test_loading_a_file_of_pytorch_says_why_it_cannot(tmp_path):
    torch = pytorch()
    if torch is None:
        pytest.skip("PyTorch is not installed")
    torch.save({"w": torch.ones(2)}, tmp_path / "theirs.pt")
    with pytest.raises(ValueError, match="need pickle"):
        ours.load(tmp_path / "theirs.pt")
