from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """SRMBA: STORM on x, y and z with weight ``storm_a``, z clipped at R
    (PnPBO paper §3.4, expectation setting).  ``v_0`` is a minibatch
    estimate; set ``init='full'`` for a full first direction.
    """
    name = "SRMBA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("SRMBA")
    parameters = {**COMMON, "storm_a": [0.1], "init": ["minibatch"],
                  "R": [1.0]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
