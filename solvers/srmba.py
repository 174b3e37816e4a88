from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """SRMBA: STORM on x, y and z with weight ``storm_a``, z clipped at R
    (PnPBO paper §3.4, expectation setting).  ``v_0`` is a minibatch
    estimate by default; set ``init='full'`` for a full first direction.

    Fixed part and defaults: ``algorithms.ALGORITHMS["SRMBA"]``.
    """
    name = "SRMBA"
    algorithm = "SRMBA"
    parameters = solver_parameters("SRMBA")
