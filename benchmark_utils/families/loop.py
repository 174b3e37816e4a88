"""The baselines' loop: one outer iteration of the run's family per step
(docs/baselines.md §3), the iteration counter and the divergence check
(the run stops, with ``counters[STATUS] = DIVERGED``, at the first outer
iteration whose iterate is not finite) and the stop at the end of the first
outer iteration whose sample count reaches the caller's target (a point of
the Objective's grid of sample evaluations, docs/metrics.md).

The family reaches the loop as its marker (``BConfig.family``,
``jit.markers``), as the task does (``tasks``): its numba type names the
family, and ``family_loop`` compiles that family's
iteration only.  A baseline run compiles its own family on its own task
(a fraction of the loop every family would make), and numba caches each
(family, task) on its own.  ``FAMILIES`` is the table of families (the
protocol: ``families/__init__.py``).
"""
import inspect

from numba.extending import overload

from ..core.records import DIVERGED, K_ITER, N_SAMPLES, STATUS
from ..core.schedule import not_finite
from ..jit.markers import code_of, make_markers
from ..jit.refcount import NO_REFCOUNT
from ..numba_cache import njit, register_switch
from . import hessian_free, inner_loop, momentum, penalty, restart, unrolled

# The families; a family's code is its place here.
FAMILIES = (
    inner_loop.FAMILY,
    momentum.JACOBI,
    momentum.GAUSS_SEIDEL,
    restart.FAMILY,
    penalty.FAMILY,
    unrolled.FAMILY,
    hessian_free.VALUE_FUNCTION,
    hessian_free.ZEROTH_ORDER,
)
FAMILY_NAMES = {code: f.label for code, f in enumerate(FAMILIES)}
FAMILY_MARKERS = make_markers([f.marker for f in FAMILIES], __name__)


# a specialisation of this loop depends on its own family's module only
register_switch(__file__, {
    type(FAMILY_MARKERS[code]).__name__:
        inspect.getsourcefile(f.iteration.py_func)
    for code, f in enumerate(FAMILIES)})


def family_marker(code):
    """The numba marker of a family code (``BConfig.family``)."""
    return FAMILY_MARKERS[int(code)]


def family_loop(family, model, levels, iterates, work, cfg, stream, n_iter,
                target):
    """Run outer iterations of ``family`` (a marker) in place on the
    records until the end of the first one whose sample count reaches
    ``target``, at most ``n_iter`` of them."""
    raise TypeError("family_loop runs in compiled code only")


@overload(family_loop, jit_options=NO_REFCOUNT)
def _family_loop(family, model, levels, iterates, work, cfg, stream, n_iter,
                 target):
    # A function of its own, not inlined into run_baseline: numba would
    # type the family's iteration twice (here and again where it is
    # inlined), which was 40 % of a family's compile (docs/architecture.md).
    own = FAMILIES[code_of(family)]
    step = own.iteration
    own_finite = _no_state if own.finite is None else own.finite

    def impl(family, model, levels, iterates, work, cfg, stream, n_iter,
             target):
        counters = stream.counters
        for _ in range(n_iter):
            k = counters[K_ITER]
            step(model, levels, iterates, work, cfg, stream, k)
            counters[K_ITER] = k + 1
            if not (_finite(iterates) and own_finite(work.own)):
                counters[STATUS] = DIVERGED
                break
            if counters[N_SAMPLES] >= target:
                break
    return impl


@njit(cache=True, inline="always")
def _no_state(own):
    return True


@njit(cache=True, inline="always")
def _finite(iterates):
    bad = False
    for v in (iterates.x, iterates.y, iterates.z):
        for c in range(v.shape[0]):
            bad |= not_finite(v[c])
    return not bad


@njit(cache=True)
def run_baseline(model, levels, iterates, work, cfg, stream, n_iter, target):
    """Entry point from Python: outer iterations of a baseline in place up
    to the first whose sample count reaches ``target``, at most ``n_iter``
    (see ``single_loop.run_iterations``)."""
    family_loop(cfg.family, model, levels, iterates, work, cfg, stream,
                n_iter, target)
