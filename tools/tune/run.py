"""One trial: a solver run on the dataset as ``benchopt run`` builds it,
scored on the validation side along an epoch budget.

The dataset, the Objective and the solver are benchopt's own classes
(``Benchmark(...)``, ``get_instance``), under benchopt's run context of
``benchopt run`` with its default seed, repetition 0 (``--splits S``:
repetitions 0 to S - 1, one after another): the same data split, starting
point and run seed as that run's first repetitions.  The solver is set on
the Objective as benchopt's runner does (``_set_objective``), then its
run advances, off the clock, to ``n_evals`` points equally spaced in
epochs over ``[0, epochs]``; each point is scored by the Objective's
``evaluate_result`` (the exact metrics, ``benchmark_utils.metrics``).

A trial scored by H or by the validation error solves y*(x) and z*(x) to
``CRITERION_TOLERANCES`` instead of the benchmark's 1e-10 and 1e-12
(``metrics.GLMMetrics.solve_tolerances``): H then agrees with the
benchmark's within 4e-10 (relative) on Fashion-MNIST, digits, wine and
breast_cancer, far below any difference between two trials, for a third
fewer Hessian-vector passes on Fashion-MNIST (docs/performance.md).  A
trial scored by ``grad_norm2`` keeps the benchmark's tolerances (grad H
depends on z*(x) to first order).

The criterion is the mean, over those points (of every split), of a
validation-side metric (``METRICS``): by default ``value`` = H(x) = f(x,
y*(x)), the upper-level loss on the validation samples (benchopt's
``objective_value``), so the mean is the area under the curve of H over the
epoch budget. The test split never enters it. A run whose point carries
``diverged = 1`` (the Objective's flag: a non-finite iterate or metric,
exact solves that missed their tolerance, an astronomically large iterate)
or whose criterion is not finite raises ``Diverged``, and so does one whose
H rose by more than ``RISE`` between two evaluations (benchopt's own
divergence test, which a ``benchopt run`` applies to the same curve; the
first evaluation compares with H at the starting point, the same for every
trial).
"""
import math
import time
import warnings
from pathlib import Path

from benchopt.benchmark import Benchmark
from benchopt.utils.parametrized_name_mixin import _extract_options
from benchopt.utils.run_context import RunContext

ROOT = Path(__file__).resolve().parents[2]
BASE_SEED = 0  # benchopt run's seed when --seed is not given

# Validation-side metrics a trial may be scored by, and whether the mean
# is taken of log10 of the metric (for metrics spanning decades).
METRICS = {"value": False, "grad_norm2": True, "val_error": False}
RISE = 1e5  # benchopt's test: H up by more than this between two points
# The exact solves' tolerances (gtol, ztol) of a trial, by criterion: H and
# the validation error depend on y*(x) alone (1e-9 keeps H within 4e-10 of
# the benchmark's 1e-10); z*(x) enters only the gaps of the divergence
# rules, decided by factors of 1e6: a relative residual of 1e-3 leaves
# its error far below that (docs/performance.md).
CRITERION_TOLERANCES = {"value": (1e-9, 1e-3), "val_error": (1e-9, 1e-3),
                        "grad_norm2": (1e-10, 1e-12)}


class Diverged(Exception):
    """A run whose metrics cannot be trusted; the message says why."""

    def __init__(self, reason, epochs, split=0, split_epochs=None):
        super().__init__(reason)
        self.reason, self.epochs = reason, epochs
        # the split it diverged on, and when on that split
        self.split = split
        self.split_epochs = epochs if split_epochs is None else split_epochs


def check_metric(name):
    """``name`` without benchopt's ``objective_`` prefix, if it is one of
    ``METRICS``; else a ValueError naming the allowed ones."""
    key = name[len("objective_"):] if name.startswith("objective_") else name
    if key not in METRICS:
        raise ValueError(
            f"--metric must be one of {list(METRICS)} (validation side: the "
            f"test split is never a tuning criterion), got {name!r}")
    return key


def _instance(classes, spec, what):
    """The benchopt instance of ``spec`` ('NAME[key=value,...]')."""
    name, _, params = _extract_options(spec)
    cls = next((c for c in classes if c.name == name), None)
    if cls is None:
        raise ValueError(f"{what}: no {what.strip('-')} named {name!r}; "
                         f"known: {sorted(c.name for c in classes)}")
    values = {}
    for key, v in params.items():
        if isinstance(v, list):
            if len(v) != 1:
                raise ValueError(f"{what} {spec}: one value per parameter "
                                 f"({key} = {v})")
            v = v[0]
        values[key] = v
    return cls.get_instance(**values)


class Split:
    """One repetition of ``benchopt run`` (benchopt's default seed,
    repetition ``repetition``): its data split, starting point and run
    seed, through benchopt's dataset and Objective classes; and where
    every trial's exact solves start on it."""

    def __init__(self, bench, dataset_spec, repetition, seed=BASE_SEED):
        self.dataset = _instance(bench.get_datasets(), dataset_spec,
                                 "--dataset")
        self.objective = bench.get_benchmark_objective().get_instance()
        self.context = RunContext().set_run_context(
            self.objective, self.dataset, "tune", repetition=repetition,
            base_seed=seed)
        skip, reason = self.objective._set_dataset(self.dataset)
        if skip:
            raise ValueError(f"--dataset {dataset_spec}: the Objective "
                             f"skips it ({reason})")
        self.start_value = None  # H at the starting point, once known
        # y*(x0), z*(x0) by tolerances: where every trial's solves start
        self.start_solutions = {}


class Runner:
    """The dataset and Objective of ``dataset_spec`` (a benchopt dataset
    selection such as ``mnist[variant=fashion]``) on ``splits`` splits
    (``Split``: repetitions 0, 1, ... of benchopt's ``seed``, its default
    unless another is given), loaded once; ``run`` scores one solver
    configuration on them."""

    def __init__(self, dataset_spec, splits=1, seed=BASE_SEED):
        if not isinstance(splits, int) or splits < 1:
            raise ValueError(f"--splits must be an integer >= 1, got "
                             f"{splits!r}")
        bench = Benchmark(str(ROOT))
        self.splits = [Split(bench, dataset_spec, r, seed)
                       for r in range(splits)]
        self.solvers = {s.name: s for s in bench.get_solvers()}
        problem = self.objective.problem
        self.n_samples = problem.n + problem.m
        self.tuning_key = getattr(self.objective, "tuning_key", None)
        # seconds of the last run: the solver's loop, its metric points
        self.clock = dict(solver=0.0, metrics=0.0)
        self.drawn = 0.0  # epochs the last run's solver drew

    @property
    def objective(self):
        """The first split's Objective."""
        return self.splits[0].objective

    def check_metric(self, metric):
        """A ValueError when this dataset's metrics lack ``metric``."""
        have = sorted(self.objective.metrics.nan_metrics())
        if metric not in have:
            allowed = [m for m in METRICS if m in have]
            raise ValueError(f"--metric {metric}: not a metric of this "
                             f"dataset; allowed here: {allowed}")

    def solver(self, name, values, split=None):
        """A benchopt solver ``name`` with parameters ``values``, set on the
        Objective of ``split`` (the first one by default) as benchopt's
        runner sets it."""
        split = split or self.splits[0]
        solver = self.solvers[name].get_instance(**values)
        split.context.attach(split.objective, split.dataset, solver)
        skip, reason = solver._set_objective(split.objective)
        if skip:
            raise ValueError(f"{name} skips this dataset: {reason}")
        return solver

    def evaluate(self, solver, objective=None):
        """The Objective's metrics of the solver's current point, and the
        reason it diverged (None if it did not)."""
        objective = objective or self.objective
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            out = objective.evaluate_result(**solver.get_result())
        if not out.get("diverged"):
            return out, None
        said = [str(w.message) for w in caught
                if "diverged" in str(w.message)]
        if not said:
            return out, "diverged = 1"
        # "diverged at N sample evaluations: <why>; the run ends here ..."
        why = said[-1].partition(": ")[2].partition("; the run ends")[0]
        return out, why or said[-1]

    def run(self, name, values, epochs, n_evals, metric="value",
            report=None):
        """Criterion of solver ``name`` with ``values`` over ``epochs``
        (``n_evals`` points) on each split in turn; ``report(step,
        running criterion, epochs)`` is called at each point (``step``
        counts the points of every split so far, ``epochs`` what the
        solver drew so far on every split; it may raise to end the run).
        Returns ``(criterion, points)`` with ``points`` the metric at each
        point of every split, the criterion their mean (the mean over the
        splits of each split's mean); raises ``Diverged``.  Every trial's
        exact solves on a split start from y*(x0) and z*(x0) at its
        starting point x0, the same for every trial (solved once per
        process from zero, never from another trial's), so a trial scores
        the same whatever ran before it in the process (a resumed trial
        as it first ran).  The evaluations compute only the columns the
        criterion and the divergence rules read (``GLMMetrics.only``).
        ``clock`` then holds the seconds of the solver's loop and of the
        metric points (the first run's starting point apart), and
        ``drawn`` the epochs its solver drew on every split."""
        self.clock = dict(solver=0.0, metrics=0.0)
        self.drawn = 0.0
        scores, step = [], 0
        for index, split in enumerate(self.splits):
            before = self.drawn
            solver = self._start(name, values, split, metric)
            state, previous = solver.state, split.start_value
            for k in range(1, n_evals + 1):
                step += 1
                target = self.n_samples * epochs * k / n_evals
                t0 = time.perf_counter()
                _advance(state, target)
                t1 = time.perf_counter()
                out, reason = self.evaluate(solver, split.objective)
                self.clock["solver"] += t1 - t0
                self.clock["metrics"] += time.perf_counter() - t1
                self.drawn = before + state.n_samples / self.n_samples
                v = out.get(metric, math.nan)
                if reason is None and not math.isfinite(v):
                    reason = f"{metric} is {v}"
                if reason is None and out["value"] - previous > RISE:
                    reason = (f"H rose from {previous:.3g} to "
                              f"{out['value']:.3g} between two evaluations "
                              f"(benchopt's test: by more than {RISE:g})")
                previous = out.get("value", previous)
                if reason is not None:
                    raise Diverged(reason, before + out["epochs"], index,
                                   out["epochs"])
                scores.append(math.log10(max(v, 1e-300))
                              if METRICS[metric] else v)
                if report is not None:
                    report(step, sum(scores) / len(scores),
                           before + out["epochs"])
        return sum(scores) / len(scores), scores

    def _start(self, name, values, split, metric):
        """The solver set on ``split``, whose metrics are set to the
        criterion's tolerances and columns and warm-started at the
        split's starting solutions (solved once, from zero)."""
        metrics = split.objective.metrics
        tolerances = CRITERION_TOLERANCES[metric]
        metrics.solve_tolerances(*tolerances)
        metrics.only((metric,))
        solver = self.solver(name, values, split)
        if tolerances not in split.start_solutions:
            metrics.reset()
            value = self.evaluate(solver, split.objective)[0]["value"]
            if split.start_value is None:
                split.start_value = value
            split.start_solutions[tolerances] = metrics.solutions()
        metrics.warm_start(split.start_solutions[tolerances])
        return solver

    def check_fixed(self, name, values):
        """A ValueError when solver ``name``'s own configuration check
        (``algorithms.config_of``, through the solver as a run builds it)
        refuses the ``--fix`` ``values`` on this dataset, naming them."""
        solver = self.solvers[name].get_instance(**values)
        solver.dataset = self.tuning_key
        problem = self.objective.problem
        solver._sizes = (problem.n, problem.m)
        try:
            solver.config()
        except ValueError as err:
            given = ", ".join(f"{k}={v}" for k, v in values.items())
            raise ValueError(f"--fix {given}: {name} refuses it ({err})") \
                from None


def _advance(state, target):
    """Run ``state`` until it has drawn ``target`` samples (or diverged),
    never more than about one iteration past it: a chunk runs at most
    ``left / worst`` iterations, with ``worst`` an iteration's largest
    draw (twice a full pass of both levels, or more if an iteration was
    seen to draw more), then single iterations.  Chunks sized on the mean
    rate would overshoot by many epochs a solver with random full passes
    (PAGE), whose rate over a stretch without one is far below its
    mean."""
    full = state.problem.n + state.problem.m
    worst = 2.0 * full
    while state.n_samples < target and not state.diverged:
        left = target - state.n_samples
        chunk = max(1, int(left / worst))
        before = state.n_samples
        state.run(chunk)
        worst = max(worst, (state.n_samples - before) / chunk)
