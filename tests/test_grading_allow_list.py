"""A submission's view is an allow-list at neutral paths (issue 26, classes 1 and 8): the
interpreter, the libraries of a student's plain install and the package without its
answers; the attacks on it are graded in test_grading_sandbox.py."""

import os

from micrograd_edu.grading import sandbox, view


def test_the_view_is_an_allow_list_at_neutral_paths():
    withheld = frozenset({"sklearn", "torch", "numpy.linalg.lstsq"})
    mounts = view.view(withheld)
    assert {m.target.split("/")[1] for m in mounts} == {"python", "site", "pkg"}
    names = {d.metadata["Name"].lower() for d in view.allowed_distributions()}
    assert "numpy" in names and not names & {"scikit-learn", "torch", "scipy", "sympy", "jax"}
    # the grader's answers are empty in the view; numpy's lstsq is a stubbed copy
    hidden = {m.target: m.source for m in mounts if m.target.startswith("/pkg/")}
    assert hidden["/pkg/micrograd_edu/grading/references"] == view.empty_dir()
    assert hidden["/pkg/micrograd_edu/grading/chapter01.py"].read_text().count("\n") == 1
    stub = next(m.source for m in mounts if m.target == "/site/numpy/linalg/_linalg.py")
    assert "lstsq is withheld while grading" in stub.read_text()


def test_process_1_names_no_host_path():
    # bubblewrap's command line is process 1's inside: its options, which name the host's
    # paths, come from a file descriptor
    argv, fd = sandbox.command([view.PYTHON, "-c", "pass"], frozenset(), disk_mb=16)
    os.close(fd)
    assert argv[:3] == ["bwrap", "--args", str(fd)]
    assert all(not word.startswith("/") or word.startswith("/python/") for word in argv)
