"""``micrograd-edu course``: bring the student's workspace up to date and open it in
JupyterLab (or Notebook 7) on chapter 00.

One place says how the server starts, so ``make course``, the README and the browser
tests agree: the server's root is the workspace (lectures in ``notebooks/``, exercises in
``exercises/``, no solutions), and the URL it prints, the one a student copies from a
terminal, opens ``notebooks/00_welcome.ipynb`` with the file browser beside it. The
notebooks run on the environment's own ``python3`` kernel: no second kernel to choose.

>>> command("lab", port=9000, browser=False, root="course")[3:6]  # doctest: +NORMALIZE_WHITESPACE
['--LabApp.default_url=/lab/tree/notebooks/00_welcome.ipynb', '--port=9000',
 '--ServerApp.port_retries=0']
>>> first_url("notebook")
'/tree/notebooks/00_welcome.ipynb'
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .workspace import DEFAULT, FIRST, find_workspace, report, update

__all__ = ["first_url", "command", "workspace_folder", "main"]


def first_url(app: str = "lab") -> str:
    """The path, on the server, that opens chapter 00 in ``app`` ("lab" or "notebook")."""
    return f"/lab/tree/{FIRST}" if app == "lab" else f"/tree/{FIRST}"


def command(
    app: str = "lab", port: int | None = None, browser: bool = True, root: str | Path = "."
) -> list[str]:
    """The command that starts ``app`` on the workspace ``root``, as a list for
    ``subprocess``. With no ``port``, Jupyter takes 8888 or the next free one."""
    if app not in ("lab", "notebook"):
        raise ValueError(f"course: app must be 'lab' or 'notebook', got {app!r}")
    setting = "LabApp" if app == "lab" else "JupyterNotebookApp"
    args = [sys.executable, "-m", "jupyterlab" if app == "lab" else "notebook"]
    args.append(f"--{setting}.default_url={first_url(app)}")
    if port is not None:  # the port asked for, or a clear error: never another one
        args += [f"--port={port}", "--ServerApp.port_retries=0"]
    if not browser:
        args.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")  # Jupyter refuses root unless told; containers often are
    return args + [f"--ServerApp.root_dir={root}"]


def workspace_folder(folder: str | Path | None = None) -> Path:
    """The workspace to open: ``folder`` when given; else the one the current folder lies
    in (a student who runs the command again from inside it); else ``./micrograd-edu-course``."""
    if folder is not None:
        return Path(folder)
    return find_workspace(Path.cwd()) or Path.cwd() / DEFAULT


def main(
    folder: str | Path | None = None,
    app: str = "lab",
    port: int | None = None,
    browser: bool | None = None,
) -> int:
    """Update the workspace, then start the server in the foreground (Ctrl-C stops it)."""
    folder = workspace_folder(folder).resolve()
    changes = update(folder)
    print(report(folder, changes), flush=True)
    if browser is None:  # open a browser only where there is a screen to show it on
        browser = sys.platform != "linux" or bool(
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        )
    try:
        return subprocess.call(command(app, port, browser, folder), cwd=folder)
    except KeyboardInterrupt:
        return 0
