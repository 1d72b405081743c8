"""Withholding: while an exercise is graded, the library code that would answer it raises.

An exercise lists dotted names (``micrograd_edu.tensor.shape.unbroadcast``, ``numpy.linalg.lstsq``,
a method such as ``micrograd_edu.nn.module.Module.named_modules``), whole libraries
(``sklearn``) and whole modules of this package (``micrograd_edu.tensor``). Inside
:func:`withholding`, every public name of this package that holds one of those functions,
the function's own module or class, and the notebook's namespace hold a stand-in that
raises ``PermissionError`` saying so; the libraries cannot be imported. The grading
package's private names (``_name``) are the grader's own references and keep working.

A module of this package is withheld more thoroughly: every function written in it or in
its submodules (private helpers, methods, the ``vjp`` of an operation kept in a table)
raises itself, its code swapped for a stand-in's, so that no path reaches it, an
``importlib`` call or an object that held it before grading began. The grader's own
references to such a module raise too: withhold one only where the grader's observation
does not run it (its judges run outside).

The batch grader's child enters it once, before the notebook runs, and never leaves. The
notebook's ``check()`` enters it around the checks and leaves it after, so both give one
verdict on the same code.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import sys
import types
from collections.abc import Iterable, Iterator, MutableMapping
from contextlib import contextmanager
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


def is_module(dotted: str) -> bool:
    """Whether ``dotted`` names a module of this package (withheld whole)."""
    if dotted.split(".")[0] != "micrograd_edu":
        return False
    try:
        return isinstance(importlib.import_module(dotted), types.ModuleType)
    except ImportError:
        return False


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


# Switches that answer nothing and that the grader's runners turn while the student's code
# runs (no_grad: the engine records nothing): spared when their package is withheld.
_SWITCHES = ("micrograd_edu.tensor.modes",)


@functools.cache
def _raising_code(freevars: tuple[str, ...], dotted: str) -> types.CodeType:
    """The code of a function that raises saying ``dotted`` is withheld, with the free
    variables ``freevars`` (a closure's code can only be swapped for one with as many)."""
    lines = ["def outer():", *(f"    {name} = None" for name in freevars)]
    lines += ["    def withheld(*args, **kwargs):"]
    lines += [f"        ({', '.join(freevars)},)"] if freevars else []
    message = f"{dotted} is withheld while grading: write your own"
    lines += [f"        raise PermissionError({message!r})", "    return withheld"]
    scope: dict[str, Any] = {}
    exec("\n".join(lines), scope)  # noqa: S102 - a fixed template, no outside text
    code = scope["outer"]().__code__
    assert code.co_freevars == freevars  # the compiler orders free variables by name
    return code


def _functions_of(package: str) -> dict[types.FunctionType, str]:
    """Every function written in ``package`` or its submodules, with a dotted name: the
    module's functions, its classes' methods, and functions kept in its tables (tuples,
    lists, dicts, such as an operation's ``vjp``), however deep."""
    found: dict[types.FunctionType, str] = {}

    def ours(value: Any) -> bool:
        module = getattr(value, "__module__", None) or ""
        return f"{module}.".startswith(f"{package}.") and module not in _SWITCHES

    def visit(value: Any, name: str, depth: int) -> None:
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            for part in (value.fget, value.fset, value.fdel):
                visit(part, name, depth)
        elif isinstance(value, types.FunctionType):
            if ours(value) and value not in found:
                found[value] = name
                for cell in value.__closure__ or ():
                    try:
                        visit(cell.cell_contents, name, depth + 1)
                    except ValueError:  # an empty cell
                        pass
        elif depth < 4 and isinstance(value, type):
            if ours(value):
                for key, member in list(vars(value).items()):
                    visit(member, f"{name}.{key}", depth + 1)
        elif depth < 4 and isinstance(value, (tuple, list)):
            for member in value:
                visit(member, name, depth + 1)
        elif depth < 4 and isinstance(value, dict):
            for key, member in list(value.items()):
                visit(member, f"{name}[{key!r}]", depth + 1)

    for module_name, module in list(sys.modules.items()):
        if module_name in _SWITCHES:
            continue
        if module is not None and f"{module_name}.".startswith(f"{package}."):
            for key, value in list(vars(module).items()):
                if not (key.startswith("__") and key.endswith("__")):
                    visit(value, f"{module_name}.{key}", 0)
    return found


@contextmanager
def _disabled(packages: Iterable[str]) -> Iterator[None]:
    """Every function of ``packages`` (modules of this package) raises until the block ends."""
    swapped: list[tuple[types.FunctionType, types.CodeType]] = []
    try:
        for package in packages:
            importlib.import_module(package)
            for function, dotted in _functions_of(package).items():
                code = _raising_code(function.__code__.co_freevars, dotted)
                swapped.append((function, function.__code__))
                function.__code__ = code
        yield
    finally:
        for function, code in reversed(swapped):
            function.__code__ = code


class _Blocked(importlib.abc.MetaPathFinder):
    def __init__(self, packages: set[str]) -> None:
        self.packages = packages

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        top = fullname.split(".")[0]
        if top in self.packages:
            raise ImportError(f"{top} is withheld while this exercise is graded: write your own")


def _library(value: Any) -> str:
    """The top-level package ``value`` (a module, a class, a function) comes from."""
    name = getattr(value, "__name__", "") if isinstance(value, types.ModuleType) else ""
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
    modules = {name for name in names if "." in name and is_module(name)}
    # the modules' functions first, while their classes still hold every method: a method
    # also withheld by name is then swapped for a stand-in holding the disabled original
    with _disabled(sorted(modules)), _replaced(names - modules, namespace):
        yield


@contextmanager
def _replaced(names: set[str], namespace: MutableMapping[str, Any] | None) -> Iterator[None]:
    """The names (not modules) withheld where they are held, the libraries blocked."""
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
