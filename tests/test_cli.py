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


def test_doctor_says_chapter_10_needs_the_course_extra(monkeypatch):
    real = checks._version
    monkeypatch.setattr(checks, "_version", lambda p: None if p == "scikit-learn" else real(p))
    finding = next(f for f in doctor() if f.name == "scikit-learn")
    assert not finding.ok and "chapter 10" in finding.detail
    assert finding.fix == 'pip install "micrograd-edu[course]"'


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


def test_doctor_says_python_3_11_is_needed(monkeypatch):
    monkeypatch.setattr(checks, "PYTHON", (99, 0))
    finding = checks._check_python()
    assert not finding.ok and "3.11" in finding.fix


def test_only_what_a_student_needs_decides_doctor_s_answer(monkeypatch):
    missing = checks.Finding("sandbox", False, "bubblewrap missing", "install it", needed=False)
    monkeypatch.setattr(checks, "CHECKS", [lambda: missing])
    report = doctor()
    assert report.ok and str(report).startswith("--  sandbox")


def _ipywidgets(monkeypatch, version):
    real = checks._version
    monkeypatch.setattr(checks, "_version", lambda p: version if p == "ipywidgets" else real(p))


def test_colab_draws_no_ipywidgets_8_and_doctor_says_how_to_keep_7(monkeypatch):
    _ipywidgets(monkeypatch, "8.1.9")
    monkeypatch.setattr(checks, "_on_colab", lambda: True)
    finding = checks._check_widgets()
    assert not finding.ok and "Colab draws only ipywidgets 7" in finding.detail
    assert finding.fix == 'pip install "ipywidgets<8", then Runtime > Restart session'
    _ipywidgets(monkeypatch, "7.8.5")
    assert checks._check_widgets().ok


def test_a_jupyterlab_widget_manager_for_7_draws_no_ipywidgets_8(monkeypatch):
    _ipywidgets(monkeypatch, "8.1.9")
    monkeypatch.setattr(checks, "_widget_manager", lambda: "3.1.11")  # jupyterlab_widgets 1
    monkeypatch.delenv("VSCODE_PID", raising=False)
    monkeypatch.delenv("TERM_PROGRAM", raising=False)
    finding = checks._check_widgets()
    assert not finding.ok and "draws only ipywidgets 7" in finding.detail
    monkeypatch.setattr(checks, "_widget_manager", lambda: "5.0.16")  # jupyterlab_widgets 3
    assert checks._check_widgets().ok
    _ipywidgets(monkeypatch, "7.8.5")  # ipywidgets 8's manager draws 7's widgets too
    assert checks._check_widgets().ok
    monkeypatch.setattr(checks, "_widget_manager", lambda: None)
    finding = checks._check_widgets()
    assert not finding.ok and "no Jupyter front end" in finding.detail


def test_the_widget_manager_found_is_the_one_jupyterlab_loads(monkeypatch, tmp_path):
    for folder, version in (("first", "5.0.16"), ("second", "3.1.11")):
        manager = tmp_path / folder / "labextensions" / "@jupyter-widgets" / "jupyterlab-manager"
        manager.mkdir(parents=True)
        (manager / "package.json").write_text(json.dumps({"version": version}))
    monkeypatch.setenv("JUPYTER_PATH", f"{tmp_path / 'first'}:{tmp_path / 'second'}")
    assert checks._widget_manager() == "5.0.16"


def test_a_diagram_that_cannot_render_is_a_no(monkeypatch):
    from micrograd_edu.viz import render

    monkeypatch.setattr(render, "renderer", lambda: "none")
    finding = checks._check_renderer()
    assert not finding.ok and finding.fix == render.FIX
