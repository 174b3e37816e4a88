from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """SOBA: SGD on x, y and z, no clipping (Dagréou et al., "A framework for
    bilevel optimization that enables stochastic and global variance
    reduction algorithms", NeurIPS 2022).  Steps decay as
    ``c / (k + 1)^(1/2)`` by default.
    """
    name = "SOBA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("SOBA")
    parameters = {**COMMON, "exponent_x": [0.5], "exponent_yz": [0.5],
                  "R": [float("inf")]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
