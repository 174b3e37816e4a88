from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """PZOBO: y takes ``n_inner_steps`` gradient steps on g(x, .); the
    Jacobian of those steps in x is estimated from the same steps run at x +
    mu u_j for ``n_gaussian_vectors`` Gaussian directions u_j (no Hessian):
    x moves along grad_x f + (1/Q) sum_j u_j <delta_j, grad_y f> (family:
    zeroth-order).  ``batch_size="full"`` runs it on full batches.

    Sow, Ji, Liang, "On the convergence theory for Hessian-free bilevel
    algorithms", NeurIPS 2022 (Alg. 1).

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["PZOBO"]``.
    """
    name = "PZOBO"
    algorithm = "PZOBO"
    parameters = solver_parameters("PZOBO")
