"""The numba entries and their compilation.

``run_iterations`` runs the single-loop family (PnPBO paper, Algorithm 1:
``core.single_loop``), ``run_baseline`` the baselines' eight families
(``families.loop.FAMILIES``: inner loop, momentum, Gauss-Seidel
momentum, restart, penalty, iterative differentiation, value function,
zeroth order).  Each
entry is compiled per task (its marker in ``Model``) and feature dtype,
``run_baseline`` also per family (its marker in ``BConfig``); the
algorithms of a family differ by run-time codes, so two iterations on a
tiny problem compile everything they use.  Each entry lives in its loop's
module, so that an edit of one family recompiles that family's entry only
(``numba_cache``).

``compile_for(name, dtype, task)`` compiles (or loads from numba's cache)
what solver ``name`` runs, once per process, and says so while it takes
longer than a cache load.  benchopt 1.10 starts a run's ``--timeout`` clock
*before* ``warm_up()``: the solvers call it from ``set_objective``, which
benchopt does not time.  Under ``benchopt run`` the solvers go through
``precompile.compile_for_run``, which first compiles every kernel the
whole run needs in parallel processes; ``core_run`` and ``baseline_run``
are the tiny runs both compile from, and ``entry_types`` their compiled
entry's argument types, which say whether numba's cache holds it.
"""
import threading
from contextlib import contextmanager

import numpy as np

from .algorithms import (BASELINE, BaselineConfig, BaselineRun, PnPBORun,
                         config_of, entry)
from .algorithms.baseline import FAMILIES
from .families.loop import FAMILY_NAMES, run_baseline  # noqa: F401
from .core.single_loop import run_iterations  # noqa: F401
from .problem import problem_from_data
from .tasks.registry import get_task

# Seconds a first compile of the exact metrics' passes takes (one compile
# for every multiclass task: exact_kernels; precompile.MULTICLASS); a
# task's own entries: its spec's ``compile_seconds``.
METRICS_COMPILE_S = 8
ANNOUNCE_AFTER_S = 2.0  # loading from numba's cache takes about 1 s


def feature_dtype(problem=None):
    """The dtype of ``problem``'s features (float64 without a problem):
    the core compiles once per feature dtype (``problem.as_features``)."""
    return np.float64 if problem is None else problem.Xg.dtype.type


def describe(entry_name, task, dtype, family=None):
    """What a compile of ``entry_name`` (``"core"``, ``"baselines"`` with
    its ``family`` label, ``"metrics"``) for ``task`` and features of
    ``dtype`` is, in words."""
    if entry_name == "metrics":
        return "the exact metrics' passes of the multiclass tasks"
    label = ("the single-loop core" if entry_name == "core"
             else f"the baselines' {family} loop")
    return f"{label} for the {task} task ({np.dtype(dtype).name} features)"


def first_compile_seconds(entry_name, task):
    """About how long a first compile of ``entry_name`` (``"core"``,
    ``"baselines"``: one family, ``"metrics"``) for ``task`` takes on the
    2-core machine of docs/performance.md (``python -m
    tools.compile_times``), announced while it runs."""
    if entry_name == "metrics":
        return METRICS_COMPILE_S
    core, baselines = get_task(task).compile_seconds
    return core if entry_name == "core" else baselines


@contextmanager
def announced(entry_name, task, dtype, family=None, where=""):
    """Say what is compiling when it takes longer than a cache load (the
    first use of a task on a machine, or after an update of the core);
    ``where``: words after "compiling" (another process's compile)."""
    def say():
        about = (f", about {first_compile_seconds(entry_name, task)} s on "
                 "2 cores")
        print(f"compiling {describe(entry_name, task, dtype, family)}"
              f"{where}: first use on this machine or after an update"
              f"{about}; cached for the next runs", flush=True)
    timer = threading.Timer(ANNOUNCE_AFTER_S, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def tiny_problem(dtype=np.float64, task="quadratic"):
    """A 4-sample problem of ``task`` with features of ``dtype`` (float64 or
    float32), enough to trigger compilation: its types are those of any
    problem of the task (``tasks.task_marker``), from its spec's
    ``tiny_labels`` and ``tiny_params``."""
    spec = get_task(task)
    rng = np.random.default_rng(0)

    def features():
        return rng.standard_normal((4, 3)).astype(dtype)
    labels = np.array(spec.tiny_labels)
    return problem_from_data(task, features(), labels, features(), labels,
                             **dict(spec.tiny_params))


def _zero_start(problem):
    return (np.zeros(problem.dim_x), np.zeros(problem.dim_y),
            np.zeros(problem.dim_y))


_CORE_READY = set()  # (feature dtype, task) compiled in this process
_BASELINES_READY = set()  # (feature dtype, task, family)


def core_run(dtype=np.float64, task="quadratic"):
    """The tiny single-loop run ``compile_core`` runs two iterations of:
    its entry's argument types depend on the task and the features'
    dtype, not on the preset (the estimators are run-time codes)."""
    problem = tiny_problem(dtype, task)
    return PnPBORun(problem, config_of("SPABA", batch_size=2),
                    *_zero_start(problem), 0)


def baseline_run(dtype=np.float64, task="quadratic", algorithm="stocBiO"):
    """The tiny run of baseline ``algorithm`` (a
    ``BaselineConfig.algorithm``) ``compile_baselines`` runs two outer
    iterations of: one per family, whichever algorithm of it."""
    problem = tiny_problem(dtype, task)
    return BaselineRun(problem, BaselineConfig(
        algorithm=algorithm, batch_size=2, n_inner_steps=1, n_z_steps=1,
        Q=1, period=1), *_zero_start(problem), 0)


def entry_types(run):
    """``(dispatcher, argument types)`` of the compiled entry that ``run``
    (a ``core_run`` or ``baseline_run``) calls, without calling it: the
    types its first call compiles for (``RunStatus._call``)."""
    called = {}

    def capture(dispatcher, args):
        called["entry"] = dispatcher, tuple(
            dispatcher.typeof_pyval(a) for a in args)
    run._call = capture  # this instance only: it is never run
    run.run(1)
    return called["entry"]


def compile_core(dtype=np.float64, task="quadratic"):
    """Compile the single-loop entry for ``task`` (or load it from numba's
    cache), once per process, task and feature dtype (``core_run``).
    True if something was compiled."""
    dtype = np.dtype(dtype).type
    if (dtype, task) in _CORE_READY:
        return False
    with announced("core", task, dtype):
        core_run(dtype, task).run(2)
    _CORE_READY.add((dtype, task))
    return True


def check_algorithm(algorithm):
    """``algorithm`` if it is a ``BaselineConfig.algorithm``, else a
    ValueError naming the allowed values."""
    if algorithm not in FAMILIES:
        raise ValueError(f"algorithm must be one of {list(FAMILIES)}, "
                         f"got {algorithm!r}")
    return algorithm


def compile_baselines(dtype=np.float64, task="quadratic", algorithm=None):
    """Compile the baselines' entry for the family of ``algorithm`` (a
    ``BaselineConfig.algorithm``: ``"stocBiO"``, ``"MRBO"``, ...; every
    family when None) on ``task``, once per process, feature dtype, task
    and family: two outer iterations on a tiny problem
    (``baseline_run``).  True if something was compiled."""
    dtype = np.dtype(dtype).type
    names = (list(FAMILIES) if algorithm is None
             else [check_algorithm(algorithm)])
    todo = {}  # family code -> one algorithm of it
    for name in names:
        family = FAMILIES[name][0]
        if (dtype, task, family) not in _BASELINES_READY:
            todo.setdefault(family, name)
    if not todo:
        return False
    for family, name in todo.items():
        with announced("baselines", task, dtype, FAMILY_NAMES[family]):
            baseline_run(dtype, task, name).run(2)
        _BASELINES_READY.add((dtype, task, family))
    return True


def compile_for(name, dtype=np.float64, task="quadratic"):
    """Compile what solver ``name`` (a key of ``algorithms.ALGORITHMS``)
    runs on ``task`` with features of ``dtype``: the single-loop entry, or
    its baseline family's; nothing for a Python-side kind (``EXACT``,
    ``SEARCH``).  True if something was compiled."""
    algo = entry(name)
    if not algo.kind.compiled:
        return False
    if algo.kind is BASELINE:
        return compile_baselines(dtype, task, algo.fixed["algorithm"])
    return compile_core(dtype, task)
