"""The studies: one Optuna study per (dataset, solver) in one storage, and
the trial budget shared by every process that works on it (the workers
that run the trials: ``workers``).

Storage.  ``--storage`` is a file, ``*.db`` (Optuna's SQLite storage) or
``*.log`` (Optuna's journal file, for several machines on a shared file
system), or a database URL (``postgresql://...``, ``mysql://...``).  The
SQL storages keep a heartbeat: a trial whose process was killed is marked
failed ``GRACE`` seconds after its last beat and its slot is run again; a
journal file has no heartbeat, and ``--fail-running`` marks its running
trials failed (when no other process works on it).

Budget.  A study's trials *count* when they finished as complete or pruned
(a pruned trial spent its epochs too; diverged runs are pruned trials with
an ``excluded`` reason).  A process runs ``budget - counted - running``
more trials; before running, each trial checks that fewer than ``budget``
counted or running trials precede it (by number), so processes on several
machines never exceed the budget: a trial past it is marked failed
(``excluded``: over budget) and its process moves on.  A trial interrupted
by Ctrl-C fails and does not count: a rerun with the same arguments runs
the remaining trials, the finished ones are kept.

Sampler.  TPE (multivariate), reseeded before each trial from ``--seed``,
the number of trials in the study and the worker's index: a resumed study
draws what an uninterrupted one would have drawn (with one worker; workers
in parallel see each other's trials as they come).  Diverged trials are
infeasible for it (a constraint), so it learns to avoid them.
Pruner: Hyperband (default) or successive halving over the evaluation
points, the running criterion reported at each.
"""
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

from .space import solver_fixed, solver_space

HEARTBEAT, GRACE = 20, 60  # seconds
# random trials before TPE models the study (Optuna's default); the same
# for every budget, so that a resumed study draws what a longer one does
STARTUP = 10
COUNTED = (TrialState.COMPLETE, TrialState.PRUNED)
PRUNERS = ("hyperband", "halving", "none")
SQLITE = (".db", ".sqlite", ".sqlite3")
JOURNAL = (".log", ".journal")


@dataclass
class Settings:
    """What a tuning run is: the dataset, the solvers, the equal budget of
    each (``trials`` of ``epochs`` epochs, ``evals`` points), the
    criterion, the space (``ranges`` overrides, ``fixed`` values)."""
    dataset: str
    solvers: list
    trials: int
    epochs: float
    storage: str
    evals: int = 10
    metric: str = "value"
    pruner: str = "hyperband"
    seed: int = 0
    ranges: dict = field(default_factory=dict)
    fixed: dict = field(default_factory=dict)

    def space(self, solver):
        return solver_space(solver, self.ranges, self.fixed)

    def fixed_of(self, solver):
        return solver_fixed(solver, self.fixed)

    def signature(self, solver):
        """What a study's trials must share to be ranked together (stored
        with the study; a rerun must match it)."""
        return dict(dataset=self.dataset, epochs=self.epochs,
                    evals=self.evals, metric=self.metric, pruner=self.pruner,
                    space={k: r.as_dict() for k, r in
                           self.space(solver).items()},
                    fixed=self.fixed_of(solver))


def open_storage(storage, heartbeat=HEARTBEAT, grace=GRACE):
    """The Optuna storage of ``--storage`` (see the module docstring)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if "://" in storage:
            return optuna.storages.RDBStorage(
                storage, heartbeat_interval=heartbeat, grace_period=grace)
        path = Path(storage)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix in SQLITE:
            return optuna.storages.RDBStorage(
                f"sqlite:///{path.resolve()}",
                engine_kwargs=dict(connect_args=dict(timeout=120)),
                heartbeat_interval=heartbeat, grace_period=grace)
        if path.suffix in JOURNAL:
            backend = optuna.storages.journal.JournalFileBackend(str(path))
            return optuna.storages.journal.JournalStorage(backend)
    raise ValueError(f"--storage must end in one of {SQLITE + JOURNAL} or be "
                     f"a database URL, got {storage!r}")


def study_name(dataset, solver):
    return f"{dataset} | {solver}"


def make_pruner(name, evals):
    if name == "hyperband":
        return optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=evals, reduction_factor=3)
    if name == "halving":
        return optuna.pruners.SuccessiveHalvingPruner(
            min_resource=1, reduction_factor=3)
    return optuna.pruners.NopPruner()


def make_sampler(seed, n_trials, worker):
    """TPE seeded from (``seed``, trials so far, ``worker``)."""
    state = np.random.SeedSequence([seed, n_trials, worker])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(
            seed=int(state.generate_state(1)[0]), multivariate=True,
            n_startup_trials=STARTUP)


def load_study(storage, settings, solver, worker=0):
    """The study of (dataset, solver), created if new; a ValueError when
    it holds trials of other settings."""
    study = optuna.create_study(
        study_name=study_name(settings.dataset, solver), storage=storage,
        direction="minimize", load_if_exists=True,
        pruner=make_pruner(settings.pruner, settings.evals),
        sampler=make_sampler(settings.seed, 0, worker))
    want = settings.signature(solver)
    have = study.user_attrs.get("settings")
    if have is None:
        study.set_user_attr("settings", want)
    elif have != _jsonable(want):
        diff = sorted(k for k in want if have.get(k) != _jsonable(want[k]))
        raise ValueError(
            f"the study {study.study_name!r} in {settings.storage} was made "
            f"with other settings ({', '.join(diff)}: "
            f"{ {k: have.get(k) for k in diff} }); rerun with those, or use "
            "another --storage")
    return study


def _jsonable(value):
    """``value`` as it reads back from the storage (JSON)."""
    return json.loads(json.dumps(value))


def counts(study):
    """(counted, running) trials of ``study``."""
    trials = study.get_trials(deepcopy=False)
    return (sum(t.state in COUNTED for t in trials),
            sum(t.state == TrialState.RUNNING for t in trials))


def fail_running(study, reason):
    """Mark the running trials of ``study`` failed (their processes are
    gone: a journal file has no heartbeat to tell)."""
    storage = study._storage
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        storage.set_trial_user_attr(t._trial_id, "excluded", reason)
        storage.set_trial_state_values(t._trial_id, TrialState.FAIL)


def prepare(settings, fail_all_running=False):
    """Create or load every study, check its settings, and return the
    trials still to run per solver with a line per solver to print."""
    storage = open_storage(settings.storage)
    todo, lines = {}, []
    for solver in settings.solvers:
        study = load_study(storage, settings, solver)
        if fail_all_running:
            fail_running(study, "interrupted (--fail-running)")
        elif storage_has_heartbeat(storage):
            with warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore", optuna.exceptions.ExperimentalWarning)
                optuna.storages.fail_stale_trials(study)
        done, running = counts(study)
        todo[solver] = max(0, settings.trials - done - running)
        busy = f", {running} running elsewhere" if running else ""
        lines.append(f"{solver}: {min(done, settings.trials)} of "
                     f"{settings.trials} trials done{busy}, "
                     f"{todo[solver]} to run")
    return todo, lines


def storage_has_heartbeat(storage):
    return isinstance(storage, optuna.storages.RDBStorage)
