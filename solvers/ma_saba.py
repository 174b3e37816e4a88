from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """MA-SABA: SAGA on x, y and z, moving average (weight ``rho``) on x, z
    clipped at R (PnPBO paper, Table 1).  ``init``: SAGA tables filled at
    x0 (``full``) or started at zero (``zero``).
    """
    name = "MA-SABA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("MA-SABA")
    parameters = {**COMMON, "rho": [0.1], "init": ["full"], "R": [1.0]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}

    def config(self):
        cfg = super().config()
        if cfg.init not in ("full", "zero"):
            raise ValueError(
                f"init must be one of ['full', 'zero'], got {cfg.init!r}")
        # A zero table gives v_0 = grad_P0(u_0) and then fills visited rows:
        # the engine's 'minibatch' start.
        cfg.init = "minibatch" if cfg.init == "zero" else "full"
        return cfg
