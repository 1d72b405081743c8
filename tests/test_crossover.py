"""PyTorch programs run unchanged on micrograd_edu.

Each file in tests/crossover is written for PyTorch (``import torch``) and ends with
``result``, a list of numbers (losses, weights, accuracies). It runs once with
``torch`` bound to :mod:`micrograd_edu.torchlike` and, where PyTorch is installed,
once with PyTorch itself: the numbers must agree to 1e-9. Without PyTorch, each
program still has to run and its numbers must show it learned.
"""

import contextlib
import io
import math
import runpy
from pathlib import Path

import numpy as np
import pytest

import micrograd_edu.torchlike

PROGRAMS = sorted((Path(__file__).parent / "crossover").glob("*.py"))


def run(path: Path, torch_module) -> list[float]:
    """The program's ``result``, with ``import torch`` giving ``torch_module``."""
    if torch_module is micrograd_edu.torchlike:
        with micrograd_edu.torchlike.installed(), contextlib.redirect_stdout(io.StringIO()):
            return [float(v) for v in runpy.run_path(str(path))["result"]]
    with contextlib.redirect_stdout(io.StringIO()):
        return [float(v) for v in runpy.run_path(str(path))["result"]]


def _real_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_a_pytorch_program_runs_unchanged_and_learns(path):
    ours = run(path, micrograd_edu.torchlike)
    assert all(math.isfinite(v) for v in ours)
    first_loss, last_loss = ours[0], ours[len(ours) // 3]
    assert last_loss < first_loss, "the program's loss went down"


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_a_pytorch_program_gives_pytorchs_numbers(path):
    torch = _real_torch()
    if torch is None:
        pytest.skip("PyTorch is not installed (pip install -e '.[torch]')")
    default = torch.get_default_dtype()
    try:
        theirs = run(path, torch)
    finally:
        torch.set_default_dtype(default)
    ours = run(path, micrograd_edu.torchlike)
    assert len(ours) == len(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


def test_torchlike_refuses_what_it_cannot_mean():
    with pytest.raises(ValueError, match="float64"):
        micrograd_edu.torchlike.set_default_dtype(micrograd_edu.torchlike.float32)
