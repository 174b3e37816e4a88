from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """SRBA: SARAH on x, y and z with a full restart every ``period``
    iterations, z projected on the ball of radius R (Dagréou, Moreau,
    Vaiter & Ablin, "A lower bound and a near-optimal algorithm for bilevel
    empirical risk minimization", AISTATS 2024).

    Fixed part and defaults: ``algorithms.ALGORITHMS["SRBA"]``.
    """
    name = "SRBA"
    algorithm = "SRBA"
    parameters = solver_parameters("SRBA")
