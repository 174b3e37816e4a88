from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """MA-SOBA: SOBA with a moving average of weight ``rho`` on the x
    direction (Chen, Xiao & Balasubramanian, "Optimal algorithms for stochastic bilevel
    optimization under relaxed smoothness conditions", JMLR 2024).
    """
    name = "MA-SOBA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("MA-SOBA")
    parameters = {**COMMON, "rho": [0.1], "R": [float("inf")]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
