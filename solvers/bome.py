from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """BOME: first order, on the value-function constraint q(x, y) = g(x,
    y) - g(x, y-hat) with y-hat ``n_inner_steps`` gradient steps on g(x,
    .) from y: (x, y) moves along grad f + lambda grad q, lambda = max(eta
    |grad q|^2 - <grad f, grad q>, 0) / |grad q|^2 (family:
    value-function).  ``batch_size="full"`` runs it on full batches.

    Ye, Liu, Wright, Stone, Liu, "BOME! Bilevel optimization made easy: a
    simple first-order approach", NeurIPS 2022 (Alg. 1).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["BOME"]``.
    """
    name = "BOME"
    algorithm = "BOME"
    parameters = solver_parameters("BOME")
