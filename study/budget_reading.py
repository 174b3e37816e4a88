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
- A run that stopped before the budget without diverging (converged, or
  no progress) keeps its last point.
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
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

EPOCHS = "objective_epochs"
# epochs: a reading at most this far past the budget is taken as at it
# (docs/study.md: every run is to have a point this close to each budget)
NEAR = 0.25
FLAG = "objective_diverged"
TOL = 1e-9


@dataclass
class Reading:
    """The metrics of one run at a budget: ``values`` {column: value},
    ``epochs`` read (the budget when interpolated) and ``how``: ``grid``,
    ``interpolated``, ``held`` (the run ended before the budget),
    ``diverged`` (no reading)."""
    how: str
    epochs: float = np.nan
    values: dict = field(default_factory=dict)
    first: bool = False  # a grid reading at the run's first evaluation


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


def read_at(run, budget, columns, step=None):
    """``Reading`` of ``columns`` of one run at ``budget`` epochs (see the
    module doc); ``step`` is the results' grid step (``grid_step``)."""
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


def read_before(run, budget, columns, step=None, near=NEAR):
    """``Reading`` of ``columns`` of one run that used at most ``budget``
    epochs, up to ``near``: ``read_at``'s unless it is ``far``, otherwise
    the run's last evaluation at or before the budget (``before``)."""
    return _read_beside(run, budget, columns, step, near, "before")


def read_past(run, budget, columns, step=None, near=NEAR):
    """``Reading`` of ``columns`` of one run at its first evaluation at or
    past ``budget`` epochs, never interpolated: ``read_at``'s unless it is
    ``far``, otherwise that evaluation (``past``)."""
    return _read_beside(run, budget, columns, step, near, "past")


def _read_beside(run, budget, columns, step, near, side):
    at = read_at(run, budget, columns, step)
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


def read_end(run, columns):
    """``Reading`` at the run's last point before it diverged (``held``),
    or ``diverged`` when it has none."""
    sound, _ = sound_points(run)
    if sound.empty:
        return Reading("diverged")
    last = sound.iloc[-1]
    return Reading("held", float(last[EPOCHS]), _values(last, columns))


def _num(row, column):
    try:
        return float(row[column])
    except (KeyError, TypeError, ValueError):
        return np.nan


def _values(row, columns):
    return {c: _num(row, c) for c in columns}
