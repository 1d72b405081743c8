"""Fixtures shared by the test modules, and how the tests share two cores.

``make test`` runs them in parallel workers (pytest-xdist, ``--dist loadgroup``):
* one BLAS thread per process: each worker, and each kernel, sandbox or server it starts,
  is one of several processes sharing the cores, where BLAS threads only wait for each
  other (DESIGN.md's facts);
* the tests that name a group (``xdist_group``: the tests of one notebook share its one
  run) run on one worker; so do a module's other tests, its module fixtures made once,
  except a long one (``pytest.mark.heavy``: a notebook, a browser, a second environment),
  which is a group of its own that either worker can take;
* the long tests start first, so that the many short ones fill in around them.
"""

import os

# Before numpy loads, here and in every process the tests start.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import pytest  # noqa: E402

from micrograd_edu.grading import confine, sandbox  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "heavy: a long test (notebooks, a browser); parallel workers start it first"
    )
    config.addinivalue_line("markers", "xdist_group(name): the tests that one worker runs")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        if not any(item.iter_markers("xdist_group")):
            heavy = any(item.iter_markers("heavy"))
            group = item.nodeid if heavy else item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: not any(item.iter_markers("heavy")))  # stable


def _needs(reason: str | None) -> None:
    """Skip with ``reason`` (what this machine lacks); under CI (``CI`` set), fail."""
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to run this: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def sandboxed():
    """Skip where bubblewrap cannot run, with the reason; under CI, fail."""
    _needs(sandbox.available())


@pytest.fixture(scope="session")
def cgrouped(sandboxed):
    """Skip where the grader cannot create cgroups (a budget for a whole sandbox)."""
    groups = confine.cgroups()
    _needs(None if isinstance(groups, dict) else f"no cgroup budget here: {groups}")


@pytest.fixture(scope="session")
def as_root():
    """Skip unless the tests run as root (to switch to an unprivileged user, as on Gradescope)."""
    _needs(None if os.geteuid() == 0 else "running a submission as another user needs root")
