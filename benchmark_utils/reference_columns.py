"""The reference results stored in a results table
(``objective_ref_<name>_<quantity>``, ``reference_results``), read back as
one value per (reference, metric): the lines of the figures and the rows of
the tables.
"""
import numpy as np
import pandas as pd

PREFIX = "objective_ref_"

# reference name -> what it is, in the order the tables list them
NAMES = {
    "x0": "centre of the x0 draw",
    "x_star": "x* (minimiser of H)",
    "best_scalar": "best single regularisation",
    "weights_one": "all weights 1",
    "weights_oracle": "oracle weights (clean labels)",
    "val_only": "validation-only model",
}

# metric column -> the quantity of a reference that goes with it
QUANTITIES = {
    "objective_value": "value",
    "objective_train_error": "train_error",
    "objective_val_error": "val_error",
    "objective_test_error": "test_error",
    # the model a user gets: compared with the references' y*(x) errors
    "objective_test_error_iterate": "test_error",
}


def is_reference(column):
    return str(column).startswith(PREFIX)


def column(name, quantity):
    return f"{PREFIX}{name}_{quantity}"


def reference_names(df):
    """The references the results carry, in ``NAMES``' order."""
    return [n for n in NAMES if any(c.startswith(PREFIX + n + "_")
                                    for c in df.columns)]


def reference_value(df, name, metric):
    """The median over the repetitions of ``df`` (one dataset) of reference
    ``name``'s value for ``metric``, or NaN when the results lack it."""
    if metric not in QUANTITIES:
        return np.nan
    col = column(name, QUANTITIES[metric])
    if col not in df:
        return np.nan
    values = pd.to_numeric(df[col], errors="coerce")
    if "idx_rep" in df:  # one value per repetition
        values = values.groupby(df["idx_rep"]).max()
    values = values.to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    return float(np.median(values)) if values.size else np.nan


def reference_lines(df, metric):
    """``[(label, value)]``: the references' values for ``metric`` (median
    over repetitions), the finite ones."""
    out = []
    for name in reference_names(df):
        value = reference_value(df, name, metric)
        if np.isfinite(value):
            out.append((NAMES[name], value))
    return out
