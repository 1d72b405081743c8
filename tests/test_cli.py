import json
import subprocess
import sys

from micrograd_edu import doctor
from micrograd_edu.course import doctor as checks  # noqa: E402
from micrograd_edu.course.cli import main


def test_doctor_reports_every_check_with_a_fix_when_missing():
    report = doctor()
    names = [f.name for f in report]
    assert names[:4] == ["python", "environment", "numpy", "matplotlib"]
    assert all(f.fix for f in report if not f.ok)
    assert "<table>" in report._repr_html_()


def test_doctor_command_prints_the_report(capsys):
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert "python" in out and "numpy" in out
    assert code in (0, 1)


def test_console_entry_point_runs():
    done = subprocess.run(
        [sys.executable, "-m", "micrograd_edu.course.cli", "doctor"], capture_output=True, text=True
    )
    assert "numpy" in done.stdout


def test_doctor_starts_the_notebooks_kernel_and_it_imports_the_package():
    kernel = checks._check_kernel()
    assert kernel.ok, kernel
    assert sys.executable in kernel.detail  # the kernel runs this environment's Python


def test_a_kernel_that_cannot_import_the_package_gets_the_one_line_fix(monkeypatch):
    monkeypatch.setattr(checks, "_ASK", "import micrograd_edu_is_not_here")
    kernel = checks._check_kernel()
    assert not kernel.ok and "cannot import micrograd_edu" in kernel.detail
    assert "make course" in kernel.fix


def test_a_missing_kernel_gets_the_one_line_fix(monkeypatch, tmp_path):
    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = ["/nonexistent/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "broken"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setattr(checks, "KERNEL", "python3")
    kernel = checks._check_kernel()
    assert not kernel.ok and "make course" in kernel.fix


def test_outside_a_virtual_environment_doctor_says_so(monkeypatch):
    monkeypatch.setattr(sys, "prefix", sys.base_prefix)
    finding = checks._check_environment()
    if (checks.Path(sys.base_prefix) / "conda-meta").is_dir():
        return  # a conda base environment counts as the course's own
    assert not finding.ok and "outside the course's environment" in finding.fix
