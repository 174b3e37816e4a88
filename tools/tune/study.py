"""The studies: one Optuna study per (dataset, solver) in one storage, and
the trial budget shared by every process that works on it (the workers
that run the trials: ``workers``).

Storage.  ``--storage`` is a file, ``*.db`` (Optuna's SQLite storage) or
``*.log`` (Optuna's journal file, for several machines on a shared file
system), or a database URL (``postgresql://...``, ``mysql://...``).  A
storage that cannot be used (a folder, a read-only or damaged file) is
named in one line saying what to do (``StorageProblem``).  Processes
starting together on a new storage may race to create its tables or a
study: creating is retried (``RETRIES``).  The SQL storages keep a
heartbeat: a trial whose process was killed is marked failed ``GRACE``
seconds after its last beat and its slot is run again; a journal file has
no heartbeat, and ``--fail-running`` marks its running trials failed
(when no other process works on it).

Budget.  A study's trials *count* when they finished as complete or pruned
(a pruned trial spent its epochs too; diverged runs are pruned trials with
an ``excluded`` reason).  The budget is counted in epochs of sample
evaluations (``work``: every counted trial is charged the epochs it
reached), or in counted trials (``--budget trials``).  A process runs
trials while the budget has room; before running, each trial checks that
the counted or running trials preceding it (by number) leave room for it,
so processes on several machines never exceed the budget: a trial past it
is marked failed (``excluded``: over budget) and its process moves on.

Resume.  A trial stopped by Ctrl-C stays running, marked ``interrupted``
(and is never marked failed by the heartbeat): a rerun with the same
arguments runs it again first, in place (the same trial number, the
parameters it drew, the pruner's brackets and rungs), then the remaining
trials; the finished ones are kept.  So an interrupted and resumed tuning
holds the trials an uninterrupted one holds (with one worker).  The wall
time of every invocation is kept in the storage (``CLOCK``, saved after
every trial), so the record's ``elapsed_seconds`` includes interrupted
ones.  The ``--seed`` of the studies is stored; a rerun with another is
refused.

Sampler.  TPE (multivariate), reseeded before each trial from ``--seed``,
the number of trials in the study and the worker's index: a resumed study
draws what an uninterrupted one would have drawn (with one worker; workers
in parallel see each other's trials as they come).  Diverged trials are
infeasible for it (a constraint), so it learns to avoid them.
Pruner: Hyperband (default) or successive halving over the evaluation
points, the running criterion reported at each.
"""
import json
import sqlite3
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import optuna
import sqlalchemy.exc
from optuna.trial import TrialState

from . import work as budget
from .carry import continue_from
from .first import FIRST, enqueue_first
from .space import solver_fixed, solver_space

HEARTBEAT, GRACE = 20, 60  # seconds
# random trials before TPE models the study (Optuna's default); the same
# for every budget, so that a resumed study draws what a longer one does
STARTUP = 10
COUNTED = (TrialState.COMPLETE, TrialState.PRUNED)
PRUNERS = ("hyperband", "halving", "none")
SQLITE = (".db", ".sqlite", ".sqlite3")
JOURNAL = (".log", ".journal")
RETRIES = 8  # attempts at creating a storage's tables or a study
INTERRUPTED = "interrupted"  # user attribute of a trial stopped by Ctrl-C
CLOCK = "elapsed_seconds"  # study user attribute: seconds per invocation
# What a storage that cannot be used raises (Optuna wraps the SQL errors
# in StorageInternalError; a journal file's are OSError or JSON errors)
STORAGE_ERRORS = (optuna.exceptions.StorageInternalError,
                  sqlalchemy.exc.SQLAlchemyError, sqlite3.Error, OSError,
                  json.JSONDecodeError, UnicodeDecodeError)

# What processes creating one storage or study at once can raise (a table
# or row the other made first, a locked database): tried again
COLLISIONS = (optuna.exceptions.StorageInternalError,
              optuna.exceptions.DuplicatedStudyError,
              sqlalchemy.exc.OperationalError, sqlalchemy.exc.IntegrityError)


class StorageProblem(Exception):
    """A storage that cannot be used; the message names it and says what
    to do."""


@dataclass
class Settings:
    """What a tuning run is: the dataset, the solvers, the equal budget of
    each (``trials`` of ``epochs`` epochs, ``evals`` points; counted in
    epochs or in trials, ``budget``: ``work.BUDGETS``), the criterion,
    the space (``ranges`` overrides, ``fixed`` values)."""
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
    # the known-good points a new study runs first (``first.py``); not in
    # the signature: it acts only when a study is made, and its trials
    # say which they are
    first: tuple = FIRST
    # how the budget is counted (``work``): not in the signature either, a
    # record ranks a study's trials by the rule it is written with
    budget: str = "work"
    # the splits each trial is scored on (benchopt run's repetitions 0 to
    # splits - 1), the criterion averaged over them
    splits: int = 1
    # the storage whose trials a new study starts with (``carry``): not
    # in the signature, the copied trials are the new study's own
    continue_from: str = None

    @property
    def steps(self):
        """A trial's evaluation points, every split's."""
        return self.evals * self.splits

    def space(self, solver):
        return solver_space(solver, self.ranges, self.fixed)

    def fixed_of(self, solver):
        return solver_fixed(solver, self.fixed)

    def signature(self, solver):
        """What a study's trials must share to be ranked together (stored
        with the study; a rerun must match it)."""
        signature = dict(
            dataset=self.dataset, epochs=self.epochs, evals=self.evals,
            metric=self.metric, pruner=self.pruner,
            space={k: r.as_dict() for k, r in self.space(solver).items()},
            fixed=self.fixed_of(solver))
        if self.splits > 1:  # one split: the signature of older storages
            signature["splits"] = self.splits
        return signature


def storage_file(storage):
    """The file of ``--storage`` (a path, or an ``sqlite:///`` URL's),
    None for a database server."""
    if storage.startswith("sqlite:///"):
        path = storage[len("sqlite:///"):].split("?")[0]
        return Path(path[len("file:"):] if path.startswith("file:")
                    else path)
    return None if "://" in storage else Path(storage)


def in_memory(storage):
    """Whether ``--storage`` names an in-memory SQLite database."""
    low = storage.lower()
    return low in ("sqlite://", "sqlite:///") or ":memory:" in low or \
        "mode=memory" in low


def absolute_storage(storage):
    """``--storage`` with its file's path made absolute (as processes
    started elsewhere, a cluster's workers, must read it)."""
    path = storage_file(storage)
    if path is None or path.is_absolute():
        return storage
    if storage.startswith("sqlite:///"):
        rest = storage[len("sqlite:///"):]
        if rest.startswith("file:"):
            return f"sqlite:///file:{Path.cwd() / rest[len('file:'):]}"
        return f"sqlite:///{Path.cwd() / rest}"
    return str(path.resolve())


def open_storage(storage, heartbeat=HEARTBEAT, grace=GRACE):
    """The Optuna storage of ``--storage`` (see the module docstring);
    ``StorageProblem`` when it cannot be used."""
    try:
        return _retried(_open_storage, storage, heartbeat, grace)
    except STORAGE_ERRORS as err:
        raise StorageProblem(problem_text(storage, err)) from err


def check_not_in_memory(storage):
    """A ValueError naming ``--storage`` when it is in memory."""
    if in_memory(storage):
        raise ValueError(
            f"--storage {storage}: an in-memory database, private to one "
            "process and lost with it: the tuning could not be resumed, "
            "nor shared by --jobs workers or a dask cluster's; give "
            "outputs/<name>.db, a journal file <name>.log or a database "
            "URL")


def _open_storage(storage, heartbeat, grace):
    check_not_in_memory(storage)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if "://" in storage:
            return optuna.storages.RDBStorage(
                storage, heartbeat_interval=heartbeat, grace_period=grace)
        path = Path(storage)
        if path.is_dir():
            raise IsADirectoryError(21, "is a folder", str(path))
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


def _retried(function, *args):
    """``function(*args)``, tried again (``RETRIES`` times in all, after
    0.05, 0.1, ... s) when it raises one of ``COLLISIONS``: processes
    creating the same storage or study at once can collide."""
    for attempt in range(RETRIES):
        try:
            return function(*args)
        except COLLISIONS:
            if attempt == RETRIES - 1:
                raise
            time.sleep(0.05 * (attempt + 1))


def _cause(err):
    """The innermost cause of ``err``, as one line."""
    while True:
        inner = err.__cause__ or (None if err.__suppress_context__
                                  else err.__context__)
        if inner is None:
            break
        err = inner
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def problem_text(storage, err):
    """One line naming ``storage``, what is wrong with it (``err``) and
    what to do."""
    cause = _cause(err)
    low = cause.lower()
    if isinstance(err, IsADirectoryError) or "is a directory" in low:
        what = ("is a folder; give a file (outputs/<name>.db or "
                "<name>.log) or a database URL")
    elif "readonly" in low or "read-only" in low or isinstance(
            err, PermissionError):
        what = (f"cannot be written ({cause}); make the file and its folder "
                "writable by this user, or copy it to a writable place and "
                "give that --storage")
    elif "not a database" in low or "malformed" in low:
        what = (f"is not a readable Optuna SQLite database ({cause}); "
                "restore it, or move it away to start anew")
    elif isinstance(err, (json.JSONDecodeError, UnicodeDecodeError)) or (
            "journal" in low):
        what = (f"is not a readable Optuna journal file ({cause}); restore "
                "it, or move it away to start anew")
    else:
        what = (f"cannot be used ({cause}); check that it is an Optuna "
                "storage this user can write, or give another --storage")
    return f"--storage {storage}: {what}"


def study_name(dataset, solver):
    return f"{dataset} | {solver}"


def make_pruner(name, steps):
    """The pruner ``name`` over a trial's ``steps`` evaluation points."""
    if name == "hyperband":
        return optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=steps, reduction_factor=3)
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
    it holds trials of other settings or another ``--seed``,
    ``StorageProblem`` when the storage cannot be used."""
    try:
        study = _retried(_create_study, storage, settings, solver, worker)
        _retried(_check_settings, study, settings, solver)
    except STORAGE_ERRORS as err:
        raise StorageProblem(problem_text(settings.storage, err)) from err
    return study


def _create_study(storage, settings, solver, worker):
    return optuna.create_study(
        study_name=study_name(settings.dataset, solver), storage=storage,
        direction="minimize", load_if_exists=True,
        pruner=make_pruner(settings.pruner, settings.steps),
        sampler=make_sampler(settings.seed, 0, worker))


def _check_settings(study, settings, solver):
    """Store the settings and seed of a new study; a ValueError when the
    study's differ."""
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
    seed = study.user_attrs.get("seed")
    if seed is None:
        study.set_user_attr("seed", settings.seed)
    elif seed != settings.seed:
        raise ValueError(
            f"--seed {settings.seed}: the study {study.study_name!r} in "
            f"{settings.storage} was made with --seed {seed}; rerun with "
            f"--seed {seed}, or use another --storage for another seed")


def _jsonable(value):
    """``value`` as it reads back from the storage (JSON)."""
    return json.loads(json.dumps(value))


def counts(study):
    """(counted, running elsewhere, interrupted) trials of ``study``."""
    trials = study.get_trials(deepcopy=False)
    stopped = len(interrupted(study))
    return (sum(t.state in COUNTED for t in trials),
            sum(t.state == TrialState.RUNNING for t in trials) - stopped,
            stopped)


def interrupted(study):
    """The running trials of ``study`` stopped by Ctrl-C, by number."""
    return sorted((t for t in study.get_trials(
        deepcopy=False, states=(TrialState.RUNNING,))
        if t.user_attrs.get(INTERRUPTED)), key=lambda t: t.number)


def fail_running(study, reason):
    """Mark the running trials of ``study`` failed (their processes are
    gone: a journal file has no heartbeat to tell), but for those stopped
    by Ctrl-C, which a rerun resumes."""
    storage = study._storage
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if t.user_attrs.get(INTERRUPTED):
            continue
        storage.set_trial_user_attr(t._trial_id, "excluded", reason)
        storage.set_trial_state_values(t._trial_id, TrialState.FAIL)


def fail_stale(study):
    """Optuna's ``fail_stale_trials`` (trials whose heartbeat stopped
    ``GRACE`` seconds ago are failed), sparing the trials stopped by
    Ctrl-C."""
    storage = study._storage
    if not storage_has_heartbeat(storage):
        return
    keep = {t._trial_id for t in interrupted(study)}
    for trial_id in storage._get_stale_trial_ids(study._study_id):
        if trial_id in keep:
            continue
        try:
            storage.set_trial_state_values(trial_id, TrialState.FAIL)
        except optuna.exceptions.UpdateFinishedTrialError:
            pass  # another process failed it first


def prepare(settings, fail_all_running=False, tuning_key=None):
    """Create or load every study, check its settings, queue a new
    study's first trials (``first.enqueue_first``, the sweep's winner on
    the dataset of ``tuning_key``), and return the trials still to run
    per solver (the interrupted ones included) with a line per solver to
    print."""
    storage = open_storage(settings.storage)
    old = None if settings.continue_from is None else (
        settings.continue_from, open_storage(settings.continue_from))
    todo, lines = {}, []
    for solver in settings.solvers:
        study = load_study(storage, settings, solver)
        try:
            queued = []
            if old is not None and not study.get_trials(deepcopy=False):
                queued.append(f"  {solver}: " + continue_from(
                    old, study, _jsonable(settings.signature(solver)),
                    settings.space(solver), settings.seed, CLOCK))
            queued += enqueue_first(study, solver, settings.space(solver),
                                    tuning_key, settings.first,
                                    settings.trials)
            if fail_all_running:
                fail_running(study, "interrupted (--fail-running)")
            else:
                fail_stale(study)
            done, running, stopped = counts(study)
        except STORAGE_ERRORS as err:
            raise StorageProblem(problem_text(settings.storage, err)) \
                from err
        todo[solver], line = _todo(study, settings, done, running)
        busy = f", {running} running elsewhere" if running else ""
        again = f", {stopped} interrupted to run again" if stopped else ""
        lines.append(f"{solver}: {line[0]}{busy}{again}, {line[1]}")
        lines.extend(queued)
    return todo, lines


def _todo(study, settings, done, running):
    """The trials left to run (at most, under the work budget) and the
    two halves of the line saying how far the study is."""
    if settings.budget == "trials":
        todo = max(0, settings.trials - done - running)
        return todo, (f"{min(done, settings.trials)} of {settings.trials} "
                      "trials done", f"{todo} to run")
    trials = study.get_trials(deepcopy=False)
    charged, _ = budget.spent(trials, settings)
    todo = budget.trials_left(trials, settings)
    return todo, (f"{charged:g} of {budget.budget_epochs(settings):g} "
                  f"epochs spent ({done} trials)",
                  f"up to {todo} trials to run" if todo else
                  "no room for a full trial")


def storage_has_heartbeat(storage):
    return isinstance(storage, optuna.storages.RDBStorage) and \
        storage.heartbeat_interval is not None


def save_clock(study, key, seconds):
    """Keep ``seconds``, the wall time so far of the invocation ``key``,
    in ``study``'s user attribute ``CLOCK``."""
    clock = dict(study.user_attrs.get(CLOCK, {}))
    clock[key] = round(seconds, 3)
    study.set_user_attr(CLOCK, clock)


def elapsed(studies):
    """The wall time of every invocation kept in ``studies``."""
    clock = {}
    for study in studies:
        clock.update(study.user_attrs.get(CLOCK, {}))
    return sum(clock.values())
