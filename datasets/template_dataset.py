"""Template: a dataset of your own, from arrays.

Copy this file to ``datasets/<your_data>.py``, set ``name`` and replace
``load_arrays`` with your data; every solver then runs on it::

    benchopt run . -d your_data -s SPABA -s SOBA

benchopt does not list ``template_*`` files, so this one is never part of
a comparison unless named by its path::

    benchopt run . -d datasets/template_dataset.py -s SPABA -n 10

``tests/test_templates.py`` keeps it working; docs/datasets.md "A dataset
of your own" gives the contract in full.
"""
import numpy as np
from benchopt import BaseDataset

from benchmark_utils.data.preprocess import split_indices, standardize


def load_arrays(n_samples, n_features, rng):
    """Your data: features (one row per sample) and labels.  Here two
    Gaussian classes whose means differ along a random direction."""
    labels = rng.choice([-1.0, 1.0], size=n_samples)
    direction = rng.standard_normal(n_features) / np.sqrt(n_features)
    X = rng.standard_normal((n_samples, n_features)) \
        + 1.5 * labels[:, None] * direction
    return X, labels


class Dataset(BaseDataset):
    """Template: binary logistic regression on synthetic arrays (the
    ``logreg`` task: x holds one log-regularisation weight per feature).

    The contract (``get_data``): ``task``, ``X_train, y_train`` (the lower
    level g: training samples), ``X_val, y_val`` (the upper level f:
    validation samples), optionally ``X_test, y_test`` (only for the
    reported error rates), and the task's parameters.  The Objective checks
    all of it before any work and names what is wrong
    (``benchmark_utils/validation.py``).
    """
    # The name in benchopt's command line, results and plots.
    name = "Template"
    # The task of get_data's arrays (below): the numba kernels a run
    # compiles ahead, in parallel, before the first solver starts
    # (benchmark_utils/precompile.py); without it they compile on
    # first use.
    task = "logreg"
    requirements = []

    # benchopt runs every combination of the lists; a run overrides them
    # as -d "datasets/template_dataset.py[n_samples=1000,n_features=20]".
    parameters = {"n_samples": [600], "n_features": [10]}
    test_parameters = {"n_samples": [120], "n_features": [5]}

    def prepare(self):
        """Nothing to fetch here; a dataset that downloads files does it
        here (``benchopt prepare``), once, without the run's seed."""

    def get_data(self):
        # Seeded by benchopt and the repetition: each repetition of a
        # ``benchopt run -r R`` has its own split (and, here, its own
        # arrays); a repetition's seed is the same for every solver.
        rng = np.random.default_rng(self.get_seed(use_repetition=True))
        X, labels = load_arrays(self.n_samples, self.n_features, rng)
        # A seeded split train / validation / test (half, quarter,
        # quarter), standardised with the training split's statistics.
        n_train = self.n_samples // 2
        n_val = (self.n_samples - n_train) // 2
        sizes = (n_train, n_val, self.n_samples - n_train - n_val)
        train, val, test = split_indices(self.n_samples, sizes, rng)
        X_train, X_val, X_test = standardize(X[train], X[val], X[test])
        return dict(
            # logreg: labels exactly -1 / +1.  multilogreg: labels
            # 0..C-1 and n_classes=C.  datacleaning: the same and l2_reg
            # (> 0).  quadratic: dim_x, ridge, lam (docs/datasets.md).
            task="logreg",
            X_train=X_train, y_train=labels[train],
            X_val=X_val, y_val=labels[val],
            X_test=X_test, y_test=labels[test],
        )
