"""The search space of each solver: the ranges of ``RANGES`` for the
parameters the solver has (its entry of the algorithms' table,
``benchmark_utils.algorithms.defaults``), minus the parameters fixed on the
command line (``--fix``), with ranges narrowed by ``--range``.

The steps cover the PnPBO paper's grid (docs/comparisons.md, "The paper's
grid in this benchmark's parameters": alpha in [1e-3, 1], phi, kappa in
[1e-5, 1], step_size = alpha/phi, outer_ratio = 1/phi, z_ratio =
kappa/phi) and this benchmark's own sweeps (outer_ratio down to 1e-5,
``configs/tune_*.yml``); the ratios go two decades below, and R down to
1e-3, where tuned winners sat on the earlier floors. A parameter matters,
and is searched, when the solver has it and it changes the run: the
clipping radius ``R`` only where the solver clips (a finite default; SOBA,
MA-SOBA and SABA do not), never the batch, the sampling, the decay
exponents or the starts (``init``), which define the algorithm and stay at
the solver's defaults unless fixed.
"""
import math
from dataclasses import dataclass

from benchmark_utils.algorithms import (BASELINES, PRESETS, config_of,
                                        defaults)
from benchmark_utils.tuned import is_tuned


@dataclass(frozen=True)
class Range:
    """Bounds of one parameter, searched on a log scale (``integer``:
    integers, log-spaced as well)."""
    low: float
    high: float
    integer: bool = False

    def as_dict(self):
        return dict(low=self.low, high=self.high, integer=self.integer)


RANGES = {
    # the steps: the paper's grid and this benchmark's sweeps
    # the ratios go two decades below the paper's 1e-5: tuned winners sat
    # on that floor (docs/study.md)
    "step_size": Range(1e-3, 1e5),    # beta = alpha / phi
    "outer_ratio": Range(1e-7, 1e5),  # beta / alpha = 1 / phi
    "z_ratio": Range(1e-7, 1e5),      # beta / gamma = kappa / phi
    # the estimators' parameters (paper: 1 - p in [0.001, 1], rho_bar in
    # [0.01, 1])
    "p": Range(1e-3, 1.0),
    "rho_bar": Range(1e-2, 1.0),
    "rho": Range(1e-2, 1.0),          # moving-average weight
    "storm_a": Range(1e-2, 1.0),
    "eta": Range(1e-2, 1.0),          # the baselines' STORM weight
    "period": Range(8, 1024, integer=True),
    "period_frac": Range(1e-2, 1.0),
    "R": Range(1e-3, 1e3),            # clipping radius of z
    # the baselines' inner loops
    "n_inner_steps": Range(1, 20, integer=True),
    "n_shia_steps": Range(1, 20, integer=True),
    "n_hia_steps": Range(1, 20, integer=True),
    "n_z_steps": Range(1, 20, integer=True),
    "lmbda0": Range(1e-1, 10.0),
    "delta_lmbda": Range(1e-3, 1.0),
}

# The solvers that can be tuned: the PnPBO presets and the baselines (the
# generic PnPBO solver leaves its estimators free, so which parameters
# matter depends on them: tune a preset instead).
SOLVERS = tuple(PRESETS) + tuple(BASELINES)

SIGNIFICANT = 3  # significant digits of a sampled float


def check_solvers(names):
    """``names`` if every one is a tunable solver, else a ValueError naming
    the parameter and the allowed values."""
    if not names:
        raise ValueError(f"--solvers is empty; allowed: {', '.join(SOLVERS)}")
    unknown = [n for n in names if n not in SOLVERS]
    if unknown:
        raise ValueError(f"--solvers: unknown {unknown}; allowed: "
                         f"{', '.join(SOLVERS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"--solvers lists a solver twice: {names}")
    return list(names)


def parse_range(text):
    """``'name=low:high'`` -> (name, Range) with the integer flag of
    ``RANGES[name]``."""
    name, sep, bounds = text.partition("=")
    low, sep2, high = bounds.partition(":")
    if not (sep and sep2):
        raise ValueError(f"--range expects NAME=LOW:HIGH, got {text!r}")
    if name not in RANGES:
        raise ValueError(f"--range: unknown parameter {name!r}; allowed: "
                         f"{', '.join(RANGES)}")
    try:
        low, high = float(low), float(high)
    except ValueError:
        raise ValueError(f"--range {name}: bounds must be numbers, got "
                         f"{bounds!r}") from None
    if not (0 < low <= high and math.isfinite(high)):
        raise ValueError(f"--range {name}: need 0 < LOW <= HIGH < inf, got "
                         f"{low:g}:{high:g}")
    integer = RANGES[name].integer
    if integer and (low != int(low) or high != int(high)):
        raise ValueError(f"--range {name}: integer bounds needed, got "
                         f"{bounds!r}")
    return name, Range(int(low) if integer else low,
                       int(high) if integer else high, integer)


def check_ranges(solvers, ranges, fixed=None):
    """Both bounds of each ``--range`` through the configuration check of
    every solver of ``solvers`` that searches the parameter
    (``algorithms.config_of``, the check each trial's run makes), at a
    point a trial can draw: its other searched parameters at the middle
    of their default ranges (``RANGES``), its ``--fix`` values (a point
    they make invalid is left to their own check).  A ValueError names
    the range, the solver and the bound it refuses (``p`` outside (0, 1]:
    a tuning would die on the first trial that draws it)."""
    for name, rng in ranges.items():
        for solver in solvers:
            space = solver_space(solver, fixed=fixed)
            if name not in space:
                continue
            point = {k: _middle(r) for k, r in space.items()}
            point.update({k: v for k, v in solver_fixed(solver, fixed).items()
                          if not is_tuned(v)})
            try:
                config_of(solver, **point)
            except ValueError:
                continue  # a --fix value refused: named by its own check
            for bound in (rng.low, rng.high):
                try:
                    config_of(solver, **{**point, name: bound})
                except ValueError as err:
                    raise ValueError(
                        f"--range {name}={rng.low:g}:{rng.high:g}: {solver} "
                        f"refuses {name}={bound:g} ({err})") from None


def _middle(rng):
    """The middle of a range on its log scale."""
    middle = math.sqrt(rng.low * rng.high)
    return round(middle) if rng.integer else middle


def parse_fixed(text):
    """``'name=value'`` -> (name, value): a number when it reads as one
    (``inf`` too), else the string (``tuned``, ``blocks``)."""
    name, sep, value = text.partition("=")
    if not (sep and name and value):
        raise ValueError(f"--fix expects NAME=VALUE, got {text!r}")
    for cast in (int, float):
        try:
            return name, cast(value)
        except ValueError:
            pass
    return name, value


def solver_space(solver, ranges=None, fixed=None):
    """``{parameter: Range}`` searched for ``solver``: the parameters of
    ``RANGES`` (overridden by ``ranges``) that it has and that matter,
    minus those in ``fixed``."""
    have = defaults(solver)
    table = {**RANGES, **(ranges or {})}
    space = {}
    for name, rng in table.items():
        if name not in have or name in (fixed or {}):
            continue
        if name == "R" and not math.isfinite(have["R"]):
            continue  # the solver does not clip
        space[name] = rng
    return space


def solver_fixed(solver, fixed):
    """The ``--fix`` values that apply to ``solver`` (those it has)."""
    have = defaults(solver)
    return {k: v for k, v in (fixed or {}).items() if k in have}


def check_fixed(solvers, fixed):
    """Every ``--fix`` name belongs to at least one of ``solvers``."""
    for name in fixed:
        if not any(name in defaults(s) for s in solvers):
            allowed = sorted(set().union(*(defaults(s) for s in solvers)))
            raise ValueError(f"--fix: no solver among {solvers} has "
                             f"{name!r}; their parameters: {allowed}")


def _round(value):
    return float(f"{value:.{SIGNIFICANT}g}")


def suggest(trial, space):
    """The trial's values of ``space``: floats rounded to ``SIGNIFICANT``
    digits (what runs, and what a written config repeats exactly)."""
    values = {}
    for name, rng in space.items():
        if rng.integer:
            values[name] = trial.suggest_int(name, rng.low, rng.high,
                                             log=True)
        else:
            values[name] = _round(trial.suggest_float(
                name, rng.low, rng.high, log=True))
    return values
