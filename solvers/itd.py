from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """ITD: T SGD steps on y (``n_inner_steps``, from y_k or, without
    ``warm_start``, from y0), then the reverse-mode derivative of the upper
    level through them, on the same batches, and one x step (family:
    iterative differentiation; benchmark_bilevel's jaxopt_ITD).

    Franceschi, Donini, Frasconi, Pontil, "Forward and reverse
    gradient-based hyperparameter optimization", ICML 2017 (reverse mode);
    Grazzi, Franceschi, Pontil, Salzo, "On the iteration complexity of
    hypergradient computation", ICML 2020.

    Mathematics, draws and sample counts: docs/baselines.md; parameters
    and defaults: ``algorithms.ALGORITHMS["ITD"]``.
    """
    name = "ITD"
    algorithm = "ITD"
    parameters = solver_parameters("ITD")
