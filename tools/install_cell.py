"""Give every notebook of the course its install cell, the first code cell: on Colab, or
wherever the package is missing, it installs micrograd-edu (quietly, saying so); where the
package is there it does nothing.

    python tools/install_cell.py     # notebooks/ and solutions/, then exercises/ by release

It edits the lectures (notebooks/) and the instructor's notebooks (solutions/) in place,
adding the cell after the title, or bringing an older one up to date, and leaving a
notebook that has it as it is; then it writes exercises/ from solutions/ as ``micrograd-edu
release`` does. Run it again after adding a notebook; tests/test_install_cell.py says when
one lacks the cell.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL_ID = "install-course"
SOURCE = """\
import importlib.util

if importlib.util.find_spec("micrograd_edu") is None:  # on Colab, say: install the course
    print("Installing micrograd-edu, the course's package (about a minute)...")
    %pip install --quiet micrograd-edu"""


def install_cell() -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": CELL_ID,
        "metadata": {},
        "outputs": [],
        "source": SOURCE.splitlines(keepends=True),
    }


def with_install_cell(notebook: dict) -> dict:
    """``notebook`` with the install cell as its first code cell (nothing else changes)."""
    cells = [c for c in notebook["cells"] if c.get("id") != CELL_ID]
    first_code = next((i for i, c in enumerate(cells) if c["cell_type"] == "code"), len(cells))
    return dict(notebook, cells=[*cells[:first_code], install_cell(), *cells[first_code:]])


def main() -> int:
    for folder in ("notebooks", "solutions"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            notebook = json.loads(path.read_text(encoding="utf-8"))
            updated = with_install_cell(notebook)
            if updated != notebook:
                text = json.dumps(updated, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
                path.write_text(text, encoding="utf-8")
                print(f"install cell: {path.relative_to(ROOT)}")
    release = [sys.executable, "-m", "micrograd_edu.course.cli", "release"]
    return subprocess.call(release, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
