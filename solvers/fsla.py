from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """FSLA: one SGD step on y, one on the linear system (at the new y), STORM on
    the hypergradient with a_k = storm_a / (k+1)^exponent_a (storm_a=None:
    step_size) (family: momentum, Gauss-Seidel order).

    Li, Gu, Huang, "A fully single loop algorithm for bilevel optimization
    without Hessian inverse", AAAI 2022 (Alg. 1).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["FSLA"]``.
    """
    name = "FSLA"
    algorithm = "FSLA"
    parameters = solver_parameters("FSLA")
