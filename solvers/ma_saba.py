from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """MA-SABA: SAGA on x, y and z, moving average (weight ``rho``) on x, z
    clipped at R (PnPBO paper, Table 1).  ``init``: SAGA tables filled at
    x0 (``full``) or started at zero (``zero``: the engine's ``minibatch``
    start).

    Fixed part and defaults: ``algorithms.ALGORITHMS["MA-SABA"]``.
    """
    name = "MA-SABA"
    algorithm = "MA-SABA"
    parameters = solver_parameters("MA-SABA")
