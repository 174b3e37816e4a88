"""Checks of the dataset contract (docs/architecture.md, "Contracts"),
before any work is done.

A dataset returns ``task``, ``X_train, y_train`` (lower level), ``X_val,
y_val`` (upper level), optionally ``X_test, y_test``, and the task's
parameters.  :func:`check_data` raises a ``ValueError`` naming the array (or
parameter) and what is wrong with it, so that a user's own dataset fails
with a clear message instead of reaching the numba kernels, which index
classes by the labels and do not check anything.

Every check is vectorised: a 371 847 x 54 float64 array (covtype's training
split) is checked in a few tens of milliseconds.
"""
import math
import numbers

import numpy as np

# dtype kinds accepted for the arrays: bool, signed, unsigned, float.
_NUMERIC_KINDS = "biuf"
# Largest magnitude accepted in an array: squares and products of entries
# beyond it overflow float64 in the losses and the metrics.
HUGE = 1e100


def check_data(spec, X_train, y_train, X_val, y_val, X_test=None,
               y_test=None, **task_params):
    """Raise ``ValueError`` unless the arrays and parameters form a valid
    dataset of the task of ``spec`` (its ``TaskSpec``: the caller resolves
    the task's name, ``registry.get_task``, so that this module, which the
    tasks' checks use, imports no task).

    - each X is a 2-d numeric array with at least one row and one column,
      without NaN, inf or entries of magnitude >= ``HUGE`` (1e100), and
      with as many features as ``X_train``;
    - each y is a 1-d numeric array without NaN, inf or entries >= HUGE,
      with one entry per row of its X;
    - ``X_test`` and ``y_test`` are given together or not at all;
    - then the task's own checks, its ``TaskSpec.check`` (below):
      logreg: labels exactly -1 or +1; multilogreg, datacleaning:
      ``n_classes`` an integer >= 2 and labels integers in
      ``0..n_classes - 1``; datacleaning: ``l2_reg`` (C_r) a finite number
      > 0; quadratic: ``dim_x`` an integer in ``[1, p - 1]`` (``p`` the
      number of features), ``ridge`` and ``lam`` finite numbers.
    """
    if (X_test is None) != (y_test is None):
        given, missing = (("X_test", "y_test") if y_test is None
                          else ("y_test", "X_test"))
        raise ValueError(
            f"X_test and y_test must be given together or not at all: "
            f"got {given} without {missing}")
    parts = [("train", X_train, y_train), ("val", X_val, y_val)]
    if X_test is not None:
        parts.append(("test", X_test, y_test))

    checked = []
    for part, X, y in parts:
        X = _check_X(f"X_{part}", X)
        y = _check_y(f"y_{part}", y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                f"shape mismatch: X_{part} has {X.shape[0]} rows but y_{part} "
                f"has {y.shape[0]} entries (one label per row expected)")
        checked.append((part, X, y))

    p = checked[0][1].shape[1]
    for part, X, _ in checked[1:]:
        if X.shape[1] != p:
            raise ValueError(
                f"shape mismatch: X_{part} has {X.shape[1]} features but "
                f"X_train has {p}")

    spec.check(spec.name, checked, p, task_params)


# A library for the tasks' own checks (``TaskSpec.check`` in
# ``tasks/<task>.py``), called after the generic checks with ``parts =
# [(part, X, y)]`` (train, val and, when given, test) and ``p`` features.

def check_class_labels(task, parts, task_params):
    """``n_classes`` an integer >= 2 and labels integers in
    ``0..n_classes - 1`` (multilogreg, datacleaning)."""
    C = task_param(task, task_params, "n_classes")
    if not (is_integer(C) and C >= 2):
        raise ValueError(
            f"n_classes must be an integer >= 2, got {C!r}")
    for part, _, y in parts:
        check_classes(f"y_{part}", y, int(C))


def task_param(task, params, name):
    if name not in params:
        raise ValueError(
            f"the {task} task needs the parameter {name}, which the dataset "
            f"does not return (it returns {sorted(params) or 'none'})")
    return params[name]


def is_real(value):
    return (isinstance(value, numbers.Real)
            and not isinstance(value, (bool, np.bool_)))


def is_integer(value):
    return (is_real(value) and math.isfinite(value)
            and int(value) == value)


def _as_numeric(name, a):
    if hasattr(a, "toarray") and not isinstance(a, np.ndarray):
        raise ValueError(
            f"{name} must be a dense numpy array, got a "
            f"{type(a).__name__} (a sparse matrix: call .toarray())")
    a = np.asarray(a)
    if a.dtype.kind not in _NUMERIC_KINDS:
        raise ValueError(
            f"{name} must be a numeric (real) array, got dtype {a.dtype}")
    return a


def _first_bad(mask):
    return int(np.flatnonzero(mask)[0])


def _in_range(a):
    """|a| < HUGE entrywise, False on NaN and inf, in ``a``'s own dtype:
    every finite entry of a float32 array is (HUGE itself would overflow
    float32 in the comparison)."""
    if float(np.finfo(a.dtype).max) <= HUGE:
        return np.isfinite(a)
    return np.abs(a) < HUGE


def _check_X(name, X):
    X = _as_numeric(name, X)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-d array (samples x features), got shape "
            f"{X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty: it has no row (sample)")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no column (feature)")
    if X.dtype.kind == "f" and not _in_range(X).all():
        ok = _in_range(X)  # False on NaN, inf and huge entries
        row = _first_bad(~ok.all(axis=1))
        col = _first_bad(~ok[row])
        raise ValueError(_bad_value(name, X[row, col],
                                    f"row {row}, column {col}"))
    return X


def _check_y(name, y):
    y = _as_numeric(name, y)
    if y.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-d array (one entry per sample), got shape "
            f"{y.shape}")
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty: it has no entry")
    if y.dtype.kind == "f" and not _in_range(y).all():
        i = _first_bad(~_in_range(y))
        raise ValueError(_bad_value(name, y[i], f"index {i}"))
    return y


def _bad_value(name, value, where):
    if np.isfinite(value):
        return (f"{name} has an entry of magnitude {abs(value):.3g} >= "
                f"{HUGE:.0e} (first at {where}): products of such values "
                "overflow float64 in the losses and the exact metrics; "
                "rescale or standardise the data")
    return f"{name} contains NaN or inf (first at {where}: {value})"


def check_pm1(name, y, task):
    bad = (y != 1) & (y != -1)
    if bad.any():
        i = _first_bad(bad)
        raise ValueError(
            f"{name} must hold labels -1 or +1 ({task}), got {y[i]} at index "
            f"{i}")


def check_classes(name, y, C):
    if y.dtype.kind == "f":
        bad = (y < 0) | (y >= C) | (y != np.floor(y))
    else:
        bad = (y < 0) | (y >= C)
    if bad.any():
        i = _first_bad(bad)
        raise ValueError(
            f"{name} must hold integer class labels in 0..{C - 1} "
            f"(n_classes={C}), got {y[i]} at index {i}")
