"""Configuration and state of a PnPBO run (Algorithm 1 of the PnPBO paper).

``PnPBOConfig`` validates a choice of estimators and hyperparameters and
says clearly what is wrong; ``PnPBORun`` owns every array the numba loop
touches (allocated once) and advances it with ``run(n_iter)``.
"""
from dataclasses import dataclass

import numpy as np

from ..core import records
from ..core.estimators import N_RULE, NAMES, PARAM_NAME, PARAMETERS, \
    UNBIASED, WITH_TABLE
from ..core.single_loop import run_iterations
from .checks import (check_choice, check_integer, check_number, check_unit,
                     is_number)
from .common import RunStatus, Steps

MA_CHOICES = ("auto", "on", "off")
INIT_CHOICES = ("full", "minibatch")


@dataclass
class PnPBOConfig(Steps):
    """Everything that defines one PnPBO algorithm: the steps of ``Steps``,
    the estimators on x, y and z and their parameters.

    ``p`` (PAGE), ``rho_bar`` (ZeroSARAH), ``storm_a`` (STORM), ``period``
    (SARAH) parametrise the estimators; ``rho`` is the moving-average
    weight (``ma``: "on", "off", or "auto": on for unbiased estimators on
    x); ``R`` the clipping radius of z (``inf``: off).  ``large_batch``
    replaces the full evaluations of PAGE/SARAH/STORM by a batch of that
    size (0: exact); ``init``: the tables and first estimates from a full
    pass or from the first batch.
    """
    estimator_x: str = "page"
    estimator_y: str = "page"
    estimator_z: str = "page"
    ma: str = "auto"
    rho: float = 0.1
    R: float = 1.0
    p: float = 0.01
    rho_bar: float = 0.1
    storm_a: float = 0.1
    period: int = 100
    init: str = "full"
    large_batch: int = 0

    def validate(self, n=None, m=None):
        for which in ("x", "y", "z"):
            check_choice(f"estimator_{which}",
                         getattr(self, f"estimator_{which}"), sorted(NAMES))
        check_choice("ma", self.ma, MA_CHOICES)
        check_choice("init", self.init, INIT_CHOICES)
        self.validate_steps(n, m)
        if not (is_number(self.R) and self.R > 0):
            raise ValueError(
                f"R must be > 0 (math.inf disables clipping), got {self.R!r}")
        kinds = self.kinds
        # Range-checked when used, finite numbers in any case.
        for kind, (name, values) in PARAMETERS.items():
            value = getattr(self, name)
            if kind not in kinds:
                check_number(name, value)
            elif values == "integer":
                check_integer(name, value, 1)
            else:
                check_unit(name, value)
        (check_unit if self.ma_on else check_number)("rho", self.rho)
        check_integer("large_batch", self.large_batch, 0, " (0: full pass)")
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


class PnPBORun(RunStatus):
    """State of one run of Algorithm 1 on a ``Problem``, advanced in place.

    ``x0, y0, z0`` are copied; the previous iterate starts at the
    starting point (not at zero); the generator is seeded from ``seed``.
    The iterates are ``self.iterates`` (x, y, z and the previous ones), the
    estimators' state ``self.work`` (``core.records.Work``: directions,
    tables), both allocated once.  ``run(n_iter)`` and ``run_until(target,
    max_iter)`` (``RunStatus``) advance it on the compiled loop.
    """

    def __init__(self, problem, config, x0, y0, z0, seed):
        self._start(problem, config, (x0, y0, z0), seed,
                    "full" if config.uses_table else "one")
        self.work = records.make_work(problem.dim_x, problem.dim_y, N_RULE)
        self.cfg = records.make_config(config, self.batch)

    def _loop(self, n_iter, target):
        """The compiled loop: up to the first iteration whose sample count
        reaches ``target``, at most ``n_iter`` iterations."""
        self._call(run_iterations, (
            self.model, self.levels, self.iterates, self.work, self.cfg,
            self.stream, int(n_iter), int(target)))
