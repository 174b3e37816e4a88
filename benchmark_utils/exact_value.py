"""H(x) = f(x, y*(x)) and y*(x) at one x, with the sample evaluations it
takes: the exact oracles behind the metrics (``exact_quadratic``,
``exact_glm``), for solvers that evaluate x without a gradient (the
black-box search of ``algorithms/search.py``).

What one evaluation counts (docs/solvers.md "Optuna"):

- ``quadratic`` (its spec's ``exact_solves = "closed_form"``): ``n + m``.
  y*(x) is the closed-form solution of the normal equations of one pass
  over the m LL samples, and f(x, y*) one pass over the n UL samples; the
  d x d Gram matrices that make each evaluation O(d^2) are that pass,
  built once and not counted again.
- the logistic tasks (``"newton"``): ``m`` per pass of the Newton solve
  of y*(x) over the LL samples (each value and gradient of g, the one at
  y = 0 that sets the solve's tolerance and the rejected backtracking
  steps included, each Hessian-vector product and each preconditioner,
  one per Newton step), plus ``n`` for f(x, y*(x)):
  ``exact_glm.CountedPasses``, the counts of ImplicitGD.  Each solve is
  warm-started from the previous evaluation's y*, as the metrics' solves
  are (``reset`` forgets it).
"""
import warnings

import numpy as np

from .exact_glm import CountedPasses, GLMExact

# Errors of an evaluation that make its value unknown (as in
# ``metrics.evaluate``): a factorisation of infinite entries, a
# regularisation weight out of float64's range, ...
FAILURES = (ArithmeticError, ValueError, np.linalg.LinAlgError)


class ExactValue:
    """``exact(x) -> (H(x), y*(x), samples)`` on ``problem``.

    An evaluation whose solve fails or misses its tolerance, or whose value
    is not finite, returns ``H = nan`` and ``y* = None`` (its samples are
    still counted); it warns nothing, the caller decides.
    """

    def __init__(self, problem):
        data = problem.oracle_data()
        self.n, self.m = problem.n, problem.m
        if problem.spec.exact_solves == "closed_form":
            self._closed = problem.spec.make_oracle(data)
            self._glm = None
        else:
            self._closed = None
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
            if self._closed is not None:
                value, y, samples = self._closed_form(x)
            else:
                value, y, samples = self._newton(x)
        if not np.isfinite(value) or y is None \
                or not np.all(np.isfinite(y)):
            return np.nan, None, samples
        return float(value), np.array(y), samples

    def _closed_form(self, x):
        exact = self._closed
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
