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
Every evaluation also carries the dataset's reference results
(``reference_results``: H and errors at x0, at x* or the best single
regularisation value, at the oracle sample weights, ...), computed once per
metric object, as constant ``ref_<name>_<quantity>`` columns.
Linear algebra in a metric evaluation runs on ``metric_threads()`` BLAS
threads (default 1), so that evaluations never oversubscribe the cores when
benchopt runs several solvers at once.
A point gets ``diverged = 1`` when its metrics cannot be trusted
(:func:`untrusted`): an iterate that is not finite (NaN metrics), an
evaluation that failed (NaN metrics, ``solve_residual = inf``), a
``value`` or ``grad_norm2`` that overflows, exact solves that missed their
tolerance (``solve_residual > 1``), or an iterate or gap beyond
``HUGE``.  The stopping criterion (``stopping.py``) then ends the run and
keeps its curve; a warning says which rule fired.
"""
import os
import warnings

import numpy as np
from threadpoolctl import ThreadpoolController

from .exact_glm import GLMExact
from .reference_results import glm_references, quadratic_references
from .reference_store import load_or_compute

METRIC_KEYS = ("value", "grad_norm2", "inner_gap", "implicit_gap")
# |y*(x)|^2 and |z*(x)|^2: the solution's own size, the scale of the
# inner-divergence rule (``lost_inner``).
SOLUTION_KEYS = ("y_star_norm2", "z_star_norm2")

# Squared norms (of x, y, z, and of the gaps) beyond which a point is not
# trusted: entries of about 1e50, far past any model these tasks define
# (e^{x} saturates at |x| ~ 700), where sigmoids and softmaxes saturate and
# ||grad H||^2 comes out as 0 while H rises.
HUGE = 1e100

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
        from .tasks.registry import get_task
        # the closed forms' Gram products too: the metrics must not depend
        # on how many BLAS threads the process has (docs/results.md "Run on a
        # cluster")
        with blas_limit():
            self.exact = get_task(data["task"]).make_oracle(data)
        self.n, self.m = data["X_val"].shape[0], data["X_train"].shape[0]
        self.task = data["task"]
        self._references = None

    def __call__(self, x, y, z):
        with blas_limit():
            return self._metrics(x, y, z) | self.references()

    def references(self):
        """The constant reference columns (x0 = 0 and x*), computed once."""
        if self._references is None:
            with blas_limit():
                self._references = quadratic_references(self.exact,
                                                        self.task)
        return self._references

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
            y_star_norm2=float(ys @ ys),
            z_star_norm2=float(zs @ zs),
        )

    def nan_metrics(self):
        return {k: np.nan for k in METRIC_KEYS + SOLUTION_KEYS
                + ("suboptimality", "dist_x_star")} | self.references()

    def solve_tolerances(self, gtol, ztol):
        """Nothing to set: the quadratic's y*(x) and z*(x) are closed
        forms (``GLMMetrics.solve_tolerances``)."""

    def only(self, columns):
        """Every column is computed: the closed forms cost next to nothing
        (``GLMMetrics.only``)."""

    def reset(self):
        """Nothing to reset: closed forms (``GLMMetrics.reset``)."""

    def solutions(self):
        """None: nothing to warm-start (``GLMMetrics.solutions``)."""
        return None

    def warm_start(self, solutions):
        """Nothing to warm-start: closed forms."""


class GLMMetrics:
    """Metrics of the logistic tasks (``logreg``, ``multilogreg``,
    ``datacleaning``): ``exact_glm.GLMExact`` on the oracle their spec
    names."""

    ERRORS = ("train_error", "val_error", "test_error", "test_error_iterate")
    # columns an evaluation may skip (``only``)
    OPTIONAL = ("grad_norm2",) + ERRORS

    def __init__(self, data):
        with blas_limit():
            # Newton directions and z*'s corrections over float32 features:
            # the float64 gradient and residual keep both tolerances
            self.exact = GLMExact(data["task"], data, products="float32")
        self.n, self.m = data["X_val"].shape[0], data["X_train"].shape[0]
        self.sets = [(data["X_train"], data["y_train"]),
                     (data["X_val"], data["y_val"])]
        if data.get("X_test") is not None:
            self.sets.append((data["X_test"], data["y_test"]))
        self._data = data
        self._references = None
        self._wanted = None  # the optional columns computed (None: all)

    def __call__(self, x, y, z):
        references = self.references()
        with blas_limit():
            return self._metrics(x, y, z) | references

    def references(self):
        """The constant reference columns of the dataset
        (``reference_results``), computed once on the exact solver, whose
        warm start is then reset (the first evaluation starts from 0, as
        without them); kept on disk by content (``reference_store``), so
        that the next run, process or worker on the same data reads
        them."""
        if self._references is None:
            with blas_limit():
                self._references = load_or_compute(
                    self._data, lambda: glm_references(self.exact,
                                                       self._data))
            self.exact.reset()
            self._data = None
        return self._references

    def _metrics(self, x, y, z):
        P = self.exact.P
        wanted = self._wanted
        ys, zs, grad, value = self.exact.solve(
            x, gradient=wanted is None or "grad_norm2" in wanted)
        out = dict(value=float(value),
                   inner_gap=float(np.sum((y - ys) ** 2)),
                   implicit_gap=float(np.sum((z - zs) ** 2)),
                   y_star_norm2=float(ys @ ys),
                   z_star_norm2=float(zs @ zs),
                   solve_residual=float(self.exact.status["residual"]))
        if grad is not None:
            out["grad_norm2"] = float(grad @ grad)
        for name, (X, lab) in zip(self.ERRORS, self.sets):
            if wanted is None or name in wanted:
                out[name] = P.error(X, lab, ys)
        if len(self.sets) == 3 and (wanted is None
                                    or "test_error_iterate" in wanted):
            out["test_error_iterate"] = P.error(*self.sets[2], y)
        return out

    def nan_metrics(self):
        return {k: np.nan for k in METRIC_KEYS + SOLUTION_KEYS
                + self.ERRORS + ("solve_residual",)} | self.references()

    def reset(self):
        self.exact.reset()

    def solve_tolerances(self, gtol, ztol):
        """The next evaluations solve y*(x) to |grad_y g| <= gtol max(1,
        |grad_y g(x, 0)|) and z*(x) to a relative residual ztol
        (``exact_glm.GLMExact``; the benchmark's metrics keep its defaults,
        1e-10 and 1e-12).  The reference results are computed first, at the
        defaults: the store they are kept in serves every run."""
        self.references()
        if (self.exact.gtol, self.exact.ztol) != (gtol, ztol):
            self.exact.gtol, self.exact.ztol = float(gtol), float(ztol)
            self.exact.reset()  # no answer of the old tolerances is reused

    def only(self, columns):
        """The next evaluations compute, of the optional columns
        (``OPTIONAL``: ``grad_norm2`` and the error rates), only those in
        ``columns`` (None: all of them, the benchmark's evaluations).  H,
        the gaps, the solutions' sizes and ``solve_residual`` are always
        computed: the divergence rules read them.  A tuning trial scored by
        H skips the cross term of grad H and four products with the sets
        (``tools/tune/run.py``)."""
        if columns is not None:
            unknown = sorted(set(columns) - set(self.OPTIONAL)
                             - set(METRIC_KEYS) - set(SOLUTION_KEYS))
            if unknown:
                raise ValueError(f"columns: unknown {unknown}; optional "
                                 f"ones: {list(self.OPTIONAL)}")
            columns = frozenset(columns)
        self._wanted = columns

    def solutions(self):
        """y*(x) and z*(x) of the last evaluation: where the next ones
        start (``warm_start``)."""
        return self.exact.solutions()

    def warm_start(self, solutions):
        """Start the next evaluations' solves from ``solutions`` (a value
        of ``solutions()``) instead of the last ones."""
        self.exact.warm_start(*solutions)


def make_metrics(data):
    """The metric evaluator of a dataset dict: the one its task's
    ``TaskSpec`` names (``tasks/registry.py``), with the task's
    ``x_range`` (:func:`saturation`)."""
    from .tasks.registry import get_task
    spec = get_task(data["task"])
    evaluator = spec.make_metrics(data)
    evaluator.x_range = spec.x_range
    return evaluator


# A solver's own y (z) is lost when ||y - y*(x)||^2 exceeds LOST times its
# scale, max(the gap at the run's first point, ||y*(x)||^2): a distance
# 1000x the larger of where it started and the solution's own size
# (docs/metrics.md "Divergence" gives the calibration).
LOST = 1e6

# What a solver reports as z (``z_role`` of ``evaluate``): an iterate that
# tracks z*(x) (the PnPBO family, AmIGO, FSLA, F2SA, ITD), or a sample
# drawn afresh at each iteration (a Neumann or HIA estimate of stocBiO,
# BSA, TTSA, SUSTAIN, MRBO, VRBO) or the constant z0 (BOME, PZOBO), to
# which the rule does not apply.
Z_ROLES = ("iterate", "sample")


def lost_inner(out, start, z_role="iterate"):
    """Why the solver's own y (or z) has left y*(x) (or z*(x)), or None.

    ``inner_gap = ||y - y*(x)||^2`` is compared with ``LOST`` times
    ``max(inner_gap at the start, ||y*(x)||^2)`` (``start``: the metrics
    of the run's first point, or None when it was not evaluated); the
    same for ``implicit_gap`` and z*(x) when ``z_role`` is
    ``"iterate"``.  H, its gradient and the errors of y*(x) stay exact
    there, but they no longer describe the run: the solver's own y has
    left the lower problem (docs/metrics.md "Divergence").
    """
    pairs = [("inner_gap", "y_star_norm2", "y", "y*(x)")]
    if z_role == "iterate":
        pairs.append(("implicit_gap", "z_star_norm2", "z", "z*(x)"))
    for gap_key, size_key, name, star in pairs:
        gap, size = out.get(gap_key), out.get(size_key)
        if gap is None or size is None or not np.isfinite(size):
            continue
        at_start = start.get(gap_key, 0.0) if start else 0.0
        scale = max(at_start, size, np.finfo(np.float64).tiny)
        if gap > LOST * scale:
            return (f"the solver's own {name} has left {star}: {gap_key} = "
                    f"{gap:.3g} > {LOST:.0e} x max({gap_key} at the start "
                    f"{at_start:.3g}, |{star}|^2 = {size:.3g}) "
                    f"(rule: lost inner iterate)")
    return None


def saturation(x, x_range):
    """The fraction of x's coordinates outside the task's ``x_range``
    (``TaskSpec.x_range``), where H no longer depends on them in float64
    and the computed grad H vanishes by round-off.  A point with any such
    coordinate is never read as stationary: the convergence rule
    (``stopping.py``) and ``tools.select``'s ranking by ``grad_norm2`` skip
    it (PZOBO and BOME at ``step_size=10`` on digits: every coordinate
    there, ``grad_norm2`` 4e-55 and exactly 0, PZOBO's H above its start).
    It is not a divergence: a tuned MA-SOBA on Fashion-MNIST sends half
    its sample weights there within 6 epochs, at the study's lowest H."""
    lo, hi = x_range
    return float(np.count_nonzero((x < lo) | (x > hi))) / max(x.size, 1)


def untrusted(out, x, y, z):
    """Why the metrics ``out`` of the point (x, y, z) cannot be trusted, or
    None.

    - ``value`` or ``grad_norm2`` is not finite (an overflow, or a failed
      evaluation);
    - ``solve_residual > 1``: the exact y*(x) or z*(x) solve missed its
      tolerance, so H, its gradient and the gaps are not the exact ones;
    - ``|x|^2``, ``|y|^2``, ``|z|^2``, ``inner_gap`` or ``implicit_gap`` is
      above ``HUGE``: the iterate is astronomically far out (the losses
      saturate there, and ``grad_norm2`` can be exactly 0 while H rose).
    """
    for key in ("value", "grad_norm2"):  # grad_norm2 when computed
        if key in out and not np.isfinite(out[key]):
            return f"{key} is {out[key]}"
    residual = out.get("solve_residual", 0.0)
    if not residual <= 1.0:
        return (f"the exact solves missed their tolerance (solve_residual "
                f"= {residual:.3g} > 1)")
    with np.errstate(over="ignore", invalid="ignore"):
        sizes = {"|x|^2": float(x @ x), "|y|^2": float(y @ y),
                 "|z|^2": float(z @ z), "inner_gap": out["inner_gap"],
                 "implicit_gap": out["implicit_gap"]}
    for key, size in sizes.items():
        if not size <= HUGE:
            return f"{key} = {size:.3g} > {HUGE:.0e}"
    return None


def evaluate(metrics, x, y, z, n_samples, diverged=False, z_role="iterate"):
    """Metrics dict for one iterate, with ``diverged`` = 1 when the point
    cannot be trusted.

    A point that is not finite (or that the engine reported diverged) gets
    NaN metrics.  An evaluation that raises (e.g. a preconditioner of a
    Hessian whose regularisation underflowed to 0, or a factorisation of
    infinite entries) gets NaN metrics and ``solve_residual = inf`` instead
    of ending the run with an error, so the curve up to it is kept.  A
    finite point is flagged by :func:`untrusted` (e.g.
    ``SABA[step_size=20]`` on Simulated: x finite but so large that H is
    NaN; ``SABA[step_size=10]`` on digits: H rose, the iterates reached
    1e60 and ``grad_norm2`` is 0) and by :func:`lost_inner`, against the
    gaps of the run's first point (``n_samples = 0``), which ``metrics``
    keeps as ``start``.  The stopping criterion ends the run at a flagged
    point (``stopping.py``).
    """
    if z_role not in Z_ROLES:
        raise ValueError(f"z_role must be one of {Z_ROLES}, got {z_role!r}")
    x, y, z = (np.asarray(a, dtype=np.float64) for a in (x, y, z))
    finite = all(np.all(np.isfinite(a)) for a in (x, y, z))
    reason = None
    if finite and not diverged:
        try:
            # an overflow is reported as diverged = 1 below, not as a
            # warning
            with np.errstate(over="ignore", invalid="ignore",
                             divide="ignore"):
                out = metrics(x, y, z)
        except (ArithmeticError, ValueError, np.linalg.LinAlgError) as e:
            out = _failed(metrics)
            reason = f"the evaluation failed ({type(e).__name__}: {e})"
    else:
        out = metrics.nan_metrics()
        reason = ("an iterate is not finite" if not finite else
                  "the solver reported its run as diverged")
    out["n_samples"] = int(n_samples)
    out["epochs"] = n_samples / (metrics.n + metrics.m)
    x_range = getattr(metrics, "x_range", (-np.inf, np.inf))
    out["x_saturated"] = saturation(x, x_range) if finite else np.nan
    if reason is None:
        reason = untrusted(out, x, y, z)
    if reason is None and n_samples == 0:
        metrics.start = dict(out)  # the run's first point: lost_inner's
    if reason is None:
        reason = lost_inner(out, getattr(metrics, "start", None), z_role)
    out["diverged"] = int(reason is not None)
    if reason is not None:
        _reset(metrics)
        warnings.warn(f"diverged at {out['n_samples']} sample evaluations: "
                      f"{reason}; the run ends here (diverged = 1) and "
                      "keeps its curve", RuntimeWarning, stacklevel=2)
    return out


def _failed(metrics):
    """The metrics of a point whose evaluation raised."""
    out = metrics.nan_metrics()
    if "solve_residual" in out:
        out["solve_residual"] = np.inf
    return out


def _reset(metrics):
    """Forget the warm start of the exact solves (a diverged point's y*, z*
    must not be the start of the next run's evaluations)."""
    reset = getattr(metrics, "reset", None)
    if callable(reset):
        reset()
