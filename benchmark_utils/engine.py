"""Entry point of the numba core (PnPBO paper, Algorithm 1), kept for the
callers of ``engine``: the loop itself is ``core.single_loop``, built from the
blocks of ``core`` (records, draw, passes, steps, counting) and the rules of
``estimators``.  ``run_iterations`` is the one compiled entry (its cache
entries are what ``bench`` counts); it runs the loop family of the run.
"""
from numba import njit

from .core.records import (AHEAD, CHUNK, DIVERGED, K_ITER, N_BUF,  # noqa
                           N_SAMPLES, RUNNING, STATUS)
from .core.single_loop import single_loop


@njit(cache=True)
def run_iterations(model, levels, it, work, cfg, stream, n_iter):
    """Run ``n_iter`` iterations in place on the run's records."""
    single_loop(model, levels, it, work, cfg, stream, n_iter)
