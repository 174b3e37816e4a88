"""Entry points of the numba core: ``run_iterations`` runs the single-loop
family (PnPBO paper, Algorithm 1: ``core.single_loop``), ``run_baseline``
the baselines' families (``core.baseline_loop``: inner loop, momentum,
restart, penalty).  Both are built from the blocks of ``core`` (records,
draw, passes/oracles, steps, counting).  Each entry is compiled per task
(its marker in ``Model``) and feature dtype, ``run_baseline`` also per
family (its marker in ``BConfig``); the algorithms of a family differ by
run-time codes, so one tiny run compiles everything they use.  Each lives
in its loop's module, so that an edit of one family recompiles that
family's entry only (``numba_cache``).
"""
from .core.baseline_loop import run_baseline  # noqa: F401
from .core.records import (AHEAD, CHUNK, DIVERGED, K_ITER, N_BUF,  # noqa
                           N_SAMPLES, RUNNING, STATUS)
from .core.single_loop import run_iterations  # noqa: F401
