"""The process a submission runs in (``python -m micrograd_edu.grading.child TASK RESULT``).

It reads its task (the notebook's code, the cases, a nonce) from the pipe
``TASK`` and closes it before any student code runs, limits its own memory and
file sizes, runs the cells in a fresh namespace, then *observes* the student's
functions on the grader's cases and writes each observation, as JSON lines
tagged with the nonce, to the pipe ``RESULT``. It judges nothing: the parent
compares the observations with its oracles, so nothing this process says can
raise a grade above what the student's functions compute.
"""

from __future__ import annotations

import builtins
import importlib.abc
import json
import os
import sys
import types
from typing import Any


def _limit(memory_mb: int, file_mb: int) -> None:
    import resource  # POSIX only: the parent refuses to run elsewhere

    for name, megabytes in (("RLIMIT_AS", memory_mb), ("RLIMIT_FSIZE", file_mb)):
        limit = getattr(resource, name, None)
        if limit is not None:
            try:
                resource.setrlimit(limit, (megabytes << 20, megabytes << 20))
            except (ValueError, OSError):  # macOS does not enforce RLIMIT_AS
                pass
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.path.isdir("/proc"):  # Linux: room for a few children, not a fork bomb
        processes = len(os.listdir("/proc")) + 256  # counts per user, so above all of them
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
        except (ValueError, OSError):
            pass


def _withhold(names: set[str]) -> None:
    """Make the library functions that answer an exercise raise, wherever they are exported.

    Every public name in the package that holds an answer loses it, in the grading
    package too, so no public import path reaches one. The grading package's private
    names (``_name``) are the grader's own references and keep working; exercises
    keep theirs in ``requires``.
    """
    import importlib

    _block_imports({name for name in names if "." not in name})
    originals = []
    for dotted in names:
        module_name, _, attribute = dotted.rpartition(".")
        if not module_name:
            continue
        try:
            originals.append((dotted, getattr(importlib.import_module(module_name), attribute)))
        except (ImportError, AttributeError):
            continue  # not in this version of the package
    for module_name, module in list(sys.modules.items()):
        if module_name.split(".")[0] != "micrograd_edu" or module is None:
            continue
        grader = f"{module_name}.".startswith("micrograd_edu.grading.")
        for attribute, value in list(vars(module).items()):
            if grader and attribute.startswith("_"):
                continue
            for dotted, original in originals:
                if value is original:
                    setattr(module, attribute, _withheld(dotted))


def _block_imports(packages: set[str]) -> None:
    """Make whole libraries that would answer an exercise (scikit-learn's classifiers, a
    second autograd engine) fail to import, with a message that says why."""
    if not packages:
        return
    for name in list(sys.modules):
        if name.split(".")[0] in packages:
            del sys.modules[name]

    class Blocked(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
            if fullname.split(".")[0] in packages:
                raise ImportError(
                    f"{fullname.split('.')[0]} is withheld while this chapter is graded: "
                    "train with micrograd_edu"
                )

    sys.meta_path.insert(0, Blocked())


def _withheld(dotted: str) -> Any:
    def withheld(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(f"{dotted} is withheld while grading: write your own")

    return withheld


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error)[:200]}"


def main(task_fd: int, result_fd: int) -> None:
    with os.fdopen(task_fd, "rb") as pipe:
        task = json.loads(pipe.read())
    _limit(task["memory_mb"], task["file_mb"])
    nonce, dumps, write = task.pop("nonce"), json.dumps, os.write

    def send(**message: Any) -> None:
        data = (dumps({"nonce": nonce, **message}) + "\n").encode()
        while data:
            data = data[write(result_fd, data) :]

    from . import feedback
    from .notebook import Shell
    from .registry import exercise, observe

    feedback._SILENT = True  # a check(...) cell in the notebook costs nothing here
    _withhold({name for item in task["exercises"] for name in exercise(item["id"]).withheld})
    # A fresh __main__ as in Jupyter (pickle and dataclasses look classes up there), with
    # the display() IPython puts in a notebook's namespace; shown output goes nowhere here.
    main_module = types.ModuleType("__main__")
    sys.modules["__main__"] = main_module
    namespace = main_module.__dict__
    namespace.update(__builtins__=builtins, display=lambda *objects, **options: None)
    shell = Shell(namespace)
    namespace["get_ipython"] = lambda: shell  # what IPython's transformed lines call
    skip = set(task["skip_cells"])
    for index, code in enumerate(task["cells"]):
        if index in skip or not code.strip():
            continue
        send(event="cell", index=index)
        try:
            exec(compile(code, f"<code cell {index + 1}>", "exec"), namespace)
        except BaseException as error:  # sys.exit() too: Jupyter carries on after it
            send(event="cell_error", index=index, error=_describe(error))
    for item in task["exercises"]:
        send(event="exercise", id=item["id"])
        try:
            observed = observe(exercise(item["id"]), namespace, item["cases"])
        except BaseException as error:
            send(event="exercise_error", id=item["id"], error=_describe(error))
        else:
            send(event="observed", id=item["id"], observed=observed)
    send(event="done")


if __name__ == "__main__":
    try:
        main(int(sys.argv[1]), int(sys.argv[2]))
    finally:
        # No atexit handler or lingering thread a submission left behind may run.
        os._exit(0)
