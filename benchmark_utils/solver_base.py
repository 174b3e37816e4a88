"""Base class of every single-loop solver: a PnPBO preset + benchopt plumbing.

A solver file only states its name, its paper, ``preset`` (the name of its
entry in ``presets``) and ``parameters = solver_parameters(preset)``; what
it fixes and its defaults live in that entry, everything else --
validation, compilation, the callback loop, divergence and deadline
handling -- lives here, once.
"""
import threading
from contextlib import contextmanager

import numpy as np
from benchopt import BaseSolver

from .core.baseline_loop import FAMILY_NAMES
from .pnpbo import PnPBOConfig, PnPBORun, _check_exponent, _check_integer
from . import presets, tuned
from .presets import PRESETS, config_fields
from .problem import make_problem

# Parameters every PnPBO-based solver exposes, with their defaults (as
# benchopt lists; the values live in ``presets.COMMON``).
COMMON = {key: [value] for key, value in presets.COMMON.items()}


def _tiny_problem(dtype=np.float64, task="quadratic"):
    """A 4-sample problem of ``task`` with features of ``dtype`` (float64 or
    float32), enough to trigger compilation: its types are those of any
    problem of the task (``problems.task_marker``)."""
    rng = np.random.default_rng(0)

    def features():
        return rng.standard_normal((4, 3)).astype(dtype)
    if task == "quadratic":
        return make_problem("quadratic", features(), rng.standard_normal(4),
                            features(), rng.standard_normal(4),
                            [1, 2, 0.1, 0.0], 1, 2)
    from .tasks import problem_from_data
    labels = np.array([-1.0, 1.0, 1.0, -1.0] if task == "logreg"
                      else [0.0, 1.0, 1.0, 0.0])
    params = {"logreg": {}, "multilogreg": dict(n_classes=2),
              "datacleaning": dict(n_classes=2, l2_reg=0.2)}[task]
    return problem_from_data(task, features(), labels, features(), labels,
                             **params)


def feature_dtype(problem=None):
    """The dtype of ``problem``'s features (float64 without a problem):
    the core compiles once per feature dtype (``problem.as_features``)."""
    return np.float64 if problem is None else problem.Xg.dtype.type


_CONFIG_FIELDS = set(PnPBOConfig.__dataclass_fields__)


def _rename(key, value, renames):
    """The configuration's value of a solver value of ``key``."""
    if isinstance(value, str) and value in renames:
        return renames[value]
    raise ValueError(
        f"{key} must be one of {list(renames)}, got {value!r}")


_CORE_READY = set()  # (feature dtype, task) compiled in this process

# Seconds a first compile takes on the 2-core machine of docs/performance.md "Speed"
# (``python -m tools.compile_times``), announced while it runs.
# The baselines' figures are for one family on the task.
FIRST_COMPILE_S = {
    "core": {"quadratic": 10, "logreg": 12, "multilogreg": 30,
             "datacleaning": 30},
    "baselines": {"quadratic": 20, "logreg": 20, "multilogreg": 30,
                  "datacleaning": 30},
}
ANNOUNCE_AFTER_S = 2.0  # loading from numba's cache takes about 1 s


@contextmanager
def announced(entry, task, dtype, family=None):
    """Say what is compiling when it takes longer than a cache load (the
    first use of a task on a machine, or after an update of the core)."""
    def say():
        seconds = FIRST_COMPILE_S[entry].get(task)
        about = f", about {seconds} s on 2 cores" if seconds else ""
        label = ("the single-loop core" if entry == "core"
                 else f"the baselines' {family} loop")
        tasks = f"the {task} task"
        print(f"compiling {label} for {tasks} ({np.dtype(dtype).name} "
              f"features): first use on this machine or after an update"
              f"{about}; cached for the next runs", flush=True)
    timer = threading.Timer(ANNOUNCE_AFTER_S, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _zero_start(problem):
    return (np.zeros(problem.dim_x), np.zeros(problem.dim_y),
            np.zeros(problem.dim_y))


def compile_core(dtype=np.float64, task="quadratic"):
    """Compile the numba core for ``task`` (or load it from numba's cache),
    once per process, task and feature dtype.

    The core is one engine function whose argument types depend on the
    task (its marker, ``problems.task_marker``) and on the features' dtype
    (float64, or float32 when the dataset stores them so), not on the
    solver (the estimators are run-time codes, every array is C-contiguous
    float64 or int64), so two iterations of any preset on a tiny problem of
    the task compile everything a run uses.  benchopt 1.10 starts a run's
    ``--timeout`` clock *before* ``warm_up()``; the Objective calls this
    from ``set_data`` and the solvers from ``set_objective``, which
    benchopt does not time.
    """
    dtype = np.dtype(dtype).type
    if (dtype, task) in _CORE_READY:
        return False
    problem = _tiny_problem(dtype, task)
    with announced("core", task, dtype):
        PnPBORun(problem, PnPBOConfig(**PRESETS["SPABA"], batch_size=2),
                 *_zero_start(problem), 0).run(2)
    _CORE_READY.add((dtype, task))
    return True


def _deadline_check(callback):
    """``time_is_up`` of the run's stopping criterion (benchopt's callback
    keeps it as ``callback.stopping_criterion``), or a check that is never
    true when the criterion has none."""
    criterion = getattr(callback, "stopping_criterion", None)
    check = getattr(criterion, "time_is_up", None)
    return check if callable(check) else (lambda: False)


def _evaluate_at_next_call(callback):
    """Make benchopt's callback evaluate the iterate at its next call.

    benchopt's ``_Callback`` evaluates when its call count ``it`` reaches
    ``next_stopval``; the evaluation then checks ``--timeout`` and ends the
    run with status ``timeout`` and the right iteration count.
    """
    if isinstance(getattr(callback, "it", None), int) \
            and hasattr(callback, "next_stopval"):
        callback.next_stopval = min(callback.next_stopval, callback.it)


class PnPBOSolver(BaseSolver):
    """Runs ``PnPBORun`` for ``preset`` + the solver's parameters.

    ``preset`` is the name of the solver's entry in ``presets`` (or, for
    a solver defined elsewhere, a dict of fixed ``PnPBOConfig`` fields).
    """

    sampling_strategy = "callback"
    requirements = ["pip::numba>=0.59"]
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
    preset = {}
    references = []
    run_class = PnPBORun  # the state of a run: PnPBORun or BaselineRun

    @classmethod
    def compile(cls, dtype=np.float64, task="quadratic"):
        """Compile this solver's numba entry once per process, task and
        feature dtype."""
        compile_core(dtype, task)

    def _entry(self):
        if isinstance(self.preset, str):
            return presets.entry(self.preset)
        return dict(fixed=self.preset, parameters={})

    def config(self):
        """The ``PnPBOConfig`` of this solver instance: the preset's fixed
        fields, then each parameter under its own name (``SHARED`` ones
        copied to their fields, values renamed by the entry's ``values``).

        Values are checked by ``PnPBOConfig.validate``, except
        ``exponent_yz`` (checked here, under its own name, before it is
        copied to ``exponent_y`` and ``exponent_z``) and renamed values
        (checked against the solver's names).  ``R`` may be a string:
        benchopt's command line passes ``R=inf`` as ``'inf'``; a string
        that is not a number is left for ``validate`` to name.
        """
        spec = self._entry()
        values = dict(spec["fixed"])
        chosen = self._tuned({key.strip(): getattr(self, key.strip())
                              for name in getattr(self, "parameters", {})
                              for key in name.split(",")})
        for name in getattr(self, "parameters", {}):
            for key in name.split(","):
                key = key.strip()
                value = chosen[key]
                if key == "exponent_yz":
                    _check_exponent(key, value)
                renames = spec.get("values", {}).get(key)
                if renames is not None:
                    value = _rename(key, value, renames)
                for field, v in config_fields(key, value).items():
                    if field in _CONFIG_FIELDS:
                        values[field] = v
        if isinstance(values.get("R"), str):
            try:
                values["R"] = float(values["R"])
            except ValueError:
                pass
        return PnPBOConfig(**values)

    dataset = None  # the dataset's key in tuned.py, from set_objective

    def _tuned(self, values):
        """``values`` ({parameter: value}) with each ``'tuned'`` parameter
        (``tuned.TUNABLE``) replaced by its tuned value on this dataset."""
        defaults = {key: v[0] for key, v in
                    getattr(self, "parameters", {}).items()}
        return tuned.resolve(values, self.dataset, self.name, defaults)

    def set_objective(self, problem, x0, y0, z0, seed, dataset=None):
        _check_integer("eval_freq", self.eval_freq, 1)
        self.dataset = dataset  # key of step_size=tuned (tuned.py)
        self.cfg = self.config().validate(problem.n, problem.m)
        self.problem, self.seed = problem, seed
        self.x0, self.y0, self.z0 = x0, y0, z0
        self.state = None  # blocks: one permuted copy of the rows at a time
        # Built here, off the clock (under sampling=blocks it copies the
        # rows in the run's order: 0.1 s on covtype); run() uses it once.
        self.state = self.run_class(problem, self.cfg, x0, y0, z0, seed)
        # untimed here (benchopt times warm_up; see above)
        self.compile(feature_dtype(problem), problem.task)

    def warm_up(self):
        """Compile (or load from numba's cache) the core; already done in
        ``set_objective``, so a no-op in a benchopt run."""
        problem = getattr(self, "problem", None)
        self.compile(feature_dtype(problem),
                     "quadratic" if problem is None else problem.task)

    def run(self, callback):
        if self.state is None or self.state.iteration > 0:
            # a second run() of the same setting starts afresh
            self.state = None
            self.state = self.run_class(self.problem, self.cfg, self.x0,
                                        self.y0, self.z0, self.seed)
        time_is_up = _deadline_check(callback)
        late = False
        while callback():
            if self.state.diverged:
                # The next evaluation reports the non-finite iterate
                # (diverged = 1) and the run ends; see stopping.py.
                break
            if late:
                break  # benchopt did not stop at the requested evaluation
            if time_is_up():
                # --timeout has passed: have this chunk evaluated, where
                # benchopt's timeout check ends the run, rather than the
                # next scheduled evaluation (x1.5 the chunks done so far).
                late = True
                _evaluate_at_next_call(callback)
            self.state.run(self.eval_freq)

    def get_result(self):
        return self.state.result()


# (feature dtype, task, family code) compiled in this process
_BASELINES_READY = set()


def compile_baselines(dtype=np.float64, task="quadratic", algorithm=None):
    """Compile (or load from numba's cache) the baselines' entry
    (``engine.run_baseline``) for ``algorithm``'s family on ``task`` (every
    family when ``algorithm`` is None), once per process, feature dtype,
    task and family: two outer iterations on a tiny problem.  The entry is
    specialised on the task and the family (their markers,
    ``core.baseline_loop``); the algorithms of one family share it (their
    differences are run-time codes).  True if something was compiled."""
    from .baselines import ALGORITHMS, BaselineConfig, BaselineRun
    dtype = np.dtype(dtype).type
    if algorithm is not None and algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, "
                         f"got {algorithm!r}")
    names = list(ALGORITHMS) if algorithm is None else [algorithm]
    todo = {}  # family code -> one algorithm of it
    for name in names:
        family = ALGORITHMS[name][1]
        if (dtype, task, family) not in _BASELINES_READY:
            todo.setdefault(family, name)
    if not todo:
        return False
    problem = _tiny_problem(dtype, task)
    for family, name in todo.items():
        with announced("baselines", task, dtype, FAMILY_NAMES[family]):
            BaselineRun(problem, BaselineConfig(
                algorithm=name, batch_size=2, n_inner_steps=1, n_z_steps=1,
                Q=1, period=1), *_zero_start(problem), 0).run(2)
        _BASELINES_READY.add((dtype, task, family))
    return True


class BaselineSolver(PnPBOSolver):
    """A baseline (docs/baselines.md): ``algorithm`` names its entry in
    ``baselines.SOLVERS``; the run loop, divergence and deadline handling
    are ``PnPBOSolver``'s, on a ``BaselineRun``."""

    algorithm = None

    @property
    def run_class(self):
        from .baselines import BaselineRun
        return BaselineRun

    @classmethod
    def compile(cls, dtype=np.float64, task="quadratic"):
        from .baselines import SOLVERS
        compile_baselines(dtype, task, SOLVERS[cls.algorithm]["algorithm"])

    _sizes = (None, None)  # (n, m) of the problem, once it is known

    def config(self):
        """The ``BaselineConfig`` of this solver instance (VRBO's period
        from ``period_frac`` once the problem's sizes are known)."""
        from .baselines import config_of
        values = self._tuned({key: getattr(self, key)
                              for key in self.parameters})
        return config_of(self.algorithm, values, *self._sizes)

    def set_objective(self, problem, x0, y0, z0, seed, dataset=None):
        self._sizes = (problem.n, problem.m)
        super().set_objective(problem, x0, y0, z0, seed, dataset)
