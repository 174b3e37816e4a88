"""Checks of parameter values: each error names the parameter, the allowed
values and the value it got."""
import dataclasses
import math

import numpy as np

SAMPLING_CHOICES = ("blocks", "uniform")


def is_number(value):
    """A real number (int, float or numpy scalar; not a bool, not a
    string)."""
    return (isinstance(value, (int, float, np.floating, np.integer))
            and not isinstance(value, (bool, np.bool_)))


def check_number(name, value):
    """Any finite real number: the parameters the chosen estimators do not
    use still go into the engine's float arrays."""
    if not (is_number(value) and math.isfinite(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")


def check_positive(name, value):
    if not (is_number(value) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


def check_nonnegative(name, value):
    if not (is_number(value) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got "
                         f"{value!r}")


def check_unit(name, value):
    if not (is_number(value) and 0 < value <= 1):
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")


def check_exponent(name, value):
    if not (is_number(value) and 0 <= value <= 1):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")


def check_integer(name, value, low, note=""):
    """An integer >= ``low`` (an integral float such as 64.0 is accepted);
    NaN, inf, strings and bools are refused with the parameter's name."""
    if not (is_number(value) and math.isfinite(value)
            and int(value) == value and value >= low):
        raise ValueError(
            f"{name} must be an integer >= {low}{note}, got {value!r}")


def check_random_state(value):
    """``random_state``: None (the Objective's seed) or an integer >= 0."""
    if value is not None:
        check_integer("random_state", value, 0, " or None")


def check_bool(name, value):
    """``True`` or ``False`` (numpy's bools too; not 0, 1 or a string)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be one of [True, False], "
                         f"got {value!r}")


def check_choice(name, value, choices, note=""):
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, "
                         f"got {value!r}{note}")


def check_batch(batch_size, n=None, m=None):
    """``batch_size`` an integer >= 1 and at most the samples of each level
    (``n`` UL, ``m`` LL; unchecked when unknown)."""
    check_integer("batch_size", batch_size, 1)
    for size, label in ((n, "n (UL samples)"), (m, "m (LL samples)")):
        if size is not None and batch_size > size:
            raise ValueError(
                f"batch_size must be at most the number of samples: "
                f"batch_size={batch_size} > {label}={size}")


def _values(config):
    return tuple(getattr(config, f.name)
                 for f in dataclasses.fields(config))


def mark_validated(config, n=None, m=None):
    """Note that ``config`` (a dataclass) was validated as it is now, for
    ``n`` UL and ``m`` LL samples (None: unknown); returns it."""
    object.__setattr__(config, "_validated", (_values(config), (n, m)))
    return config


def validated_for(config, n, m):
    """``config`` checked for a problem of ``n`` UL and ``m`` LL samples,
    once: a configuration ``config_of`` validated, and unchanged since,
    is not checked again (only ``batch_size`` against the sizes, when it
    was validated without them); any other is validated here."""
    mark = getattr(config, "_validated", None)
    if mark is not None and mark[0] == _values(config):
        if mark[1] != (n, m) and hasattr(config, "check_batch_size"):
            config.check_batch_size(n, m)
    else:
        config.validate(n, m)
    return mark_validated(config, n, m)
