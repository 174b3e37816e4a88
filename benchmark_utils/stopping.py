"""Stopping criterion that stops a diverging run but keeps its curve.

benchopt 1.10 marks a run whose monitored value is NaN (or jumps up by more
than 1e5) as ``diverged`` and then discards its whole curve.  A diverging
step size is a result worth seeing next to the others, so this criterion
stops such a run the same way but ends it as ``done``: the points before the
blow-up stay in the results, and the objective's ``diverged`` column is 1 on
the point where the iterate stopped being finite.
"""
from benchopt.stopping_criterion import SufficientProgressCriterion


class KeepDivergedCriterion(SufficientProgressCriterion):
    """``SufficientProgressCriterion`` whose divergence stop keeps the curve."""

    def should_stop(self, stop_val, objective_list):
        stop, status, stop_val = super().should_stop(stop_val, objective_list)
        if status == "diverged":
            if self.terminal is not None:
                self.terminal.debug("diverged: run stopped, curve kept")
            status = "done"
        return stop, status, stop_val
