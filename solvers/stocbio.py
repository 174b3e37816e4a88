from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """StocBiO: T SGD steps on y (``n_inner_steps``), a Neumann series of
    ``n_shia_steps`` fresh Hessian batches for z, one x step along the
    hypergradient (family: inner loop).

    Ji, Yang, Liang, "Bilevel optimization: convergence analysis and
    enhanced design", ICML 2021 (Alg. 2; Neumann series of Alg. 3).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["StocBiO"]``.
    """
    name = "StocBiO"
    algorithm = "StocBiO"
    parameters = solver_parameters("StocBiO")
