"""``torch`` as a name for ``torchlike``: how a PyTorch program runs unchanged, and why it
never mixes the two libraries.

A PyTorch program starts with ``import torch`` (and ``import torch.nn as nn``, ``from
torch.utils.data import DataLoader``, ...). Two ways run it on this package, unchanged:

* ``python -m micrograd_edu.torchlike program.py [arguments]`` from a shell;
* :func:`install` (for good) or ``with installed():`` (for a while) in Python or a notebook,
  before the program's imports: ``torch`` and its submodules then *are* torchlike's.

A program may also write ``import micrograd_edu.torchlike as torch`` on its first line. Then,
in that module, ``import torch.nn as nn``, ``from torch import nn, optim`` and ``from
torch.utils.data import DataLoader`` give torchlike's modules, never PyTorch's, even when
PyTorch is installed (the import machinery sees the module's own ``torch``). A bare ``import
torch`` there raises :class:`ImportError`: it would bind PyTorch next to objects of
torchlike's, and a comparison of the two would silently compare torchlike with itself.

>>> import micrograd_edu.torchlike as torch
>>> namespace = {"torch": torch}
>>> exec("import torch.nn as nn\\nfrom torch.utils.data import DataLoader", namespace)
>>> namespace["nn"] is torch.nn, namespace["DataLoader"].__module__
(True, 'micrograd_edu.utils.data')
"""

from __future__ import annotations

import builtins
import contextlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

__all__ = ["install", "uninstall", "installed", "guard_imports", "SUBMODULES"]

# The submodules a PyTorch program imports, as attributes of torchlike.
SUBMODULES = (
    "nn",
    "nn.functional",
    "nn.init",
    "nn.utils",
    "optim",
    "optim.lr_scheduler",
    "utils",
    "utils.data",
    "autograd",
)

_saved: dict[str, ModuleType | None] = {}


def _resolve(torchlike: ModuleType, dotted: str) -> ModuleType:
    module = torchlike
    for part in dotted.split(".")[1:]:
        module = getattr(module, part, None)
        if not isinstance(module, ModuleType):
            raise ImportError(
                f"No module named {dotted!r}: `torch` is micrograd_edu.torchlike here, which has "
                f"no {dotted.split('.', 1)[1]!r} (it covers {', '.join(SUBMODULES)})",
                name=dotted,
            )
    return module


def install(torchlike: ModuleType | None = None) -> None:
    """From now on, ``import torch`` (and ``torch.nn``, ...) gives torchlike. PyTorch's own
    modules, if loaded, are put aside until :func:`uninstall`."""
    torchlike = torchlike or sys.modules["micrograd_edu.torchlike"]
    if sys.modules.get("torch") is torchlike:
        return
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        _saved.setdefault(name, sys.modules.pop(name))
    sys.modules["torch"] = torchlike
    for sub in SUBMODULES:
        _saved.setdefault(f"torch.{sub}", None)
        sys.modules[f"torch.{sub}"] = _resolve(torchlike, f"torch.{sub}")


def uninstall() -> None:
    """Undo :func:`install`: ``import torch`` gives PyTorch again (where installed)."""
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        del sys.modules[name]
    for name, module in _saved.items():
        if module is not None:
            sys.modules[name] = module
    _saved.clear()


@contextlib.contextmanager
def installed(torchlike: ModuleType | None = None) -> Iterator[None]:
    """``import torch`` gives torchlike inside the ``with`` block."""
    already = sys.modules.get("torch") is (torchlike or sys.modules["micrograd_edu.torchlike"])
    install(torchlike)
    try:
        yield
    finally:
        if not already:
            uninstall()


def guard_imports(torchlike: ModuleType) -> None:
    """Make ``import torch...`` in a module whose ``torch`` is ``torchlike`` give torchlike's
    modules (see the module docstring). Installed once, when torchlike is imported."""
    original = builtins.__import__
    if getattr(original, "_torchlike_guard", False):
        return

    def guarded(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if (
            level == 0
            and name.split(".")[0] == "torch"
            and isinstance(globals, dict)
            and globals.get("torch") is torchlike
            and sys.modules.get("torch") is not torchlike
        ):
            return _serve(torchlike, name, fromlist)
        return original(name, globals, locals, fromlist, level)

    guarded._torchlike_guard = True  # type: ignore[attr-defined]
    builtins.__import__ = guarded


def _serve(torchlike: ModuleType, name: str, fromlist: Any) -> ModuleType:
    if name == "torch" and not fromlist:
        raise ImportError(
            "import torch: in this module `torch` is micrograd_edu.torchlike, and this import "
            "would bind PyTorch next to it (or in its place), mixing the two libraries. To use "
            "PyTorch here, import torchlike under another name (import micrograd_edu.torchlike "
            "as tl); to run a PyTorch program on torchlike unchanged, run it with "
            "`python -m micrograd_edu.torchlike program.py`, or call "
            "micrograd_edu.torchlike.install() before it imports torch.",
            name="torch",
        )
    module = _resolve(torchlike, name)
    return module if fromlist else torchlike
