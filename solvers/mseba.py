from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """MSEBA: PAGE on x and z, ZeroSARAH on y, z clipped at R (PnPBO paper
    §3.2.2).  ``p``: PAGE probability; ``rho_bar``: ZeroSARAH momentum;
    ``init``: initialisation of the ZeroSARAH module (``full``|``minibatch``).

    Fixed part and defaults: ``algorithms.ALGORITHMS["MSEBA"]``.
    """
    name = "MSEBA"
    algorithm = "MSEBA"
    parameters = solver_parameters("MSEBA")
