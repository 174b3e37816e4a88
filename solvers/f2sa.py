from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """F2SA: first order: ``n_inner_steps`` steps on the penalised copy y (grad_y
    f + lambda grad_y g) and the lower-level copy w, then x along grad_x f
    + lambda (grad_x g(x, y) - grad_x g(x, w)); lambda grows by
    delta_lmbda / (k+1)^exponent_delta; reports y := w and z := lambda (w
    - y) (family: penalty).

    Kwon, Kwon, Wright, Nowak, "A fully first-order method for stochastic
    bilevel optimization", ICML 2023 (Alg. 1).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["F2SA"]``.
    """
    name = "F2SA"
    algorithm = "F2SA"
    parameters = solver_parameters("F2SA")
