"""The README's list "What differs from PyTorch, on purpose", item by item: each test shows
the difference (against PyTorch itself where it is installed) and the message a user gets.
A test checks that the list and the tests name the same items."""

import io
import re
from pathlib import Path

import pytest
from torchlike_oracle import pytorch

import micrograd_edu.torchlike as ours
from micrograd_edu.tensor.operation import ShapeError

README = Path(__file__).parent.parent / "README.md"


def readme_items():
    text = README.read_text()
    section = text.split("### What differs from PyTorch, on purpose")[1].split("\n\n", 2)[2]
    section = section.split("\n\n")[0]
    return [re.sub(r"[`*]", "", m) for m in re.findall(r"^- \*\*(.+?)\*\*", section, re.M)]


def default_dtype():
    assert ours.tensor([1.0]).dtype == ours.float64 == ours.get_default_dtype()
    with pytest.raises(ValueError, match="micrograd_edu's floats are float64"):
        ours.set_default_dtype(ours.float32)
    if torch := pytorch():
        assert torch.tensor([1.0]).dtype == torch.float32


def one_device():
    with pytest.raises(RuntimeError, match="runs on one device, the CPU"):
        ours.device("cuda")
    with pytest.raises(RuntimeError, match="one device here"):
        ours.nn.Linear(1, 1).to("cuda")
    assert not ours.cuda.is_available()
    assert ours.tensor([1.0]).to("cpu").device == ours.device("cpu")


def random_numbers():
    ours.manual_seed(0)
    mine = ours.randn(4).tolist()
    ours.manual_seed(0)
    assert ours.randn(4).tolist() == mine  # repeatable, by the package's own generator
    if torch := pytorch():
        torch.manual_seed(0)
        assert torch.randn(4, dtype=torch.float64).tolist() != mine
        g, h = ours.Generator().manual_seed(3), torch.Generator().manual_seed(3)
        assert ours.randperm(10, generator=g).tolist() == torch.randperm(10, generator=h).tolist()


def losses_of_two_shapes():
    F = ours.nn.functional
    for loss in (F.mse_loss, F.l1_loss, F.binary_cross_entropy_with_logits):
        with pytest.raises(ShapeError, match="PyTorch broadcasts them with a warning"):
            loss(ours.zeros(3, 1), ours.zeros(3))


def saving():
    with pytest.raises(TypeError, match=r"files here hold data, not code.*state_dict\(\)"):
        ours.save(ours.nn.Linear(2, 1), io.BytesIO())
    buffer = io.BytesIO()
    ours.save(ours.nn.Linear(2, 1).state_dict(), buffer)
    buffer.seek(0)
    assert sorted(ours.load(buffer)) == ["bias", "weight"]
    if torch := pytorch():
        theirs = io.BytesIO()
        torch.save({"w": torch.ones(1)}, theirs)
        theirs.seek(0)
        with pytest.raises(ValueError, match="need pickle"):
            ours.load(theirs)


def import_torch_beside_torchlike():
    namespace = {"torch": ours}
    with pytest.raises(ImportError, match="in this module `torch` is micrograd_edu.torchlike"):
        exec("import torch as pt", namespace)
    exec("import torch.nn as nn", namespace)
    assert namespace["nn"] is ours.nn


def options_not_supported():
    with pytest.raises(NotImplementedError, match="pass them as a sampler"):
        ours.utils.data.RandomSampler(range(3), replacement=True)


def opt_lr():
    p = ours.nn.Parameter(ours.zeros(1))
    opt = ours.optim.SGD([{"params": [p]}], lr=0.1)
    opt.lr = 1e-4
    assert opt.param_groups[0]["lr"] == 1e-4 == opt.lr
    if torch := pytorch():
        q = torch.nn.Parameter(torch.zeros(1))
        theirs = torch.optim.SGD([q], lr=0.1)
        theirs.lr = 1e-4
        assert theirs.param_groups[0]["lr"] == 0.1


def what_it_lacks():
    # PyTorch's own lists where it is installed (every public name torchlike lacks),
    # otherwise a few that it lacks
    torch = pytorch()
    if torch:
        methods = [n for n in dir(torch.Tensor) if not n.startswith("_")]
        functions = [n for n in dir(torch) if not n.startswith("_")]
    else:
        methods, functions = ["sort", "cumprod", "topk"], ["topk", "fft", "einsum"]
    x = ours.tensor([3.0, 1.0, 2.0])
    lacked = [n for n in methods if not hasattr(ours.Tensor, n)]
    assert "sort" in lacked or not torch  # there is something to refuse
    for name in lacked:
        with pytest.raises(AttributeError, match=f"has no attribute '{name}': micrograd_edu"):
            getattr(x, name)
    for name in [n for n in functions if not hasattr(ours, n)]:
        with pytest.raises(AttributeError, match=f"torchlike has no '{name}'"):
            getattr(ours, name)


ITEMS = {
    "default dtype": default_dtype,
    "one device": one_device,
    "random numbers": random_numbers,
    "losses of two shapes": losses_of_two_shapes,
    "saving": saving,
    "import torch beside torchlike": import_torch_beside_torchlike,
    "options not supported": options_not_supported,
    "what it lacks": what_it_lacks,
    "opt.lr": opt_lr,
}


def test_the_readme_lists_exactly_the_differences_tested_here():
    assert readme_items() == list(ITEMS)


@pytest.mark.parametrize("item", ITEMS)
def test_each_difference_shows_with_its_message(item):
    ITEMS[item]()
