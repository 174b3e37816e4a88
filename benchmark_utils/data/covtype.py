"""Forest covertype (UCI): 581 012 samples, 54 features, 7 classes.

Sources, in order: the ``.npz`` cache of the parsed arrays; the UCI file
``covtype.data`` (plain, ``.gz`` or ``.bz2``: comma-separated, 55 integer
columns, the 54 features then the class 1..7) in a local folder;
scikit-learn's ``fetch_covtype`` download (cached in ``data_home``).
Labels are stored as 0..6.
"""
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import fetch_covtype

from . import sizes
from .errors import DataFormatError, not_found_message
from .files import (READ_ERRORS, find_local_copy, load_arrays, open_text,
                    permission_denied, pruned_on_failure, retry_options)
from .preprocess import (multilogreg_data, seed_streams, split_indices,
                         standardize)

DATA_PATHS_KEY = "covtype"
UCI_FILES = {"data": "covtype.data"}
FILE_NAMES = list(UCI_FILES.values())
N_SAMPLES, N_FEATURES, N_CLASSES = 581012, 54, 7
CACHE_NAME = "covtype.npz"


def compact_integers(X):
    """``X`` as the smallest signed integer type holding it exactly (int16
    for covtype: the cache is 4x smaller than float64), or unchanged when it
    is not integer-valued."""
    X = np.asarray(X)
    if X.size == 0 or not np.array_equal(X, np.round(X)):
        return X
    lo, hi = X.min(), X.max()
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return X.astype(dtype)
    return X


def _to_classes(labels, source):
    labels = np.asarray(labels)
    bad = (labels < 1) | (labels > N_CLASSES) | (labels != np.round(labels))
    if np.any(bad):
        row = int(np.flatnonzero(bad)[0])
        raise DataFormatError(
            f"{source}: the class (last column) must be in 1..{N_CLASSES}, "
            f"row {row + 1} holds {labels[row]}")
    return (labels - 1).astype(np.int8)


def read_covtype_file(path):
    """``(X, y)`` from the UCI file: X ``(n, 54)`` integers, y 0..6."""
    try:
        with open_text(path) as f, warnings.catch_warnings():
            # an empty file: reported below, not as numpy's warning
            warnings.filterwarnings("ignore", message=".*no data")
            data = np.loadtxt(f, delimiter=",", dtype=np.int64, ndmin=2)
    except PermissionError as e:
        raise permission_denied(path, e) from None
    except ValueError as e:
        raise DataFormatError(
            f"{path}: not a covtype file of {N_FEATURES + 1} comma-separated "
            f"integer columns ({e})") from e
    except READ_ERRORS as e:
        raise DataFormatError(
            f"{path}: cannot read the file ({type(e).__name__}: {e}); it is "
            "corrupt or truncated, replace it") from e
    if data.shape[0] == 0:
        raise DataFormatError(f"{path}: no row in the file")
    if data.shape[1] != N_FEATURES + 1:
        raise DataFormatError(
            f"{path}: expected {N_FEATURES + 1} columns ({N_FEATURES} "
            f"features then the class 1..{N_CLASSES}), found "
            f"{data.shape[1]}")
    return compact_integers(data[:, :-1]), _to_classes(data[:, -1], path)


def read_covtype_folder(files):
    X, y = read_covtype_file(files["data"])
    return dict(X=X, y=y)


def fetch_sklearn_arrays(data_home):
    """Download covtype with scikit-learn (cached in ``data_home``)."""
    X, y = fetch_covtype(data_home=data_home, download_if_missing=True,
                         return_X_y=True, **retry_options(fetch_covtype))
    return dict(X=compact_integers(X),
                y=_to_classes(y, "scikit-learn's covtype"))


def check_arrays(arrays, source):
    X, y = arrays["X"], arrays["y"]
    if X.ndim != 2 or X.shape[1] != N_FEATURES or y.shape != (X.shape[0],):
        raise DataFormatError(f"{source}: X of shape {X.shape} and y of "
                              f"shape {y.shape}, expected (n, {N_FEATURES}) "
                              "and (n,)")
    if y.size and (y.min() < 0 or y.max() >= N_CLASSES):
        raise DataFormatError(f"{source}: labels outside 0..{N_CLASSES - 1}")


def load_covtype(folders=(), cache_dir=None, download=True, data_home=None):
    """The parsed covtype arrays ``X`` (integers) and ``y`` (0..6).

    folders: folders to search for ``covtype.data[.gz]``, in order.
    cache_dir: folder of the ``.npz`` cache (``None``: no cache).
    download: ``True`` for scikit-learn's download (cached in
        ``data_home``), ``False`` to stay offline, or a callable returning
        the arrays.
    """
    local = find_local_copy(folders, UCI_FILES, "covtype", DATA_PATHS_KEY)
    if download is True:
        def fetch():
            with pruned_on_failure(data_home):
                return fetch_sklearn_arrays(data_home)
    else:
        fetch = download or None

    def not_found(reason):
        return not_found_message("covtype", DATA_PATHS_KEY, FILE_NAMES,
                                 looked_in=folders, reason=reason)

    cache = Path(cache_dir) / CACHE_NAME if cache_dir else None
    return load_arrays(cache, local, read_covtype_folder, fetch,
                       check_arrays, not_found,
                       download_name="scikit-learn:covtype")


def _sklearn_cached(data_home):
    """Whether scikit-learn's covtype cache is in ``data_home``."""
    if data_home is None:
        return False
    folder = Path(data_home) / "covertype"
    return (any(folder.glob("samples*")) and any(folder.glob("targets*")))


def local_copy_available(folders, cache_dir=None, data_home=None):
    """Whether :func:`load_covtype` would succeed without a download."""
    if cache_dir is not None and (Path(cache_dir) / CACHE_NAME).is_file():
        return True
    try:
        if find_local_copy(folders, UCI_FILES, "covtype",
                           DATA_PATHS_KEY) is not None:
            return True
    except FileNotFoundError:
        return False
    return _sklearn_cached(data_home)


SIZES = sizes.COVTYPE


def covtype_task(arrays, sizes=SIZES, seed=0):
    """The multinomial logistic regression contract dict from
    :func:`load_covtype`'s arrays: train/val/test of ``sizes`` from a
    permutation seeded by ``seed``, features standardised with the training
    split's statistics."""
    (rng,) = seed_streams(seed, 1)
    X, y = arrays["X"], arrays["y"]
    i_train, i_val, i_test = split_indices(X.shape[0], sizes, rng)
    X_train, X_val, X_test = standardize(X[i_train], X[i_val], X[i_test])
    return multilogreg_data(X_train, y[i_train], X_val, y[i_val], X_test,
                            y[i_test], n_classes=N_CLASSES)
