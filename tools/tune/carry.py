"""Continue a tuning in a wider space without losing its finished work
(``--continue-from OLD``).

A winner on the edge of its range asks for a wider ``--range``; the range
is part of a study's signature, so a wider one needs a new storage.  The
trials of the narrower study still hold: each drew its values inside the
new range, and ran exactly what a trial of the new study with those
values runs.  So a new study (one with no trial yet) starts with a copy
of every trial of the study of the same name in ``OLD``, in order (the
same numbers: Hyperband's brackets, the first points and the budget's
order stay as they were), their values read on the new ranges.  The
budget then counts them as the new study's own: ``--trials`` larger than
the old run's gives each solver the difference, the same for all.

The old study must have been made with the same settings but for its
ranges, each range inside the new one (same kind: integer or not), the
same ``--seed``, and no trial still running.  Its wall time (``CLOCK``)
is carried too, so the record's ``elapsed_seconds`` is the whole
tuning's.  The new study keeps the name of ``OLD`` (``CARRIED``).
"""
import optuna
from optuna.distributions import FloatDistribution, IntDistribution
from optuna.trial import TrialState

# study user attribute: the storage the first trials were copied from
CARRIED = "continued_from"


def distributions(space):
    """Optuna's distributions of a ``{name: Range}`` space (log scale, as
    ``space.suggest`` draws them)."""
    return {name: IntDistribution(int(r.low), int(r.high), log=True)
            if r.integer else FloatDistribution(r.low, r.high, log=True)
            for name, r in space.items()}


def check_inside(old, new, where):
    """A ValueError unless the ``old`` signature equals ``new`` but for
    ranges lying inside new ones (``where`` names the old study)."""
    other = sorted(k for k in set(old) | set(new)
                   if k != "space" and old.get(k) != new.get(k))
    if other:
        raise ValueError(
            f"--continue-from: {where} was made with other settings "
            f"({', '.join(other)}: { {k: old.get(k) for k in other} }); "
            "only the ranges may differ")
    old_space, new_space = old.get("space", {}), new.get("space", {})
    if set(old_space) != set(new_space):
        raise ValueError(
            f"--continue-from: {where} searched {sorted(old_space)}, this "
            f"run searches {sorted(new_space)}; they must be the same "
            "parameters")
    for name, o in old_space.items():
        n = new_space[name]
        if o["integer"] != n["integer"] or not (
                n["low"] <= o["low"] and o["high"] <= n["high"]):
            raise ValueError(
                f"--continue-from: {where}'s range of {name} "
                f"[{o['low']:g}, {o['high']:g}] is not inside this run's "
                f"[{n['low']:g}, {n['high']:g}]; a study continues only "
                "into a wider range")


def copy_trials(old_study, study, space):
    """Add every trial of ``old_study`` to the empty ``study``, its values
    on the distributions of ``space``; the number of trials copied."""
    running = [t.number for t in old_study.get_trials(deepcopy=False)
               if t.state in (TrialState.RUNNING, TrialState.WAITING)]
    if running:
        raise ValueError(
            f"--continue-from: the study {old_study.study_name!r} still has "
            f"trials running or queued ({running}); finish that tuning "
            "(or rerun it with --fail-running) first")
    dists = distributions(space)
    copies = old_study.get_trials(deepcopy=True)
    for t in copies:  # start and end times kept: the progress's rate
        t.distributions = {k: dists[k] for k in t.params}
    study.add_trials(copies)
    return len(copies)


def continue_from(old, study, signature, space, seed, clock_key):
    """Start the empty ``study`` with the trials of the study of the same
    name in ``old`` (``(name, storage)``: ``--continue-from`` and its open
    storage; see the module docstring); the line saying what was
    copied."""
    old_name, old_storage = old
    where = f"the study {study.study_name!r} in {old_name}"
    try:
        old = optuna.load_study(study_name=study.study_name,
                                storage=old_storage)
    except KeyError:
        raise ValueError(f"--continue-from: {old_name} has no study "
                         f"{study.study_name!r}") from None
    check_inside(old.user_attrs.get("settings", {}), signature, where)
    if old.user_attrs.get("seed", seed) != seed:
        raise ValueError(
            f"--continue-from: {where} was made with --seed "
            f"{old.user_attrs['seed']}; continue it with that --seed")
    n = copy_trials(old, study, space)
    study.set_user_attr(clock_key, dict(old.user_attrs.get(clock_key, {})))
    study.set_user_attr(CARRIED, str(old_name))
    return f"{n} trials continued from {old_name}"
