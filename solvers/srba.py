from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """SRBA: SARAH on x, y and z with a full restart every ``period``
    iterations, z projected on the ball of radius R (Dagréou, Moreau,
    Vaiter & Ablin, "A lower bound and a near-optimal algorithm for bilevel
    empirical risk minimization", AISTATS 2024).
    """
    name = "SRBA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("SRBA")
    parameters = {**COMMON, "period": [100], "R": [1.0]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
