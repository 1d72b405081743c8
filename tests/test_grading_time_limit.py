"""The in-notebook check stops an endless loop after its time limit, counted as the batch
grader counts it (CPU time, and a longer wall clock for code that waits), so a busy machine
does not stop honest work; it leaves the process's own SIGALRM handler and timer as they
were."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from micrograd_edu import check
from micrograd_edu.grading.time_limit import TimeLimitExceeded, can_limit, limited, time_limit

posix_only = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX signals")


def endless(f, x, h):
    while True:
        try:
            sum(range(1000))  # the alarm interrupts the work: it is raised inside the try
        except Exception:  # a student's broad except must not swallow the limit
            pass


def waits(f, x, h):
    while True:
        try:
            time.sleep(0.01)
        except Exception:
            pass


def wait_for(calls, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not calls and time.monotonic() < deadline:
        time.sleep(0.001)  # a signal interrupts the sleep and its handler runs


@posix_only
def test_an_endless_loop_ends_the_check_with_a_report():
    report = check("01.second_difference", {"second_difference": endless}, time_limit=0.2)
    assert not report.passed and report.result.status == "broken"
    assert "used more than 0.2 s of CPU time: an endless loop, or more work" in repr(report)


@posix_only
def test_code_that_waits_is_stopped_by_the_wall_clock():
    with pytest.raises(TimeLimitExceeded, match="waited past 0.3 s"), limited(5.0, wall=0.3):
        waits(None, 0, 0)


def _work(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        sum(range(1000))


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_a_busy_machine_stretches_the_wall_clock_not_the_work_counted():
    # This process and a busy one share one core: 0.4 s of work takes about 0.8 s of the
    # wall clock. A limit of 0.6 s counted on the wall clock would stop it (shown below).
    core = {min(os.sched_getaffinity(0))}
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    previous = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(hog.pid, core)
        os.sched_setaffinity(0, core)
        time.sleep(0.2)  # the busy one is under way
        start = time.monotonic()
        with limited(0.6):
            _work(0.4)
        stretched = time.monotonic() - start
        with pytest.raises(TimeLimitExceeded), time_limit(0.6):
            _work(0.4)
    finally:
        os.sched_setaffinity(0, previous)
        hog.kill()
        hog.wait()
    assert stretched > 0.6  # the wall clock did stretch past the limit


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
