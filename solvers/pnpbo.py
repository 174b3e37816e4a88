from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """PnPBO (Algorithm 1 of the PnPBO paper) with any estimators.

    ``estimator_x|y|z`` in {sgd, saga, sarah, storm, page, zerosarah};
    ``ma``: auto (on iff the x estimator is unbiased: sgd, saga) | on | off,
    with weight ``rho``; ``R``: clipping radius of z (``inf``: off); ``p``,
    ``rho_bar``, ``storm_a``, ``period``: estimator parameters; ``init``:
    full | minibatch start of SAGA, ZeroSARAH and STORM; ``large_batch``:
    batch replacing the full evaluations (0: exact).  Every named solver is
    one setting of this one.

    Fixed part and defaults: ``algorithms.ALGORITHMS["PnPBO"]``.
    """
    name = "PnPBO"
    algorithm = "PnPBO"
    parameters = solver_parameters("PnPBO")
