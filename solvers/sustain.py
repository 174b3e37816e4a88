from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """SUSTAIN: STORM on grad_y g and on the random-truncation hypergradient
    (``n_hia_steps``), both points sharing batches and truncation; weight
    a_k = eta / (k+1)^exponent_eta (family: momentum).

    Khanduri, Zeng, Hong, Wai, Wang, Yang, "A near-optimal algorithm for
    stochastic bilevel optimization via double-momentum", NeurIPS 2021
    (Alg. 1).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["SUSTAIN"]``.
    """
    name = "SUSTAIN"
    algorithm = "SUSTAIN"
    parameters = solver_parameters("SUSTAIN")
