"""How a PyTorch program meets torchlike: the names it imports, the runner, the guard that
never lets ``import torch...`` bind PyTorch next to torchlike, ``torch.Tensor``'s legacy
constructor, ``torch.device``, the dtypes and ``torch.max``'s forms."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from torchlike_oracle import both

import micrograd_edu
import micrograd_edu.torchlike as ours

PROGRAM = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, TensorDataset
print(torch.__name__, nn.__name__, F.__name__, optim.__name__, DataLoader.__module__)
"""


def _python(*args, cwd=None):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def test_the_runner_runs_a_pytorch_program_unchanged_on_torchlike(tmp_path):
    program = tmp_path / "program.py"
    program.write_text(PROGRAM + "import sys; print(sys.argv[1:])\n")
    done = _python("-m", "micrograd_edu.torchlike", str(program), "--epochs", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == [
        "micrograd_edu.torchlike micrograd_edu.nn micrograd_edu.nn.functional "
        "micrograd_edu.optim micrograd_edu.utils.data",
        "['--epochs', '3']",
    ]
    usage = _python("-m", "micrograd_edu.torchlike")
    assert usage.returncode == 2 and "usage" in usage.stderr


def test_imports_after_import_torchlike_as_torch_never_reach_pytorch():
    namespace = {"__name__": "program"}
    exec(
        "import micrograd_edu.torchlike as torch\n" + PROGRAM.replace("import torch\n", ""),
        namespace,
    )
    assert namespace["nn"] is ours.nn and namespace["optim"] is ours.optim
    assert namespace["F"] is ours.nn.functional and namespace["torch"] is ours
    exec("from torch.nn import functional as G\nimport torch.optim.lr_scheduler as S", namespace)
    assert namespace["G"] is ours.nn.functional and namespace["S"] is ours.optim.lr_scheduler


def test_a_bare_import_torch_there_raises_and_says_what_to_write():
    namespace = {}
    exec("import micrograd_edu.torchlike as torch", namespace)
    with pytest.raises(ImportError, match="mixing the two libraries") as error:
        exec("import torch as pt", namespace)
    assert "import micrograd_edu.torchlike as tl" in str(error.value)
    with pytest.raises(ImportError, match="no 'cuda'"):
        exec("import torch.cuda", namespace)


def test_a_module_with_pytorch_under_its_own_name_is_left_alone():
    torch = pytest.importorskip("torch")
    namespace = {"tl": ours}
    exec("import torch\nimport torch.nn as nn", namespace)
    assert namespace["torch"] is torch and namespace["nn"] is torch.nn


def test_installed_binds_torch_for_a_while_and_puts_pytorch_back():
    before = sys.modules.get("torch")
    with ours.installed():
        namespace = {}
        exec("import torch, torch.nn.functional as F", namespace)
        assert namespace["torch"] is ours and namespace["F"] is ours.nn.functional
    assert sys.modules.get("torch") is before


def test_the_legacy_constructor_and_isinstance():
    def run(T):
        a, b, c = T.Tensor(2, 3), T.Tensor([1, 2]), T.Tensor()
        p = T.nn.Parameter(T.Tensor(4, 3))
        return [
            a.shape,
            b,
            c.shape,
            p.shape,
            isinstance(p, T.Tensor),
            issubclass(T.nn.Parameter, T.Tensor),
            isinstance(T.tensor(1), T.Tensor),
            a.dtype == T.float64,
            p.requires_grad,
        ]

    result = both(lambda T: [list(v) if isinstance(v, tuple) else v for v in run(T)][1:])
    assert result[-1] is True and ours.Tensor(2, 3).shape == (2, 3)
    with pytest.raises(TypeError, match="legacy constructor"):
        ours.Tensor(2.5)


def test_one_device_and_pytorchs_dtype_names():
    assert ours.device("cpu") == "cpu" and ours.tensor([1.0]).device == ours.device("cpu")
    assert repr(ours.device("cpu")) == "device(type='cpu')" and ours.device("cpu").type == "cpu"
    with pytest.raises(RuntimeError, match="one device, the CPU"):
        ours.device("cuda:0")
    with pytest.raises(RuntimeError, match="one device here"):
        ours.nn.Linear(2, 2).to("cuda")
    assert not ours.cuda.is_available() and not ours.backends.mps.is_available()
    assert (ours.float, ours.double, ours.long, ours.int) == (
        np.float32,
        np.float64,
        np.int64,
        np.int32,
    )
    assert ours.nn.Linear(2, 2).to(ours.device("cpu"), ours.float32).weight.dtype == ours.float32


@pytest.mark.parametrize(
    "call",
    [
        "T.max(x)",
        "T.max(x, 1)",
        "T.max(x, 0, True)",
        "T.max(x, dim=1)",
        "T.max(x, dim=0, keepdim=True)",
        "T.max(x, y)",
        "T.max(x, other=y)",
        "T.min(x, 1)",
        "T.min(x, y)",
        "T.max(x, 1).indices",
        "T.max(x, 1)[0]",
    ],
)
def test_torch_max_and_min_in_every_form(call):
    def run(T):
        x = T.tensor([[1.0, 5.0, 2.0], [3.0, 2.0, 3.0]])
        y = T.tensor([[2.0, 1.0, 2.5], [0.0, 4.0, 3.0]])
        out = eval(call, {"T": T, "x": x, "y": y})
        return list(out) if isinstance(out, tuple) else out

    both(run)


@pytest.mark.parametrize(
    "call",
    [
        "T.add(x, y)",
        "T.add(x, y, alpha=2)",
        "T.sub(x, 1.5, alpha=2)",
        "T.mul(2.0, x)",
        "T.div(x, y)",
        "T.mm(x, y.T)",
        "T.bmm(x[None], y.T[None])",
        "T.pow(2.0, x)",
        "T.hstack([x, y])",
        "T.vstack([x[0], y[0]])",
        "T.equal(x, x.clone())",
        "T.logical_and(x > 1, y > 1)",
        "T.is_floating_point(x)",
        "T.as_tensor([1, 2])",
        "T.exp(input=x)",
        "T.numel(x)",
    ],
)
def test_torch_functions_in_their_call_forms(call):
    both(
        lambda T: eval(
            call,
            {
                "T": T,
                "x": T.tensor([[1.0, 5.0, 2.0], [3.0, 2.0, 3.0]]),
                "y": T.tensor([[2.0, 1.0, 2.5], [0.5, 4.0, 3.0]]),
            },
        )
    )


def test_mm_and_bmm_refuse_other_ranks():
    with pytest.raises(RuntimeError, match="matrices"):
        ours.mm(ours.ones(3), ours.ones(3, 2))
    with pytest.raises(RuntimeError, match="3-d tensors with the same batch size"):
        ours.bmm(ours.ones(2, 2, 3), ours.ones(3, 3, 2))


def test_the_package_import_does_not_load_torchlike():
    done = _python(
        "-c",
        textwrap.dedent("""
        import sys, micrograd_edu
        print('micrograd_edu.torchlike' in sys.modules)
    """),
    )
    assert done.stdout.strip() == "False", done.stderr
    assert micrograd_edu  # the package itself imports
