"""``micrograd-edu course``: open the course in JupyterLab (or Notebook 7) on chapter 00.

One place says how the server starts, so ``make course``, the README and the browser
test agree: the server's root is the repository (``exercises/`` is one click away),
and the URL it prints, the one a student copies from a terminal, opens
``notebooks/00_welcome.ipynb`` with the file browser in ``notebooks/``. The notebooks
run on the environment's own ``python3`` kernel: no second kernel to choose from.

>>> command("lab", port=9000, browser=False)[3:5]
['--LabApp.default_url=/lab/tree/notebooks/00_welcome.ipynb', '--port=9000']
>>> first_url("notebook")
'/tree/notebooks/00_welcome.ipynb'
"""

from __future__ import annotations

import os
import subprocess
import sys

__all__ = ["FIRST", "first_url", "command", "main"]

FIRST = "notebooks/00_welcome.ipynb"


def first_url(app: str = "lab") -> str:
    """The path, on the server, that opens chapter 00 in ``app`` ("lab" or "notebook")."""
    return f"/lab/tree/{FIRST}" if app == "lab" else f"/tree/{FIRST}"


def command(app: str = "lab", port: int = 8888, browser: bool = True, root: str = ".") -> list:
    """The command that starts ``app`` on the course, as a list for ``subprocess``."""
    if app not in ("lab", "notebook"):
        raise ValueError(f"course: app must be 'lab' or 'notebook', got {app!r}")
    setting = "LabApp" if app == "lab" else "JupyterNotebookApp"
    args = [sys.executable, "-m", "jupyterlab" if app == "lab" else "notebook"]
    args += [f"--{setting}.default_url={first_url(app)}", f"--port={port}"]
    args += ["--ServerApp.port_retries=0"]
    if not browser:
        args.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")  # Jupyter refuses root unless told; containers often are
    return args + [f"--ServerApp.root_dir={root}"]


def main(app: str = "lab", port: int = 8888, browser: bool | None = None) -> int:
    """Start the server in the foreground (Ctrl-C stops it)."""
    if browser is None:  # open a browser only where there is a screen to show it on
        browser = sys.platform != "linux" or bool(
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        )
    try:
        return subprocess.call(command(app, port, browser))
    except KeyboardInterrupt:
        return 0
