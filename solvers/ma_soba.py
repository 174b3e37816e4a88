from benchmark_utils.presets import solver_parameters
from benchmark_utils.solver_base import PnPBOSolver


class Solver(PnPBOSolver):
    """MA-SOBA: SOBA with a moving average of weight ``rho`` on the x
    direction (Chen, Xiao & Balasubramanian, "Optimal algorithms for
    stochastic bilevel optimization under relaxed smoothness conditions",
    JMLR 2024).

    Fixed part and defaults: ``presets.ALGORITHMS["MA-SOBA"]``.
    """
    name = "MA-SOBA"
    preset = "MA-SOBA"
    parameters = solver_parameters("MA-SOBA")
