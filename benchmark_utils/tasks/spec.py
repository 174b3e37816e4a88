"""``TaskSpec``: everything the Python side knows about one task.

Each ``tasks/<task>.py`` ends with ``SPEC = TaskSpec(...)``, next to the
kernels whose coefficient layout and parameter vector it describes;
``tasks/registry.py`` collects them.  The numba side is not here: the
kernels are selected at compile time by the type of the task's marker
(``tasks.MARKERS``) in ``tasks/dispatch.py``, which finds them in the
task's module (``dispatch.TASK_MODULES``); ``tests/test_registry.py``
checks that the dispatch covers every registered task.

Fields:

- ``name``: the dataset contract's ``task``;
- ``code``: the task's place in ``tasks.MODULES`` (set by the
  registry), which gives its marker;
- ``n_coef(params) -> (kf, kg)``: coefficients per UL (f) and per LL (g)
  sample that the kernels write (the width of the SAGA tables);
- ``problem_params(X_train, **task_params) -> (params, dim_x, dim_y)``:
  the kernels' float64 parameter vector and the sizes of x and y, from the
  training array and the dataset's task parameters (already validated);
- ``starting_point(rng, dim_x, dim_y) -> (x0, y0, z0)``: the benchmark's
  starting point, drawn from a ``numpy.random.Generator``;
- ``check(task, parts, p, task_params)``: the task's own dataset checks
  (labels, parameters), defined beside the kernels with the helpers of
  ``validation.py``, after the generic array checks;
  ``parts`` is ``[(part, X, y)]`` for train, val (and test), ``p`` the
  number of features;
- ``metrics``: ``"module:Class"`` (in ``benchmark_utils``) of the metric
  evaluator, built as ``Class(data)`` from the dataset dict;
- ``oracle``: ``"module:Class"`` of the exact full-batch oracle behind the
  metrics, built as ``Class(**data)``;
- ``cross_in_data`` (default True): whether the data part of g depends on
  x (hess_xy G_j != 0); False when x enters g only through the exact
  regularisation (logreg, multilogreg), where a baseline's hypergradient
  needs no LL data pass for X_J s (docs/baselines.md §1);
- ``x_range`` (default unbounded): the (lo, hi) outside which the task's
  map of a coordinate of x is not resolved in float64 -- sigma(x_i) within
  float64 resolution of 0 or 1 (sample weights), e^{x_i} under- or
  overflowing (regularisation): there H no longer depends on x_i and the
  computed grad H vanishes by round-off, not at a stationary point
  (``metrics.saturation``: such a point is never read as stationary);
- ``exact_solves`` (default ``"newton"``): how y*(x) and z*(x) are
  computed exactly: ``"closed_form"`` by the oracle's own ``y_star`` and
  ``z_star`` (quadratic), ``"newton"`` by ``exact_glm.GLMExact``'s
  Newton-CG on the oracle; ImplicitGD's solves and the black-box search's
  ``exact_value`` follow it;
- ``x_per_sample`` (default False): x has one coordinate per LL sample,
  indexed by its row (datacleaning's sample weights): the rows are never
  reordered (``sampling="blocks"`` reads them through a permutation,
  ``records.make_levels``);
- ``search_box`` (default (-5, 5)): the box of each coordinate of x that
  the black-box search (``algorithms/search.py``) searches when ``low``
  and ``high`` are not given;
- ``tiny_labels``, ``tiny_params``: the labels of 4 samples and the task
  parameters (``(name, value)`` pairs) of the tiny problem that compiles
  the task's kernels (``engine.tiny_problem``: 3 features);
- ``references`` (default "x0", "best_scalar"): the reference results
  the metrics report beside every point (``reference_results``: "x0",
  and "x_star", "best_scalar" or the sample weights' "weights_one",
  "weights_oracle", "val_only");
- ``compile_seconds``: (single loop, one baseline family) seconds of a
  first compile on the 2-core machine of docs/performance.md, announced
  while it runs (``engine.announced``).

The metric evaluator and the oracle are named, not imported: they pull in
scipy and the exact-metric kernels, and ``metrics`` itself reads the
registry, so importing them here would make a cycle.  ``tests/
test_registry.py`` checks that the names resolve.
"""
import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np


# x_range of the sample-weight tasks: 1 - sigma(x) < 2^-53 beyond 36.74,
# where the weight is 0 or 1 to float64 resolution and sigma'(x) ~ 1e-16.
SIGMOID_RESOLVED = (-53 * np.log(2.0), 53 * np.log(2.0))
# x_range of the regularisation tasks: e^{x} overflows above 709.78 and
# underflows to 0 below -745.13 (half the smallest subnormal, 2^-1075).
EXP_RESOLVED = (-1075 * np.log(2.0), np.log(np.finfo(np.float64).max))


# How a task's y*(x) and z*(x) are computed exactly (``exact_solves``)
EXACT_SOLVES = ("closed_form", "newton")


def resolve(ref):
    """The object named ``"module:attr"``, ``module`` relative to
    ``benchmark_utils``."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(f"benchmark_utils.{module}"), attr)


@dataclass(frozen=True)
class TaskSpec:
    name: str
    n_coef: Callable
    problem_params: Callable
    starting_point: Callable
    check: Callable
    metrics: str
    oracle: str
    cross_in_data: bool = True
    x_range: tuple = (-np.inf, np.inf)
    exact_solves: str = "newton"
    x_per_sample: bool = False
    search_box: tuple = (-5.0, 5.0)
    tiny_labels: tuple = (0.0, 1.0, 1.0, 0.0)
    tiny_params: tuple = ()
    compile_seconds: tuple = (30, 30)
    references: tuple = ("x0", "best_scalar")
    code: int = -1  # set by the registry

    def __post_init__(self):
        if self.exact_solves not in EXACT_SOLVES:
            raise ValueError(f"TaskSpec {self.name!r}: exact_solves must be "
                             f"one of {EXACT_SOLVES}, got "
                             f"{self.exact_solves!r}")

    def metrics_class(self):
        return resolve(self.metrics)

    def oracle_class(self):
        return resolve(self.oracle)

    def make_metrics(self, data):
        """The metric evaluator of the dataset dict ``data``."""
        return self.metrics_class()(data)

    def make_oracle(self, data):
        """The exact oracle of the dataset dict ``data``."""
        return self.oracle_class()(**data)


def logistic_starting_point(c):
    """The starting point of the logistic tasks: x0 = c + 0.1 N(0, I),
    y0 ~ N(0, 1e-4 I), z0 = 0 (drawn in that order)."""
    def starting_point(rng, dim_x, dim_y):
        return (c + 0.1 * rng.standard_normal(dim_x),
                0.01 * rng.standard_normal(dim_y), np.zeros(dim_y))
    return starting_point
