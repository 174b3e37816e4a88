from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """SABA: SAGA on x, y and z, no moving average, no clipping by default
    (Dagréou, Ablin, Vaiter, Moreau, "A framework for bilevel optimization
    that enables stochastic and global variance reduction algorithms",
    NeurIPS 2022).  ``init``: tables filled at x0 (``full``) or
    ``minibatch``.

    Fixed part and defaults: ``algorithms.ALGORITHMS["SABA"]``.
    """
    name = "SABA"
    algorithm = "SABA"
    parameters = solver_parameters("SABA")
