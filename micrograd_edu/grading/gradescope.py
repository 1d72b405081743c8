"""Gradescope: its ``results.json``, and the autograder zip (``micrograd-edu gradescope-bundle``).

Gradescope runs ``setup.sh`` once to build its image, then ``run_autograder`` on each
submission, on its own workers, so a class of any size is graded in parallel. The zip
carries this package's source, so the grader there is the grader here:
``run_autograder`` calls ``micrograd-edu grade --one-submission`` on the whole
submission, which finds the chapter's notebook among several, or inside a zip, and says
which file it graded (or why none: nothing handed in, another chapter's notebook).

Each check is one Gradescope test. Its visibility (``visible``, ``hidden``,
``after_due_date``, ``after_published``) comes from ``--visibility PATTERN=LEVEL`` rules,
matched in order against the test's name ("01.step_size: the step is near the best") or
its exercise's id, with shell wildcards; the first that matches decides. Gradescope
shows no total score while a test is hidden until the due date, but a ``hidden`` test
still counts in the total a student sees: use ``after_due_date`` for graded tests.

>>> level("01.step_size: near the best", [("01.step_size", "after_due_date")])
'after_due_date'
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import json
import os
import shlex
import stat
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import isolation
from .feedback import describe
from .intake import Document
from .record import version
from .registry import ExerciseResult, chapter

__all__ = [
    "bundle",
    "gradescope_results",
    "not_graded",
    "results_file",
    "check_scores",
    "level",
    "parse_rules",
    "VISIBILITY",
]

VISIBILITY = ("visible", "hidden", "after_due_date", "after_published")
Rules = Sequence[tuple[str, str]]


def parse_rules(texts: Sequence[str]) -> list[tuple[str, str]]:
    """``PATTERN=LEVEL`` rules, or an error naming the one that is not.

    >>> parse_rules(["01.*: *=hidden"])
    [('01.*: *', 'hidden')]
    """
    rules = []
    for text in texts:
        pattern, _, wanted = text.rpartition("=")
        if not pattern or wanted not in VISIBILITY:
            raise ValueError(
                f"--visibility {text!r}: write PATTERN=LEVEL, LEVEL one of {', '.join(VISIBILITY)}"
            )
        rules.append((pattern.strip(), wanted))
    return rules


def level(test: str, rules: Rules) -> str:
    """The visibility of the test named ``test`` ("exercise: check") under ``rules``."""
    exercise = test.split(": ", 1)[0]
    for pattern, wanted in rules:
        if fnmatch.fnmatchcase(test, pattern) or fnmatch.fnmatchcase(exercise, pattern):
            return wanted
    return "visible"


def check_scores(r: ExerciseResult) -> list[tuple[str, float, float]]:
    """(check name, score, max score) per check of ``r``, adding up to ``r.score``: a check
    that passed counts only where the exercise counted it (once its first check holds, or,
    graded all or nothing, once every check does)."""
    counted = abs(sum(c.score for c in r.checks) - r.score) < 1e-9
    return [(c.name, c.score if counted else 0.0, c.max_score) for c in r.checks]


def _tests(row: Any, rules: Rules) -> list[dict[str, Any]]:
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
            "visibility": level(name, rules),
        }
        for i, (name, score, most, passed, output) in enumerate(tests, start=1)
    ]


def gradescope_results(row: Any, run: str, rules: Rules = ()) -> dict[str, Any]:
    """One submission in Gradescope's ``results.json`` format (one test per check). The
    text for the whole submission says which file was graded and the notes about it (the
    other files, a cell that raised); an exercise's own reason is in its tests, shown as
    their visibility says."""
    summary = f"graded {row.submission}: {row.score:g}/{row.max_score:g} points (grader run {run})"
    if not row.sandboxed:
        summary += "; graded WITHOUT a sandbox (--no-sandbox)"
    elif row.isolation != isolation.BUBBLEWRAP:
        summary += f"; isolated as an {row.isolation}"
    extra = {"sandboxed": row.sandboxed, "isolation": row.isolation, "run": run}
    return {
        "score": row.score,
        "execution_time": round(row.seconds, 3),
        "output": "\n".join([summary, *row.notes]),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {**extra, "version": version()},
        "tests": _tests(row, rules),
    }


def not_graded(why: str) -> str:
    """Gradescope's ``results.json`` for a submission the grader refused to run."""
    output = (
        f"NOT GRADED: {why}. Nothing of this submission was run; the instructor will regrade it."
    )
    result = {"score": 0.0, "execution_time": 0.0, "output": output, "tests": []}
    result["extra_data"] = {"graded": False}
    return json.dumps(result, indent=1) + "\n"


def results_file(rows: Sequence[Any], run: str, rules: Rules = ()) -> str:
    """``results.json``'s text: Gradescope grades one submission per run; several become
    an object mapping each file's name to its result."""
    if len(rows) == 1:
        data: Any = gradescope_results(rows[0], run, rules)
    else:
        data = {row.submission: gradescope_results(row, run, rules) for row in rows}
    return json.dumps(data, indent=1) + "\n"


def nothing_handed_in(paths: Sequence[str | Path]) -> Document:
    """The row-to-be of a submission that holds no notebook, naming what it does hold."""
    held: list[str] = []
    for given in map(Path, paths):
        for folder, dirs, files in os.walk(given):  # never into a linked folder
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            where = Path(folder).relative_to(given)
            held += [(where / f).as_posix() for f in sorted(files) if not f.startswith(".")]
    first = Path(paths[0]) if paths else Path(".")
    what = f"it holds {', '.join(held[:10])}{' ...' if len(held) > 10 else ''}"
    what = what if held else "it is empty"
    why = (
        f"no notebook (.ipynb file) was handed in: {what}. Upload the chapter's notebook itself "
        "(in Jupyter: File > Download), or a zip that holds it"
    )
    return Document("(no notebook)", first, root=first, error=why)


# --- the autograder zip ------------------------------------------------------------

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, to build the autograder's image. Its default image
# is Ubuntu 22.04, whose python3 is 3.10; the package needs Python 3.11 or newer. Where
# the image has none, uv (from PyPI) installs a standalone CPython 3.11 into a folder
# every user can read (the grader may run submissions as an unprivileged user).
set -euo pipefail
root=${AUTOGRADER:-/autograder}
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq python3 python3-pip python3-venv bubblewrap util-linux \\
    ca-certificates >/dev/null
python=""
for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        python=$(command -v "$candidate")
        break
    fi
done
if [ -z "$python" ]; then
    python3 -m pip install --quiet uv
    export UV_PYTHON_INSTALL_DIR=${UV_PYTHON_INSTALL_DIR:-/opt/micrograd-python}
    python3 -m uv python install 3.11
    python=$(python3 -m uv python find 3.11)
    chmod -R a+rX "$UV_PYTHON_INSTALL_DIR"
fi
echo "setup.sh: the grader runs on $("$python" --version) ($python)"
"$python" -m venv "$root/venv"
"$root/venv/bin/python" -m pip install --quiet --upgrade pip
# Editable: the grader's references (grading/references) are left out of a built wheel.
# scikit-learn: chapter 10's grader draws its cases from the handwritten digits.
"$root/venv/bin/python" -m pip install --quiet -e "$root/source/package" scikit-learn
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission, as root; it writes results/results.json.
set -uo pipefail
root="${{AUTOGRADER:-/autograder}}"  # another folder only in the package's own tests
cd "$root"  # python -m imports from the current folder first
# Each submission runs in bubblewrap where it can; Docker's seccomp profile usually forbids
# it, and then it runs as an unprivileged user, which must neither read the grader's judges,
# references and libraries nor write anything the grader loads: close their folders.
chmod go-rwx "$root/source" "$root/venv"
# Never unsandboxed: with neither, grade writes a results.json saying why it did not grade.
# The whole submission: the chapter's notebook is found among several files or in a zip,
# and results.json says which file was graded (or why none could be: nothing handed in,
# another chapter's notebook), always with a score.
mkdir -p "$root/results"
"$root/venv/bin/python" -m micrograd_edu.course.cli grade "$root/submission" --one-submission \\
    --chapter {chapter} --workers 1 --isolation auto \\
    --gradescope "$root/results/results.json"{options}
status=$?
if [ ! -s "$root/results/results.json" ]; then  # the grader itself failed: say so, score 0
    echo '{{"score": 0, "output": "The autograder failed on this submission (not a verdict on \
your work): ask your instructor, who sees its output."}}' > "$root/results/results.json"
fi
exit "$status"
"""


def _pyproject() -> str:
    # The checkout's own pyproject when there is one; else one built from the installed metadata.
    here = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if here.is_file():
        return here.read_text(encoding="utf-8")
    meta = importlib.metadata.metadata("micrograd_edu")
    requires = [r for r in importlib.metadata.requires("micrograd_edu") or [] if "extra" not in r]
    return (
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "micrograd_edu"\nversion = "{meta["Version"]}"\n'
        f"dependencies = {requires!r}\n\n"
        '[project.scripts]\nmicrograd-edu = "micrograd_edu.course.cli:main"\n\n'
        '[tool.setuptools.packages.find]\ninclude = ["micrograd_edu*"]\n'
    ).replace("'", '"')


def _script(zf: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFREG | 0o755) << 16  # executable, as Gradescope requires
    zf.writestr(info, text)


def bundle(
    chapter_number: str,
    out: str | Path,
    rules: Rules = (),
    checks: Sequence[Path] = (),
) -> Path:
    """Write the autograder zip for ``chapter_number`` ("01") to ``out``; return its path.
    ``rules``: the tests' visibility; ``checks``: an instructor's check files for the
    chapter (:mod:`.instructor`), graded there as here."""
    chapter(chapter_number)  # a clear KeyError when the chapter has no exercises
    out = Path(out)
    package = Path(__file__).resolve().parents[1]
    options = "".join(f" \\\n    --visibility {shlex.quote(f'{p}={v}')}" for p, v in rules)
    if checks:
        options += ' \\\n    --solutions "$root/source/checks"'
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        _script(zf, "setup.sh", SETUP)
        _script(zf, "run_autograder", RUN.format(chapter=chapter_number, options=options))
        zf.writestr("package/pyproject.toml", _pyproject())
        readme = package.parent / "README.md"  # the checkout's pyproject names it
        zf.writestr("package/README.md", readme.read_text("utf-8") if readme.is_file() else "")
        for path in sorted(package.rglob("*.py")):
            zf.write(path, f"package/micrograd_edu/{path.relative_to(package).as_posix()}")
        for path in checks:
            zf.write(path, f"checks/{path.name}")
    return out
