"""Configuration and state of a black-box search over x (the ``SEARCH``
kind of ``table.py``; docs/solvers.md "Optuna").

Each trial proposes an x in a box, solves the inner problem exactly there
(``exact_value.ExactValue``: the oracles behind the metrics) and scores it
by H(x) = f(x, y*(x)); the run reports the best trial so far.  The search
is Optuna's TPE sampler (Bergstra, Bardenet, Bengio, Kegl, "Algorithms for
hyper-parameter optimization", NeurIPS 2011; Akiba, Sano, Yanase, Ohta,
Koyama, "Optuna: a next-generation hyperparameter optimization framework",
KDD 2019), one independent dimension per coordinate of x, seeded by the
run's seed.  Nothing here is compiled; optuna is imported when a run
starts, so the other solvers do not need it.
"""
import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..exact_value import ExactValue
from ..tasks.registry import get_task
from .checks import check_integer, is_number, validated_for
from .common import steps_until

# A search whose first ALL_FAILED trials all failed ends diverged.
ALL_FAILED = 10

# The largest |low| and |high|: beyond it every task's map of x saturates
# (sigma at |x| > 37, e^x at |x| > 745), and Optuna's TPE overflows on a
# box of width ~1e200.
BOX_LIMIT = 1e6


def _check_bound(name, value):
    if value is not None and not (is_number(value) and math.isfinite(value)
                                  and abs(value) <= BOX_LIMIT):
        raise ValueError(f"{name} must be None (the task's box) or a number "
                         f"in [-{BOX_LIMIT:g}, {BOX_LIMIT:g}], got {value!r}")


@dataclass
class SearchConfig:
    """A black-box search: the box ``[low, high]`` of every coordinate of x
    (None: the task's bound, its spec's ``search_box``) and ``max_dim``, the largest
    dimension of x it searches (above it the run is refused)."""
    low: float = None
    high: float = None
    max_dim: int = 100

    def validate(self, n=None, m=None):
        """Check the fields (``n``, ``m`` are unused: a trial evaluates
        every sample)."""
        _check_bound("low", self.low)
        _check_bound("high", self.high)
        if self.low is not None and self.high is not None \
                and not self.low < self.high:
            raise ValueError(f"low must be < high, got low={self.low!r}, "
                             f"high={self.high!r}")
        check_integer("max_dim", self.max_dim, 1)
        return self

    def box(self, task):
        """``(low, high)`` on ``task``: the given bounds, the task's
        otherwise."""
        task_low, task_high = get_task(task).search_box
        low = task_low if self.low is None else float(self.low)
        high = task_high if self.high is None else float(self.high)
        if not low < high:
            raise ValueError(
                f"low must be < high, got low={low!r}, high={high!r} (the "
                f"{task} task's box is [{task_low:g}, {task_high:g}])")
        return low, high


def refusal(problem, config):
    """Why ``config`` does not search ``problem`` (a message), or None."""
    if problem.dim_x > config.max_dim:
        what = (f" ({problem.task}: one weight per training sample)"
                if problem.spec.x_per_sample else "")
        return (f"x has {problem.dim_x} coordinates{what}, more than "
                f"max_dim={config.max_dim}: TPE searches one dimension per "
                "coordinate and would need far more trials than a run "
                "makes; raise max_dim to search it anyway")
    return None


class SearchRun:
    """One search on a ``Problem``, advanced in place by ``run(n_trials)``
    or ``run_until(target, max_trials, time_is_up)`` (a trial is its
    iteration, ``common.steps_until``).

    Trial 0 is the starting point x0 (clipped to the box); the reported x
    is the best trial's, y its exact y*(x) and z stays z0 (the search
    estimates no z*: ``implicit_gap`` measures z0).  ``n_samples`` adds up
    every trial's count (``exact_value``), failed ones included; a trial
    whose exact solve fails is told to TPE as failed and is never the best.
    """

    def __init__(self, problem, config, x0, y0, z0, seed):
        import optuna  # here: the other kinds' runs do not need it
        validated_for(config, problem.n, problem.m)
        why = refusal(problem, config)
        if why is not None:
            raise ValueError(f"the search refuses this problem: {why}")
        dx, dy = problem.dim_x, problem.dim_y
        x0, y0, z0 = (np.array(v, dtype=np.float64) for v in (x0, y0, z0))
        if x0.shape != (dx,) or y0.shape != (dy,) or z0.shape != (dy,):
            raise ValueError(
                f"starting point shapes must be x0: ({dx},), y0: ({dy},), "
                f"z0: ({dy},); got {x0.shape}, {y0.shape}, {z0.shape}")
        self.problem, self.config = problem, config
        self.x, self.y, self.z = x0, y0, z0
        self.value = math.inf  # H of the best trial
        self.iteration = 0  # trials done
        self.n_samples = 0
        self.exact = ExactValue(problem)
        low, high = config.box(problem.task)
        self.names = [f"x{k}" for k in range(dx)]
        dist = optuna.distributions.FloatDistribution(low, high)
        self.space = dict.fromkeys(self.names, dist)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        sampler = optuna.samplers.TPESampler(seed=int(seed) % 2 ** 32)
        self.study = optuna.create_study(sampler=sampler)
        self.study.enqueue_trial(dict(zip(self.names,
                                          np.clip(x0, low, high))))
        self._failed = optuna.trial.TrialState.FAIL

    @property
    def diverged(self):
        """Every trial so far failed, and there were at least
        ``ALL_FAILED`` of them: the search finds no x where H can be
        evaluated, and has no point to report."""
        return self.iteration >= ALL_FAILED and not math.isfinite(self.value)

    def run(self, n_trials):
        """Run ``n_trials`` more trials."""
        for _ in range(int(n_trials)):
            self.trial()

    def run_until(self, target, max_trials=None, time_is_up=None):
        """Trials until the sample count reaches ``target``
        (``common.steps_until``)."""
        steps_until(self, target, max_trials, time_is_up)

    def trial(self):
        """One trial: ask TPE for an x, evaluate H(x) exactly, tell."""
        trial = self.study.ask(self.space)
        x = np.array([trial.params[name] for name in self.names])
        value, y, samples = self.exact(x)
        self.iteration += 1
        self.n_samples += samples
        if y is None:
            self.study.tell(trial, state=self._failed)
            if self.diverged and self.iteration == ALL_FAILED:
                warnings.warn(
                    f"the search's {self.iteration} trial(s) all failed "
                    "(the exact solve of y*(x) failed at every proposed "
                    "x): it has no point to report and ends diverged; "
                    "narrow the box with low= and high=", RuntimeWarning,
                    stacklevel=2)
            return
        self.study.tell(trial, value)
        if value < self.value:
            self.value, self.x, self.y = value, x, y

    def result(self):
        """Copies of the best trial's x and y*, z0, the sample count."""
        return dict(x=self.x.copy(), y=self.y.copy(), z=self.z.copy(),
                    n_samples=self.n_samples, diverged=self.diverged)
