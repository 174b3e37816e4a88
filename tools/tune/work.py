"""The work of a tuning, in epochs of sample evaluations (an epoch: as
many samples drawn as the problem has, n + m), and the budget each
solver's study is held to (``--budget``).

``work`` (the default): every solver gets ``--trials`` x ``--epochs``
epochs, whatever its trials' fates.  A trial is charged the epochs of the
evaluation grid it reached (``charged``): a complete trial its
``epochs``; a trial pruned after its k-th of ``evals`` points,
k / evals x ``epochs``; a diverged trial, the point at which the
divergence was caught.  Pruned and diverged trials spend the budget too,
so a solver whose trials are pruned early runs more of them, and one
whose trials diverge runs fewer.  A trial starts only where the trials
before it (by number: counted ones at their charge, running ones at a
full trial) leave room for a full trial (``check_room``), so no solver's
ranked trials charge more than its budget, and each ends within one
trial of it.  The epochs a trial's solver actually drew (at most about
one iteration more per point, ``run._advance``) are kept beside.

``trials``: ``--trials`` counted trials, whatever each spent (the rule of
earlier records).
"""
import math

from optuna.trial import TrialState

BUDGETS = ("work", "trials")
SLACK = 1e-9  # relative: sums of charges in floating point
DRAWN = "epochs_drawn"  # a trial's user attribute: what its solver drew


def full(settings):
    """The epochs of one complete trial (on every split)."""
    return settings.epochs * settings.splits


def budget_epochs(settings):
    """A solver's budget in epochs: ``--trials`` complete trials."""
    return settings.trials * full(settings)


def charged(trial, settings):
    """The epochs ``trial`` is charged: the evaluation grid it reached
    (``reached`` points of every split's ``evals``) times ``epochs /
    evals``; 0 for a trial that did not count (failed, running)."""
    return settings.epochs * reached(trial, settings) / settings.evals


def reached(trial, settings):
    """The evaluation points ``trial`` ran: all of them when complete,
    the last reported when pruned, the one after it when diverged (the
    point that caught it)."""
    if trial.state == TrialState.COMPLETE:
        return settings.steps
    if trial.state != TrialState.PRUNED:
        return 0
    steps = max(trial.intermediate_values, default=0)
    if "excluded" in trial.user_attrs:
        steps += 1
    return min(steps, settings.steps)


def spent(trials, settings):
    """``(charged epochs of the counted trials, running trials)``."""
    done = math.fsum(charged(t, settings) for t in trials
                     if t.state in (TrialState.COMPLETE, TrialState.PRUNED))
    return done, sum(t.state == TrialState.RUNNING for t in trials)


def room(trials, settings):
    """The epochs ``trials`` leave in the budget, a full trial reserved
    for each running one."""
    done, running = spent(trials, settings)
    return budget_epochs(settings) - done - running * full(settings)


def fits(trials, settings):
    """Whether a full trial fits in what ``trials`` leave."""
    return room(trials, settings) >= full(settings) * (1.0 - SLACK)


def ranked(counted, settings):
    """The counted trials (sorted by number) within the budget: those
    whose charges, with the charges of those before them, stay within
    it."""
    total, within = 0.0, []
    limit = budget_epochs(settings) * (1.0 + SLACK)
    for t in counted:
        total += charged(t, settings)
        if total > limit:
            break
        within.append(t)
    return within


def trials_left(trials, settings):
    """At most how many more trials the budget lets run: each charges at
    least one evaluation point's epochs."""
    left = room(trials, settings)
    if left < full(settings) * (1.0 - SLACK):
        return 0
    return int(left * settings.evals / settings.epochs + SLACK)
