"""The widget lectures under ipywidgets 7.8.5, Colab's (test_notebook_runs.py runs them under 8).

A second environment costs little: a venv without pip that sees this environment's
packages through a ``.pth`` file and holds only ipywidgets 7.8.5 and its three small
dependencies of its own, which come first on its path. It is made once, kept in this
environment's folder (``ipywidgets7/``, about 10 s to make) and reused. Each lecture then
runs top to bottom on a kernel of that Python (about 20 s for the four).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # a second environment and four lectures: start it first

ROOT = Path(__file__).resolve().parents[1]
VERSION = "7.8.5"
#: The lectures that show widgets: 01's h slider, 04's animation, 08's descent panel,
#: 09's training panel.
LECTURES = ["01_numerical", "04_reverse", "08_modules", "09_mlp"]


def _make(folder: Path) -> Path:
    python = folder / "bin" / "python"
    stamp = folder / f".ready-{VERSION}"
    if stamp.is_file() and stamp.read_text() == sys.prefix:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", "--without-pip", folder], check=True)
    target = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # addsitedir, not a plain path: this environment's own .pth files (the editable install
    # of this checkout) must run too.
    here = sysconfig.get_paths()["purelib"]
    Path(target, "course_environment.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
         "--disable-pip-version-check", f"ipywidgets=={VERSION}"],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode:
        message = f"cannot install ipywidgets {VERSION}: {done.stderr[-1500:]}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    stamp.write_text(sys.prefix)
    return python


@pytest.fixture(scope="module")
def python7() -> Path:
    return _make(Path(sys.prefix) / "ipywidgets7")


def _kernel_spec(python: Path, folder: Path) -> dict[str, str]:
    """An environment whose only "python3" kernel runs ``python``."""
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "ipywidgets 7"}))
    env = dict(os.environ, JUPYTER_PATH=str(folder), OPENBLAS_NUM_THREADS="1")
    env["JUPYTER_DATA_DIR"] = env["JUPYTER_RUNTIME_DIR"] = str(folder / "data")
    return env


def test_the_widget_lectures_run_under_ipywidgets_7(python7, tmp_path):
    paths = [ROOT / "notebooks" / f"{name}.ipynb" for name in LECTURES]
    done = subprocess.run(
        [python7, ROOT / "tests" / "run_notebooks.py", "--ipywidgets", VERSION, *paths],
        capture_output=True, text=True, env=_kernel_spec(python7, tmp_path), timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    failures = {path: r["error"] for path, r in results.items() if r["error"]}
    assert len(results) == 4
    assert not failures, "\n\n".join(f"{path}:\n{error}" for path, error in failures.items())


DOCTOR = textwrap.dedent(
    """
    import json
    from micrograd_edu.course import doctor
    from micrograd_edu.viz import widgets

    found = {"shipped": doctor._check_widgets()}
    # the delegation that crashed on ipywidgets 7, planted back
    widgets.widget_bundle = lambda w, i=None, e=None: w._repr_mimebundle_(include=i, exclude=e)
    found["planted"] = doctor._check_widgets()
    print(json.dumps({k: [f.ok, f.detail] for k, f in found.items()}))
    """
)


def test_doctor_answers_no_where_a_widget_would_crash_on_ipywidgets_7(python7):
    done = subprocess.run([python7, "-c", DOCTOR], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    ok, detail = found["shipped"]
    assert ok and f"ipywidgets {VERSION}" in detail, detail
    ok, detail = found["planted"]
    assert not ok and "'VBox' object has no attribute '_repr_mimebundle_'" in detail, detail
