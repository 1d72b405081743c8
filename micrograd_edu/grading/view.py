"""What a submission's process sees of the machine: an allow-list, at neutral paths.

A submission must not use what it would be graded without, so what it must not use is
absent from its files, not hidden by code running beside it. Its view holds:

* ``/python``: the interpreter and its standard library (no site-packages);
* ``/site``: the libraries a student's plain install has (this package's own runtime
  dependencies, as its metadata declares them, and theirs), minus any an exercise
  withholds; nothing from the course's extras (scikit-learn, JupyterLab), the oracle
  (PyTorch) or the developer tools;
* ``/pkg/micrograd_edu``: this package without the grader's answers: each grading module
  the child does not import is an empty file, ``grading/references`` (the reference
  steps) and the compiled copies of the hidden modules are empty folders;
* over each file that defines a withheld name, in the package or in a library, a copy in
  which that definition raises (:mod:`.stubbed`).

The same view is mounted by bubblewrap (:mod:`.sandbox`) and built as a folder of links
for an unprivileged user where bubblewrap cannot run (:mod:`.unprivileged`). The paths
are neutral (``/python``, ``/site``, ``/pkg``), so nothing inside names the host's.

>>> [m.target for m in view(frozenset())][:2]
['/python/bin/python3', '/python/lib/python3.11']
"""

from __future__ import annotations

import atexit
import functools
import importlib.metadata
import shutil
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .stubbed import stubbed_files

__all__ = ["Mount", "view", "empty_dir", "ENV", "PYTHON", "allowed_distributions", "CHILD_MODULES"]

PACKAGE = Path(__file__).resolve().parents[1]  # micrograd_edu/
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
PYTHON = "/python/bin/python3"
# The child's environment: its imports come from the view, its BLAS uses one thread (the
# cores are shared by the grading workers), its plots go nowhere.
ENV = {
    "PYTHONPATH": "/pkg:/site",
    "LD_LIBRARY_PATH": "/python/lib",
    "PYTHONDONTWRITEBYTECODE": "1",
    "MPLBACKEND": "Agg",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "LANG": "C.UTF-8",
    "PATH": "/usr/bin:/bin",
}
# The grading modules a submission's process imports; every other one (the chapters'
# judges, oracles and mistake models, the batch grader) is an empty file in the view.
CHILD_MODULES = (
    "__init__.py",
    "child.py",
    "feedback.py",
    "notebook.py",
    "plain.py",
    "registry.py",
    "time_limit.py",
    "withhold.py",
)
_ALWAYS = ("numpy",)  # the course's arrays, even where the package has no metadata


@dataclass(frozen=True)
class Mount:
    """``source`` (a host file or folder) seen read-only at ``target`` in the view."""

    source: Path
    target: str


def empty_dir() -> Path:
    """An empty, read-only folder, to stand where a folder is absent."""
    return _empty()[1]


@functools.lru_cache(maxsize=1)
def _empty() -> tuple[Path, Path]:
    """An empty file and an empty folder, to stand where something is absent (a hidden
    module must still be a file: the grading package's ``__init__`` imports each)."""
    folder = Path(tempfile.mkdtemp(prefix="micrograd-view-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    (folder / "dir").mkdir()
    path = folder / "hidden.py"
    path.write_text('"""Not in a submission\'s view."""\n')
    for made in (path, folder / "dir", folder):
        made.chmod(0o444 if made.is_file() else 0o755)
    return path, folder / "dir"


def _interpreter() -> list[Mount]:
    """The interpreter at /python: its binary, shared library and standard library, with
    an empty site-packages (the base interpreter's own installs are not the view's)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    dynload = Path(sysconfig.get_config_var("DESTSHARED") or stdlib / "lib-dynload").resolve()
    lib = f"/python/lib/{VERSION}"
    mounts = [
        Mount(Path(sys._base_executable).resolve(), PYTHON),  # type: ignore[attr-defined]
        Mount(stdlib, lib),
    ]
    if not dynload.is_relative_to(stdlib):  # Fedora keeps it under lib64
        mounts.append(Mount(dynload, f"{lib}/lib-dynload"))
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        name = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY")
        shared = Path(sysconfig.get_config_var("LIBDIR") or "") / name
        if shared.is_file():
            mounts.append(Mount(shared.resolve(), f"/python/lib/{Path(name).name}"))
    if (stdlib / "site-packages").is_dir():
        mounts.append(Mount(empty_dir(), f"{lib}/site-packages"))
    return mounts


def _requirement_names(distribution: importlib.metadata.Distribution, extras: set[str]) -> set:
    """The distributions ``distribution`` requires on this machine, with ``extras``."""
    found = set()
    for text in distribution.requires or []:
        from packaging.requirements import Requirement  # only where there is one to read

        requirement = Requirement(text)
        wanted = extras | {""}
        if requirement.marker is None or any(
            requirement.marker.evaluate({"extra": extra}) for extra in wanted
        ):
            found.add((requirement.name, frozenset(requirement.extras)))
    return found


@functools.lru_cache(maxsize=1)
def allowed_distributions() -> tuple[importlib.metadata.Distribution, ...]:
    """The distributions a student's plain install of this package has: its runtime
    requirements and theirs, as installed here (no extra of this package)."""
    try:
        todo = [(importlib.metadata.distribution("micrograd_edu"), frozenset())]
    except importlib.metadata.PackageNotFoundError:
        todo = []
    todo += [(importlib.metadata.distribution(name), frozenset()) for name in _ALWAYS]
    seen: dict[str, importlib.metadata.Distribution] = {}
    while todo:
        distribution, extras = todo.pop()
        name = distribution.metadata["Name"].lower().replace("_", "-")
        if name in seen:
            continue
        seen[name] = distribution
        for required, its_extras in _requirement_names(distribution, set(extras)):
            try:
                todo.append((importlib.metadata.distribution(required), its_extras))
            except importlib.metadata.PackageNotFoundError:
                continue  # required only elsewhere (colorama on Windows)
    seen.pop("micrograd-edu", None)  # mounted as /pkg, without its answers
    return tuple(seen[name] for name in sorted(seen))


def _top_level(distribution: importlib.metadata.Distribution) -> dict[str, Path]:
    """The entries a distribution installed at the top of site-packages (its packages,
    modules and metadata), by name; scripts, .pth files and shared caches left out."""
    root = Path(distribution.locate_file("")).resolve()
    names = {
        Path(str(file)).parts[0]
        for file in distribution.files or []
        if not str(file).startswith("..") and Path(str(file)).parts
    }
    skip = {"__pycache__", "__editable__"}
    return {
        name: root / name
        for name in names
        if name not in skip and not name.endswith(".pth") and (root / name).exists()
    }


@functools.lru_cache(maxsize=8)
def _libraries(withheld: frozenset[str]) -> tuple[Mount, ...]:
    """Each allowed distribution's top-level entries at /site, but a withheld library's."""
    mounts: dict[str, Mount] = {}
    for distribution in allowed_distributions():
        entries = _top_level(distribution)
        if any(name.partition(".")[0] in withheld for name in entries):
            continue
        for name, path in entries.items():
            mounts.setdefault(name, Mount(path, f"/site/{name}"))
    return tuple(mounts[name] for name in sorted(mounts))


def _package(withheld: frozenset[str]) -> list[Mount]:
    """The package at /pkg/micrograd_edu without what the child must not have."""
    empty_file, empty_dir = _empty()
    where = "/pkg/micrograd_edu"
    mounts = [Mount(PACKAGE, where)]
    for path in sorted((PACKAGE / "grading").iterdir()):
        if path.name in CHILD_MODULES or path.name == "runners":
            continue
        if path.is_dir():  # the references, the compiled judges
            mounts.append(Mount(empty_dir, f"{where}/grading/{path.name}"))
        elif path.suffix == ".py":
            mounts.append(Mount(empty_file, f"{where}/grading/{path.name}"))
    return mounts


def _stubs(withheld: frozenset[str], libraries: tuple[Mount, ...]) -> list[Mount]:
    """Over each file defining a withheld name, the copy in which it raises, and an
    empty folder over the compiled originals beside it."""
    _, empty_dir = _empty()
    roots = [(PACKAGE, "/pkg/micrograd_edu")]
    roots += [(m.source, m.target) for m in libraries if m.source.is_dir()]
    mounts = []
    for copy, original in stubbed_files(withheld, tuple(root for root, _ in roots)):
        for root, target in roots:
            if original.is_relative_to(root):
                inside = f"{target}/{original.relative_to(root).as_posix()}"
                mounts.append(Mount(copy, inside))
                if (original.parent / "__pycache__").is_dir():
                    mounts.append(Mount(empty_dir, f"{inside.rpartition('/')[0]}/__pycache__"))
                break
    return mounts


@functools.lru_cache(maxsize=16)
def view(withheld: frozenset[str]) -> tuple[Mount, ...]:
    """The view of a process graded while ``withheld`` (dotted names, whole libraries)
    are withheld, in mount order (a later mount may stand over part of an earlier)."""
    libraries = _libraries(frozenset(n for n in withheld if "." not in n))
    return (*_interpreter(), *libraries, *_package(withheld), *_stubs(withheld, libraries))
