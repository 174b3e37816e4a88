from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """AmIGO: T SGD steps on y (``n_inner_steps``), ``n_z_steps`` warm-started
    SGD steps on the linear system H z = grad_y f, one x step (family:
    inner loop).

    Arbel, Mairal, "Amortized implicit differentiation for stochastic
    bilevel optimization", ICLR 2022 (Alg. 1-3).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["AmIGO"]``.
    """
    name = "AmIGO"
    algorithm = "AmIGO"
    parameters = solver_parameters("AmIGO")
