from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """SPABA: PAGE on x, y and z, z clipped at R (Chu, Xu, Yao, Zhang,
    "SPABA: A single-loop and probabilistic stochastic bilevel algorithm
    achieving optimal sample complexity", ICML 2024; PnPBO paper).

    ``p``: probability of a full evaluation; ``large_batch`` > 0 replaces the
    full evaluations by a batch of that size (generalized SPABA, expectation
    setting, PnPBO paper §3.4).

    Fixed part and defaults: ``algorithms.ALGORITHMS["SPABA"]``.
    """
    name = "SPABA"
    algorithm = "SPABA"
    parameters = solver_parameters("SPABA")
