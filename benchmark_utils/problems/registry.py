"""The registry of tasks: ``TASKS = {name: TaskSpec}``, one spec per task,
each defined at the end of its kernels' module (``problems/<task>.py``).

Everything on the Python side that depends on the task reads it:
``tasks.problem_from_data`` (parameters and dimensions),
``tasks.starting_point``, ``Problem.code`` and ``Problem.n_coef``,
``validation.check_data`` (the task's checks), ``metrics.make_metrics`` and
``exact_glm.GLMExact`` (the exact oracle).  The numba dispatch
(``dispatch.py``) branches on ``spec.code``; ``tests/test_registry.py``
checks that it covers every registered code.

A new task: its kernels and ``SPEC`` in ``problems/<task>.py``, its code in
``problems/__init__.py`` and a branch in each function of ``dispatch.py``,
its module in ``_MODULES`` below, and an exact-metric oracle (and metric
evaluator, unless ``metrics.GLMMetrics`` fits) named by the spec.
"""
from . import datacleaning, logreg, multilogreg, quadratic

_MODULES = (quadratic, logreg, multilogreg, datacleaning)

TASKS = {mod.SPEC.name: mod.SPEC for mod in _MODULES}
BY_CODE = {spec.code: spec for spec in TASKS.values()}
TASK_NAMES = tuple(sorted(TASKS))


def get_task(task):
    """The ``TaskSpec`` of a task name; clear error for an unknown one."""
    try:
        return TASKS[task]
    except (KeyError, TypeError):
        raise ValueError(
            f"task must be one of {list(TASK_NAMES)}, got {task!r}") from None
