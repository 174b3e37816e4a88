"""The grid of sample evaluations every solver is evaluated on
(docs/metrics.md "Grid of sample evaluations").

The Objective's parameter ``eval_epochs`` (u) sets it: callback call c of a
run is evaluated at the end of the first iteration whose sample count
reaches ``c * u * (n + m)``, u epochs per call whatever an iteration of
the solver costs.  An iteration is a step of a compiled loop, a trial of
a search, a step of ImplicitGD.
"""
import math

from .algorithms.checks import is_number

# The default of the Objective's ``eval_epochs`` (docs/metrics.md "Grid of
# sample evaluations": the measurements behind it).
EVAL_EPOCHS = 2.0

# The relative slack of a target against float rounding: 63 * (10/63) in
# float64 is 10 up to one unit in the last place, and the grid point is
# meant to be exactly 10 epochs.
ROUNDING = 1e-12


def check_eval_epochs(value):
    """``value`` if it is a finite number > 0, else a ValueError naming
    ``eval_epochs`` and its allowed values."""
    if not (is_number(value) and math.isfinite(value) and value > 0):
        raise ValueError(
            "eval_epochs must be a finite number > 0 (the epochs, sample "
            "evaluations / (n + m), between two callback calls of a run), "
            f"got {value!r}")
    return float(value)


def grid_target(call, eval_epochs, n, m):
    """The sample count callback call ``call`` waits for: the smallest
    integer >= ``call * eval_epochs * (n + m)`` (up to float rounding,
    ``ROUNDING``)."""
    exact = call * eval_epochs * (n + m)
    return max(0, math.ceil(exact * (1.0 - ROUNDING)))
