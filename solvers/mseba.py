from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """MSEBA: PAGE on x and z, ZeroSARAH on y, z clipped at R (PnPBO paper
    §3.2.2).  ``p``: PAGE probability; ``rho_bar``: ZeroSARAH momentum;
    ``init``: initialisation of the ZeroSARAH module (``full``|``minibatch``).
    """
    name = "MSEBA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("MSEBA")
    parameters = {**COMMON, "p": [0.01], "rho_bar": [0.1], "init": ["full"],
                  "R": [1.0]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
