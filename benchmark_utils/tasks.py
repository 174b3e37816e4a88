"""From a dataset dict (docs/architecture.md, "Contracts") to the core's
``Problem`` and a seeded starting point, for every task of the registry
(``problems/registry.py``: each task's ``TaskSpec`` gives its parameters,
dimensions and starting point)."""
import numpy as np

from .problem import make_problem
from .problems.registry import TASK_NAMES, get_task
from .validation import check_data

__all__ = ["TASK_NAMES", "problem_from_data", "starting_point"]


def problem_from_data(task, X_train, y_train, X_val, y_val, X_test=None,
                      y_test=None, **params):
    """The ``Problem`` of a dataset: task parameters and the sizes of x, y
    (the spec's ``problem_params``).

    The dataset is first checked (:func:`validation.check_data`): a bad
    array or parameter raises a ``ValueError`` naming it, before any work.
    quadratic: params [d_x, d_y, ridge, lam]; logreg: [p], x and y in R^p;
    multilogreg: [p, C], x in R^C, y in R^{pC}; datacleaning: [p, C, C_r],
    x in R^m (one weight per training sample), y in R^{pC}.
    """
    check_data(task, X_train, y_train, X_val, y_val, X_test, y_test,
               **params)
    vec, dim_x, dim_y = get_task(task).problem_params(X_train, **params)
    return make_problem(task, X_train, y_train, X_val, y_val, vec, dim_x,
                        dim_y)


def starting_point(problem, seed):
    """(x0, y0, z0) drawn from ``seed`` by the task's spec.

    quadratic: x0, y0 ~ N(0, I), z0 ~ N(0, 0.01 I / d_y) (|z0| ~ 0.1, inside
    R = 1).  Logistic tasks: y0 ~ N(0, 1e-4 I), z0 = 0 and x0 = c + 0.1 N(0, I)
    with c = log(0.01) for the regularisation weights (logreg,
    multilogreg) and c = 0 for the sample weights of datacleaning
    (sigma(0) = 1/2).
    """
    rng = np.random.default_rng(seed)
    return get_task(problem.task).starting_point(rng, problem.dim_x,
                                                 problem.dim_y)
