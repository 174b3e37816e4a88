from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """SFFBA: ZeroSARAH on x, y and z, z clipped at R (PnPBO paper §3.2.1).

    ``rho_bar``: ZeroSARAH momentum; ``init``: ``full`` (one full pass at
    k = 0) or ``minibatch`` (no full pass ever, ZeroSARAH Cor. 2).
    """
    name = "SFFBA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("SFFBA")
    parameters = {**COMMON, "rho_bar": [0.1], "init": ["full"], "R": [1.0]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
