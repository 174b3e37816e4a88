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
(family, task) on its own.
"""
import inspect

from numba.extending import overload

from ..jit.markers import code_of, make_markers
from ..jit.refcount import NO_REFCOUNT
from ..numba_cache import njit, register_switch
from .hessian_free import bome_iteration, pzobo_iteration
from .inner_loop import inner_iteration
from .momentum import fsla_iteration, jacobi_iteration
from .penalty import f2sa_iteration
from .records import DIVERGED, K_ITER, N_SAMPLES, STATUS
from .restart import vrbo_iteration
from .steps import not_finite
from .unrolled import itd_iteration

# The families: (marker name, what the user is told, its iteration); a
# family's code is its place here.
FAMILIES = (
    ("Inner", "inner-loop", inner_iteration),
    ("Jacobi", "momentum", jacobi_iteration),
    ("GaussSeidel", "Gauss-Seidel momentum", fsla_iteration),
    ("Restart", "restart", vrbo_iteration),
    ("Penalty", "penalty", f2sa_iteration),
    ("Unrolled", "iterative-differentiation", itd_iteration),
    ("ValueFunction", "value-function", bome_iteration),
    ("ZerothOrder", "zeroth-order", pzobo_iteration),
)
INNER, JACOBI, GAUSS_SEIDEL, RESTART, PENALTY, UNROLLED, VALUE_FUNCTION, \
    ZEROTH_ORDER = range(len(FAMILIES))
FAMILY_NAMES = {code: label for code, (_, label, _) in enumerate(FAMILIES)}
FAMILY_MARKERS = make_markers([name for name, _, _ in FAMILIES], __name__)
ITERATIONS = {code: step for code, (_, _, step) in enumerate(FAMILIES)}


# a specialisation of this loop depends on its own family's module only
register_switch(__file__, {
    type(FAMILY_MARKERS[code]).__name__:
        inspect.getsourcefile(step.py_func)
    for code, step in ITERATIONS.items()})


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
    step = ITERATIONS[code_of(family)]

    def impl(family, model, levels, iterates, work, cfg, stream, n_iter,
             target):
        counters = stream.counters
        for _ in range(n_iter):
            k = counters[K_ITER]
            step(model, levels, iterates, work, cfg, stream, k)
            counters[K_ITER] = k + 1
            if not _finite(iterates, work):
                counters[STATUS] = DIVERGED
                break
            if counters[N_SAMPLES] >= target:
                break
    return impl


@njit(cache=True, inline="always")
def _finite(iterates, work):
    bad = False
    for v in (iterates.x, iterates.y, iterates.z, work.ypen):
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
