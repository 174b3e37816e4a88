"""tools.tune --jobs: the worker processes end with their parent, whether
it is stopped by Ctrl-C or by SIGTERM (``kill``)."""
import multiprocessing
import os
import signal
import time

import pytest

from bench_helpers import sleep_through_interrupts, sleep_when_ready
from tools.tune import workers


def test_workers_still_running_are_interrupted_then_terminated():
    context = multiprocessing.get_context("spawn")
    # both started (past the interpreter's start-up, where a loaded
    # machine can hold a fresh process for seconds) before the stop
    polite_ready, stubborn_ready = context.Event(), context.Event()
    polite = context.Process(target=sleep_when_ready,
                             args=(polite_ready, 60))
    stubborn = context.Process(target=sleep_through_interrupts,
                               args=(stubborn_ready, 60))
    unstarted = context.Process(target=time.sleep, args=(60,))
    polite.start()
    stubborn.start()
    assert polite_ready.wait(60) and stubborn_ready.wait(60)
    t0 = time.monotonic()
    workers.stop_workers([polite, stubborn, unstarted], join=0.1, grace=5.0)
    assert not polite.is_alive() and not stubborn.is_alive()
    # the interrupt ended the first (KeyboardInterrupt: exit code 1), the
    # second was terminated after the grace
    assert polite.exitcode == 1
    assert stubborn.exitcode == -signal.SIGTERM
    assert time.monotonic() - t0 < 30


def test_sigterm_leaves_the_block_through_its_finally():
    before = signal.getsignal(signal.SIGTERM)
    ran = []
    with pytest.raises(SystemExit) as err:
        with workers.sigterm_as_exit():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            finally:
                ran.append("finally")
    assert err.value.code == 128 + signal.SIGTERM
    assert ran == ["finally"]
    assert signal.getsignal(signal.SIGTERM) is before
