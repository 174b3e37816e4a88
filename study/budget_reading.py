"""A run's metrics read at a budget of epochs, the same budget for every
run of a table.

- Results evaluated on a common grid (the Objective's ``eval_epochs``:
  point c at n_samples >= c eval_epochs (n + m)): the run's grid point, its
  first evaluation at or past the budget, at most one grid step past it
  (one iteration past the grid's epochs); the epochs it read are reported.
- Results not on a common grid (the stored ``study/data/*.parquet``), or a
  run whose first point past the budget is further: the metrics are
  interpolated linearly in epochs between the evaluations on either side of
  the budget, and marked as interpolated.
- A run that ended before the budget by its stopping rule (converged, or
  no progress: ``stop_cause`` replays the benchmark's criterion on its
  points) keeps its last point.
- A run stopped before the budget for another cause (benchopt's
  ``--timeout``, its ``-n`` cap: ``stop_cause``), its last evaluation more
  than ``NEAR`` epochs before it, has no reading there (``stopped``, with
  the epochs it stopped at and why): its value there is not known.  The
  same holds for the end (``read_end`` with the epochs the runs were to
  end at, the target of their last point).
- A run that diverged (a point flagged ``objective_diverged``) at or before
  the budget, or before the reading's evaluations on either side, has no
  reading: it is never reported with an earlier value (its starting H).

``read_at`` is the reading a table uses: where one iteration draws more
than the grid step (a full pass, an inner loop), its first evaluation past
the budget includes up to that iteration's draw beyond it.  ``read_before``
is the other side of the bracket: where ``read_at`` is more than ``NEAR``
epochs past the budget, the run's last evaluation at or before it, an
iterate that used at most the budget.  The state of a run at
the budget lies between the two; a verdict that is the same on both does
not depend on where the budget fell in an iteration.
"""
import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

EPOCHS = "objective_epochs"
# epochs: a reading at most this far past the budget is taken as at it
# (docs/study.md: every run is to have a point this close to each budget);
# a run that ended at most this far before a reading reached it
NEAR = 0.25
FLAG = "objective_diverged"
TOL = 1e-9
# why a run ended where it did (``stop_cause``)
DIVERGED, CONVERGED, NO_PROGRESS = "diverged", "converged", "no progress"
TIMEOUT, MAX_RUNS = "timeout", "max runs"
UNKNOWN = ""  # stopped for a cause its results do not tell
# ended by the benchmark's stopping rule: its last point is its value at
# any later reading
BY_RULE = (CONVERGED, NO_PROGRESS)
OBJECTIVE = Path(__file__).resolve().parents[1] / "objective.py"


@dataclass
class Reading:
    """The metrics of one run at a budget: ``values`` {column: value},
    ``epochs`` read (the budget when interpolated) and ``how``: ``grid``,
    ``interpolated``, ``held`` (the run ended before the budget by its
    stopping rule, or at most ``NEAR`` before it), ``diverged`` (no
    reading), ``stopped`` (no reading: the run stopped before the budget
    for ``cause``, at ``epochs``)."""
    how: str
    epochs: float = np.nan
    values: dict = field(default_factory=dict)
    first: bool = False  # a grid reading at the run's first evaluation
    cause: str = UNKNOWN  # why a ``stopped`` run stopped (``stop_cause``)


# the columns the stopping rule and benchopt's schedule read
STOP_COLUMNS = (EPOCHS, "objective_value", "objective_grad_norm2",
                "objective_x_saturated", FLAG, "objective_n_samples",
                "stop_val")


@functools.lru_cache(maxsize=1)
def _rule():
    """The benchmark's stopping criterion (``ConvergenceCriterion``) with
    the parameters ``objective.py`` writes out for it (docs/metrics.md
    "Stopping"), read from its source: importing it would load the
    whole benchmark."""
    from benchmark_utils.stopping import ConvergenceCriterion
    tree = ast.parse(OBJECTIVE.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "stopping_criterion"
                for t in node.targets) and isinstance(node.value, ast.Call):
            kwargs = {k.arg: ast.literal_eval(k.value)
                      for k in node.value.keywords}
            return ConvergenceCriterion(**kwargs)
    raise ValueError(f"{OBJECTIVE}: no 'stopping_criterion = "
                     "ConvergenceCriterion(...)' to replay")


def stop_cause(run, longest=None):
    """Why ``run`` (its evaluations) ended where it did, from its results:

    - ``diverged``: a point is flagged ``objective_diverged``;
    - ``converged`` or ``no progress``: the benchmark's stopping criterion
      (``objective.py``'s), replayed on the run's points, ends it at its
      last one;
    - ``timeout``: its last point is not at one of benchopt's scheduled
      callback calls (``stop_val`` 0, 1, 2, 3, 4, 6, 9, ...): the solver
      had the iterate at ``--timeout`` evaluated; or it ends on a scheduled
      one with fewer points than ``longest`` (the most of any run of its
      results): benchopt checks ``--timeout`` at every evaluation, and
      nothing else ends a run there;
    - ``max runs``: ``longest`` points, the last scheduled: benchopt's
      ``-n`` cap;
    - ``UNKNOWN`` (empty) when ``longest`` is not given and nothing above
      tells."""
    _, diverged_at = sound_points(run)
    if np.isfinite(diverged_at):
        return DIVERGED
    columns = [c for c in STOP_COLUMNS if c in run]
    records = run.sort_values(EPOCHS, kind="stable")[columns].to_dict(
        "records")
    criterion = _rule().get_runner_instance(max_runs=len(records) + 1,
                                            timeout=None)
    for i in range(len(records)):
        stop, _ = criterion.check_convergence(records[:i + 1])
        if stop:
            if i == len(records) - 1:
                reason = str(criterion.stop_reason)
                return CONVERGED if reason.startswith(CONVERGED) else \
                    NO_PROGRESS
            break  # its rule would have ended it earlier: not this rule
    scheduled = 0  # the callback call of its last point, on schedule
    for _ in range(len(records) - 1):
        scheduled = criterion.get_next_stop_val(scheduled)
    last = pd.to_numeric(pd.Series([records[-1].get("stop_val")]),
                         errors="coerce").iloc[0]
    if np.isfinite(last) and int(last) != scheduled:
        return TIMEOUT
    if longest is None:
        return UNKNOWN
    return MAX_RUNS if len(records) >= longest else TIMEOUT


def _stopped(run, last, target, cause, near=NEAR):
    """A ``stopped`` reading of a run not diverged whose last evaluation,
    at ``last`` epochs, is more than ``near`` before ``target``, unless
    its stopping rule ended it there (``BY_RULE``); None otherwise.
    ``cause``: the run's ``stop_cause``, found here when None."""
    if last >= target - near:
        return None
    cause = stop_cause(run) if cause is None else cause
    if cause in BY_RULE:
        return None
    return Reading("stopped", float(last), cause=cause)


def grid_step(df):
    """The Objective's ``eval_epochs`` of the results (``p_obj_eval_epochs``
    or ``eval_epochs=`` in ``objective_name``), None when they have no
    common grid."""
    if "p_obj_eval_epochs" in df:
        steps = pd.to_numeric(df["p_obj_eval_epochs"], errors="coerce")
        steps = steps.dropna().unique()
        if len(steps) == 1 and steps[0] > 0:
            return float(steps[0])
    if "objective_name" in df:
        found = {m.group(1) for m in (
            re.search(r"eval_epochs=([0-9.eE+-]+)", str(name))
            for name in df["objective_name"].unique()) if m}
        if len(found) == 1:
            step = float(found.pop())
            return step if step > 0 else None
    return None


def sound_points(run):
    """The run's evaluations in epoch order, up to (not including) its
    first flagged point, and the epochs of that point (NaN if none)."""
    run = run.sort_values(EPOCHS, kind="stable")
    if FLAG not in run:
        return run, np.nan
    flags = pd.to_numeric(run[FLAG], errors="coerce").fillna(0).to_numpy()
    if not (flags > 0).any():
        return run, np.nan
    first = int(np.argmax(flags > 0))
    return run.iloc[:first], float(run[EPOCHS].iloc[first])


def read_at(run, budget, columns, step=None, cause=None):
    """``Reading`` of ``columns`` of one run at ``budget`` epochs (see the
    module doc); ``step`` is the results' grid step (``grid_step``),
    ``cause`` the run's ``stop_cause`` if known."""
    sound, diverged_at = sound_points(run)
    if np.isfinite(diverged_at) and diverged_at <= budget + TOL:
        return Reading("diverged")
    if sound.empty:
        return Reading("diverged")
    epochs = sound[EPOCHS].to_numpy(dtype=float)
    after = np.flatnonzero(epochs >= budget - TOL)
    if not after.size:
        if np.isfinite(diverged_at):  # diverged between its last point
            return Reading("diverged")  # and the budget
        stopped = _stopped(run, float(epochs[-1]), budget, cause)
        if stopped is not None:
            return stopped
        last = sound.iloc[-1]
        return Reading("held", float(epochs[-1]), _values(last, columns))
    i = int(after[0])
    if abs(epochs[i] - budget) <= TOL * max(1.0, budget) or (
            step is not None and epochs[i] < budget + step):
        return Reading("grid", float(epochs[i]),
                       _values(sound.iloc[i], columns), first=i == 0)
    if i == 0:  # the run starts past the budget
        return Reading("grid", float(epochs[0]),
                       _values(sound.iloc[0], columns), first=True)
    lo, hi = sound.iloc[i - 1], sound.iloc[i]
    w = (budget - epochs[i - 1]) / (epochs[i] - epochs[i - 1])
    values = {c: (1 - w) * _num(lo, c) + w * _num(hi, c) for c in columns}
    return Reading("interpolated", float(budget), values)


def read_before(run, budget, columns, step=None, near=NEAR, cause=None):
    """``Reading`` of ``columns`` of one run that used at most ``budget``
    epochs, up to ``near``: ``read_at``'s unless it is ``far``, otherwise
    the run's last evaluation at or before the budget (``before``)."""
    return _read_beside(run, budget, columns, step, near, "before", cause)


def read_past(run, budget, columns, step=None, near=NEAR, cause=None):
    """``Reading`` of ``columns`` of one run at its first evaluation at or
    past ``budget`` epochs, never interpolated: ``read_at``'s unless it is
    ``far``, otherwise that evaluation (``past``)."""
    return _read_beside(run, budget, columns, step, near, "past", cause)


def _read_beside(run, budget, columns, step, near, side, cause=None):
    at = read_at(run, budget, columns, step, cause)
    if not is_far(at, budget, near):
        return at
    sound, _ = sound_points(run)
    epochs = sound[EPOCHS].to_numpy(dtype=float)
    if side == "before":
        i = int(np.flatnonzero(epochs <= budget + TOL * max(1.0, budget))[-1])
    else:
        i = int(np.flatnonzero(epochs >= budget - TOL)[0])
    return Reading(side, float(epochs[i]), _values(sound.iloc[i], columns))


def is_far(reading, budget, near=NEAR):
    """Whether ``reading`` (``read_at``'s) stands between two evaluations
    of its run more than ``near`` epochs past the budget: interpolated, or
    a grid point that far past (and not the run's first point); only such
    a reading differs before and past the budget."""
    if reading.how == "interpolated":
        return True
    return reading.how == "grid" and reading.epochs > budget + near \
        and not reading.first


def read_end(run, columns, end=None, cause=None):
    """``Reading`` at the run's last point before it diverged (``held``),
    or ``diverged`` when it has none; with ``end``, the epochs the run was
    to end at (the target of its last point), ``stopped`` when it did not
    diverge and stopped more than ``NEAR`` before them for another cause
    than its stopping rule (``cause``, its ``stop_cause`` if known)."""
    sound, diverged_at = sound_points(run)
    if sound.empty:
        return Reading("diverged")
    last = sound.iloc[-1]
    if end is not None and not np.isfinite(diverged_at):
        stopped = _stopped(run, float(last[EPOCHS]), end, cause)
        if stopped is not None:
            return stopped
    return Reading("held", float(last[EPOCHS]), _values(last, columns))


def _num(row, column):
    try:
        return float(row[column])
    except (KeyError, TypeError, ValueError):
        return np.nan


def _values(row, columns):
    return {c: _num(row, c) for c in columns}
