"""Entry points of the numba core: ``run_iterations`` runs the single-loop
family (PnPBO paper, Algorithm 1: ``core.single_loop``), ``run_baseline``
the baselines' families (``core.baseline_loop``: inner loop, momentum,
restart, penalty).  Both are built from the blocks of ``core`` (records,
draw, passes/oracles, steps, counting).  Each is one compiled entry whose
argument types do not depend on the algorithm or the task, so one tiny run
compiles everything a run of its families uses.
"""
from numba import njit

from .core.baseline_loop import baseline_loop
from .core.records import (AHEAD, CHUNK, DIVERGED, K_ITER, N_BUF,  # noqa
                           N_SAMPLES, RUNNING, STATUS)
from .core.single_loop import single_loop


@njit(cache=True)
def run_iterations(model, levels, it, work, cfg, stream, n_iter):
    """Run ``n_iter`` iterations in place on the run's records."""
    single_loop(model, levels, it, work, cfg, stream, n_iter)


@njit(cache=True)
def run_baseline(model, levels, it, work, cfg, stream, n_iter):
    """Run ``n_iter`` outer iterations of a baseline in place."""
    baseline_loop(model, levels, it, work, cfg, stream, n_iter)
