from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """BSA: T SGD steps on y (``n_inner_steps``), Ghadimi-Wang's random-
    truncation Hessian-inverse estimator (``n_hia_steps``), one x step;
    steps decay as 1/sqrt(k+1) (family: inner loop).

    Ghadimi, Wang, "Approximation methods for bilevel programming", arXiv
    1802.02246, 2018 (Alg. 2).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["BSA"]``.
    """
    name = "BSA"
    algorithm = "BSA"
    parameters = solver_parameters("BSA")
