"""Fixtures shared by the test modules."""

import os

import pytest

from micrograd_edu.grading import sandbox


@pytest.fixture(scope="session")
def sandboxed():
    """Skip where bubblewrap cannot run, with the reason; under CI (``CI`` set), fail."""
    reason = sandbox.available()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"the sandbox cannot run in CI: {reason}")
        pytest.skip(reason)
