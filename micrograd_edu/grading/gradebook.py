"""A batch of submissions into a gradebook: CSV and Gradescope's ``results.json``.

Rows are written as they finish, each time to a temporary file renamed over the
gradebook, so an interrupted batch keeps every finished row and a submission
that writes to the same path is simply overwritten by the next row.
"""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from . import sandbox
from .batch import Limits, Row, grade_submission, require_posix
from .feedback import describe
from .notebook import NotebookError, read_notebook
from .registry import EXERCISES, Exercise, broken, chapter

__all__ = ["grade_all", "find_submissions", "gradescope_results", "write_csv"]


def find_submissions(paths: Sequence[str | Path]) -> list[Path]:
    """Notebooks named by ``paths``; a folder stands for the notebooks inside it."""
    found: list[Path] = []
    for path in map(Path, paths):
        found += sorted(path.glob("*.ipynb")) if path.is_dir() else [path]
    return found


def chapter_of(path: Path) -> str | None:
    """A notebook's chapter: its ``micrograd_edu.chapter`` metadata, else its name's prefix."""
    try:
        meta = read_notebook(path).get("metadata", {}).get("micrograd_edu", {})
        if isinstance(meta, dict) and isinstance(meta.get("chapter"), str):
            return meta["chapter"]
    except NotebookError:
        pass
    prefix = path.name[:2]
    return prefix if prefix.isdigit() else None


def _exercises(path: Path, number: str | None) -> list[Exercise]:
    number = number or chapter_of(path)
    try:
        return chapter(number) if number else []
    except KeyError:
        return []


def grade_all(
    paths: Sequence[str | Path],
    *,
    chapter_number: str | None = None,
    csv_path: str | Path | None = None,
    gradescope_path: str | Path | None = None,
    workers: int = 2,
    limits: Limits | None = None,
    seed: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Row]:
    """Grade every submission in ``paths``; write the gradebook as rows finish."""
    require_posix()
    limits = limits or Limits()
    if limits.sandbox:
        why = sandbox.available()
        if why:
            raise sandbox.SandboxUnavailable(f"grade: cannot sandbox submissions: {why}")
    run = secrets.token_hex(4)
    seed = seed if seed is not None else secrets.token_hex(16)  # never seen by a notebook
    submissions = find_submissions(paths)
    rows: dict[int, Row] = {}

    def save() -> None:
        done = [rows[i] for i in sorted(rows)]
        if csv_path:
            _replace(csv_path, write_csv(done, run))
        if gradescope_path:
            _replace(gradescope_path, json.dumps(_gradescope_file(done, run), indent=1) + "\n")

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        plans = [(path, _exercises(path, chapter_number)) for path in submissions]
        futures = {
            pool.submit(grade_submission, path, exercises, seed, limits): i
            for i, (path, exercises) in enumerate(plans)
        }
        try:
            for finished, future in enumerate(as_completed(futures), start=1):
                rows[futures[future]] = _row(future, *plans[futures[future]], limits.sandbox)
                save()
                if progress:
                    progress(finished, len(submissions))
        except BaseException:  # Ctrl-C: the rows saved so far stay; start no more
            for future in futures:
                future.cancel()
            raise
    return [rows[i] for i in sorted(rows)]


def _row(future: Any, path: Path, exercises: list[Exercise], sandboxed: bool) -> Row:
    if not exercises:
        why = "cannot tell which chapter this notebook is for: pass --chapter"
        return Row(path.name, [], [why], 0.0, sandboxed)
    try:
        return future.result()
    except Exception as error:  # a fault in the grader itself must not lose the batch
        why = f"the grader failed on this file: {error!r}"
        return Row(path.name, [broken(ex, why) for ex in exercises], [why], 0.0, sandboxed)


def _replace(path: str | Path, text: str) -> None:
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_csv(rows: Sequence[Row], run: str) -> str:
    """The gradebook as CSV text: one row per submission, one column per exercise."""
    ids = [i for i in EXERCISES if any(r.id == i for row in rows for r in row.results)]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["submission", "score", "max_score", *ids, "reason", "run", "sandboxed"])
    for row in rows:
        scores = {r.id: f"{r.score:g}" for r in row.results}
        writer.writerow(
            [row.submission, f"{row.score:g}", f"{row.max_score:g}"]
            + [scores.get(i, "") for i in ids]
            + [row.reason, run, "yes" if row.sandboxed else "no (--no-sandbox)"]
        )
    return out.getvalue()


def gradescope_results(row: Row, run: str) -> dict[str, Any]:
    """One submission in Gradescope's ``results.json`` format (one test per exercise)."""
    summary = f"{row.submission}: {row.score:g}/{row.max_score:g} points (grader run {run})"
    if not row.sandboxed:
        summary += "; graded WITHOUT a sandbox (--no-sandbox)"
    return {
        "score": row.score,
        "execution_time": round(row.seconds, 3),
        "output": "\n".join([summary, row.reason] if row.reason else [summary]),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"sandboxed": row.sandboxed, "run": run},
        "tests": [
            {
                "name": f"{r.id}: {r.title}",
                "number": str(i),
                "score": r.score,
                "max_score": r.max_score,
                "status": "passed" if r.passed else "failed",
                "output": "\n".join(describe(r)),
                "visibility": "visible",
            }
            for i, r in enumerate(row.results, start=1)
        ],
    }


def _gradescope_file(rows: Sequence[Row], run: str) -> dict[str, Any]:
    # Gradescope grades one submission per run; several become a map of such objects.
    if len(rows) == 1:
        return gradescope_results(rows[0], run)
    return {row.submission: gradescope_results(row, run) for row in rows}


def progress_bar(done: int, total: int) -> None:
    """A one-line progress bar on stderr."""
    width = 30
    filled = width * done // max(total, 1)
    end = "\n" if done == total or not sys.stderr.isatty() else ""
    print(
        f"\rgrading [{'#' * filled}{'.' * (width - filled)}] {done}/{total}",
        end=end,
        file=sys.stderr,
        flush=True,
    )
