"""The numba core of PnPBO (Algorithm 1 of the PnPBO paper) as shared
blocks: ``records`` (named state), ``draw`` (coin and batches), ``passes``
(sampled and full passes), ``steps`` (steps, moving average, clipping,
finiteness), ``counting`` (sample evaluations) and the loop families built
from them (``single_loop``).  The estimator rules live in
``core.estimators``."""
