"""Real data sets that scikit-learn ships: no download, loaded in
milliseconds, for offline runs on real data.

- digits: 1797 8x8 images, 64 features, 10 classes -> data hyper-cleaning;
- breast_cancer: 569 samples, 30 features, 2 classes -> logistic regression;
- wine: 178 samples, 13 features, 3 classes -> multinomial logistic
  regression.

Each is split train/val/test by a seeded permutation and standardised with
the training split's statistics.
"""
from sklearn.datasets import load_breast_cancer, load_digits, load_wine

from .preprocess import (datacleaning_data, logreg_data, multilogreg_data,
                         seed_streams, split_indices, standardize)

DIGITS_SIZES = (1000, 400, 397)
BREAST_CANCER_SIZES = (300, 150, 119)
WINE_SIZES = (70, 64, 44)


def _split(X, y, sizes, rng):
    idx = split_indices(X.shape[0], sizes, rng)
    Xs = standardize(*(X[i] for i in idx))
    return [v for X_i, i in zip(Xs, idx) for v in (X_i, y[i])]


def digits_task(ratio, seed, sizes=DIGITS_SIZES, l2_reg=0.2):
    """Data hyper-cleaning on the digits, training labels corrupted at
    ``ratio``."""
    split_rng, corrupt_rng = seed_streams(seed, 2)
    X, y = load_digits(return_X_y=True)
    return datacleaning_data(*_split(X, y, sizes, split_rng), n_classes=10,
                             ratio=ratio, rng=corrupt_rng, l2_reg=l2_reg)


def breast_cancer_task(seed, sizes=BREAST_CANCER_SIZES):
    """Binary logistic regression: malignant (0) -> -1, benign (1) -> +1."""
    (rng,) = seed_streams(seed, 1)
    X, y = load_breast_cancer(return_X_y=True)
    return logreg_data(*_split(X, y, sizes, rng))


def wine_task(seed, sizes=WINE_SIZES):
    """Multinomial logistic regression on the three wine cultivars."""
    (rng,) = seed_streams(seed, 1)
    X, y = load_wine(return_X_y=True)
    return multilogreg_data(*_split(X, y, sizes, rng), n_classes=3)
