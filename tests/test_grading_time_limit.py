"""The in-notebook check stops an endless loop after its time limit, and leaves the
process's own SIGALRM handler and timer as they were."""

import signal
import threading
import time

import pytest

from micrograd_edu import check
from micrograd_edu.grading.time_limit import TimeLimitExceeded, can_limit, time_limit

posix_only = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX signals")


def endless(f, x, h):
    while True:
        try:
            time.sleep(0.01)  # the alarm interrupts the sleep: it is raised inside the try
        except Exception:  # a student's broad except must not swallow the limit
            pass


def wait_for(calls, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not calls and time.monotonic() < deadline:
        time.sleep(0.001)  # a signal interrupts the sleep and its handler runs


@posix_only
def test_an_endless_loop_ends_the_check_with_a_report():
    report = check("01.second_difference", {"second_difference": endless}, time_limit=0.2)
    assert not report.passed and report.result.status == "broken"
    assert "took longer than 0.2 s: an endless loop, or more work" in repr(report)


@posix_only
def test_a_previous_handler_and_timer_are_put_back():
    calls = []

    def mine(*args):
        calls.append(args)

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        signal.setitimer(signal.ITIMER_REAL, 100.0)
        check("01.second_difference", {"second_difference": endless}, time_limit=0.1)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 90.0 < left < 100.0 and calls == []
        assert signal.getsignal(signal.SIGALRM) is mine
        signal.setitimer(signal.ITIMER_REAL, 0.01)  # the restored handler still works
        wait_for(calls)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(calls) == 1


@posix_only
def test_a_timer_that_expired_during_the_check_still_fires():
    calls = []
    previous = signal.signal(signal.SIGALRM, lambda *args: calls.append(args))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(TimeLimitExceeded), time_limit(0.2):
            while True:
                pass
        wait_for(calls)  # due at once: the check outlived it
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(calls) == 1


def test_outside_the_main_thread_the_check_runs_without_a_limit():
    def second_difference(f, x, h):
        return (f(x + h) - 2 * f(x) + f(x - h)) / h**2

    seen = {}

    def run():
        seen["can_limit"] = can_limit()
        seen["passed"] = check(
            "01.second_difference", {"second_difference": second_difference}
        ).passed

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == {"can_limit": False, "passed": True}
