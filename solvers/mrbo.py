from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """MRBO: STORM on grad_y g and on the Neumann hypergradient
    (``n_shia_steps``), both points sharing batches; weight a_k = eta /
    (k+1)^exponent_eta (family: momentum).

    Yang, Ji, Liang, "Provably faster algorithms for bilevel
    optimization", NeurIPS 2021 (Alg. 1).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["MRBO"]``.
    """
    name = "MRBO"
    algorithm = "MRBO"
    parameters = solver_parameters("MRBO")
