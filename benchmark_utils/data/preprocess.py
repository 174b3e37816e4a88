"""From parsed arrays to the dataset contract.

Every dataset returns a dict with ``task``, ``X_train, y_train`` (lower
level), ``X_val, y_val`` (upper level), ``X_test, y_test``, and the task's
parameters. X are C-contiguous float64 2-D arrays, y float64 1-D arrays:
+-1 for ``logreg``, 0..C-1 for ``multilogreg`` and ``datacleaning``.
"""
import numpy as np


def seed_streams(seed, n):
    """``n`` independent generators derived from ``seed``: the split and
    the corruption draw from their own stream, so the split does not depend
    on the corruption ratio."""
    return [np.random.default_rng(s)
            for s in np.random.SeedSequence(seed).spawn(n)]


def split_indices(n_samples, sizes, rng):
    """Disjoint index sets of the given ``sizes`` from a random permutation
    of ``range(n_samples)``."""
    sizes = [int(s) for s in sizes]
    if any(s < 1 for s in sizes):
        raise ValueError(f"split sizes must be >= 1, got {sizes}")
    if sum(sizes) > n_samples:
        raise ValueError(
            f"split sizes {sizes} need {sum(sizes)} samples but the data "
            f"hold only {n_samples}")
    perm = rng.permutation(n_samples)
    bounds = np.cumsum([0] + sizes)
    return [perm[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def standardize(X_fit, *others):
    """Centre and scale every column by the mean and standard deviation of
    ``X_fit``; a constant column is only centred (its scale is 1). Returns
    float64 C-contiguous arrays, ``X_fit``'s first."""
    X_fit = np.asarray(X_fit, dtype=np.float64)
    mean = X_fit.mean(axis=0)
    std = X_fit.std(axis=0)
    std[std <= 1e-12 * np.maximum(1.0, np.abs(mean))] = 1.0
    return tuple(np.ascontiguousarray((np.asarray(X, dtype=np.float64)
                                       - mean) / std)
                 for X in (X_fit,) + others)


def corrupt_labels(y, ratio, n_classes, rng):
    """Replace each label, with probability ``ratio``, by a class drawn
    uniformly among all ``n_classes`` (so it may stay the same: about
    ``ratio * (1 - 1 / n_classes)`` of the labels change).

    Returns ``(y_corrupted, replaced)``, ``replaced`` the boolean mask of
    the labels that were redrawn. Every sample draws its coin and its new
    class, so for one generator state the replaced sets are nested as the
    ratio grows.
    """
    if not 0.0 <= ratio <= 1.0:
        raise ValueError(f"corruption ratio must be in [0, 1], got {ratio}")
    y = np.asarray(y)
    coin = rng.random(y.shape[0])
    new = rng.integers(0, n_classes, size=y.shape[0])
    replaced = coin < ratio
    return np.where(replaced, new, y).astype(y.dtype), replaced


def pm1_labels(y, name="labels"):
    """Binary labels as float64 -1/+1: {-1, 1} is kept, {0, 1} maps 0 to
    -1; anything else is an error (``name`` says where they came from)."""
    y = np.asarray(y, dtype=np.float64).ravel()
    values = set(np.unique(y).tolist())
    if values <= {-1.0, 1.0}:
        return y
    if values <= {0.0, 1.0}:
        return np.where(y > 0, 1.0, -1.0)
    raise ValueError(f"{name}: expected binary labels in {{-1, +1}} or "
                     f"{{0, 1}}, got the values {sorted(values)[:10]}")


def _X(X):
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    return X


def _y(y):
    return np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())


def _check_pairs(pairs):
    n_features = pairs[0][0].shape[1]
    for part, (X, y) in zip(("train", "val", "test"), pairs):
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X_{part} has {X.shape[0]} rows but y_{part} "
                             f"{y.shape[0]} labels")
        if X.shape[1] != n_features:
            raise ValueError(f"X_{part} has {X.shape[1]} features, X_train "
                             f"{n_features}")
        if not np.all(np.isfinite(X)):
            raise ValueError(f"X_{part} holds NaN or inf")


def _check_classes(pairs, n_classes):
    for part, (_, y) in zip(("train", "val", "test"), pairs):
        bad = (y < 0) | (y >= n_classes) | (y != np.round(y))
        if np.any(bad):
            raise ValueError(f"y_{part} must hold integer classes in 0.."
                             f"{n_classes - 1}, got {y[bad][:5]}")


def logreg_data(X_train, y_train, X_val, y_val, X_test, y_test):
    """The contract dict of a binary logistic regression task."""
    pairs = [(_X(X), _y(pm1_labels(y, f"y_{part}")))
             for part, X, y in (("train", X_train, y_train),
                                ("val", X_val, y_val),
                                ("test", X_test, y_test))]
    _check_pairs(pairs)
    return _contract("logreg", pairs)


def multilogreg_data(X_train, y_train, X_val, y_val, X_test, y_test,
                     n_classes):
    """The contract dict of a multinomial logistic regression task."""
    pairs = [(_X(X_train), _y(y_train)), (_X(X_val), _y(y_val)),
             (_X(X_test), _y(y_test))]
    _check_pairs(pairs)
    _check_classes(pairs, n_classes)
    return _contract("multilogreg", pairs, n_classes=int(n_classes))


def datacleaning_data(X_train, y_train, X_val, y_val, X_test, y_test,
                      n_classes, ratio, rng, l2_reg=0.2):
    """The contract dict of a data hyper-cleaning task: the training labels
    ``y_train`` are corrupted at ``ratio`` (see :func:`corrupt_labels`);
    validation and test labels stay clean."""
    clean = _y(y_train)
    pairs = [(_X(X_train), clean), (_X(X_val), _y(y_val)),
             (_X(X_test), _y(y_test))]
    _check_pairs(pairs)
    _check_classes(pairs, n_classes)
    corrupted, _ = corrupt_labels(clean, ratio, n_classes, rng)
    pairs[0] = (pairs[0][0], _y(corrupted))
    return _contract("datacleaning", pairs, n_classes=int(n_classes),
                     l2_reg=float(l2_reg), y_train_clean=clean,
                     corruption_ratio=float(ratio))


def _contract(task, pairs, **params):
    (X_train, y_train), (X_val, y_val), (X_test, y_test) = pairs
    return dict(task=task, X_train=X_train, y_train=y_train, X_val=X_val,
                y_val=y_val, X_test=X_test, y_test=y_test, **params)
