from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """SABA: SAGA on x, y and z, no moving average, no clipping (Dagréou et
    al., NeurIPS 2022).  ``init``: tables filled at x0 (``full``) or
    ``minibatch``.
    """
    name = "SABA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("SABA")
    parameters = {**COMMON, "init": ["full"], "R": [float("inf")]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
