"""Helpers of the package tests: build, install, start, wait, stop."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def clean_env() -> dict[str, str]:
    """This process's environment without Python's and Jupyter's settings: the tests' own
    PYTHONPATH names this checkout, which would stand in for the wheel under test (pip too
    would take the checkout's egg-info for an installed micrograd_edu)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "PYTHON"))}


def run(*args, **kwargs) -> subprocess.CompletedProcess:
    """Run a command (in :func:`clean_env` unless given one); fail with its output when it
    fails."""
    kwargs.setdefault("env", clean_env())
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    if done.returncode:
        said = f"{done.stdout[-2000:]}{done.stderr[-3000:]}"
        pytest.fail(f"{' '.join(map(str, args))} failed:\n{said}")
    return done


def build(source: Path, out: Path) -> tuple[Path, Path]:
    """The source distribution and, built from it, the wheel (as ``python -m build`` makes
    them for PyPI)."""
    run(sys.executable, "-m", "build", "--outdir", out, source)
    [sdist] = out.glob("micrograd_edu-*.tar.gz")
    [wheel] = out.glob("micrograd_edu-*.whl")
    return sdist, wheel


def clone(folder: Path) -> Path:
    """A clone of this repository at its current commit (what is committed is what ships)."""
    head = run("git", "-C", ROOT, "rev-parse", "HEAD").stdout.strip()
    run("git", "clone", "--quiet", "--no-checkout", ROOT, folder)
    run("git", "-C", folder, "checkout", "--quiet", head)
    return folder


def environment(folder: Path, *requirements: str) -> Path:
    """A fresh virtual environment with ``requirements``; returns its bin/ folder."""
    run(sys.executable, "-m", "venv", folder)
    run(folder / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-compile",
        "--disable-pip-version-check", *requirements)  # fmt: skip
    return folder / "bin"


def private_env(home: Path, bin_folder: Path) -> dict[str, str]:
    """A student's shell: their own home (Jupyter's settings in it), the environment's
    commands first on PATH, and nothing of this checkout on PYTHONPATH."""
    home.mkdir(parents=True, exist_ok=True)
    env = clean_env()
    env.update(HOME=str(home), PATH=f"{bin_folder}{os.pathsep}{env['PATH']}")
    env.update(OPENBLAS_NUM_THREADS="1", PYTHONNOUSERSITE="1")
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_line(process: subprocess.Popen, log: Path, pattern: str, seconds: float = 180):
    """The first match of ``pattern`` in the process's log, waiting for it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text())
        if found:
            return found
        if process.poll() is not None:
            pytest.fail(f"exited early:\n{log.read_text()[-3000:]}")
        time.sleep(0.3)
    pytest.fail(f"no {pattern!r} within {seconds} s:\n{log.read_text()[-3000:]}")


def stop(process: subprocess.Popen) -> None:
    """Stop a process started in its own session, and everything it started."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
