"""Per-task numba kernels and the task codes of the dataset contract.

Every task writes each per-sample direction of ALGORITHMS.md §1 as a fixed
linear map of a few per-sample *coefficients*: sample ``q`` at a point ``u``
has coefficients ``k_q(u)`` (``K`` numbers), and its contribution to ``D^x``,
``D^y``, ``D^z`` is ``L_q(k_q(u))``, with ``L_q`` linear and built from the
sample's data row only.  Estimators combine coefficients, tables store
coefficients (ALGORITHMS.md §3), and one fused pass per batch applies ``L_q``.
Deterministic regularisation terms are evaluated exactly (ALGORITHMS.md §1,
"Choice") by ``reg``.
"""

QUADRATIC, LOGREG, MULTILOGREG, DATACLEANING = 0, 1, 2, 3
TASKS = {"quadratic": QUADRATIC, "logreg": LOGREG,
         "multilogreg": MULTILOGREG, "datacleaning": DATACLEANING}


def n_coef(code, params):
    """Coefficients per UL sample (f) and per LL sample (g) of a task."""
    if code == QUADRATIC:
        return 1, 2
    if code == LOGREG:
        return 1, 2
    C = int(params[1])
    if code == MULTILOGREG:
        return C, 2 * C
    return C, 2 * C + 1


def task_code(task):
    """Integer code of a task name; clear error for an unknown one."""
    if task not in TASKS:
        raise ValueError(
            f"task must be one of {sorted(TASKS)}, got {task!r}")
    return TASKS[task]
