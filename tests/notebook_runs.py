"""Each notebook run once per test process, top to bottom in a Jupyter kernel as a student
runs it (a cell that raises does not stop the next); every test that needs the run shares
it. Under xdist the tests of one notebook share a group (``xdist_group``), so one worker
runs it.

A notebook of a chapter (a solution, an exercise, a fixture) gets one more cell at the end:
``check(...)`` for each exercise of the chapter, as the notebook's own check cells call it,
and, when asked, the same judgement on cases of another seed; it prints them as JSON.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

ROOT = Path(__file__).resolve().parents[1]

# Without a time limit: a busy machine must not turn a verdict into a timeout. The other
# seed's judgement is check()'s (public cases drawn, library code withheld, observed,
# judged) on the cases of that seed.
REPORT = """
import json
from micrograd_edu.grading import chapter, check
from micrograd_edu.grading.registry import draw_cases, judge, observe
from micrograd_edu.grading.withhold import withholding

def _verdict(result):
    return [[c.name, c.passed, round(c.score, 6), c.hint] for c in result.checks]

def _on_seed(ex, seed):
    cases = draw_cases(ex, seed)
    with withholding(ex.withheld, globals()):
        observed = observe(ex, globals(), cases)
    return judge(ex, cases, observed)

_report = {"public": {}, "other": {}}
for _ex in chapter(NUMBER):
    _report["public"][_ex.id] = _verdict(check(_ex.id, time_limit=None).result)
    if OTHER_SEED:
        _report["other"][_ex.id] = _verdict(_on_seed(_ex, OTHER_SEED))
print(json.dumps(_report))
"""

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Run:
    """What one run of a notebook left: the notebook with its outputs, the error of each
    of its cells that raised (``raises-exception`` cells aside), and for a chapter's, the
    report, or what its cell printed instead."""

    path: Path
    notebook: nbformat.NotebookNode
    errors: list[str] = field(default_factory=list)
    report: dict | None = None
    no_report: str = ""


def run(path: Path, chapter: str | None = None, other_seed: str | None = None) -> Run:
    """The run of ``path`` (shared: the first call runs it). ``chapter``: add the report
    cell for that chapter's exercises; ``other_seed``: judge them on that seed too."""
    return _run(Path(path).resolve(), chapter, other_seed)


@functools.cache
def _run(path: Path, chapter: str | None, other_seed: str | None) -> Run:
    nb = nbformat.read(path, as_version=4)
    if chapter:
        source = REPORT.replace("NUMBER", repr(chapter)).replace("OTHER_SEED", repr(other_seed))
        nb.cells.append(nbformat.v4.new_code_cell(source))
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )  # fmt: skip
    done = Run(path, nb)
    try:
        client.execute()
    except (DeadKernelError, CellTimeoutError) as stopped:  # no later cell ran
        done.errors.append(f"the run stopped: {type(stopped).__name__}: {stopped}")
    own = nb.cells[:-1] if chapter else nb.cells
    for cell in own:
        if cell.cell_type != "code" or "raises-exception" in cell.metadata.get("tags", []):
            continue
        done.errors += [_error(cell, out) for out in cell.outputs if out.output_type == "error"]
    if chapter:
        outputs = nb.cells[-1].get("outputs", [])
        # a busy kernel may split one print into several stream messages: join them
        printed = "".join(o["text"] for o in outputs if o.get("name") == "stdout").strip()
        if printed:
            done.report = json.loads(printed.splitlines()[-1])
        else:
            done.no_report = "\n".join(_error(nb.cells[-1], o) for o in outputs) or "nothing"
    return done


def _error(cell: nbformat.NotebookNode, out: nbformat.NotebookNode) -> str:
    """What ``out`` of ``cell`` says: the error and its traceback, or the output itself."""
    first = (cell.source.strip().splitlines() or [""])[0]
    where = f"the cell [{cell.get('execution_count')}] {first!r}"
    if out.get("output_type") != "error":
        return f"{where} showed {out}"[:3000]
    trace = _ANSI.sub("", "\n".join(out.traceback))[-3000:]
    return f"{where} raised {out.ename}: {out.evalue}\n{trace}"


def label(path: Path) -> str:
    """``solutions/04_reverse``: a notebook's folder and name, as test ids show it."""
    return f"{path.parent.name}/{path.stem}"
