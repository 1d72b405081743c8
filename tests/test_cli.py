import subprocess
import sys

from micrograd_edu import doctor
from micrograd_edu.cli import main


def test_doctor_reports_every_check_with_a_fix_when_missing():
    report = doctor()
    names = [f.name for f in report]
    assert names[:3] == ["python", "numpy", "matplotlib"]
    assert all(f.fix for f in report if not f.ok)
    assert "<table>" in report._repr_html_()


def test_doctor_command_prints_the_report(capsys):
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert "python" in out and "numpy" in out
    assert code in (0, 1)


def test_console_entry_point_runs():
    done = subprocess.run(
        [sys.executable, "-m", "micrograd_edu.cli", "doctor"], capture_output=True, text=True
    )
    assert "numpy" in done.stdout
