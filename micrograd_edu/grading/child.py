"""The process a submission runs in (``python -m micrograd_edu.grading.child TASK RESULT``).

It reads its task (the notebook's code, each exercise's runners and cases, a nonce)
as one line from the pipe ``TASK``, sets its per-process limits (the budget of all its
processes together is the parent's), runs the cells in a fresh namespace, each stopped
by its own alarm when the cells' time is up, then *observes* the student's functions,
each exercise within its own time: each runner
(:mod:`.runners`) on its cases, writing each observation, as JSON lines tagged with the
nonce, to the pipe ``RESULT``. It judges nothing and knows no answer: the cases carry
inputs only, the judges and references are not in its view (:mod:`.view`), and the
reference of an earlier step that an exercise builds on arrives on ``TASK`` only after
this process has reported the student's own version of that step. A function whose
evaluations are graded is the parent's: each evaluation is a request on ``RESULT``,
answered on ``TASK`` and counted by the parent.
"""

from __future__ import annotations

import builtins
import importlib
import json
import os
import sys
import time
import types
from typing import Any


def _limit(memory_mb: int, file_mb: int, processes: int | None) -> None:
    """Per-process limits: memory, file size, no core files, and (where the parent says
    how many the uid may run in all) processes. The budget for all of the submission's
    processes together is the parent's (a cgroup, or its meter)."""
    import resource  # POSIX only: the parent refuses to run elsewhere

    for name, megabytes in (("RLIMIT_AS", memory_mb), ("RLIMIT_FSIZE", file_mb)):
        limit = getattr(resource, name, None)
        if limit is not None:
            try:
                resource.setrlimit(limit, (megabytes << 20, megabytes << 20))
            except (ValueError, OSError):  # macOS does not enforce RLIMIT_AS
                pass
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if processes is not None and hasattr(resource, "RLIMIT_NPROC"):
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
        except (ValueError, OSError):
            pass


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error)[:200]}"


def _runner(entry: list) -> Any:
    """The runner named [module:function, None] or [module:factory, arguments]."""
    dotted, args = entry
    module, _, name = dotted.partition(":")
    if not module.startswith("micrograd_edu.grading.runners."):
        raise ValueError(f"not a runner: {dotted}")
    found = getattr(importlib.import_module(module), name)
    return found if args is None else found(*args)


def _reply(task: Any) -> dict[str, Any]:
    """The parent's answer to a request, read from the task pipe."""
    answer = json.loads(task.readline() or '{"refused": "the grader did not answer"}')
    if "refused" in answer:
        raise ValueError(answer["refused"])
    return answer


def _references(item: dict[str, Any], send: Any, task: Any) -> dict[str, Any]:
    """The references ``item`` builds on, asked of the parent once its steps are in."""
    send(event="requires", id=item["id"])
    sources = _reply(task)["sources"]
    scope: dict[str, Any] = {"__name__": "reference", "__builtins__": builtins}  # one for all:
    for _, source in sources.values():  # a reference may call another the exercise requires
        exec(compile("from __future__ import annotations\n" + source, "<reference>", "exec"), scope)
    return {name: scope[function] for name, (function, _) in sources.items()}


def main(task_fd: int, result_fd: int) -> None:
    task_pipe = os.fdopen(task_fd, "rb")
    task = json.loads(task_pipe.readline())
    _limit(task["memory_mb"], task["file_mb"], task["processes"])
    nonce, dumps, write = task.pop("nonce"), json.dumps, os.write

    def send(**message: Any) -> None:
        data = (dumps({"nonce": nonce, **message}) + "\n").encode()
        while data:
            data = data[write(result_fd, data) :]

    from . import feedback
    from .notebook import Shell
    from .registry import run_checks
    from .time_limit import TimeLimitExceeded, limited
    from .withhold import withholding

    feedback._SILENT = True  # a check(...) cell in the notebook costs nothing here
    # Entered for the child's whole life: the notebook's own imports get the stand-ins.
    withheld = {name for item in task["exercises"] for name in item["withheld"]}
    held = withholding(withheld)  # kept: a collected generator would restore everything
    held.__enter__()
    # A fresh __main__ as in Jupyter (pickle and dataclasses look classes up there), with
    # the display() IPython puts in a notebook's namespace; shown output goes nowhere here.
    main_module = types.ModuleType("__main__")
    sys.modules["__main__"] = main_module
    namespace = main_module.__dict__
    namespace.update(__builtins__=builtins, display=lambda *objects, **options: None)
    shell = Shell(namespace)
    namespace["get_ipython"] = lambda: shell  # what IPython's transformed lines call
    skip = set(task["skip_cells"])
    # The cells together get the time limit in CPU seconds, and a limit on the
    # wall clock, stopped here by alarms (the parent kills the process only if the code
    # keeps running past them): an endless loop costs its cell, and a busy machine, which
    # stretches the wall clock, does not turn honest work into a timeout.
    seconds, wall = task["seconds"], task["wall"]
    cpu_end, wall_end = time.process_time() + seconds, time.monotonic() + wall
    for index, code in enumerate(task["cells"]):
        if index in skip or not code.strip():
            continue
        send(event="cell", index=index)
        left = min(cpu_end - time.process_time(), wall_end - time.monotonic())
        if left <= 0:
            send(event="cell_error", index=index, error=f"not run: the cells used up {seconds:g} s")
            continue
        try:
            with limited(cpu_end - time.process_time(), wall_end - time.monotonic()):
                exec(compile(code, f"<code cell {index + 1}>", "exec"), namespace)
        except TimeLimitExceeded:
            cpu_end = 0.0  # used up: the cells after it are not run
            send(event="cell_error", index=index, error=f"ran past the {seconds:g} s time limit")
        except BaseException as error:  # sys.exit() too: Jupyter carries on after it
            send(event="cell_error", index=index, error=_describe(error))
    for item in task["exercises"]:
        send(event="exercise", id=item["id"])

        def ask(check: int, case: int, request: Any, exercise_id: str = item["id"]) -> Any:
            send(event="ask", id=exercise_id, check=check, case=case, request=request)
            return _reply(task_pipe)["answer"]

        try:
            with limited(seconds, wall):
                runs = [_runner(entry) for entry in item["runs"]]
                requires = _references(item, send, task_pipe) if item["requires"] else {}
                cases = item["cases"]
                observed = run_checks(item["names"], runs, namespace, cases, requires, ask)
        except TimeLimitExceeded:
            why = f"ran past the {seconds:g} s time limit"
            send(event="exercise_error", id=item["id"], error=why, limit=True)
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
