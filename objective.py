"""Stochastic bilevel optimization: min_x f(x, y*(x)), y*(x) = argmin_y g(x, y).

The Objective turns a dataset's arrays into a ``Problem`` for the numba core,
draws the starting point ``(x0, y0, z0)`` and the run seed from
``get_seed(use_repetition=True)`` (so every solver of one repetition starts
from the same point, and repetitions differ), and scores iterates with the
exact metrics of docs/algorithms.md §6 (``benchmark_utils.metrics``).

``eval_epochs`` (u) is the grid of sample evaluations every solver is
evaluated on: callback call c of a run is evaluated at the end of the first
iteration whose sample count reaches ``c * u * (n + m)`` (docs/metrics.md
"Grid of sample evaluations", ``benchmark_utils/sample_grid.py``); the
solvers receive it from ``get_objective``.

``stopping_criterion`` is the benchmark's stopping rule (docs/metrics.md "Stopping",
``benchmark_utils/stopping.py``). Its parameters are written out here: a
change to this file invalidates benchopt's cache of earlier results, a
change to ``benchmark_utils`` does not. The Objective compiles no solver
code: each solver compiles what it runs in ``set_objective``
(``engine.compile_for``), which benchopt does not time.
"""
import numpy as np
from benchopt import BaseObjective

from benchmark_utils.metrics import evaluate
from benchmark_utils.prepared import prepared
from benchmark_utils.stopping import ConvergenceCriterion
from benchmark_utils.problem import starting_point
from benchmark_utils.sample_grid import EVAL_EPOCHS, check_eval_epochs


class Objective(BaseObjective):
    name = "Bilevel Optimization"
    url = "https://github.com/benchopt/benchmark_bilevel"
    min_benchopt_version = "1.10"
    requirements = ["pip::numba>=0.59", "pip::scipy>=1.10",
                    "pip::threadpoolctl>=3.1"]

    parameters = {"eval_epochs": [EVAL_EPOCHS]}
    sampling_strategy = "callback"
    stopping_criterion = ConvergenceCriterion(
        tol=1e-20, patience=5, value_rtol=1e-10, strategy="callback")

    test_config = {"dataset": {"name": "Simulated"}}

    def set_data(self, task, X_train, y_train, X_val, y_val, X_test=None,
                 y_test=None, tuning_key=None, **task_params):
        check_eval_epochs(self.eval_epochs)
        # tuning_key: the dataset's key in benchmark_utils/tuned.py, for
        # the solvers' step_size=tuned (and the other TUNABLE parameters).
        self.tuning_key = tuning_key
        # Built once per dataset and repetition in a process, reused by
        # every run (benchmark_utils/prepared.py); every array handed to the
        # core and to the metrics is a C-contiguous, writable copy: numba
        # would compile another specialisation for read-only ones, on the
        # run's clock.
        self.problem, self.metrics = prepared(dict(
            task=task, X_train=X_train, y_train=y_train, X_val=X_val,
            y_val=y_val, X_test=X_test, y_test=y_test, **task_params))

    def get_objective(self):
        # each run's evaluations start from the same state, whatever ran
        # before it in this process (warm starts of the exact solves)
        reset = getattr(self.metrics, "reset", None)
        if callable(reset):
            reset()
        seed = self.get_seed(use_repetition=True)
        x0, y0, z0 = starting_point(self.problem, seed)
        return dict(problem=self.problem, x0=x0, y0=y0, z0=z0, seed=seed,
                    dataset=getattr(self, "tuning_key", None),
                    eval_epochs=self.eval_epochs)

    def evaluate_result(self, x, y, z, n_samples, diverged=False,
                        z_role="iterate"):
        # z_role: "sample" when the solver's z does not track z*(x), so the
        # lost-inner-iterate rule does not apply to it (metrics.lost_inner)
        return evaluate(self.metrics, x, y, z, n_samples, diverged, z_role)

    def get_one_result(self):
        p = self.problem
        return dict(x=np.zeros(p.dim_x), y=np.zeros(p.dim_y),
                    z=np.zeros(p.dim_y), n_samples=0)
