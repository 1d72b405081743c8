"""Withheld library code, withheld in the files themselves.

In a submission's process :mod:`.withhold` swaps the package's answers for stand-ins
that raise; but a module re-executed (``importlib.reload``, or its file read and
``exec``-ed) would bring the originals back, and a class reached another way
(``nn.Parameter.__mro__[1]``) is the original. So the sandbox also mounts, over each
file that defines a withheld name, a copy in which that definition raises: a withheld
function's or method's body, and a withheld class's ``__init__`` and ``backward``. What
the submission can import, reload or read then holds no answer.

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
from pathlib import Path

from .withhold import resolve

__all__ = ["stubbed_files", "stub_source"]

_METHODS = ("__init__", "backward")  # what a withheld class loses


def stub_source(source: str, names: dict[str, str]) -> str:
    """``source`` with each top-level definition in ``names`` (its name, or
    ``Class.method``, -> the dotted name withheld) raising ``PermissionError``: a
    function's or a method's body, a class's methods in ``_METHODS``."""
    lines = source.splitlines(keepends=True)
    bodies: list[tuple[ast.AST, str]] = []
    for node in ast.parse(source).body:
        node_name = getattr(node, "name", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node_name in names:
            bodies.append((node, names[node_name]))
        elif isinstance(node, ast.ClassDef):
            for method in node.body:
                if not isinstance(method, ast.FunctionDef):
                    continue
                if node_name in names and method.name in _METHODS:
                    bodies.append((method, names[node_name]))
                elif f"{node_name}.{method.name}" in names:
                    bodies.append((method, names[f"{node_name}.{method.name}"]))
    for node, dotted in sorted(bodies, key=lambda b: -b[0].lineno):
        first, last = node.body[0].lineno - 1, node.end_lineno
        indent = " " * node.body[0].col_offset
        message = f"{dotted} is withheld while grading: write your own"
        lines[first:last] = [f"{indent}raise PermissionError({message!r})\n"]
    return "".join(lines)


@functools.lru_cache(maxsize=64)
def stubbed_files(names: frozenset[str], package: Path) -> tuple[tuple[Path, Path], ...]:
    """(stubbed copy, the package file it stands for) for the withheld ``names`` that
    the package itself defines (the grading modules are hidden whole; libraries such
    as ``numpy.linalg.lstsq`` are withheld by :mod:`.withhold` alone)."""
    by_file: dict[Path, dict[str, str]] = {}
    for dotted in sorted(names):
        if not dotted.startswith("micrograd_edu.") or dotted.startswith("micrograd_edu.grading"):
            continue
        try:
            owner, attribute = resolve(dotted)
            found = inspect.unwrap(getattr(owner, attribute))
            path = Path(inspect.getsourcefile(found) or "").resolve()
        except (ImportError, AttributeError, TypeError):
            continue  # not in this version of the package
        if path.is_relative_to(package):
            by_file.setdefault(path, {})[found.__qualname__] = dotted
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
