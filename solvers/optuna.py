import optuna  # noqa: F401 (benchopt's install check: the search needs it)

from benchmark_utils.algorithms import config_of, solver_parameters
from benchmark_utils.algorithms.search import refusal
from benchmark_utils.solver_base import BilevelSolver
from benchmark_utils.stopping import ConvergenceCriterion


class Solver(BilevelSolver):
    """Optuna: black-box hyperparameter search over x with the inner problem
    solved exactly at each trial (the metrics' oracles), TPE sampler
    (Bergstra, Bardenet, Bengio, Kegl, "Algorithms for hyper-parameter
    optimization", NeurIPS 2011; Akiba, Sano, Yanase, Ohta, Koyama,
    "Optuna: a next-generation hyperparameter optimization framework", KDD
    2019).  The curve is the best trial so far; trials run one at a time up to
    each point of the Objective's grid of sample evaluations.

    ``low``, ``high``: the box of every coordinate of x (None: the task's,
    log-scale for the regularisation weights); ``max_dim``: x of a larger
    dimension (datacleaning's one weight per training sample) is skipped
    with the reason.  docs/solvers.md "Optuna"; defaults:
    ``algorithms.ALGORITHMS["Optuna"]``.
    """
    name = "Optuna"
    algorithm = "Optuna"
    requirements = ["pip::numba>=0.59", "pip::optuna"]
    parameters = solver_parameters("Optuna")
    test_config = {"dataset": {"name": "Simulated"}}
    # The objective's rule with patience 10 points instead of 5: the best
    # trial is flat for long stretches (an i.i.d. search finds no new best
    # between trials a and b with probability a / b: 13 % over 5 points
    # x1.5 apart, 1.7 % over 10).
    stopping_criterion = ConvergenceCriterion(
        tol=1e-20, patience=10, value_rtol=1e-10, strategy="callback")

    def skip(self, problem, **_):
        why = refusal(problem, config_of(self.algorithm, max_dim=self.max_dim))
        return why is not None, why
