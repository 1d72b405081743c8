"""Withheld code, withheld in the files themselves.

What an exercise withholds must be absent from the submission's process, not patched
away by code running beside it: a module re-executed (``importlib.reload``, or its file
read and ``exec``-ed), a private alias (``numpy.linalg._linalg.lstsq`` behind
``numpy.linalg.lstsq``) or a class reached another way (``nn.Parameter.__mro__[1]``)
would bring the original back. So the view of a graded process (:mod:`.view`) has,
over each file that defines a withheld name, a copy in which that definition raises:

* ``package.module.function`` or ``package.module.Class.method``: its body;
* ``package.module.Class``: its ``__init__`` and ``backward``;
* ``package.module.function(*parameter)``: what the function receives through that
  parameter, each one a stand-in that raises (``micrograd_edu.rules._rule(*partials)``:
  every rule of the table keeps its value and loses its derivatives).

The file may be this package's or a library's (numpy's); what it can import, reload or
read then holds no answer.

>>> "PermissionError" in stub_source("def f(x):\\n    return x\\n", {"f": "pkg.f"})
True
"""

from __future__ import annotations

import ast
import atexit
import functools
import inspect
import shutil
import tempfile
import threading
from pathlib import Path

from .withhold import is_module, resolve

__all__ = ["stubbed_files", "stub_source"]

_METHODS = ("__init__", "backward")  # what a withheld class loses


def _message(dotted: str) -> str:
    return f"{dotted} is withheld while grading: write your own"


def _replacement(node: ast.FunctionDef, dotted: str) -> tuple[int, int, list[str]]:
    """The lines (first, last, new lines) that withhold ``node`` as ``dotted`` says: its
    body raising, or (``function(*parameter)``) that parameter's values raising."""
    indent = " " * node.body[0].col_offset
    message = _message(dotted)
    if "(" not in dotted:
        first, last = node.body[0].lineno - 1, node.end_lineno or node.body[-1].lineno
        return first, last, [f"{indent}raise PermissionError({message!r})\n"]
    parameter = dotted.partition("(")[2].rstrip(")")
    name = parameter.lstrip("*")
    stand_in = f"tuple(_withheld for _ in {name})" if parameter.startswith("*") else "_withheld"
    first = node.body[0].lineno - 1
    lines = [
        f"{indent}def _withheld(*args, **kwargs):\n",
        f"{indent}    raise PermissionError({message!r})\n",
        f"{indent}{name} = {stand_in}\n",
    ]
    return first, first, lines


# CPython 3.11 counts the depth of the tree it converts in interpreter-wide state, so two
# threads in ast.parse at once (the batch grader's workers building their views) can fail
# with "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905).
_PARSING = threading.Lock()


def stub_source(source: str, names: dict[str, str]) -> str:
    """``source`` with each top-level definition in ``names`` (its name, or
    ``Class.method``, -> the dotted name withheld, see the module docstring) raising
    ``PermissionError``.

    >>> table = "def rule(name, *partials):\\n    return name, partials\\n"
    >>> scope = {}
    >>> exec(stub_source(table, {"rule": "m.rule(*partials)"}), scope)
    >>> name, (d,) = scope["rule"]("sin", lambda x: x)
    >>> name, callable(d)
    ('sin', True)
    """
    lines = source.splitlines(keepends=True)
    found: list[tuple[ast.FunctionDef, str]] = []
    with _PARSING:
        tree = ast.parse(source)
    for node in tree.body:
        node_name = getattr(node, "name", None)
        if isinstance(node, ast.FunctionDef) and node_name in names:
            found.append((node, names[node_name]))
        elif isinstance(node, ast.ClassDef):
            for method in node.body:
                if not isinstance(method, ast.FunctionDef):
                    continue
                if node_name in names and method.name in _METHODS:
                    found.append((method, names[node_name]))
                elif f"{node_name}.{method.name}" in names:
                    found.append((method, names[f"{node_name}.{method.name}"]))
    for first, last, new in sorted((_replacement(*f) for f in found), key=lambda r: -r[0]):
        lines[first:last] = new
    return "".join(lines)


def _defined(dotted: str) -> tuple[Path, str] | None:
    """The source file defining ``dotted`` (a function, method or class, possibly
    with a parameter) and its qualified name there; None when it is not Python code
    installed here."""
    name = dotted.partition("(")[0]
    try:
        owner, attribute = resolve(name)
        found = inspect.unwrap(getattr(owner, attribute))
        path = Path(inspect.getsourcefile(found) or "").resolve()
    except (ImportError, AttributeError, TypeError):
        return None
    return (path, found.__qualname__) if path.is_file() else None


@functools.lru_cache(maxsize=64)
def stubbed_files(names: frozenset[str], roots: tuple[Path, ...]) -> tuple[tuple[Path, Path], ...]:
    """(stubbed copy, the file it stands for) for the withheld ``names`` defined in a
    file under one of ``roots`` (the package, the libraries in the view). The grading
    modules are left out of the view whole, and a whole library by its name alone."""
    by_file: dict[Path, dict[str, str]] = {}
    for dotted in sorted(names):
        if "." not in dotted or dotted.startswith("micrograd_edu.grading"):
            continue
        if is_module(dotted):  # withheld whole in the process (its code swapped), not here:
            continue  # its files run at import, and the child imports the package
        defined = _defined(dotted)
        if defined and any(defined[0].is_relative_to(root) for root in roots):
            by_file.setdefault(defined[0], {})[defined[1]] = dotted
    folder = Path(tempfile.mkdtemp(prefix="micrograd-withheld-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    folder.chmod(0o755)
    made = []
    for k, (path, defined) in enumerate(sorted(by_file.items())):
        copy = folder / f"{k}_{path.name}"
        copy.write_text(stub_source(path.read_text(encoding="utf-8"), defined), encoding="utf-8")
        copy.chmod(0o444)
        made.append((copy, path))
    return tuple(made)
