from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """ImplicitGD: full-batch gradient descent on H, the hypergradient by
    implicit differentiation with y*(x) and z*(x) solved to ``tol`` by the
    exact metrics' deterministic solvers, warm-started (benchmark_bilevel's
    jaxopt_GD; Python-side, nothing compiled).

    Pedregosa, "Hyperparameter optimization with approximate gradient",
    ICML 2016 (here with exact solves).

    Mathematics and sample counts: docs/baselines.md and
    ``benchmark_utils/algorithms/implicit.py``; parameters and defaults:
    ``algorithms.ALGORITHMS["ImplicitGD"]``.
    """
    name = "ImplicitGD"
    algorithm = "ImplicitGD"
    parameters = solver_parameters("ImplicitGD")
