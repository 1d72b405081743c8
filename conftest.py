"""Shared pytest setup: the kernels the tests start must import this checkout.

A kernel runs in its notebook's folder, so a relative ``PYTHONPATH=.`` (how the
tests are run without installing the package) would point it at
``notebooks/`` or ``solutions/``; put the repository root first, absolutely.
"""

import os
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent)
_PATH = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
os.environ["PYTHONPATH"] = os.pathsep.join([_ROOT, *_PATH])
