"""H(x) = f(x, y*(x)) and y*(x) at one x, with the sample evaluations it
takes: the exact oracles behind the metrics (``exact_quadratic``,
``exact_glm``), for solvers that evaluate x without a gradient (the
black-box search of ``algorithms/search.py``).

What one evaluation counts (docs/solvers.md "Optuna"):

- ``quadratic``: ``n + m``.  y*(x) is the closed-form solution of the
  normal equations of one pass over the m LL samples, and f(x, y*) one pass
  over the n UL samples; the d x d Gram matrices that make each evaluation
  O(d^2) are that pass, built once and not counted again.
- logistic tasks: ``m`` per pass of the Newton solve of y*(x) over the LL
  samples (each value and gradient of g, the one at y = 0 that sets the
  solve's tolerance and the rejected backtracking steps included, each
  Hessian-vector product and each preconditioner, one per Newton step),
  plus ``n`` for f(x, y*(x)): ``exact_glm.CountedPasses``, the counts of
  ImplicitGD.  Each solve is warm-started from the previous evaluation's
  y*, as the metrics' solves are (``reset`` forgets it).
"""
import warnings

import numpy as np

from .exact_glm import CountedPasses, GLMExact
from .tasks.registry import get_task

# The dataset's task parameters from a Problem's parameter vector (each
# task's ``problem_params`` in ``tasks/<task>.py`` is the inverse map;
# ``task_data`` checks the round trip).
TASK_PARAMETERS = {
    "quadratic": lambda p: dict(dim_x=int(p[0]), ridge=p[2], lam=p[3]),
    "logreg": lambda p: {},
    "multilogreg": lambda p: dict(n_classes=int(p[1])),
    "datacleaning": lambda p: dict(n_classes=int(p[1]), l2_reg=p[2]),
}
# Errors of an evaluation that make its value unknown (as in
# ``metrics.evaluate``): a factorisation of infinite entries, a
# regularisation weight out of float64's range, ...
FAILURES = (ArithmeticError, ValueError, np.linalg.LinAlgError)


def task_data(problem):
    """The dataset dict of ``problem`` (features in float64, as the metrics
    score them), for its task's exact oracle; a task without an entry in
    ``TASK_PARAMETERS`` raises a ``ValueError`` naming it."""
    if problem.task not in TASK_PARAMETERS:
        raise ValueError(
            f"no exact evaluation of H for the {problem.task!r} task: add "
            "its parameters to benchmark_utils/exact_value.py "
            "TASK_PARAMETERS (its tasks have "
            f"{sorted(TASK_PARAMETERS)})")
    data = dict(task=problem.task,
                X_train=np.asarray(problem.Xg, dtype=np.float64),
                y_train=problem.yg,
                X_val=np.asarray(problem.Xf, dtype=np.float64),
                y_val=problem.yf,
                **TASK_PARAMETERS[problem.task](problem.params))
    params, dim_x, dim_y = get_task(problem.task).problem_params(**data)
    if not (np.array_equal(np.asarray(params, dtype=np.float64),
                           problem.params)
            and (dim_x, dim_y) == (problem.dim_x, problem.dim_y)):
        raise ValueError(f"TASK_PARAMETERS[{problem.task!r}] does not "
                         "invert the task's problem_params")
    return data


class ExactValue:
    """``exact(x) -> (H(x), y*(x), samples)`` on ``problem``.

    An evaluation whose solve fails or misses its tolerance, or whose value
    is not finite, returns ``H = nan`` and ``y* = None`` (its samples are
    still counted); it warns nothing, the caller decides.
    """

    def __init__(self, problem):
        data = task_data(problem)
        self.n, self.m = problem.n, problem.m
        if problem.task == "quadratic":
            self._quadratic = get_task("quadratic").make_oracle(data)
            self._glm = None
        else:
            self._quadratic = None
            self._glm = GLMExact(problem.task, data)
            self._glm.P = CountedPasses(self._glm.P, self.n, self.m)

    def reset(self):
        """Start the next solve from y = 0 (no warm start)."""
        if self._glm is not None:
            self._glm.reset()

    def __call__(self, x):
        x = np.asarray(x, dtype=np.float64)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            if self._quadratic is not None:
                value, y, samples = self._closed_form(x)
            else:
                value, y, samples = self._newton(x)
        if not np.isfinite(value) or y is None \
                or not np.all(np.isfinite(y)):
            return np.nan, None, samples
        return float(value), np.array(y), samples

    def _closed_form(self, x):
        exact = self._quadratic
        y = exact.y_star(x)
        return exact.f(x, y), y, self.n + self.m

    def _newton(self, x):
        glm, counted = self._glm, self._glm.P
        before = counted.samples
        try:
            y = glm.y_star(x)
            trusted = glm.status["y_residual"] <= 1.0
            value = counted.f_grad(y)[0] if trusted else np.nan
        except FAILURES:
            glm.reset()  # a failed solve is no warm start
            y, value = None, np.nan
        return value, y, counted.samples - before
