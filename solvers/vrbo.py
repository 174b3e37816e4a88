from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """VRBO: SARAH on grad_y g and the Neumann hypergradient, corrected after the
    x step and each of ``n_inner_steps`` y steps, full restart every
    int((n+m) period_frac / batch_size) outer iterations (family:
    restart).

    Yang, Ji, Liang, "Provably faster algorithms for bilevel
    optimization", NeurIPS 2021 (Alg. 2).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["VRBO"]``.
    """
    name = "VRBO"
    algorithm = "VRBO"
    parameters = solver_parameters("VRBO")
