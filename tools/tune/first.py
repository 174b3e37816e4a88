"""The first trials of a study: points known to be good, run before TPE
draws any, so that a tuning never ends above them.

``FIRST`` names the sources, in the order their trials run: ``sweep``, the
dataset's tuned values (``benchmark_utils/tuned.py``, the values
``step_size=tuned`` runs: the winners of the 3 x 4 grids of
``configs/tune_*.yml``, and the reference benchmark's tuned steps on
ijcnn1, covtype and MNIST), ``defaults``, the solver's own defaults, and
``config=PATH``, the solver's line in a run config (the ``--write`` of
another tuning: the winners of a related task as the first point of this
one).
A point gives each searched parameter its source's value, or the solver's
default where the source has none; it is rounded as ``space.suggest``
rounds a drawn value.  A point with a value outside its range is not run,
and the tuning says so: widen the range (``--range``) to try it.  Two
sources giving the same point run it once.
"""
import functools
import math
import os

import yaml

from benchmark_utils.algorithms import defaults
from benchmark_utils.tuned import TUNED

from .space import _round

FIRST = ("sweep", "defaults")
# a source naming a run config: ``config=study/configs/tuned_fashion_splits.yml``
CONFIG = "config="
# what a point's trial keeps in its user attributes: its source
ATTRIBUTE = "first"


def check_first(names):
    """``names`` if each is one of ``FIRST`` or ``config=PATH`` of a
    readable run config, once; else a ValueError naming the allowed
    values."""
    unknown = [n for n in names
               if n not in FIRST and not n.startswith(CONFIG)]
    if unknown or len(set(names)) != len(names):
        raise ValueError(f"--first: each of {list(FIRST)} and "
                         f"{CONFIG}PATH at most once, or none; got "
                         f"{','.join(names)}")
    for name in names:
        if name.startswith(CONFIG):
            config_values(name[len(CONFIG):])
    return tuple(names)


@functools.lru_cache(maxsize=None)
def config_values(path):
    """``{solver: {parameter: value}}`` of the run config at ``path``,
    each value a number where its text is one; a ValueError naming
    ``--first`` when the file is missing or lists no solver."""
    from tools.reference_lines import read_line

    where = f"--first: {CONFIG}{path}"
    if not os.path.isfile(path):
        raise ValueError(f"{where}: no such file")
    with open(path) as f:
        try:
            config = yaml.safe_load(f)
        except yaml.YAMLError as err:
            raise ValueError(f"{where}: not YAML ({err})") from None
    lines = config.get("solver") if isinstance(config, dict) else None
    if not lines:
        raise ValueError(f"{where}: no 'solver:' list (give a run config, "
                         "e.g. one written by --write)")
    values = {}
    for line in lines:
        name, params, warnings = read_line(str(line))
        if warnings:
            raise ValueError(f"{where}: {'; '.join(warnings)}")
        values[name] = {k: _number(v) for k, v in params.items()}
    return values


def _number(text):
    try:
        return float(text)
    except ValueError:
        return text


def _source_values(source, solver, tuning_key):
    """The values ``source`` gives ``solver``, or a reason it gives none."""
    if source == "defaults":
        return {}, None
    if source.startswith(CONFIG):
        path = source[len(CONFIG):]
        entry = config_values(path).get(solver)
        return (entry, None) if entry is not None else (
            None, f"{solver} is not in {path}")
    entry = TUNED.get(tuning_key, {}).get(solver)
    if entry is None:
        return None, (f"no sweep of {solver} on "
                      f"{tuning_key or 'this dataset'}")
    return entry, None


def first_points(solver, space, tuning_key, sources=FIRST):
    """``(points, skipped)``: ``points`` the ``(source, values)`` to run
    first, ``values`` giving every parameter of ``space``; ``skipped`` the
    ``(source, reason)`` of the sources not run."""
    have = defaults(solver)
    points, skipped = [], []
    for source in sources:
        given, reason = _source_values(source, solver, tuning_key)
        values = {}
        for name, rng in space.items() if reason is None else ():
            value = given.get(name, have.get(name))
            if not isinstance(value, (int, float)) or not math.isfinite(
                    value):
                reason = f"{name} = {value!r} is not a number"
            elif not rng.low <= value <= rng.high:
                reason = (f"{name} = {value:g} lies outside its range "
                          f"[{rng.low:g}, {rng.high:g}] (--range to "
                          "widen it)")
            else:
                values[name] = int(value) if rng.integer else _round(value)
            if reason is not None:
                break
        if reason is None and any(values == v for _, v in points):
            reason = "the same point as " + next(
                s for s, v in points if v == values)
        if reason is None:
            points.append((source, values))
        else:
            skipped.append((source, reason))
    return points, skipped


def enqueue_first(study, solver, space, tuning_key, sources, budget):
    """Queue ``first_points``, at most ``budget`` of them, on a study
    that has no trial yet; returns the lines saying what was queued or
    skipped (none for a study that already has trials: its first ones
    were queued when it was made)."""
    if not sources or study.get_trials(deepcopy=False):
        return []
    points, skipped = first_points(solver, space, tuning_key, sources)
    skipped += [(source, f"over the budget of {budget} trials")
                for source, _ in points[budget:]]
    points = points[:budget]
    for source, values in points:
        study.enqueue_trial(values, user_attrs={ATTRIBUTE: source})
    lines = [f"  {solver}: first trial{'s' if len(points) > 1 else ''} "
             f"{', '.join(s for s, _ in points)}"] if points else []
    lines += [f"  {solver}: no {source} trial: {why}"
              for source, why in skipped]
    return lines
