"""MNIST and Fashion-MNIST: the 60 000 training and 10 000 test images.

Sources, in order: the ``.npz`` cache of the parsed arrays; the four standard
IDX files (plain or gzipped) in a local folder -- for Fashion-MNIST also
Debian's ``dataset-fashion-mnist`` package; OpenML (``mnist_784`` /
``Fashion-MNIST``, whose first 60 000 rows are the training images and the
last 10 000 the test images, in the order of the IDX files).
"""
from pathlib import Path

import numpy as np
from sklearn.datasets import fetch_openml

from .errors import DataFormatError, not_found_message
from .files import (find_local_copy, load_arrays, pruned_on_failure,
                    retry_options)
from .idx import read_idx
from .preprocess import (datacleaning_data, seed_streams, split_indices,
                         standardize)

VARIANTS = ("mnist", "fashion")

# The data_paths key of config.yml naming the folder of each variant's files.
DATA_PATHS_KEYS = {"mnist": "mnist", "fashion": "fashion_mnist"}

# Where Debian's dataset-fashion-mnist package installs the IDX files.
DEBIAN_FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")

IDX_FILES = {
    "train_images": ("train-images-idx3-ubyte", "train-images.idx3-ubyte"),
    "train_labels": ("train-labels-idx1-ubyte", "train-labels.idx1-ubyte"),
    "test_images": ("t10k-images-idx3-ubyte", "t10k-images.idx3-ubyte"),
    "test_labels": ("t10k-labels-idx1-ubyte", "t10k-labels.idx1-ubyte"),
}
FILE_NAMES = [names[0] for names in IDX_FILES.values()]

OPENML_NAMES = {"mnist": "mnist_784", "fashion": "Fashion-MNIST"}
N_TRAIN_IMAGES, N_TEST_IMAGES, N_CLASSES = 60000, 10000, 10

PRETTY = {"mnist": "MNIST", "fashion": "Fashion-MNIST"}


def check_variant(variant):
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got "
                         f"{variant!r}")


def default_folders(variant, configured):
    """Folders searched for the IDX files: ``configured`` (the
    ``data_paths`` folder), then for Fashion-MNIST Debian's package."""
    check_variant(variant)
    folders = [Path(configured)] if configured is not None else []
    if variant == "fashion":
        folders.append(DEBIAN_FASHION_MNIST)
    return folders


def cache_name(variant):
    check_variant(variant)
    return f"{DATA_PATHS_KEYS[variant]}.npz"


def read_images_labels(images_path, labels_path):
    """``(X, y)`` from an IDX image file and its IDX label file: ``X`` is
    ``(n, rows * cols)`` uint8, ``y`` ``(n,)`` uint8 in 0..9."""
    images = read_idx(images_path)
    labels = read_idx(labels_path)
    if images.ndim != 3 or images.dtype != np.uint8:
        raise DataFormatError(
            f"{images_path}: expected unsigned-byte images of shape "
            f"(n, rows, cols), got {images.dtype} of shape {images.shape}")
    if labels.ndim != 1 or labels.dtype != np.uint8:
        raise DataFormatError(
            f"{labels_path}: expected unsigned-byte labels of shape (n,), "
            f"got {labels.dtype} of shape {labels.shape}")
    if images.shape[0] != labels.shape[0]:
        raise DataFormatError(
            f"shape mismatch: {images_path} holds {images.shape[0]} images "
            f"but {labels_path} holds {labels.shape[0]} labels")
    if labels.size and labels.max() >= N_CLASSES:
        raise DataFormatError(
            f"{labels_path}: labels must be in 0..{N_CLASSES - 1}, found "
            f"{int(labels.max())}")
    return images.reshape(images.shape[0], -1), labels


def read_idx_folder(files):
    """The arrays of the four IDX files ``files`` (``{role: path}``)."""
    X_train, y_train = read_images_labels(files["train_images"],
                                          files["train_labels"])
    X_test, y_test = read_images_labels(files["test_images"],
                                        files["test_labels"])
    if X_train.shape[1] != X_test.shape[1]:
        raise DataFormatError(
            f"shape mismatch: the images of {files['train_images']} have "
            f"{X_train.shape[1]} pixels, those of {files['test_images']} "
            f"{X_test.shape[1]}")
    return dict(X_train=X_train, y_train=y_train, X_test=X_test,
                y_test=y_test)


def fetch_openml_arrays(variant, data_home):
    """Download ``variant`` from OpenML (cached by scikit-learn in
    ``data_home``) and split it into the IDX files' train and test sets."""
    check_variant(variant)
    bunch = fetch_openml(OPENML_NAMES[variant], version=1, as_frame=False,
                         parser="liac-arff", data_home=data_home,
                         **retry_options(fetch_openml))
    X = np.asarray(bunch.data)
    y = np.asarray(bunch.target).astype(np.int64)
    n = N_TRAIN_IMAGES + N_TEST_IMAGES
    if X.shape[0] != n or np.any((X < 0) | (X > 255)):
        raise DataFormatError(
            f"OpenML {OPENML_NAMES[variant]}: expected {n} images with "
            f"pixels in 0..255, got shape {X.shape}")
    X, y = X.astype(np.uint8), y.astype(np.uint8)
    return dict(X_train=X[:N_TRAIN_IMAGES], y_train=y[:N_TRAIN_IMAGES],
                X_test=X[N_TRAIN_IMAGES:], y_test=y[N_TRAIN_IMAGES:])


def check_arrays(arrays, source):
    """Raise :class:`DataFormatError` unless ``arrays`` hold train and test
    images with as many labels, in 0..9."""
    for part in ("train", "test"):
        X, y = arrays[f"X_{part}"], arrays[f"y_{part}"]
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise DataFormatError(
                f"{source}: {part} images of shape {X.shape} do not match "
                f"labels of shape {y.shape}")
        if y.size and (y.min() < 0 or y.max() >= N_CLASSES):
            raise DataFormatError(f"{source}: {part} labels outside 0..9")
    if arrays["X_train"].shape[1] != arrays["X_test"].shape[1]:
        raise DataFormatError(f"{source}: train and test images differ in "
                              "size")


def load_mnist(variant="mnist", folders=(), cache_dir=None, download=True,
               data_home=None):
    """The parsed (Fashion-)MNIST arrays ``X_train, y_train`` (the official
    training images) and ``X_test, y_test`` (the t10k images), uint8.

    folders: folders to search for the IDX files, in order (see
        :func:`default_folders`).
    cache_dir: folder of the ``.npz`` cache (``None``: no cache).
    download: ``True`` to fall back on OpenML (cached in ``data_home``),
        ``False`` to stay offline, or a callable returning the arrays.
    Raises :class:`DataNotFoundError` (naming the ``data_paths`` key and the
    IDX file names) when nothing is found, :class:`DataFormatError` for a
    corrupt or inconsistent file.
    """
    check_variant(variant)
    key = DATA_PATHS_KEYS[variant]
    local = find_local_copy(folders, IDX_FILES, PRETTY[variant], key)
    if download is True:
        def fetch():
            with pruned_on_failure(data_home):
                return fetch_openml_arrays(variant, data_home)
    else:
        fetch = download or None
    extra = None
    if variant == "fashion":
        extra = ("Fashion-MNIST is also read from Debian's package: "
                 "`apt-get install dataset-fashion-mnist` (installs "
                 f"{DEBIAN_FASHION_MNIST}).")

    def not_found(reason):
        return not_found_message(PRETTY[variant], key, FILE_NAMES,
                                 looked_in=folders, reason=reason,
                                 extra=extra)

    cache = Path(cache_dir) / cache_name(variant) if cache_dir else None
    return load_arrays(cache, local, read_idx_folder, fetch, check_arrays,
                       not_found,
                       download_name="openml:" + OPENML_NAMES[variant],
                       params={"variant": variant})


def local_copy_available(variant, folders, cache_dir=None):
    """Whether :func:`load_mnist` would succeed without a download (a cache
    or a complete local folder; a corrupt file still fails later)."""
    if cache_dir is not None and (Path(cache_dir)
                                  / cache_name(variant)).is_file():
        return True
    try:
        return find_local_copy(folders, IDX_FILES, PRETTY[variant],
                               DATA_PATHS_KEYS[variant]) is not None
    except FileNotFoundError:
        return False


def mnist_task(arrays, n_train, n_val, n_test, ratio, seed, l2_reg=0.2):
    """The data hyper-cleaning contract dict from :func:`load_mnist`'s
    arrays: ``n_train`` (labels corrupted at ``ratio``) and ``n_val`` samples
    drawn from the training images by a permutation seeded by ``seed``, the
    first ``n_test`` test images; pixels standardised with the training
    split's statistics."""
    split_rng, corrupt_rng = seed_streams(seed, 2)
    n_test_available = arrays["X_test"].shape[0]
    if not 1 <= n_test <= n_test_available:
        raise ValueError(f"n_test must be in 1..{n_test_available}, got "
                         f"{n_test}")
    i_train, i_val = split_indices(arrays["X_train"].shape[0],
                                   (n_train, n_val), split_rng)
    X, y = arrays["X_train"], arrays["y_train"]
    X_train, X_val, X_test = standardize(X[i_train], X[i_val],
                                         arrays["X_test"][:n_test])
    return datacleaning_data(X_train, y[i_train], X_val, y[i_val], X_test,
                             arrays["y_test"][:n_test], n_classes=N_CLASSES,
                             ratio=ratio, rng=corrupt_rng, l2_reg=l2_reg)
