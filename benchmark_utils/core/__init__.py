"""The numba core of PnPBO (Algorithm 1 of the PnPBO paper) and of the
baselines as shared blocks: ``records`` (named state), ``draw`` (coin and
batches), ``passes`` (sampled and full passes), ``steps`` (steps, moving
average, clipping, finiteness), ``counting`` (sample evaluations),
``oracles`` and ``solves`` (the baselines' stochastic oracles and
inverse-Hessian solvers), and the loops built from them: ``single_loop``
(PnPBO and its presets) and ``baseline_loop``, whose eight families live
in ``inner_loop``, ``momentum`` (two), ``restart``, ``penalty``,
``unrolled`` and ``hessian_free`` (two).  The estimator rules live in
``core.estimators``."""
