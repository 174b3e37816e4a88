from benchmark_utils.solver_base import COMMON, PnPBOSolver


class Solver(PnPBOSolver):
    """PnPBO (Algorithm 1 of the PnPBO paper) with any estimators.

    ``estimator_x|y|z`` in {sgd, saga, sarah, storm, page, zerosarah};
    ``ma``: auto (on iff the x estimator is unbiased: sgd, saga) | on | off,
    with weight ``rho``; ``R``: clipping radius of z (``inf``: off); ``p``,
    ``rho_bar``, ``storm_a``, ``period``: estimator parameters; ``init``:
    full | minibatch start of SAGA, ZeroSARAH and STORM.  Every named solver
    is one setting of this one.
    """
    name = "PnPBO"
    requirements = ["pip::numba>=0.59"]
    preset = {}
    parameters = {
        **COMMON,
        "estimator_x": ["page"], "estimator_y": ["page"],
        "estimator_z": ["page"],
        "ma": ["auto"], "rho": [0.1], "R": [1.0], "p": [0.01],
        "rho_bar": [0.1], "storm_a": [0.1], "period": [100],
        "init": ["full"], "large_batch": [0],
    }
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
