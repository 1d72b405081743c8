"""Withholding: while an exercise is graded, the library code that would answer it raises.

An exercise lists dotted names (``micrograd_edu.tensor.shape.unbroadcast``, ``numpy.linalg.lstsq``,
a method such as ``micrograd_edu.nn.module.Module.named_modules``) and whole libraries
(``sklearn``). Inside :func:`withholding`, every public name of this package that holds
one of those functions, the function's own module or class, and the notebook's namespace
hold a stand-in that raises ``PermissionError`` saying so; the libraries cannot be
imported. The grading package's private names (``_name``) are the grader's own
references and keep working.

The batch grader's child enters it once, before the notebook runs, and never leaves. The
notebook's ``check()`` enters it around the checks and leaves it after, so both give one
verdict on the same code.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from collections.abc import Iterable, Iterator, MutableMapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any

__all__ = ["withholding"]


def resolve(dotted: str) -> tuple[Any, str]:
    """The module or class that holds ``dotted``'s last name, and that name: the longest
    importable prefix is the module, the rest attributes (a class, then its method)."""
    parts = dotted.split(".")
    for k in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attribute in parts[k:-1]:
            owner = getattr(owner, attribute)
        return owner, parts[-1]
    raise ImportError(f"no module in {dotted!r}")


def _withheld(dotted: str) -> Any:
    def withheld(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(f"{dotted} is withheld while grading: write your own")

    return withheld


class _Library:
    """A withheld library's module, class or function, imported before: using it raises."""

    def __init__(self, library: str) -> None:
        self._message = f"{library} is withheld while this exercise is graded: write your own"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise PermissionError(self._message)

    def __getattr__(self, name: str) -> Any:
        raise PermissionError(self._message)


class _Blocked(importlib.abc.MetaPathFinder):
    def __init__(self, packages: set[str]) -> None:
        self.packages = packages

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        top = fullname.split(".")[0]
        if top in self.packages:
            raise ImportError(f"{top} is withheld while this exercise is graded: write your own")


def _library(value: Any) -> str:
    """The top-level package ``value`` (a module, a class, a function) comes from."""
    name = getattr(value, "__name__", "") if isinstance(value, ModuleType) else ""
    return (name or getattr(value, "__module__", None) or "").split(".")[0]


def _parameters_withheld(dotted: str) -> list[tuple[Any, str, Any]]:
    """For ``module.function(*parameter)``: every object of the module's tables (its dicts'
    values) that holds ``parameter`` as an attribute gets stand-ins that raise in its place
    (as many as it held); returns (object, attribute, original) to restore."""
    module_name = dotted.partition("(")[0].rpartition(".")[0]
    attribute = dotted.partition("(")[2].rstrip(")").lstrip("*")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return []
    changed = []
    for table in [v for v in vars(module).values() if isinstance(v, dict)]:
        for item in table.values():
            held = getattr(item, attribute, None)
            if isinstance(held, tuple) and not isinstance(item, type):
                changed.append((item, attribute, held))
                object.__setattr__(item, attribute, tuple(_withheld(dotted) for _ in held))
    return changed


@contextmanager
def withholding(
    names: Iterable[str], namespace: MutableMapping[str, Any] | None = None
) -> Iterator[None]:
    """Withhold ``names`` (see the module docstring) until the block ends."""
    names = set(names)
    packages = {name for name in names if "." not in name}
    parameters = {name for name in names if "(" in name}
    originals = []
    patched: list[tuple[Any, str, Any]] = []  # (dict, module or class), name, original
    for dotted in names - packages - parameters:
        try:
            owner, attribute = resolve(dotted)
            original = getattr(owner, attribute)
        except (ImportError, AttributeError):
            continue  # not in this version of the package, or not installed
        originals.append((dotted, original))
        if isinstance(owner, type):  # a method: only its class holds it
            patched.append((owner, attribute, original))
            setattr(owner, attribute, _withheld(dotted))

    def swap(holder: Any, key: str, value: Any) -> None:
        for dotted, original in originals:
            if value is original:
                patched.append((holder, key, value))
                stand_in = _withheld(dotted)
                if isinstance(holder, dict):
                    holder[key] = stand_in
                else:
                    setattr(holder, key, stand_in)

    for module_name, module in list(sys.modules.items()):
        if module is None:
            continue
        top = module_name.split(".")[0]
        own = any(dotted.rpartition(".")[0] == module_name for dotted, _ in originals)
        if top != "micrograd_edu" and not own:
            continue
        grader = f"{module_name}.".startswith("micrograd_edu.grading.")
        for attribute, value in list(vars(module).items()):
            if not (grader and attribute.startswith("_")):
                swap(module, attribute, value)
    if namespace is not None:
        for key, value in list(namespace.items()):
            swap(namespace, key, value)
            if _library(value) in packages:  # imported before: `import graphlib` in a cell
                patched.append((namespace, key, value))
                namespace[key] = _Library(_library(value))
    held_parameters = [change for dotted in parameters for change in _parameters_withheld(dotted)]
    hidden = {n: m for n, m in sys.modules.items() if n.split(".")[0] in packages}
    for name in hidden:
        del sys.modules[name]
    blocker = _Blocked(packages)
    sys.meta_path.insert(0, blocker)
    try:
        yield
    finally:
        for item, attribute, original in held_parameters:
            object.__setattr__(item, attribute, original)
        sys.meta_path.remove(blocker)
        sys.modules.update(hidden)
        for holder, key, original in reversed(patched):
            if isinstance(holder, dict):
                holder[key] = original
            else:
                setattr(holder, key, original)
