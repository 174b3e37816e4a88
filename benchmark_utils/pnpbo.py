"""Configuration and state of a PnPBO run (Algorithm 1), driven from Python.

``PnPBOConfig`` validates a choice of estimators and hyperparameters and says
clearly what is wrong; ``PnPBORun`` owns every array the numba loop touches
(allocated once) and advances it with ``run(n_iter)``.
"""
import math
from dataclasses import dataclass

import numpy as np

from . import engine
from .core import records
from .estimators import N_RULE, NAMES, PARAM_NAME, UNBIASED, WITH_TABLE
from .rng import seed_state
from .sampling import draw_batch, identity_perm

MA_CHOICES = ("auto", "on", "off")
INIT_CHOICES = ("full", "minibatch")
SAMPLING_CHOICES = ("blocks", "uniform")


def _is_number(value):
    """A real number (int, float or numpy scalar; not a bool, not a
    string)."""
    return (isinstance(value, (int, float, np.floating, np.integer))
            and not isinstance(value, (bool, np.bool_)))


def _check_number(name, value):
    """Any finite real number: the parameters the chosen estimators do not
    use still go into the engine's float arrays."""
    if not (_is_number(value) and math.isfinite(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")


def _check_positive(name, value):
    if not (_is_number(value) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


def _check_unit(name, value):
    if not (_is_number(value) and 0 < value <= 1):
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")


def _check_exponent(name, value):
    if not (_is_number(value) and 0 <= value <= 1):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")


def _check_integer(name, value, low, note=""):
    """An integer >= ``low`` (an integral float such as 64.0 is accepted);
    NaN, inf, strings and bools are refused with the parameter's name."""
    if not (_is_number(value) and math.isfinite(value)
            and int(value) == value and value >= low):
        raise ValueError(
            f"{name} must be an integer >= {low}{note}, got {value!r}")


@dataclass
class PnPBOConfig:
    """Everything that defines one PnPBO algorithm.

    Step sizes follow benchmark_bilevel's convention: ``step_size`` is the
    y step ``beta``; ``alpha = beta / outer_ratio``; ``gamma = beta /
    z_ratio``; each decays as ``c / (k + 1)^e`` with its exponent.
    ``p`` (PAGE), ``rho_bar`` (ZeroSARAH), ``storm_a`` (STORM), ``period``
    (SARAH) parametrise the estimators; ``rho`` is the MA weight; ``R`` the
    clipping radius (``inf``: off).  ``large_batch`` replaces the full
    evaluations of PAGE/SARAH/STORM by a batch of that size (0: exact).
    ``sampling``: ``"uniform"`` batches (uniformly random ``b``-subsets) or
    ``"blocks"`` (``b`` consecutive samples of an order permuted once per
    run, from a uniformly random start; docs/algorithms.md §2).
    """
    estimator_x: str = "sgd"
    estimator_y: str = "sgd"
    estimator_z: str = "sgd"
    ma: str = "auto"
    rho: float = 0.1
    step_size: float = 0.1
    outer_ratio: float = 1.0
    z_ratio: float = 1.0
    exponent_x: float = 0.0
    exponent_y: float = 0.0
    exponent_z: float = 0.0
    batch_size: int = 64
    R: float = math.inf
    p: float = 0.01
    rho_bar: float = 0.1
    storm_a: float = 0.1
    period: int = 100
    init: str = "full"
    large_batch: int = 0
    sampling: str = "uniform"

    def validate(self, n=None, m=None):
        for which in ("x", "y", "z"):
            est = getattr(self, f"estimator_{which}")
            if est not in NAMES:
                raise ValueError(
                    f"estimator_{which} must be one of {sorted(NAMES)}, "
                    f"got {est!r}")
        if self.ma not in MA_CHOICES:
            raise ValueError(
                f"ma must be one of {list(MA_CHOICES)}, got {self.ma!r}")
        if self.init not in INIT_CHOICES:
            raise ValueError(
                f"init must be one of {list(INIT_CHOICES)}, got {self.init!r}")
        if self.sampling not in SAMPLING_CHOICES:
            raise ValueError(
                f"sampling must be one of {sorted(SAMPLING_CHOICES)}, "
                f"got {self.sampling!r}")
        for name in ("step_size", "outer_ratio", "z_ratio"):
            _check_positive(name, getattr(self, name))
        for name in ("exponent_x", "exponent_y", "exponent_z"):
            _check_exponent(name, getattr(self, name))
        if not (_is_number(self.R) and self.R > 0):
            raise ValueError(
                f"R must be > 0 (math.inf disables clipping), got {self.R!r}")
        kinds = self.kinds
        # Range-checked when used, finite numbers in any case.
        for name, used in (("p", NAMES["page"] in kinds),
                           ("rho_bar", NAMES["zerosarah"] in kinds),
                           ("storm_a", NAMES["storm"] in kinds),
                           ("rho", self.ma_on)):
            (_check_unit if used else _check_number)(name,
                                                     getattr(self, name))
        if NAMES["sarah"] in kinds:
            _check_integer("period", self.period, 1)
        else:
            _check_number("period", self.period)
        _check_integer("batch_size", self.batch_size, 1)
        _check_integer("large_batch", self.large_batch, 0, " (0: full pass)")
        for size, label in ((n, "n (UL samples)"), (m, "m (LL samples)")):
            if size is None:
                continue
            if self.batch_size > size:
                raise ValueError(
                    f"batch_size must be at most the number of samples: "
                    f"batch_size={self.batch_size} > {label}={size}")
        return self

    @property
    def kinds(self):
        return np.array([NAMES[self.estimator_x], NAMES[self.estimator_y],
                         NAMES[self.estimator_z]], dtype=np.int64)

    @property
    def ma_on(self):
        if self.ma == "auto":
            return NAMES[self.estimator_x] in UNBIASED
        return self.ma == "on"

    @property
    def uses_table(self):
        return any(int(k) in WITH_TABLE for k in self.kinds)

    def estimator_params(self):
        """{field name: value} of the parameter each of the x, y, z
        estimators reads (``None`` when it reads none), by name."""
        names = [PARAM_NAME[int(k)] for k in self.kinds]
        return [(name, None if name is None else getattr(self, name))
                for name in names]

    alpha = property(lambda self: step_sizes(self)[0])
    beta = property(lambda self: step_sizes(self)[1])
    gamma = property(lambda self: step_sizes(self)[2])


def step_sizes(config):
    """(alpha, beta, gamma) of a configuration in the project's convention:
    beta = step_size, alpha = beta / outer_ratio, gamma = beta / z_ratio
    (gamma is the Neumann/HIA scale eta of the baselines)."""
    beta = config.step_size
    return beta / config.outer_ratio, beta, beta / config.z_ratio


def block_orders(rng, n, m):
    """The UL and LL orders of ``blocks`` sampling: full Fisher-Yates
    shuffles of ``0..n-1`` then ``0..m-1`` drawn from ``rng`` (in place)."""
    out = []
    for size in (n, m):
        order = identity_perm(size)
        draw_batch(rng, order, size)
        out.append(order)
    return tuple(out)


class RunStatus:
    """Counters and result of a run held in the records of ``core.records``
    (``self.stream``; ``self.x, self.y, self.z``): shared by ``PnPBORun``
    and ``baselines.BaselineRun``, with the records both build alike."""

    def _start(self, problem, config, x0, y0, z0, seed, table):
        """Validate, then the records every run starts from: the model, the
        generator seeded from ``seed`` (under ``sampling="blocks"`` each
        level's order, a full Fisher-Yates shuffle drawn from it before
        iteration 0, f then g), the levels (``table``: ``"full"`` when the
        run keeps per-sample tables, else ``"one"``) and copies of the
        starting point."""
        config.validate(problem.n, problem.m)
        self.problem = problem
        self.config = config
        p = problem
        dx, dy = p.dim_x, p.dim_y
        x0, y0, z0 = (np.asarray(v, dtype=np.float64) for v in (x0, y0, z0))
        if x0.shape != (dx,) or y0.shape != (dy,) or z0.shape != (dy,):
            raise ValueError(
                f"starting point shapes must be x0: ({dx},), y0: ({dy},), "
                f"z0: ({dy},); got {x0.shape}, {y0.shape}, {z0.shape}")
        self.model = records.make_model(p)
        self.stream = records.make_stream(seed_state(seed))
        self.orders = None
        if config.sampling == "blocks":
            self.orders = block_orders(self.stream.rng, p.n, p.m)
        self.levels = records.make_levels(p, table, config.batch_size,
                                          self.orders)
        self.iterates = records.make_iterates(x0, y0, z0)

    @property
    def counters(self):
        return self.stream.counters

    @property
    def iteration(self):
        return int(self.counters[records.K_ITER])

    @property
    def n_samples(self):
        return int(self.counters[records.N_SAMPLES])

    @property
    def diverged(self):
        return bool(self.counters[records.STATUS] == records.DIVERGED)

    def result(self):
        """Copies of the iterates, the sample count and the status."""
        return dict(x=self.x.copy(), y=self.y.copy(), z=self.z.copy(),
                    n_samples=self.n_samples, diverged=self.diverged)


class PnPBORun(RunStatus):
    """State of one run of Algorithm 1 on a ``Problem``, advanced in place.

    ``x0, y0, z0`` are copied; the previous iterate starts at the starting
    point (not at zero); the generator is seeded from ``seed``.  The state
    is held in the named records of ``core.records`` (allocated once).
    """

    def __init__(self, problem, config, x0, y0, z0, seed):
        self._start(problem, config, x0, y0, z0, seed,
                    "full" if config.uses_table else "one")
        self.work = records.make_work(problem.dim_x, problem.dim_y, N_RULE)
        self.cfg = records.make_config(config)

    def run(self, n_iter):
        """Advance ``n_iter`` iterations (fewer if the run diverges)."""
        if self.diverged or n_iter <= 0:
            return
        engine.run_iterations(self.model, self.levels, self.iterates,
                              self.work, self.cfg, self.stream, int(n_iter))

    def __getattr__(self, name):
        # x, y, z, xp, ... and ex, tbx, ... of the records, by name
        for rec in ("iterates", "work"):
            fields = getattr(type(self.__dict__.get(rec)), "_fields", ())
            if name in fields:
                return getattr(self.__dict__[rec], name)
        raise AttributeError(name)
