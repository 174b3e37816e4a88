from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """SFFBA: ZeroSARAH on x, y and z, z clipped at R (PnPBO paper §3.2.1).

    ``rho_bar``: ZeroSARAH momentum; ``init``: ``full`` (one full pass at
    k = 0) or ``minibatch`` (no full pass ever, ZeroSARAH Cor. 2).

    Fixed part and defaults: ``algorithms.ALGORITHMS["SFFBA"]``.
    """
    name = "SFFBA"
    algorithm = "SFFBA"
    parameters = solver_parameters("SFFBA")
