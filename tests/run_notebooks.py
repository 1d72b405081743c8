"""Run notebooks top to bottom on this Python's "python3" kernel, as a student would.

    python run_notebooks.py [--ipywidgets VERSION] NOTEBOOK...

Prints one JSON object: for each notebook, the error that stopped it (or null), what each
``check(...)`` cell reported, ``[exercise, score, max_score]``, and what the first code cell
printed (the install cell's message, if it installed the package). With ``--ipywidgets``
a last cell asserts that the kernel still runs that version. Tests run it with the Python of
another environment (ipywidgets 7's, a student's), so it imports nothing of the tests.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

SCORE = re.compile(r"^(\S+) \(.*\): (\S+)/(\S+) points", re.M)


def checks(nb: nbformat.NotebookNode) -> list[list]:
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "check(" not in cell.source:
            continue
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/plain", "") or output.get("text", "")
            for exercise, score, most in SCORE.findall(text):
                found.append([exercise, float(score), float(most)])
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ipywidgets")
    parser.add_argument("notebooks", nargs="+")
    args = parser.parse_args()
    results = {}
    for path in map(Path, args.notebooks):
        nb = nbformat.read(path, as_version=4)
        if args.ipywidgets:  # last, so that it runs after the notebook's install cell
            source = f"import ipywidgets\nassert ipywidgets.__version__ == {args.ipywidgets!r}"
            nb.cells.append(nbformat.v4.new_code_cell(source))
        client = NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": path.parent}}
        )
        try:
            client.execute()
            error = None
        except Exception as failure:  # the cell that stopped it, with its traceback
            error = f"{type(failure).__name__}: {failure}"[-3000:]
        first = next((c for c in nb.cells if c.cell_type == "code"), None)
        said = "".join(o.get("text", "") for o in (first.get("outputs", []) if first else []))
        results[str(path)] = {"error": error, "checks": checks(nb), "first_cell_said": said}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
