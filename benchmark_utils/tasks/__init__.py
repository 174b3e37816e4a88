"""Per-task numba kernels and the task codes of the dataset contract.

Every task writes each per-sample direction of docs/algorithms.md §1 as a fixed
linear map of a few per-sample *coefficients*: sample ``q`` at a point ``u``
has coefficients ``k_q(u)`` (``K`` numbers), and its contribution to ``D^x``,
``D^y``, ``D^z`` is ``L_q(k_q(u))``, with ``L_q`` linear and built from the
sample's data row only.  Estimators combine coefficients, tables store
coefficients (docs/algorithms.md §3), and one fused pass per batch applies ``L_q``.
Deterministic regularisation terms are evaluated exactly (docs/algorithms.md §1,
"Choice") by ``reg``.

Each ``<task>.py`` holds its kernels and ends with its ``SPEC``
(``spec.TaskSpec``: number of coefficients, parameters and dimensions from
the data, starting point, dataset checks, exact metrics), collected by
``registry.TASKS``.  ``MODULES`` below lists the task modules: a task's
code is its place there, its marker and its kernels in the numba dispatch
follow.  A new task is its module and its line in ``MODULES``.
"""

from ..jit.markers import make_markers
from ..numba_cache import register_switch
from . import datacleaning, logreg, multilogreg, quadratic

# The task modules, in the order of their codes.
MODULES = (quadratic, logreg, multilogreg, datacleaning)

# The task as numba sees it: each task's marker is the one member of an
# ``IntEnum`` of its own (``jit.markers``), named after the task
# (``Quadratic``, ``Logreg``, ...), so its numba type names the task.  The
# core's records carry the marker (``Model.task``): every compiled function
# that takes them is specialised on the task, and ``dispatch.py`` selects
# the task's kernels at compile time.  A run compiles its task's kernels
# only, and numba caches each task's specialisation on its own.
MARKERS = make_markers([mod.SPEC.name.capitalize() for mod in MODULES],
                       __name__)
# This package selects one task module per marker: a specialisation on a
# task depends on that task's module only (``numba_cache``: an edit of one
# task's kernels keeps the others' cache).
register_switch(__file__, {type(marker).__name__: mod.__file__
                           for marker, mod in zip(MARKERS, MODULES)})


def task_marker(code):
    """The numba marker of a task code (``MARKERS``)."""
    return MARKERS[int(code)]


def get_task(task):
    """The ``TaskSpec`` of a task name; clear error for an unknown one."""
    from .registry import get_task
    return get_task(task)


def task_code(task):
    """Integer code of a task name; clear error for an unknown one."""
    return get_task(task).code


def n_coef(code, params):
    """Coefficients per UL sample (f) and per LL sample (g) of a task."""
    from .registry import BY_CODE
    return BY_CODE[code].n_coef(params)
