"""The baselines' loop: one outer iteration of the run's family per step
(docs/baselines.md §3), the iteration counter and the divergence check
(the run stops, with ``counters[STATUS] = DIVERGED``, at the first outer
iteration whose iterate is not finite).

The family reaches the loop as its marker (``BConfig.family``), the one
member of an ``IntEnum`` of its own, as the task does (``problems``): its
numba type names the family, and ``family_loop`` compiles that family's
iteration only.  A baseline run compiles its own family on its own task
(about a fifth of the loop every family would make), and numba caches each
(family, task) on its own.
"""
import inspect
from enum import IntEnum

from numba.extending import overload

from ..jit.refcount import NO_REFCOUNT
from ..numba_cache import njit, register_switch
from .inner_loop import inner_iteration
from .momentum import fsla_iteration, jacobi_iteration
from .penalty import f2sa_iteration
from .records import DIVERGED, K_ITER, STATUS
from .restart import vrbo_iteration
from .steps import not_finite

INNER, JACOBI, GAUSS_SEIDEL, RESTART, PENALTY = range(5)  # family codes


class Inner(IntEnum):
    CODE = INNER


class Jacobi(IntEnum):
    CODE = JACOBI


class GaussSeidel(IntEnum):
    CODE = GAUSS_SEIDEL


class Restart(IntEnum):
    CODE = RESTART


class Penalty(IntEnum):
    CODE = PENALTY


FAMILY_NAMES = {INNER: "inner-loop", JACOBI: "momentum", GAUSS_SEIDEL:
                "Gauss-Seidel momentum", RESTART: "restart",
                PENALTY: "penalty"}
FAMILY_MARKERS = (Inner.CODE, Jacobi.CODE, GaussSeidel.CODE, Restart.CODE,
                  Penalty.CODE)
ITERATIONS = {INNER: inner_iteration, JACOBI: jacobi_iteration,
              GAUSS_SEIDEL: fsla_iteration, RESTART: vrbo_iteration,
              PENALTY: f2sa_iteration}


# a specialisation of this loop depends on its own family's module only
register_switch(__file__, {
    type(FAMILY_MARKERS[code]).__name__:
        inspect.getsourcefile(step.py_func)
    for code, step in ITERATIONS.items()})


def family_marker(code):
    """The numba marker of a family code (``BConfig.family``)."""
    return FAMILY_MARKERS[int(code)]


def family_loop(family, model, levels, it, w, cfg, stream, n_iter):
    """Run ``n_iter`` outer iterations of ``family`` (a marker) in place
    on the records."""
    raise TypeError("family_loop runs in compiled code only")


@overload(family_loop, jit_options=NO_REFCOUNT)
def _family_loop(family, model, levels, it, w, cfg, stream, n_iter):
    # A function of its own, not inlined into run_baseline: numba would
    # type the family's iteration twice (here and again where it is
    # inlined), which was 40 % of a family's compile (docs/architecture.md).
    cls = getattr(family, "instance_class", None)
    if cls is None:
        raise TypeError(f"the family must be a family marker "
                        f"(baseline_loop.family_marker), got {family}")
    step = ITERATIONS[int(next(iter(cls)))]

    def impl(family, model, levels, it, w, cfg, stream, n_iter):
        counters = stream.counters
        for _ in range(n_iter):
            k = counters[K_ITER]
            step(model, levels, it, w, cfg, stream, k)
            counters[K_ITER] = k + 1
            if not _finite(it, w):
                counters[STATUS] = DIVERGED
                break
    return impl


@njit(cache=True, inline="always")
def _finite(it, w):
    bad = False
    for v in (it.x, it.y, it.z, w.ypen):
        for c in range(v.shape[0]):
            bad |= not_finite(v[c])
    return not bad


@njit(cache=True)
def run_baseline(model, levels, it, work, cfg, stream, n_iter):
    """Entry point from Python: ``n_iter`` outer iterations of a baseline
    in place (see ``single_loop.run_iterations``)."""
    family_loop(cfg.family, model, levels, it, work, cfg, stream, n_iter)
