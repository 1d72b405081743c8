"""A batch of submissions into a gradebook: CSV and Gradescope's ``results.json``.

Rows are written as they finish, each time to a temporary file renamed over the
gradebook, so an interrupted batch keeps every finished row and a submission
that writes to the same path is simply overwritten by the next row.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import isolation
from .batch import Limits, Row, grade_submission, require_posix
from .feedback import describe
from .judging import judges
from .notebook import NotebookError, code_cells, read_notebook
from .registry import EXERCISES, Exercise, ExerciseResult, broken, chapter
from .steps import require_references

__all__ = ["grade_all", "find_submissions", "gradescope_results", "not_graded", "write_csv"]


def find_submissions(paths: Sequence[str | Path]) -> list[Path]:
    """Notebooks named by ``paths``; a folder stands for the notebooks inside it."""
    found: list[Path] = []
    for path in map(Path, paths):
        found += sorted(path.glob("*.ipynb")) if path.is_dir() else [path]
    return found


def _defined_names(path: Path) -> set[str]:
    """The names a notebook's code defines at its top level (functions, classes, variables)."""
    names: set[str] = set()
    for source in code_cells(read_notebook(path)):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def chapter_of(path: Path) -> tuple[str | None, str]:
    """A notebook's chapter, from the names it defines: the chapter most of whose exercises'
    functions it defines; and a note when the notebook's metadata (which a student can
    edit) names another chapter, or the names cannot decide."""
    try:
        defined = _defined_names(path)
        meta = read_notebook(path).get("metadata", {}).get("micrograd_edu", {})
    except NotebookError:
        return None, ""
    claimed = meta.get("chapter") if isinstance(meta, dict) else None
    matches: dict[str, int] = {}
    for ex in EXERCISES.values():
        matches[ex.chapter] = matches.get(ex.chapter, 0) + len(defined & set(ex.names))
    best = max(matches.values(), default=0)
    leaders = sorted(c for c, n in matches.items() if n == best and best > 0)
    if len(leaders) == 1:
        found = leaders[0]
        if isinstance(claimed, str) and claimed != found:
            return found, (
                f"graded as chapter {found}, whose exercises' functions it defines; its "
                f"metadata says chapter {claimed}"
            )
        return found, ""
    if leaders:
        return None, f"it defines the functions of chapters {', '.join(leaders)} alike"
    return None, ""


def _exercises(path: Path, number: str | None) -> tuple[list[Exercise], str]:
    note = ""
    if not number:
        number, note = chapter_of(path)
    try:
        return (chapter(number) if number else []), note
    except KeyError:
        return [], note


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
    per_check: bool = False,
) -> list[Row]:
    """Grade every submission in ``paths``; write the gradebook as rows finish."""
    require_posix()
    limits = limits or Limits()
    limits = replace(limits, isolation=isolation.choose(limits.isolation))
    require_references()
    run = secrets.token_hex(4)
    seed = seed if seed is not None else secrets.token_hex(16)  # never seen by a notebook
    submissions = find_submissions(paths)
    rows: dict[int, Row] = {}

    def save() -> None:
        done = [rows[i] for i in sorted(rows)]
        if csv_path:
            _replace(csv_path, write_csv(done, run, per_check))
        if gradescope_path:
            _replace(gradescope_path, json.dumps(_gradescope_file(done, run), indent=1) + "\n")

    with (
        judges(seconds=limits.timeout) as judging,
        ThreadPoolExecutor(max_workers=max(1, workers)) as pool,
    ):
        plans = [(path, *_exercises(path, chapter_number)) for path in submissions]
        futures = {
            pool.submit(grade_submission, path, exercises, seed, limits, judging): i
            for i, (path, exercises, _) in enumerate(plans)
        }
        try:
            for finished, future in enumerate(as_completed(futures), start=1):
                rows[futures[future]] = _row(future, *plans[futures[future]], limits.isolation)
                save()
                if progress:
                    progress(finished, len(submissions))
        except BaseException:  # Ctrl-C: the rows saved so far stay; start no more
            for future in futures:
                future.cancel()
            raise
    return [rows[i] for i in sorted(rows)]


def _row(future: Any, path: Path, exercises: list[Exercise], note: str, isolated: str) -> Row:
    if not exercises:
        why = "cannot tell which chapter this notebook is for: pass --chapter"
        return Row(path.name, [], [f"{why} ({note})" if note else why], 0.0, isolated)
    try:
        row = future.result()
    except Exception as error:  # a fault in the grader itself must not lose the batch
        why = f"the grader failed on this file: {error!r}"
        row = Row(path.name, [broken(ex, why) for ex in exercises], [why], 0.0, isolated)
    if note:
        row.notes.insert(0, note)
    return row


def _replace(path: str | Path, text: str) -> None:
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def check_scores(r: ExerciseResult) -> list[tuple[str, float, float]]:
    """(check name, score, max score) per check of ``r``, adding up to ``r.score``: a check
    that passed counts only where the exercise counted it (once its first check holds, or,
    graded all or nothing, once every check does)."""
    counted = abs(sum(c.score for c in r.checks) - r.score) < 1e-9
    return [(c.name, c.score if counted else 0.0, c.max_score) for c in r.checks]


def write_csv(rows: Sequence[Row], run: str, per_check: bool = False) -> str:
    """The gradebook as CSV text: one row per submission, one column per exercise (and,
    ``per_check``, one per check after it, named "exercise: check")."""
    ids = [i for i in EXERCISES if any(r.id == i for row in rows for r in row.results)]
    columns = []
    for i in ids:
        columns.append(i)
        if per_check:
            columns += [f"{i}: {check.name}" for check in EXERCISES[i].checks]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["submission", "score", "max_score", *columns, "reason", "run", "sandboxed"])
    for row in rows:
        scores = {}
        for r in row.results:
            scores[r.id] = f"{r.score:g}"
            for name, score, _ in check_scores(r):
                scores[f"{r.id}: {name}"] = f"{score:g}"
        writer.writerow(
            [row.submission, f"{row.score:g}", f"{row.max_score:g}"]
            + [scores.get(c, "") for c in columns]
            + [row.reason, run, row.isolation]
        )
    return out.getvalue()


def _tests(row: Row) -> list[dict[str, Any]]:
    """Gradescope's tests: one per check, with its own score and its line of the report;
    an exercise that stopped before its checks (missing, broken) is one test."""
    tests = []
    for r in row.results:
        if not r.checks:
            tests.append((f"{r.id}: {r.title}", r.score, r.max_score, r.passed, describe(r)))
            continue
        lines = describe(r)
        for (name, score, most), c, line in zip(check_scores(r), r.checks, lines, strict=True):
            tests.append((f"{r.id}: {name}", score, most, c.passed, [line]))
    return [
        {
            "name": name,
            "number": str(i),
            "score": score,
            "max_score": most,
            "status": "passed" if passed else "failed",
            "output": "\n".join(output),
            "visibility": "visible",
        }
        for i, (name, score, most, passed, output) in enumerate(tests, start=1)
    ]


def gradescope_results(row: Row, run: str) -> dict[str, Any]:
    """One submission in Gradescope's ``results.json`` format (one test per check)."""
    summary = f"{row.submission}: {row.score:g}/{row.max_score:g} points (grader run {run})"
    if not row.sandboxed:
        summary += "; graded WITHOUT a sandbox (--no-sandbox)"
    elif row.isolation != isolation.BUBBLEWRAP:
        summary += f"; isolated as an {row.isolation}"
    return {
        "score": row.score,
        "execution_time": round(row.seconds, 3),
        "output": "\n".join([summary, row.reason] if row.reason else [summary]),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"sandboxed": row.sandboxed, "isolation": row.isolation, "run": run},
        "tests": _tests(row),
    }


def not_graded(why: str) -> str:
    """Gradescope's ``results.json`` for a submission the grader refused to run."""
    output = (
        f"NOT GRADED: {why}. Nothing of this submission was run; the instructor will regrade it."
    )
    result = {"score": 0.0, "execution_time": 0.0, "output": output, "tests": []}
    result["extra_data"] = {"graded": False}
    return json.dumps(result, indent=1) + "\n"


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
