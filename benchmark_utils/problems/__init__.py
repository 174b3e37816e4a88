"""Per-task numba kernels and the task codes of the dataset contract.

Every task writes each per-sample direction of docs/algorithms.md §1 as a fixed
linear map of a few per-sample *coefficients*: sample ``q`` at a point ``u``
has coefficients ``k_q(u)`` (``K`` numbers), and its contribution to ``D^x``,
``D^y``, ``D^z`` is ``L_q(k_q(u))``, with ``L_q`` linear and built from the
sample's data row only.  Estimators combine coefficients, tables store
coefficients (docs/algorithms.md §3), and one fused pass per batch applies ``L_q``.
Deterministic regularisation terms are evaluated exactly (docs/algorithms.md §1,
"Choice") by ``reg``.

Each ``<task>.py`` ends with its ``SPEC`` (``spec.TaskSpec``: code, number
of coefficients, parameters and dimensions from the data, starting point,
dataset checks, exact metrics), collected by ``registry.TASKS``; this is the
one place a task is described on the Python side.  The numba side selects
the kernels by the task's marker below, at compile time, in
``dispatch.py``.
"""

from enum import IntEnum

# Task codes (the specs carry them).  Unique and contiguous from 0
# (``tests/test_registry``).
QUADRATIC, LOGREG, MULTILOGREG, DATACLEANING = 0, 1, 2, 3


# The task as numba sees it: each task's marker is the one member of an
# ``IntEnum`` of its own, so its numba type (``IntEnumMember(<class>)``)
# names the task.  The core's records carry the marker (``Model.task``):
# every compiled function that takes them is specialised on the task, and
# ``dispatch.py`` selects the task's kernels at compile time.  A run
# compiles its task's kernels only, and numba caches each task's
# specialisation on its own.

class Quadratic(IntEnum):
    CODE = QUADRATIC


class Logreg(IntEnum):
    CODE = LOGREG


class Multilogreg(IntEnum):
    CODE = MULTILOGREG


class Datacleaning(IntEnum):
    CODE = DATACLEANING


MARKERS = (Quadratic.CODE, Logreg.CODE, Multilogreg.CODE,
           Datacleaning.CODE)


def task_marker(code):
    """The numba marker of a task code (``MARKERS``)."""
    return MARKERS[int(code)]


# The registry imports the task modules, which import the codes above from
# this package: it is imported lazily, so that importing the package (and
# ``problem.py``) does not depend on the order of these imports.

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
