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
