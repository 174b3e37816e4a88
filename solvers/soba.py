from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """SOBA: SGD on x, y and z, no clipping by default (Dagréou, Ablin,
    Vaiter, Moreau, "A framework for bilevel optimization that enables
    stochastic and global variance reduction algorithms", NeurIPS 2022).
    Steps decay as ``c / (k + 1)^e``, with decreasing steps by default
    (``exponent_x``, ``exponent_yz``).

    Fixed part and defaults: ``algorithms.ALGORITHMS["SOBA"]``.
    """
    name = "SOBA"
    algorithm = "SOBA"
    parameters = solver_parameters("SOBA")
