"""IJCNN1 (LIBSVM binary classification, 22 features).

Training set: the LIBSVM file ``ijcnn1`` (49 990 samples); test set: the file
``ijcnn1.t`` (91 701 samples), both in the LIBSVM text format, labels -1/+1.
Sources, in order: the ``.npz`` cache of the parsed arrays; the two files
(plain, ``.bz2`` or ``.gz``) in a local folder; libsvmdata's download
(``ijcnn1`` and ``ijcnn1_test``, cached by libsvmdata in its own folder).
"""
from pathlib import Path

import numpy as np
from libsvmdata import fetch_dataset
from scipy import sparse
from sklearn.datasets import load_svmlight_file

from .errors import DataFormatError, not_found_message
from .files import (READ_ERRORS, find_local_copy, load_arrays, open_binary,
                    permission_denied)
from .preprocess import (logreg_data, pm1_labels, seed_streams,
                         split_indices)

DATA_PATHS_KEY = "ijcnn1"
LIBSVM_FILES = {"train": "ijcnn1", "test": "ijcnn1.t"}
FILE_NAMES = list(LIBSVM_FILES.values())
LIBSVMDATA_NAMES = {"train": "ijcnn1", "test": "ijcnn1_test"}
N_FEATURES = 22
CACHE_NAME = "ijcnn1.npz"


def read_libsvm_file(path, n_features=N_FEATURES):
    """``(X, y)`` from a LIBSVM text file (plain, ``.gz`` or ``.bz2``):
    ``X`` dense float64 ``(n, n_features)``, ``y`` float64 -1/+1."""
    try:
        with open_binary(path) as f:
            X, y = load_svmlight_file(f, n_features=n_features,
                                      dtype=np.float64, zero_based=False)
    except PermissionError as e:
        raise permission_denied(path, e) from None
    except (ValueError, *READ_ERRORS) as e:
        raise DataFormatError(
            f"{path}: not a LIBSVM file with {n_features} features "
            f"({type(e).__name__}: {e})") from e
    if X.shape[0] == 0:
        raise DataFormatError(f"{path}: no sample in the file")
    try:
        y = pm1_labels(y, name=str(path))
    except ValueError as e:
        raise DataFormatError(str(e)) from e
    return np.ascontiguousarray(X.toarray()), y


def read_libsvm_folder(files):
    X_train, y_train = read_libsvm_file(files["train"])
    X_test, y_test = read_libsvm_file(files["test"])
    return dict(X_train=X_train, y_train=y_train, X_test=X_test,
                y_test=y_test)


def _dense(X):
    return X.toarray() if sparse.issparse(X) else np.asarray(X)


def fetch_libsvmdata_arrays():
    """Download the two files with libsvmdata (cached in its folder)."""
    arrays = {}
    for part, name in LIBSVMDATA_NAMES.items():
        X, y = fetch_dataset(name)
        arrays[f"X_{part}"] = np.ascontiguousarray(_dense(X),
                                                   dtype=np.float64)
        arrays[f"y_{part}"] = pm1_labels(y, name=f"libsvmdata {name}")
    return arrays


def check_arrays(arrays, source):
    for part in ("train", "test"):
        X, y = arrays[f"X_{part}"], arrays[f"y_{part}"]
        if X.ndim != 2 or X.shape[1] != N_FEATURES:
            raise DataFormatError(f"{source}: {part} X has shape {X.shape}, "
                                  f"expected (n, {N_FEATURES})")
        if y.shape != (X.shape[0],):
            raise DataFormatError(f"{source}: {part} y has shape {y.shape} "
                                  f"for {X.shape[0]} samples")
        if not set(np.unique(y).tolist()) <= {-1.0, 1.0}:
            raise DataFormatError(f"{source}: {part} labels are not -1/+1")


def load_ijcnn1(folders=(), cache_dir=None, download=True):
    """The parsed IJCNN1 arrays ``X_train, y_train`` (file ``ijcnn1``) and
    ``X_test, y_test`` (file ``ijcnn1.t``); X float64, y -1/+1.

    folders: folders to search for the two files, in order.
    cache_dir: folder of the ``.npz`` cache (``None``: no cache).
    download: ``True`` for libsvmdata's download, ``False`` to stay
        offline, or a callable returning the arrays.
    """
    local = find_local_copy(folders, LIBSVM_FILES, "IJCNN1", DATA_PATHS_KEY)
    fetch = fetch_libsvmdata_arrays if download is True else download or None

    def not_found(reason):
        return not_found_message("IJCNN1", DATA_PATHS_KEY, FILE_NAMES,
                                 looked_in=folders, reason=reason)

    cache = Path(cache_dir) / CACHE_NAME if cache_dir else None
    return load_arrays(cache, local, read_libsvm_folder, fetch,
                       check_arrays, not_found,
                       download_name="libsvmdata:ijcnn1,ijcnn1_test",
                       params={"n_features": N_FEATURES})


def _libsvmdata_cached():
    """Whether libsvmdata already holds both files (loads offline)."""
    try:
        from libsvmdata.core import ALL_DATASETS
        for name in LIBSVMDATA_NAMES.values():
            folder = Path(ALL_DATASETS[name].dataset_dir)
            for part in ("X", "y"):
                if not any((folder / f"{name}_{part}.{ext}").is_file()
                           for ext in ("npy", "npz")):
                    return False
        return True
    except (ImportError, KeyError, AttributeError, TypeError):
        return False


def local_copy_available(folders, cache_dir=None):
    """Whether :func:`load_ijcnn1` would succeed without a download."""
    if cache_dir is not None and (Path(cache_dir) / CACHE_NAME).is_file():
        return True
    try:
        if find_local_copy(folders, LIBSVM_FILES, "IJCNN1",
                           DATA_PATHS_KEY) is not None:
            return True
    except FileNotFoundError:
        return False
    return _libsvmdata_cached()


def ijcnn1_task(arrays, n_train=None, n_val=None, seed=0):
    """The binary logistic regression contract dict from
    :func:`load_ijcnn1`'s arrays: training = the file ``ijcnn1``, validation
    = the file ``ijcnn1.t``, test = validation (the same arrays: LIBSVM
    ships no third set). ``n_train`` / ``n_val`` (``None``: all) take a
    seeded random subset, kept in file order. Features are used as shipped
    (already scaled to [-1, 1])."""
    rngs = seed_streams(seed, 2)
    parts = []
    for (part, n), rng in zip((("train", n_train), ("test", n_val)), rngs):
        X, y = arrays[f"X_{part}"], arrays[f"y_{part}"]
        if n is not None and n != X.shape[0]:
            (idx,) = split_indices(X.shape[0], (n,), rng)
            idx = np.sort(idx)
            X, y = X[idx], y[idx]
        parts.append((X, y))
    (X_train, y_train), (X_val, y_val) = parts
    return logreg_data(X_train, y_train, X_val, y_val, X_val, y_val)
