"""The registry of tasks: ``TASKS = {name: TaskSpec}``, one spec per task,
each defined at the end of its kernels' module (``tasks/<task>.py``).

Everything on the Python side that depends on the task reads it:
``problem.problem_from_data`` (parameters and dimensions),
``problem.starting_point``, ``Problem.code`` and ``Problem.n_coef``,
``validation.check_data`` (the task's checks), ``metrics.make_metrics`` and
``exact_glm.GLMExact`` (the exact oracle).  A task's code is its place in
``tasks.MODULES``; its marker (``tasks.MARKERS``) and its kernels in the
numba dispatch (``dispatch.TASK_MODULES``) follow from it;
``tests/test_registry.py`` checks that the dispatch covers every task.

A new task: its kernels, its checks and ``SPEC`` in ``tasks/<task>.py``,
its module at the end of ``tasks.MODULES``, and an exact-metric oracle
(and metric evaluator, unless ``metrics.GLMMetrics`` fits) named by the
spec when ``exact_glm`` has none for it.
"""
from dataclasses import replace

from . import MODULES

TASKS = {mod.SPEC.name: replace(mod.SPEC, code=code)
         for code, mod in enumerate(MODULES)}
BY_CODE = {spec.code: spec for spec in TASKS.values()}
TASK_NAMES = tuple(sorted(TASKS))


def get_task(task):
    """The ``TaskSpec`` of a task name; clear error for an unknown one."""
    try:
        return TASKS[task]
    except (KeyError, TypeError):
        raise ValueError(
            f"task must be one of {list(TASK_NAMES)}, got {task!r}") from None
