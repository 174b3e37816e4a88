from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """TTSA: one SGD step on y, then the x step along the random-truncation
    hypergradient taken at the new y; two time scales beta_k ~ k^-0.4,
    alpha_k ~ k^-0.6 (family: inner loop with T = 1).

    Hong, Wai, Wang, Yang, "A two-timescale stochastic algorithm framework
    for bilevel optimization: complexity analysis and application to
    actor-critic", SIAM J. Optim. 33(1), 2023 (Alg. 1).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["TTSA"]``.
    """
    name = "TTSA"
    algorithm = "TTSA"
    parameters = solver_parameters("TTSA")
