"""``micrograd-edu gradescope-bundle CHAPTER``: the autograder zip for Gradescope.

Gradescope runs ``setup.sh`` once to build its image, then ``run_autograder``
on each submission, on its own workers, so a class of any size is graded in
parallel. The zip carries this package's source, so the grader there is the
grader here, and ``run_autograder`` calls the same ``micrograd-edu grade``.
"""

from __future__ import annotations

import importlib.metadata
import zipfile
from pathlib import Path

from .registry import chapter

__all__ = ["bundle"]

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, to build the autograder image.
set -euo pipefail
apt-get update -qq
apt-get install -y -qq python3 python3-pip python3-venv bubblewrap util-linux >/dev/null
python3 -m venv /autograder/venv
# Editable: the grader's references (grading/references) are left out of a built wheel.
# scikit-learn: chapter 10's grader draws its cases from the handwritten digits.
/autograder/venv/bin/pip install --quiet -e /autograder/source/package scikit-learn
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission, as root; it writes results/results.json.
set -uo pipefail
root="${{AUTOGRADER:-/autograder}}"  # another folder only in the package's own tests
cd "$root"  # python -m imports from the current folder first
notebook=$(ls "$root"/submission/*.ipynb 2>/dev/null | head -n 1)
# Each submission runs in bubblewrap where it can; Docker's seccomp profile usually forbids
# it, and then it runs as an unprivileged user, which must neither read the grader's judges,
# references and libraries nor write anything the grader loads: close their folders.
chmod go-rwx "$root/source" "$root/venv"
# Never unsandboxed: with neither, grade writes a results.json saying why it did not grade.
# No notebook at all still gets a results.json: a missing file grades as 0 with the reason.
"$root/venv/bin/python" -m micrograd_edu.course.cli grade \\
    "${{notebook:-$root/submission/missing.ipynb}}" --chapter {chapter} --workers 1 \\
    --isolation auto --gradescope "$root/results/results.json"
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


def bundle(chapter_number: str, out: str | Path) -> Path:
    """Write the autograder zip for ``chapter_number`` ("01") to ``out``; return its path."""
    chapter(chapter_number)  # a clear KeyError when the chapter has no exercises
    out = Path(out)
    package = Path(__file__).resolve().parents[1]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in (
            ("setup.sh", SETUP),
            ("run_autograder", RUN.format(chapter=chapter_number)),
        ):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16  # executable, as Gradescope requires
            zf.writestr(info, text)
        zf.writestr("package/pyproject.toml", _pyproject())
        readme = package.parent / "README.md"  # the checkout's pyproject names it
        zf.writestr("package/README.md", readme.read_text("utf-8") if readme.is_file() else "")
        for path in sorted(package.rglob("*.py")):
            zf.write(path, f"package/micrograd_edu/{path.relative_to(package).as_posix()}")
    return out
