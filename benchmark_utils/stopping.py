"""The benchmark's stopping rule: a run ends when it is done (docs/metrics.md
"Stopping").

benchopt evaluates a ``callback`` run at callback calls 0, 1, 2, 3, 4, 6, 9,
13, ... (each gap x1.5) and ends it on ``--timeout``, on ``--max-runs`` (the
number of points) or when its stopping criterion says so.
``ConvergenceCriterion`` says so when the run

1. has **converged**: ``grad_norm2 <= tol * grad_norm2`` of the first point
   (default ``tol = 1e-20``: |grad H| divided by 1e10; a gradient exactly 0
   stops too), at a point whose x is not saturated (``x_saturated`` = 0,
   ``metrics.saturation``: there grad H vanishes by round-off);
2. makes **no progress**: ``value`` (H) has not reached a new lowest value,
   lower by more than ``value_rtol * |H|`` (default 1e-10), for ``patience``
   consecutive evaluations (default 5: with the x1.5 spacing, the last ~85%
   of the run's iterations); a point with the sample count of the point
   before it (the grid of sample evaluations evaluates one iterate again
   after an iteration that passed several grid points, such as a full
   pass) is the same iterate and does not count;
3. has **diverged**: its point carries ``diverged = 1`` (metrics that
   cannot be trusted, ``metrics.untrusted``: a non-finite iterate, value or
   gradient, a failed evaluation, exact solves that missed their tolerance,
   an astronomically large iterate or gap), or benchopt's own test fires
   (``value`` NaN or up by more than 1e5), which sets ``diverged = 1`` on
   that point.  benchopt 1.10 would discard the whole curve of a run it
   calls *diverged*; this criterion ends it as *done* instead, so the
   points before the blow-up stay in the results and the last one carries
   ``diverged = 1``.  Rule 3 is checked first: a flagged point never ends
   a run as converged.

Two departures from benchopt's ``SufficientProgressCriterion``: the gaps
between evaluations stay x1.5 (benchopt stretches them by x1.2 more after
every point whose value did not change at all, which made converged runs
sample points hundreds of times further apart than their convergence
time), and ``time_is_up()`` lets a solver end its run at the deadline between
two evaluations instead of at the next one (benchopt checks ``--timeout``
only at evaluations; see ``BilevelSolver.run``), from the ``timeout``
benchopt gives ``get_runner_instance``.

Metrics that are NaN on some tasks (``suboptimality``, ``dist_x_star`` on
the logistic tasks) are not used; a missing or non-finite ``grad_norm2`` at
the first point disables rule 1 only.
"""
import math
import time

from benchopt.stopping_criterion import RHO, StoppingCriterion


def _finite(v):
    try:
        return v is not None and math.isfinite(v)
    except TypeError:
        return False


def _key(name):
    return name if name.startswith("objective_") else f"objective_{name}"


SAMPLES = "objective_n_samples"


def repeated_point(objective_list):
    """True when the last point has the sample count of the point before it:
    the same iterate evaluated again (no iteration ran between the two
    callback calls; docs/metrics.md "Grid of sample evaluations")."""
    if len(objective_list) < 2:
        return False
    last = objective_list[-1].get(SAMPLES)
    before = objective_list[-2].get(SAMPLES)
    return _finite(last) and _finite(before) and last == before


class ConvergenceCriterion(StoppingCriterion):
    """Stop a run that converged, stalls, or diverged (keeping its curve).

    Parameters
    ----------
    tol : float
        Converged when ``grad_norm2 <= tol * grad_norm2`` at the first point.
        ``0`` keeps only the exact-zero test; a negative value disables it.
    patience : int
        Number of consecutive evaluations without a new lowest ``value``
        (by more than ``value_rtol * |value|``) that ends the run.
        ``float("inf")`` disables the rule.
    value_rtol : float
        Relative decrease of the lowest value that counts as progress.
    grad_key : str
        The metric of rule 1 (default ``grad_norm2``).
    strategy, key_to_monitor, minimize
        As for benchopt's criteria; ``key_to_monitor`` (default ``value``)
        is the metric of rule 2 and of benchopt's own divergence test.
    """

    def __init__(self, tol=1e-20, patience=5, value_rtol=1e-10,
                 grad_key="grad_norm2", strategy=None,
                 key_to_monitor="value", minimize=True):
        if not patience > 0:
            raise ValueError(f"patience must be > 0, got {patience!r}")
        if not value_rtol >= 0:
            raise ValueError(f"value_rtol must be >= 0, got {value_rtol!r}")
        self.tol = tol
        self.patience = patience
        self.value_rtol = value_rtol
        self.grad_key = grad_key
        self._best = math.inf
        self._stall = 0
        self.stop_reason = None
        super().__init__(
            tol=tol, patience=patience, value_rtol=value_rtol,
            grad_key=grad_key, strategy=strategy,
            key_to_monitor=key_to_monitor, minimize=minimize)

    # -- benchopt hooks ---------------------------------------------------
    def should_stop(self, stop_val, objective_list):
        stop, status, stop_val = super().should_stop(stop_val, objective_list)
        if status == "diverged":
            # benchopt's own test (value NaN, or up by more than 1e5): the
            # point it fired on is the run's last, and says so (benchopt
            # saves ``objective_list``, its curve, as is).
            objective_list[-1]["objective_diverged"] = 1
            self.stop_reason = "diverged"
            self.debug("diverged: run stopped, curve kept")
            status = "done"
        return stop, status, stop_val

    def get_next_stop_val(self, stop_val):
        # benchopt multiplies rho by 1.2 after each point whose value did not
        # change; a flat value counts towards ``patience`` here instead.
        self.rho = RHO
        return super().get_next_stop_val(stop_val)

    def check_convergence(self, objective_list):
        last, first = objective_list[-1], objective_list[0]

        flag = last.get("objective_diverged")
        if _finite(flag) and flag != 0:
            return self._stop("diverged")

        progress = 0.0
        g_key = _key(self.grad_key)
        g, g0 = last.get(g_key), first.get(g_key)
        # a saturated x (metrics.saturation) has grad H vanish by
        # round-off: never read as stationary
        saturated = last.get("objective_x_saturated")
        if _finite(g) and _finite(g0) and self.tol >= 0 \
                and not (_finite(saturated) and saturated > 0):
            if g <= self.tol * g0:
                return self._stop(f"converged: {self.grad_key} = {g:.3e} "
                                  f"<= tol * {g0:.3e}")
            if 0 < g < g0 and 0 < self.tol < 1:
                progress = math.log(g / g0) / math.log(self.tol)

        if self.key_to_monitor_ is not None:
            if not repeated_point(objective_list) \
                    and self._count_progress(last.get(self.key_to_monitor_)):
                return self._stop(
                    f"no progress: no new lowest {self.key_to_monitor} "
                    f"in {self._stall} evaluations")
            progress = max(progress, self._stall / self.patience)
        return False, min(max(progress, 0.0), 1.0)

    def _count_progress(self, v):
        """Rule 2 on a new point of value ``v``: a new lowest value resets
        the count of points without one, another point adds one; True
        when the count reaches ``patience``.  A non-finite ``v`` plays no
        part."""
        if not _finite(v):
            return False
        v = v if self.minimize else -v
        if v < self._best - self.value_rtol * abs(self._best) \
                or not _finite(self._best):
            self._best, self._stall = v, 0
        else:
            self._stall += 1
        return self._stall >= self.patience

    def get_runner_instance(self, max_runs=1, timeout=None, **kwargs):
        """benchopt's copy for one run (its public hook, given the run's
        ``--timeout``), which also keeps the run's deadline for
        ``time_is_up``: ``timeout`` seconds from now, read just after
        benchopt's own, so a solver that stops on it is past benchopt's
        and its run ends with status ``timeout``."""
        criterion = super().get_runner_instance(
            max_runs=max_runs, timeout=timeout, **kwargs)
        criterion.deadline = (None if timeout is None
                              else time.time() + timeout)
        return criterion

    # -- for the solvers --------------------------------------------------
    deadline = None  # time.time() of --timeout, set for a run (above)

    def time_is_up(self):
        """True once the run's ``--timeout`` deadline has passed."""
        return self.deadline is not None and time.time() >= self.deadline

    def _stop(self, reason):
        self.stop_reason = reason
        self.debug(f"stop: {reason}")
        return True, 1.0
