from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """MA-SOBA: SOBA with a moving average of weight ``rho`` on the x
    direction (Chen, Xiao & Balasubramanian, "Optimal algorithms for
    stochastic bilevel optimization under relaxed smoothness conditions",
    JMLR 2024).

    Fixed part and defaults: ``algorithms.ALGORITHMS["MA-SOBA"]``.
    """
    name = "MA-SOBA"
    algorithm = "MA-SOBA"
    parameters = solver_parameters("MA-SOBA")
