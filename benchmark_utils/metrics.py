"""Exact metrics of docs/algorithms.md §6 for a solver's (x, y, z).

``value = H(x)``, ``grad_norm2 = |grad H(x)|^2``, ``inner_gap = |y - y*(x)|^2``,
``implicit_gap = |z - z*(x)|^2``, ``n_samples`` and ``epochs =
n_samples / (n + m)``.  On the quadratic task, also ``suboptimality =
H(x) - H(x*)`` and ``dist_x_star = |x - x*| / |x*|``, all in closed form.
On the logistic tasks y*(x) and z*(x) are solved to high accuracy
(``exact_glm``) and the classification error rates of the model y*(x) on the
train / validation / test sets are reported, with ``test_error_iterate``,
the test error of the solver's own y, and ``solve_residual``, the larger of
the two solves' final residuals over their tolerance (<= 1: both met).
Linear algebra in a metric evaluation runs on ``metric_threads()`` BLAS
threads (default 1), so that evaluations never oversubscribe the cores when
benchopt runs several solvers at once.
A point whose iterates are not finite is reported with ``diverged = 1`` and
NaN metrics; a point whose ``value`` or ``grad_norm2`` overflows gets
``diverged = 1`` too.  The stopping criterion (``stopping.py``) then ends the
run and keeps its curve.
"""
import os

import numpy as np
from threadpoolctl import ThreadpoolController

from .exact_glm import GLMExact

METRIC_KEYS = ("value", "grad_norm2", "inner_gap", "implicit_gap")

THREADS_ENV = "BILEVEL_METRIC_THREADS"
_CONTROLLER = None


def metric_threads():
    """BLAS threads of a metric evaluation: ``$BILEVEL_METRIC_THREADS``, or
    1.  The heavy passes of the multiclass metrics are single-threaded numba
    kernels anyway; with one BLAS thread per process, ``benchopt run -j N``
    never runs more threads than solvers (an oversubscribed OpenBLAS was
    measured 30x slower on one product)."""
    value = os.environ.get(THREADS_ENV, "1")
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{THREADS_ENV} must be an integer >= 1, got "
                         f"{value!r}")
    return n


def blas_limit():
    """Context manager limiting BLAS to ``metric_threads()`` threads."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=metric_threads(), user_api="blas")


class QuadraticMetrics:
    """Closed-form metrics for the ``quadratic`` task, from its spec's oracle
    (``exact_quadratic.QuadraticExact``)."""

    def __init__(self, data):
        from .problems.registry import get_task
        self.exact = get_task(data["task"]).make_oracle(data)
        self.n, self.m = data["X_val"].shape[0], data["X_train"].shape[0]

    def __call__(self, x, y, z):
        with blas_limit():
            return self._metrics(x, y, z)

    def _metrics(self, x, y, z):
        ex = self.exact
        ys = ex.y_star(x)
        gyf = ex.grad_y_f(x, ys)
        zs = ex.z_solve(gyf)
        grad = ex.grad_x_f(x, ys) + ex.K.T @ zs
        value = float(ex.f(x, ys))
        xs = ex.x_star
        return dict(
            value=value,
            suboptimality=value - ex.value_star,
            grad_norm2=float(grad @ grad),
            inner_gap=float(np.sum((y - ys) ** 2)),
            implicit_gap=float(np.sum((z - zs) ** 2)),
            dist_x_star=float(np.linalg.norm(x - xs)
                              / max(np.linalg.norm(xs), 1e-300)),
        )

    def nan_metrics(self):
        return {k: np.nan for k in METRIC_KEYS + ("suboptimality",
                                                  "dist_x_star")}


class GLMMetrics:
    """Metrics of the logistic tasks (``logreg``, ``multilogreg``,
    ``datacleaning``): ``exact_glm.GLMExact`` on the oracle their spec
    names."""

    ERRORS = ("train_error", "val_error", "test_error", "test_error_iterate")

    def __init__(self, data):
        with blas_limit():
            self.exact = GLMExact(data["task"], data)
        self.n, self.m = data["X_val"].shape[0], data["X_train"].shape[0]
        self.sets = [(data["X_train"], data["y_train"]),
                     (data["X_val"], data["y_val"])]
        if data.get("X_test") is not None:
            self.sets.append((data["X_test"], data["y_test"]))

    def __call__(self, x, y, z):
        with blas_limit():
            return self._metrics(x, y, z)

    def _metrics(self, x, y, z):
        P = self.exact.P
        ys, zs, grad, value = self.exact.solve(x)
        out = dict(value=float(value),
                   grad_norm2=float(grad @ grad),
                   inner_gap=float(np.sum((y - ys) ** 2)),
                   implicit_gap=float(np.sum((z - zs) ** 2)),
                   solve_residual=float(self.exact.status["residual"]))
        for name, (X, lab) in zip(self.ERRORS, self.sets):
            out[name] = P.error(X, lab, ys)
        if len(self.sets) == 3:
            out["test_error_iterate"] = P.error(*self.sets[2], y)
        return out

    def nan_metrics(self):
        return {k: np.nan for k in METRIC_KEYS + self.ERRORS
                + ("solve_residual",)}


def make_metrics(data):
    """The metric evaluator of a dataset dict: the one its task's
    ``TaskSpec`` names (``problems/registry.py``)."""
    from .problems.registry import get_task
    return get_task(data["task"]).make_metrics(data)


def evaluate(metrics, x, y, z, n_samples, diverged=False):
    """Metrics dict for one iterate; NaN metrics when it is not finite.

    ``diverged`` is 1 when the iterate is not finite (or the engine said
    so), and also when it is finite but ``value`` or ``grad_norm2``
    overflows (e.g. ``SABA[step_size=20]`` on Simulated: x is finite but
    so large that H is NaN and |grad H|^2 is inf); the stopping criterion
    then ends the run (``stopping.py``).
    """
    finite = all(np.all(np.isfinite(a)) for a in (x, y, z))
    if finite and not diverged:
        # an overflow is reported as diverged = 1 below, not as a warning
        with np.errstate(over="ignore", invalid="ignore"):
            out = metrics(x, y, z)
    else:
        out = metrics.nan_metrics()
    out["n_samples"] = int(n_samples)
    out["epochs"] = n_samples / (metrics.n + metrics.m)
    metrics_finite = all(np.isfinite(out[k]) for k in ("value", "grad_norm2"))
    out["diverged"] = int(bool(diverged) or not finite or not metrics_finite)
    return out
