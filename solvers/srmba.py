from benchmark_utils.presets import solver_parameters
from benchmark_utils.solver_base import PnPBOSolver


class Solver(PnPBOSolver):
    """SRMBA: STORM on x, y and z with weight ``storm_a``, z clipped at R
    (PnPBO paper §3.4, expectation setting).  ``v_0`` is a minibatch
    estimate by default; set ``init='full'`` for a full first direction.

    Fixed part and defaults: ``presets.ALGORITHMS["SRMBA"]``.
    """
    name = "SRMBA"
    preset = "SRMBA"
    parameters = solver_parameters("SRMBA")
