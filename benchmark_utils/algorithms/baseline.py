"""Configuration and state of a baseline run (docs/baselines.md), driven
from Python like ``PnPBORun``.

``BaselineConfig`` validates one baseline's parameters with errors that
name the parameter and its allowed values; ``BaselineRun`` owns every array
of the run (the records of ``core.records``, allocated once) and advances
it with ``run(n_iter)`` or ``run_until(target, max_iter)`` on
``core.baseline_loop.run_baseline``.

Steps are ``Steps``' (``gamma = step_size / z_ratio`` is the Neumann/HIA
scale and the linear-system step: constant, except FSLA's z step, which
decays with ``exponent_z``).
"""
import math
from dataclasses import dataclass

from ..core import records
from ..core.baseline_loop import (GAUSS_SEIDEL, INNER, JACOBI, PENALTY,
                                  RESTART, UNROLLED, VALUE_FUNCTION,
                                  ZEROTH_ORDER, family_marker, run_baseline)
from ..core.solves import HIA, NEUMANN, SGD_Z
from .checks import (check_bool, check_choice, check_exponent,
                     check_integer, check_positive, check_unit, is_number)
from .common import FULL, RunStatus, Steps, batch_rows

# algorithm: (loop family, inverse-Hessian solver)
FAMILIES = {
    "stocBiO": (INNER, NEUMANN),
    "AmIGO": (INNER, SGD_Z),
    "BSA": (INNER, HIA),
    "TTSA": (INNER, HIA),
    "SUSTAIN": (JACOBI, HIA),
    "MRBO": (JACOBI, NEUMANN),
    "VRBO": (RESTART, NEUMANN),
    "FSLA": (GAUSS_SEIDEL, NEUMANN),
    "F2SA": (PENALTY, NEUMANN),
    "ITD": (UNROLLED, NEUMANN),  # no inverse-Hessian solver: unused
    "BOME": (VALUE_FUNCTION, NEUMANN),
    "PZOBO": (ZEROTH_ORDER, NEUMANN),
}
# The algorithms that may run on full batches (batch_size="full", the
# setting of benchmark_bilevel, which runs them so).
FULL_BATCH = ("BOME", "PZOBO")
# BOME's phi_k: eta |grad q|^2 only; eta (g(x_k, y_k) - g(x_k, y-hat))
# needs values of g, which the core's oracles do not compute.
CHOICE_PHI = ("grad_norm",)


@dataclass
class BaselineConfig(Steps):
    """Everything that defines one baseline run (docs/baselines.md §3): the
    steps of ``Steps`` and

    ``n_inner_steps`` (T): y steps of stocBiO/AmIGO/BSA, SARAH corrections
    after the x step of VRBO, inner steps of F2SA (TTSA takes one);
    ``n_z_steps`` (T_z): AmIGO's linear-system steps; ``Q``: Neumann or HIA
    length; ``storm_a``, ``exponent_a``: STORM weight a_k = storm_a / (k +
    1)^exponent_a (MRBO, SUSTAIN, FSLA); ``period``: VRBO's outer
    iterations between full restarts; ``lmbda0``, ``delta_lmbda``,
    ``exponent_delta``, ``exponent_w``: F2SA's multiplier lambda_0, its
    increments delta_k = delta_lmbda / (k + 1)^exponent_delta, and the w
    step's decay; ``warm_start``: ITD's inner loop starts at y_k (else
    at the run's y0); ``storm_a`` is also BOME's eta (the parameter ``eta``
    of every baseline fills it), ``choice_phi`` BOME's phi_k; ``mu``,
    ``n_gaussian_vectors``: PZOBO's perturbation radius and number Q of
    Gaussian directions.  ``batch_size="full"`` (BOME, PZOBO): every batch
    is its whole level.
    """
    algorithm: str = "stocBiO"
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
    warm_start: bool = True
    choice_phi: str = "grad_norm"
    mu: float = 0.1
    n_gaussian_vectors: int = 10

    def validate(self, n=None, m=None):
        check_choice("algorithm", self.algorithm, FAMILIES)
        self.validate_steps(n, m)
        check_positive("lmbda0", self.lmbda0)
        for name in ("exponent_a", "exponent_w", "exponent_delta"):
            check_exponent(name, getattr(self, name))
        if self.algorithm == "BOME":  # eta > 0 (Ye et al., 2022)
            check_positive("storm_a", self.storm_a)
        else:
            check_unit("storm_a", self.storm_a)
        if self.choice_phi not in CHOICE_PHI:
            raise ValueError(
                f"choice_phi must be one of {list(CHOICE_PHI)}, got "
                f"{self.choice_phi!r} (phi = eta (g(x, y) - g(x, y-hat)) "
                "needs values of g, which the core does not compute)")
        check_positive("mu", self.mu)
        check_integer("n_gaussian_vectors", self.n_gaussian_vectors, 1)
        if not (is_number(self.delta_lmbda)
                and math.isfinite(self.delta_lmbda)
                and self.delta_lmbda >= 0):
            raise ValueError(f"delta_lmbda must be a finite number >= 0, "
                             f"got {self.delta_lmbda!r}")
        check_integer("n_inner_steps", self.n_inner_steps, 1)
        check_integer("n_z_steps", self.n_z_steps, 1)
        _, solver = FAMILIES[self.algorithm]
        # HIA draws p uniform on {0..Q-1}; a Neumann series may have 0 terms
        check_integer("Q", self.Q, 1 if solver == HIA else 0)
        check_integer("period", self.period, 1)
        check_bool("warm_start", self.warm_start)
        return self

    def check_batch_size(self, n=None, m=None):
        """An integer in [1, min(n, m)], or ``"full"`` for ``FULL_BATCH``."""
        if self.batch_size == FULL and self.algorithm in FULL_BATCH:
            return
        if self.algorithm in FULL_BATCH and isinstance(self.batch_size, str):
            raise ValueError(
                f"batch_size must be an integer >= 1 or 'full' (every "
                f"sample), got {self.batch_size!r}")
        if self.batch_size == FULL:
            raise ValueError(
                f"batch_size must be an integer >= 1, got 'full' (full "
                f"batches: {', '.join(FULL_BATCH)} only)")
        super().check_batch_size(n, m)

    def numeric(self, cross_in_data=True):
        """The ``records.BConfig`` of this (validated) configuration
        (``cross_in_data``: the task's ``TaskSpec`` field)."""
        family, solver = FAMILIES[self.algorithm]
        T = 1 if self.algorithm == "TTSA" else int(self.n_inner_steps)
        return records.BConfig(
            family=family_marker(family), solver=solver,
            batch=batch_rows(self.batch_size), alpha=float(self.alpha),
            beta=float(self.beta), gamma=float(self.gamma),
            exp_x=float(self.exponent_x), exp_y=float(self.exponent_y),
            exp_z=float(self.exponent_z), n_inner=T, n_z=int(self.n_z_steps),
            Q=int(self.Q), storm_a=float(self.storm_a),
            exp_a=float(self.exponent_a), period=int(self.period),
            lmbda0=float(self.lmbda0), delta=float(self.delta_lmbda),
            exp_w=float(self.exponent_w),
            exp_delta=float(self.exponent_delta),
            blocks=bool(self.sampling == "blocks"),
            cross=bool(cross_in_data), warm=bool(self.warm_start),
            mu=float(self.mu), n_dirs=int(self.n_gaussian_vectors))


class BaselineRun(RunStatus):
    """State of one baseline run on a ``Problem``, advanced in place.

    ``x0, y0, z0`` are copied; the previous point starts at the starting
    point (never at zero); the generator is seeded from ``seed`` and, under
    ``sampling="blocks"``, draws the two orders first (as ``PnPBORun``).
    F2SA's penalised copy starts at y0 and its multiplier at ``lmbda0``;
    ITD keeps y0 and room for its inner loop's iterates and batches.
    """

    def __init__(self, problem, config, x0, y0, z0, seed):
        self._start(problem, config, (x0, y0, z0), seed, "one")
        unrolled = FAMILIES[config.algorithm][0] == UNROLLED
        self.work = records.make_bwork(
            problem.dim_x, problem.dim_y, batch_rows(config.batch_size),
            int(config.n_inner_steps),
            int(config.n_inner_steps) if unrolled else 0)
        self.work.ypen[:] = self.iterates.y
        self.work.ystart[:] = self.iterates.y
        self.work.lam[0] = config.lmbda0
        self.cfg = config.numeric(problem.spec.cross_in_data)

    def _loop(self, n_iter, target):
        """The compiled loop: up to the first outer iteration whose sample
        count reaches ``target``, at most ``n_iter`` outer iterations."""
        self._call(run_baseline, (
            self.model, self.levels, self.iterates, self.work, self.cfg,
            self.stream, int(n_iter), int(target)))
