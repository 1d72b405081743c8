"""Run one piece of PyTorch code twice, on torchlike and on PyTorch, and compare what it
returns: nested lists, tuples and dicts of tensors, arrays and numbers (float64 on both
sides). Without PyTorch, :func:`both` gives torchlike's answer alone, for the closed forms
a test checks it against."""

import numpy as np
import pytest
from torchlike_outcomes import pytorch

import micrograd_edu.torchlike as ours

__all__ = ["both", "plain", "pytorch", "assert_same"]


def plain(value):
    """Tensors as numpy arrays, containers as lists, recursively."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return np.asarray(value.detach().numpy(), dtype=float)
    if isinstance(value, np.ndarray):
        return value.astype(float)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def assert_same(a, b, rtol=1e-10, atol=1e-12, where="result"):
    if isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), f"{where}: keys {list(a)} vs {list(b)}"
        for k in b:
            assert_same(a[k], b[k], rtol, atol, f"{where}[{k!r}]")
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), f"{where}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, rtol, atol, f"{where}[{i}]")
    elif isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and a.shape == b.shape, f"{where}: shapes differ"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=where, equal_nan=True)
    elif isinstance(b, float):
        assert a == pytest.approx(b, rel=rtol, abs=atol, nan_ok=True), f"{where}: {a} vs {b}"
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


def both(code, rtol=1e-10, atol=1e-12):
    """``code(T)`` on torchlike, checked against ``code(torch)`` where PyTorch is installed;
    returns torchlike's answer (as plain values)."""
    mine = plain(code(ours))
    torch = pytorch()
    if torch is not None:
        default = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            theirs = plain(code(torch))
        finally:
            torch.set_default_dtype(default)
        assert_same(mine, theirs, rtol, atol)
    return mine
