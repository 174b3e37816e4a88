"""Tuning on a dask.distributed cluster: ``--dask-address tcp://HOST:8786``
(a running scheduler) or ``--dask-workers N`` (a cluster of N
single-threaded processes started on this machine).

One task per solver's study: the task runs that study's remaining trials
with ``workers.work``, as the sequential loop runs them (resumed trials
first, then new ones; the same trial numbers, the same sampler seeds, the
pruner seeing the same trials), and the studies are independent, so a
seeded tuning on a cluster holds, trial for trial, what the sequential
one holds.  The price: as many studies run at once as there are solvers,
never more (``--jobs J`` on each machine shares one study's trials among
workers, and is not reproducible).

The tasks open ``--storage`` themselves, so it must be one storage that
every worker reaches: a journal file (``.log``) on a file system every
worker mounts at the same path, or a database URL.  Refused before any
trial, naming ``--storage``: a storage some worker does not see (each
worker opens it and looks for this invocation's clock, saved just
before), and an SQLite file when a worker runs on another machine
(SQLite's locks are unreliable over network file systems).  An in-memory
database is refused by ``study.open_storage``.

This process prints, from the storage, each finished trial's line and
the progress line (checked every second; the tasks print nothing) and
saves the clock.  Ctrl-C: no task starts another trial (a dask
``Event``); the trials running on a remote cluster run to their end and
are stored (a second Ctrl-C leaves without waiting for them); a cluster
of this machine stops with this process (the terminal's Ctrl-C reaches
its workers), and its running trials are marked ``interrupted``, so that
the rerun runs them again in place as after a Ctrl-C of one process.
"""
import dataclasses
import logging
import pickle
import socket
import time
import uuid
from contextlib import contextmanager
from datetime import datetime

import optuna
from optuna.trial import TrialState

from .progress import TrialProgress
from .run import ROOT
from .study import (CLOCK, INTERRUPTED, SQLITE, StorageProblem,
                    absolute_storage, open_storage, storage_file, study_name)
from .workers import Slots, trial_line, work


CONNECT_TIMEOUT = 30  # seconds to reach the scheduler of --dask-address


class ClusterProblem(Exception):
    """A cluster that cannot be used; the message names the option and
    says what to do."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterProblem(
            "--dask-address/--dask-workers need the `distributed` package: "
            "pip install -r requirements.txt (or pip install distributed)"
        ) from None
    return distributed


@contextmanager
def connect(address=None, n_workers=None):
    """A dask client of the scheduler at ``address``, or of a cluster of
    ``n_workers`` single-threaded processes on this machine; yields
    ``(client, local)``."""
    distributed = _distributed()
    if address is None:
        cluster = distributed.LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True,
            dashboard_address=None)
        with cluster, distributed.Client(cluster) as client:
            try:
                yield client, True
            finally:
                _quiet_close()
        return
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as err:
        raise ClusterProblem(
            f"--dask-address {address}: cannot connect ({err}); start a "
            "scheduler there (`dask scheduler`) or give its address") \
            from None
    with client:
        yield client, False


class _Call:
    """``function(*args)``, made where it is unpickled (pickle's reduce
    protocol)."""

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def submit(client, function, *args, **options):
    """``client.submit(function, *args)``, the call sent as bytes: dask's
    scheduler unpickles the tasks it is given, and one naming this
    package's functions would need the package on the scheduler too;
    only the worker unpickles (and so runs) these."""
    return client.submit(pickle.loads, pickle.dumps(_Call(function, *args)),
                         pure=False, **options)


def _quiet_close():
    """No warning when this machine's cluster closes: its worker
    processes take seconds to exit (the interpreter's teardown after
    numba and benchopt) and the nanny then kills them, which is the
    intent."""
    logging.getLogger("distributed.nanny").setLevel(logging.ERROR)


def _sees(storage, dataset, solver, key):
    """On a worker: (its host, whether ``storage`` holds this invocation's
    clock ``key``, why not).  A file storage missing here is not created."""
    host = socket.gethostname()
    path = storage_file(storage)
    if path is not None and not path.exists():
        return host, False, f"no file {path} there"
    try:
        study = optuna.load_study(study_name=study_name(dataset, solver),
                                  storage=open_storage(storage))
        seen = key in study.user_attrs.get(CLOCK, {})
    except Exception as err:
        return host, False, f"{type(err).__name__}: {err}"
    return host, seen, None if seen else "another storage, without this " \
                                         "tuning's studies"


def storage_problem(storage, answers, host):
    """The message refusing ``storage`` for workers whose ``answers``
    (``{worker: (host, seen, why)}``) are given, from this ``host``; None
    when every worker shares it."""
    blind = {w: why for w, (_, seen, why) in answers.items() if not seen}
    if blind:
        w, why = next(iter(sorted(blind.items())))
        return (f"--storage {storage}: {len(blind)} of {len(answers)} dask "
                f"workers do not see it ({w}: {why}); give a journal file "
                "(<name>.log) on a file system every worker mounts at the "
                "same path, or a database URL every worker reaches")
    path = storage_file(storage)
    others = sorted({h for h, _, _ in answers.values() if h != host})
    if path is not None and path.suffix in SQLITE and others:
        return (f"--storage {storage}: an SQLite file, and dask workers run "
                f"on other machines ({', '.join(others)}): SQLite's locks "
                "are unreliable over network file systems; give a journal "
                "file (<name>.log) on the shared file system or a database "
                "URL")
    return None


def check_shared(client, settings, key):
    """Refuse (``StorageProblem``) a storage that some worker of
    ``client`` does not share with this process; ``ClusterProblem`` when
    the workers cannot run this package."""
    workers = list(client.scheduler_info()["workers"])
    try:
        # as tasks (not client.run, which would block each worker's event
        # loop while it imports this package)
        futures = {w: submit(
            client, _sees, settings.storage, settings.dataset,
            settings.solvers[0], key, workers=[w],
            allow_other_workers=False,
            key=f"tune storage check {w} {key}") for w in workers}
        answers = {w: f.result() for w, f in futures.items()}
    except Exception as err:  # the worker's error, re-raised by dask
        if "ModuleNotFoundError" not in f"{type(err).__name__} {err}":
            raise
        raise ClusterProblem(
            f"the dask workers cannot import tools.tune ({err}): start "
            f"them with PYTHONPATH={ROOT} (the benchmark's folder, at "
            "that path on every machine) in this Python environment") \
            from None
    if not answers:
        raise ClusterProblem("the dask cluster has no worker")
    problem = storage_problem(settings.storage, answers,
                              socket.gethostname())
    if problem is not None:
        raise StorageProblem(problem)


def run_study(settings, solver, trials, stop):
    """A task: ``trials`` trials of ``solver``'s study as the sequential
    loop runs them (``workers.work`` on that solver alone), none started
    once the dask event ``stop`` is set."""
    from distributed import Event
    event = Event(stop)
    work(dataclasses.replace(settings, solvers=[solver]),
         Slots({solver: trials}, stop=event.is_set), out=None)


class Watch:
    """Prints, from the storage, the line of each trial finished since it
    was made, then the progress line."""

    def __init__(self, progress, out=print):
        self.progress, self.out = progress, out
        trials = progress.trials()
        self.seen = set(self._finished(trials))
        self.running = {k for k, t in self._all(trials)
                        if t.state == TrialState.RUNNING}

    @staticmethod
    def _all(trials):
        return [((s, t.number), t) for s, ts in trials.items() for t in ts]

    def _finished(self, trials):
        return {k: t for k, t in self._all(trials) if t.state.is_finished()}

    def __call__(self):
        trials = self.progress.trials()
        new = [(k, t) for k, t in self._finished(trials).items()
               if k not in self.seen]
        new.sort(key=lambda kt: (kt[1].datetime_complete or datetime.min,
                                 kt[0]))
        for (solver, number), trial in new:
            self.seen.add((solver, number))
            self.out(trial_line(solver, trial), flush=True)
        if new:
            self.out(self.progress.line(trials), flush=True)

    def mark_interrupted(self):
        """Mark the trials this tuning left running (its workers are
        gone) ``interrupted``, to be run again in place; one killed while
        drawing its parameters cannot be, and is marked failed."""
        storage = open_storage(self.progress.settings.storage)
        for key, t in self._all(self.progress.trials()):
            if t.state != TrialState.RUNNING or key in self.running:
                continue
            try:
                if t.params and "parameters" not in t.user_attrs:
                    storage.set_trial_user_attr(
                        t._trial_id, "excluded",
                        "stopped while drawing its parameters")
                    storage.set_trial_state_values(t._trial_id,
                                                   TrialState.FAIL)
                else:
                    storage.set_trial_user_attr(t._trial_id, INTERRUPTED,
                                                True)
            except optuna.exceptions.UpdateFinishedTrialError:
                pass  # it ended meanwhile


def run_on_cluster(settings, todo, clock=None, address=None, n_workers=None,
                   start=None, every=1.0, save_every=10.0):
    """Run ``todo`` (trials per solver) on a dask cluster (``connect``),
    one task per study, printing each trial's line and the progress from
    this process; ``clock()`` every ``save_every`` seconds."""
    shared = dataclasses.replace(settings,
                                 storage=absolute_storage(settings.storage))
    watch = None
    try:
        with connect(address, n_workers) as (client, local):
            if clock is not None:
                clock()  # the key the workers look for
                check_shared(client, shared, clock.key)
            threads = sum(w.get("nthreads", 1) for w in
                          client.scheduler_info()["workers"].values())
            watch = Watch(TrialProgress(shared, parallel=max(threads, 1),
                                        per_study=True, start=start))
            _run_tasks(client, shared, todo, watch, clock, every,
                       save_every, local)
    except KeyboardInterrupt:
        if watch is not None and address is None:
            # this machine's cluster is closed: its trials ended with it
            watch.mark_interrupted()
        raise


def _run_tasks(client, settings, todo, watch, clock, every, save_every,
               local):
    """Submit one task per study with trials to run and follow them."""
    distributed = _distributed()
    stop = f"tools.tune stop {uuid.uuid4().hex}"
    event = distributed.Event(stop, client=client)
    futures = [submit(client, run_study, settings, solver, n, stop,
                      key=f"tune {solver} {stop}")
               for solver, n in todo.items() if n > 0]
    try:
        _follow(distributed, futures, watch, clock, every, save_every,
                event)
    except KeyboardInterrupt:
        event.set()
        if not local:
            _drain(distributed, futures, watch)
        raise
    finally:
        watch()
    for future in futures:
        future.result()  # a task's error, raised here


def _follow(distributed, futures, watch, clock, every, save_every, event):
    """Wait for the tasks, printing new trials every ``every`` seconds;
    a task's error stops the others from starting trials."""
    saved = time.monotonic()
    while not all(f.done() for f in futures):
        try:
            distributed.wait(futures, timeout=every)
        except (TimeoutError, distributed.TimeoutError):
            pass
        watch()
        if any(f.status == "error" for f in futures):
            event.set()
        if clock is not None and time.monotonic() - saved >= save_every:
            clock()
            saved = time.monotonic()


def _drain(distributed, futures, watch):
    """After Ctrl-C on a remote cluster: wait for the running trials to
    end (Ctrl-C again: leave them running there)."""
    print("stopping: no new trial starts; waiting for the running trials "
          "to end on the cluster (Ctrl-C again to leave them running)",
          flush=True)
    try:
        while not all(f.done() for f in futures):
            try:
                distributed.wait(futures, timeout=1.0)
            except (TimeoutError, distributed.TimeoutError):
                pass
            watch()
    except KeyboardInterrupt:
        pass
