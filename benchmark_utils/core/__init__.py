"""The numba core of PnPBO (Algorithm 1 of the PnPBO paper) and of the
baselines as shared blocks: ``records`` (named state), ``draw`` (coin and
batches), ``passes`` (sampled and full passes), ``steps`` (steps, moving
average, clipping, finiteness), ``counting`` (sample evaluations),
``oracles`` and ``solves`` (the baselines' stochastic oracles and
inverse-Hessian solvers), and the single loop built from them
(``single_loop``: PnPBO and its presets).  The estimator rules live in
``core.estimators``; the baselines' eight loop families, built from the
same blocks, in the package ``families``."""
