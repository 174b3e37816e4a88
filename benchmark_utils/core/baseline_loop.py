"""The baselines' loop: one outer iteration of the run's family per step
(docs/baselines.md §3), the iteration counter and the divergence check
(the run stops, with ``counters[STATUS] = DIVERGED``, at the first outer
iteration whose iterate is not finite).  The families are inlined here, so
the oracles they call are compiled into this one function.
"""
from numba import njit

from .inner_loop import inner_iteration
from .jit import NO_REFCOUNT
from .momentum import fsla_iteration, jacobi_iteration
from .penalty import f2sa_iteration
from .records import DIVERGED, K_ITER, STATUS
from .restart import vrbo_iteration
from .steps import not_finite

INNER, JACOBI, GAUSS_SEIDEL, RESTART, PENALTY = range(5)  # BConfig.family


@njit(cache=True, inline="always")
def _finite(it, w):
    bad = False
    for v in (it.x, it.y, it.z, w.ypen):
        for c in range(v.shape[0]):
            bad |= not_finite(v[c])
    return not bad


@njit(cache=True, **NO_REFCOUNT)
def baseline_loop(model, levels, it, w, cfg, stream, n_iter):
    """Run ``n_iter`` outer iterations in place on the records."""
    counters = stream.counters
    fam = cfg.family
    for _ in range(n_iter):
        k = counters[K_ITER]
        if fam == INNER:
            inner_iteration(model, levels, it, w, cfg, stream, k)
        elif fam == JACOBI:
            jacobi_iteration(model, levels, it, w, cfg, stream, k)
        elif fam == GAUSS_SEIDEL:
            fsla_iteration(model, levels, it, w, cfg, stream, k)
        elif fam == RESTART:
            vrbo_iteration(model, levels, it, w, cfg, stream, k)
        else:
            f2sa_iteration(model, levels, it, w, cfg, stream, k)
        counters[K_ITER] = k + 1
        if not _finite(it, w):
            counters[STATUS] = DIVERGED
            break
