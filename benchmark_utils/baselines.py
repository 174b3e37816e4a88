"""Configuration and state of a baseline run (docs/baselines.md), driven
from Python like ``pnpbo.PnPBORun``.

``BaselineConfig`` validates one baseline's parameters with errors that
name the parameter and its allowed values; ``BaselineRun`` owns every array
of the run (the records of ``core.records``, allocated once) and advances
it with ``run(n_iter)`` on ``engine.run_baseline``.

Steps follow the project's convention (benchmark_bilevel's): ``step_size``
is the y step beta, ``alpha = beta / outer_ratio`` the x step, and ``eta =
beta / z_ratio`` the Neumann/HIA scale and linear-system step (constant,
except FSLA's z step, which decays with ``exponent_z``); each step decays
as ``c / (k + 1)^e`` over outer iterations k.
"""
import math
from dataclasses import dataclass

from . import engine
from .core import records
from .core.baseline_loop import (GAUSS_SEIDEL, INNER, JACOBI, PENALTY,
                                 RESTART, family_marker)
from .core.solves import HIA, NEUMANN, SGD_Z
from .pnpbo import (SAMPLING_CHOICES, RunStatus, _check_exponent,
                    _check_integer, _check_positive, _check_unit, _is_number,
                    step_sizes)

# name: (code, family, inverse-Hessian solver)
ALGORITHMS = {
    "stocBiO": (0, INNER, NEUMANN),
    "AmIGO": (1, INNER, SGD_Z),
    "BSA": (2, INNER, HIA),
    "TTSA": (3, INNER, HIA),
    "SUSTAIN": (4, JACOBI, HIA),
    "MRBO": (5, JACOBI, NEUMANN),
    "VRBO": (6, RESTART, NEUMANN),
    "FSLA": (7, GAUSS_SEIDEL, NEUMANN),
    "F2SA": (8, PENALTY, NEUMANN),
}


@dataclass
class BaselineConfig:
    """Everything that defines one baseline run (docs/baselines.md §3).

    ``n_inner_steps`` (T): y steps of stocBiO/AmIGO/BSA, SARAH corrections
    after the x step of VRBO, inner steps of F2SA (TTSA takes one);
    ``n_z_steps`` (T_z): AmIGO's linear-system steps; ``Q``: Neumann or HIA
    length; ``storm_a``, ``exponent_a``: STORM weight a_k = storm_a / (k +
    1)^exponent_a (MRBO, SUSTAIN, FSLA); ``period``: VRBO's outer
    iterations between full restarts; ``lmbda0``, ``delta_lmbda``,
    ``exponent_delta``, ``exponent_w``: F2SA's multiplier lambda_0, its
    increments delta_k = delta_lmbda / (k + 1)^exponent_delta, and the w
    step's decay.
    """
    algorithm: str = "stocBiO"
    step_size: float = 0.1
    outer_ratio: float = 1.0
    z_ratio: float = 1.0
    exponent_x: float = 0.0
    exponent_y: float = 0.0
    exponent_z: float = 0.0
    batch_size: int = 64
    n_inner_steps: int = 10
    n_z_steps: int = 10
    Q: int = 10
    storm_a: float = 0.5
    exponent_a: float = 2 / 3
    period: int = 100
    lmbda0: float = 1.0
    delta_lmbda: float = 0.1
    exponent_w: float = 4 / 7
    exponent_delta: float = 6 / 7
    sampling: str = "uniform"

    def validate(self, n=None, m=None):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, "
                             f"got {self.algorithm!r}")
        if self.sampling not in SAMPLING_CHOICES:
            raise ValueError(
                f"sampling must be one of {sorted(SAMPLING_CHOICES)}, "
                f"got {self.sampling!r}")
        for name in ("step_size", "outer_ratio", "z_ratio", "lmbda0"):
            _check_positive(name, getattr(self, name))
        for name in ("exponent_x", "exponent_y", "exponent_z", "exponent_a",
                     "exponent_w", "exponent_delta"):
            _check_exponent(name, getattr(self, name))
        _check_unit("storm_a", self.storm_a)
        if not (_is_number(self.delta_lmbda)
                and math.isfinite(self.delta_lmbda)
                and self.delta_lmbda >= 0):
            raise ValueError(f"delta_lmbda must be a finite number >= 0, "
                             f"got {self.delta_lmbda!r}")
        _check_integer("batch_size", self.batch_size, 1)
        _check_integer("n_inner_steps", self.n_inner_steps, 1)
        _check_integer("n_z_steps", self.n_z_steps, 1)
        _, _, solver = ALGORITHMS[self.algorithm]
        # HIA draws p uniform on {0..Q-1}; a Neumann series may have 0 terms
        _check_integer("Q", self.Q, 1 if solver == HIA else 0)
        _check_integer("period", self.period, 1)
        for size, label in ((n, "n (UL samples)"), (m, "m (LL samples)")):
            if size is not None and self.batch_size > size:
                raise ValueError(
                    f"batch_size must be at most the number of samples: "
                    f"batch_size={self.batch_size} > {label}={size}")
        return self

    alpha = property(lambda self: step_sizes(self)[0])
    beta = property(lambda self: step_sizes(self)[1])
    eta = property(lambda self: step_sizes(self)[2])

    def numeric(self, cross_in_data=True):
        """The ``records.BConfig`` of this (validated) configuration
        (``cross_in_data``: the task's ``TaskSpec`` field)."""
        code, family, solver = ALGORITHMS[self.algorithm]
        T = 1 if self.algorithm == "TTSA" else int(self.n_inner_steps)
        return records.BConfig(
            family=family_marker(family), algo=code, solver=solver,
            batch=int(self.batch_size), alpha=float(self.alpha),
            beta=float(self.beta), eta=float(self.eta),
            exp_x=float(self.exponent_x), exp_y=float(self.exponent_y),
            exp_z=float(self.exponent_z), T=T, Tz=int(self.n_z_steps),
            Q=int(self.Q), storm_a=float(self.storm_a),
            exp_a=float(self.exponent_a), period=int(self.period),
            lmbda0=float(self.lmbda0), delta=float(self.delta_lmbda),
            exp_w=float(self.exponent_w),
            exp_delta=float(self.exponent_delta),
            blocks=bool(self.sampling == "blocks"),
            cross=bool(cross_in_data))


class BaselineRun(RunStatus):
    """State of one baseline run on a ``Problem``, advanced in place.

    ``x0, y0, z0`` are copied; the previous point starts at the starting
    point (never at zero); the generator is seeded from ``seed`` and, under
    ``sampling="blocks"``, draws the two orders first (as ``PnPBORun``).
    F2SA's penalised copy starts at y0 and its multiplier at ``lmbda0``.
    """

    def __init__(self, problem, config, x0, y0, z0, seed):
        self._start(problem, config, x0, y0, z0, seed, "one")
        self.work = records.make_bwork(problem.dim_x, problem.dim_y,
                                       config.batch_size)
        self.work.ypen[:] = self.iterates.y
        self.work.lam[0] = config.lmbda0
        self.cfg = config.numeric(problem.spec.cross_in_data)

    def run(self, n_iter):
        """Advance ``n_iter`` outer iterations (fewer if the run
        diverges)."""
        if self.diverged or n_iter <= 0:
            return
        engine.run_baseline(self.model, self.levels, self.iterates,
                            self.work, self.cfg, self.stream, int(n_iter))

    x = property(lambda self: self.iterates.x)
    y = property(lambda self: self.iterates.y)
    z = property(lambda self: self.iterates.z)


# --------------------------------------------------------------------------
# The baseline solvers: their parameters (benchmark_bilevel's names, so that
# its tuned lines paste unchanged) and defaults (docs/baselines.md §3).
# --------------------------------------------------------------------------
# Parameters every baseline solver exposes, with their defaults.
COMMON = dict(batch_size=64, step_size=0.1, outer_ratio=1.0,
              sampling="uniform")
_HESSIAN = dict(z_ratio=1.0)  # eta = step_size / z_ratio
SOLVERS = {
    "StocBiO": dict(algorithm="stocBiO", parameters=dict(
        **_HESSIAN, exponent_x=0.0, exponent_y=0.0, n_inner_steps=10,
        n_shia_steps=10, eval_freq=16)),
    "AmIGO": dict(algorithm="AmIGO", parameters=dict(
        **_HESSIAN, exponent_x=0.0, exponent_y=0.0, n_inner_steps=10,
        n_z_steps=10, eval_freq=16)),
    "BSA": dict(algorithm="BSA", parameters=dict(
        **_HESSIAN, exponent_x=0.5, exponent_y=0.5, n_inner_steps=10,
        n_hia_steps=10, eval_freq=16)),
    "TTSA": dict(algorithm="TTSA", parameters=dict(
        **_HESSIAN, exponent_x=0.6, exponent_y=0.4, n_hia_steps=10,
        eval_freq=32)),
    "SUSTAIN": dict(algorithm="SUSTAIN", parameters=dict(
        **_HESSIAN, exponent_x=1 / 3, exponent_y=1 / 3, n_hia_steps=10,
        eta=0.5, exponent_eta=2 / 3, eval_freq=16)),
    "MRBO": dict(algorithm="MRBO", parameters=dict(
        **_HESSIAN, exponent_x=1 / 3, exponent_y=1 / 3, n_shia_steps=10,
        eta=0.5, exponent_eta=2 / 3, eval_freq=16)),
    "VRBO": dict(algorithm="VRBO", parameters=dict(
        **_HESSIAN, exponent_x=0.0, exponent_y=0.0, n_inner_steps=10,
        n_shia_steps=10, period_frac=0.5, eval_freq=2)),
    "FSLA": dict(algorithm="FSLA", parameters=dict(
        **_HESSIAN, exponent_x=0.5, exponent_yz=0.5, storm_a=None,
        exponent_a=0.5, eval_freq=32)),
    "F2SA": dict(algorithm="F2SA", parameters=dict(
        step_size=0.01, exponent_x=5 / 7, exponent_y=5 / 7,
        exponent_w=4 / 7, n_inner_steps=10, lmbda0=1.0, delta_lmbda=0.1,
        exponent_delta=6 / 7, eval_freq=8)),
}
# Solver parameter -> BaselineConfig field(s), where the names differ.
RENAMES = {"n_shia_steps": ("Q",), "n_hia_steps": ("Q",),
           "eta": ("storm_a",), "exponent_eta": ("exponent_a",),
           "exponent_yz": ("exponent_y", "exponent_z")}
SOLVER_ONLY = ("eval_freq", "period_frac")


def solver_parameters(name):
    """benchopt ``parameters`` of baseline solver ``name``: ``COMMON`` then
    its own (a later default overrides), each default in a list."""
    return {key: [value] for key, value in
            {**COMMON, **SOLVERS[name]["parameters"]}.items()}


def period_of(period_frac, n, m, batch_size):
    """VRBO's restart period in outer iterations, benchmark_bilevel's
    ``int((n + m) period_frac / batch_size)`` (at least 1)."""
    _check_positive("period_frac", period_frac)
    return max(1, int((n + m) * period_frac / batch_size))


def config_of(name, values, n=None, m=None):
    """The validated ``BaselineConfig`` of solver ``name`` with parameter
    ``values`` ({parameter: value}) on a problem of n UL and m LL samples
    (without them, VRBO's period keeps its default: for validation only).

    A bad value is named as the user set it (``n_shia_steps``, ``eta``,
    ``exponent_yz``, ...), not by the field it fills."""
    fields = dict(algorithm=SOLVERS[name]["algorithm"])
    source = {}  # field -> the parameter that set it
    for key, value in values.items():
        if key in SOLVER_ONLY:
            continue
        for field in RENAMES.get(key, (key,)):
            fields[field] = value
            source[field] = key
    if "storm_a" in values and values["storm_a"] is None:
        # FSLA: a_k tied to step_size (benchmark_bilevel's setting)
        _check_positive("step_size", values.get("step_size"))
        fields["storm_a"] = values["step_size"]
        if not fields["storm_a"] <= 1:
            raise ValueError(
                "storm_a must be in (0, 1] (storm_a=None takes step_size, "
                f"here {fields['storm_a']!r}); set storm_a explicitly")
    if "period_frac" in values:
        _check_positive("period_frac", values["period_frac"])
        if n is not None and m is not None:
            batch = values.get("batch_size", COMMON["batch_size"])
            _check_integer("batch_size", batch, 1)
            fields["period"] = period_of(values["period_frac"], n, m, batch)
    config = BaselineConfig(**fields)
    try:
        return config.validate(n, m)
    except ValueError as err:
        field, _, rest = str(err).partition(" ")
        if source.get(field, field) != field:
            raise ValueError(f"{source[field]} {rest}") from None
        raise
