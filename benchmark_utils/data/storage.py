"""The storage precision of a dataset's features (parameter ``dtype`` of the
real-data datasets).

``float64`` (default) keeps the features as the loaders compute them.
``float32`` rounds them once, after the split and the standardisation, to
the nearest float32: the problem is then the one on those rounded values,
solved with the same float64 arithmetic (a float32 converts exactly to
float64 as a kernel loads it, so a run gives bitwise the iterates of the
float64 run on the rounded values), and every kernel reads half the bytes.
That is the precision the reference benchmark stores its data in (JAX's
float32), so the speed comparisons use it; the metrics score the rounded
values exactly (``objective.py``).  Labels and task parameters stay float64.
"""
import numpy as np

DTYPES = {"float64": np.float64, "float32": np.float32}
FEATURES = ("X_train", "X_val", "X_test")
ARRAYS = FEATURES + ("y_train", "y_val", "y_test")


def owned(a):
    """``a`` as a C-contiguous, writable numpy array (a copy only when it
    is not one already).

    numba compiles a separate specialisation for read-only or
    non-contiguous arrays, so such an input (``pandas>=3``'s
    ``.to_numpy()``, ``np.load(mmap_mode="r")``, a broadcast view) would
    compile on the run's clock; a pandas Series or DataFrame becomes its
    values (label-based indexing would otherwise reach the metrics).
    Sparse matrices are left for the dataset checks to name.
    """
    if a is None or (hasattr(a, "toarray") and not isinstance(a, np.ndarray)):
        return a
    if hasattr(a, "to_numpy"):
        a = a.to_numpy()
    a = np.asarray(a)
    if a.dtype.kind == "O":  # leave the checks to say what is wrong
        return a
    return np.require(a, requirements=["C", "W"])


def owned_arrays(data):
    """A copy of the dataset dict ``data`` whose arrays (``X_*``, ``y_*``)
    are C-contiguous and writable (:func:`owned`); other entries are
    shared."""
    out = dict(data)
    for key in ARRAYS:
        if key in out:
            out[key] = owned(out[key])
    return out


def check_dtype(dtype):
    """The numpy type of a ``dtype`` parameter, or a ValueError naming it
    and the allowed values."""
    if dtype not in DTYPES:
        raise ValueError(
            f"dtype must be one of {list(DTYPES)} (the storage precision of "
            f"the features; the arithmetic is float64 either way), got "
            f"{dtype!r}")
    return DTYPES[dtype]


def features_as(data, dtype):
    """A copy of the dataset dict ``data`` with its feature arrays
    (``X_train``, ``X_val``, ``X_test`` when present) stored as ``dtype``
    ("float64" or "float32"); the other entries are shared."""
    kind = check_dtype(dtype)
    out = dict(data)
    for key in FEATURES:
        if out.get(key) is not None:
            out[key] = np.ascontiguousarray(out[key], dtype=kind)
    return out
