from benchmark_utils.presets import preset
from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """SPABA: PAGE on x, y and z, z clipped at R (Chu, Xu, Yao, Zhang, "SPABA: A
    single-loop and probabilistic stochastic bilevel algorithm achieving
    optimal sample complexity", ICML 2024; PnPBO paper).

    ``p``: probability of a full evaluation; ``large_batch`` > 0 replaces the
    full evaluations by a batch of that size (generalized SPABA, expectation
    setting, PnPBO paper §3.4).
    """
    name = "SPABA"
    requirements = ["pip::numba>=0.59"]
    preset = preset("SPABA")
    parameters = {**COMMON, "p": [0.01], "large_batch": [0], "R": [1.0]}
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
