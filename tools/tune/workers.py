"""The workers: each runs the trials of a solver's study until its budget
is reached, checking the budget against the storage before each trial
(for the processes of other machines), and printing one line per trial
and the tuning's progress (``progress``).  ``--jobs`` workers share the
studies, one process per study at a time, so that a study holds what a
sequential run holds, whatever the number of workers.

A trial runs as Optuna's ``optimize`` runs it (ask, heartbeat, tell),
except that Ctrl-C leaves it running, marked ``interrupted``: the next
invocation runs it again in place, first (``resume``), so that the study
holds what an uninterrupted run holds.  The ``--jobs`` workers end with
their parent: a parent stopped by SIGTERM (``kill``) or Ctrl-C passes an
interrupt to each worker still running, which leaves its trial to be
resumed, and terminates those that do not end within ``STOP_GRACE``.
"""
import contextlib
import dataclasses
import math
import multiprocessing
import os
import signal
import threading
import time
import warnings

import optuna
from optuna.trial import TrialState

from . import work as budget
from .first import ATTRIBUTE as FIRST_ATTRIBUTE
from .run import Diverged, Runner
from .space import suggest
from .study import (COUNTED, INTERRUPTED, fail_stale, interrupted,
                    load_study, make_sampler, open_storage,
                    storage_has_heartbeat)


# seconds a worker has to end after its parent stopped: first to end on
# its own (a Ctrl-C reaches every process of the terminal), then after
# the interrupt passed to it
JOIN_GRACE, STOP_GRACE = 5.0, 30.0


class OverBudget(Exception):
    """A trial started after the study's budget was reached elsewhere."""


def _check_budget(trial, settings):
    """Raise ``OverBudget`` when the counted or running trials preceding
    ``trial`` (by number) fill the budget of ``settings``: ``--trials`` of
    them, or, under the work budget, no room left for a full trial."""
    ahead = [t for t in trial.study.get_trials(
        deepcopy=False, states=COUNTED + (TrialState.RUNNING,))
        if t.number < trial.number]
    if settings.budget == "trials":
        over = len(ahead) >= settings.trials
    else:
        over = not budget.fits(ahead, settings)
    if over:
        trial.set_user_attr("excluded", "over budget (trials of other "
                                        "processes filled it)")
        raise OverBudget


def has_room(study, settings):
    """Whether the work budget leaves room for a new trial of ``study``
    (always, under the trials budget: the slots count those)."""
    return settings.budget == "trials" or budget.fits(
        study.get_trials(deepcopy=False), settings)


def trial_function(runner, settings, solver, over):
    """The Optuna objective of ``solver``'s study (``over`` gets an entry
    when a trial is past the budget)."""
    space, fixed = settings.space(solver), settings.fixed_of(solver)

    def objective(trial):
        try:
            _check_budget(trial, settings)
        except OverBudget:
            over.append(trial.number)
            raise
        with deferred_interrupt():  # all of them drawn, or none
            values = {**suggest(trial, space), **fixed}
            trial.set_user_attr("parameters", values)
        # a resumed trial: its reports and the pruner's decisions up to
        # its last report stand (the run repeats them exactly)
        done = trial.study._storage.get_trial(
            trial._trial_id).intermediate_values
        last = max(done, default=0)

        def report(step, value, epochs):
            if step < last:
                return
            if step not in done:
                trial.report(value, step)
            # a trial that ran its whole budget completes
            if step < settings.steps and trial.should_prune():
                trial.set_user_attr("pruned_at_epochs", round(epochs, 6))
                raise optuna.TrialPruned(f"pruned at {epochs:.3g} epochs")

        t0 = time.perf_counter()
        try:
            criterion, points = runner.run(
                solver, values, settings.epochs, settings.evals,
                settings.metric, report)
        except Diverged as err:
            trial.set_user_attr("excluded", f"diverged at {err.epochs:.3g} "
                                            f"epochs: {err.reason}")
            trial.set_constraint("diverged", 1.0)  # infeasible for TPE
            raise optuna.TrialPruned(err.reason) from None
        finally:
            trial.set_user_attr("seconds", time.perf_counter() - t0)
            trial.set_user_attr("solver_seconds", runner.clock["solver"])
            trial.set_user_attr(budget.DRAWN, round(runner.drawn, 6))
        trial.set_user_attr("points", points)
        return criterion

    return objective


def run_trial(study, objective, callback, resume=None):
    """Run ``objective`` on a new trial, or in place on ``resume`` (an
    interrupted trial, frozen), as Optuna's ``optimize`` does; a trial
    stopped by Ctrl-C (anywhere between its creation and its end) stays
    running, marked ``interrupted``, and the KeyboardInterrupt goes on."""
    trial = _ask(study) if resume is None else optuna.trial.Trial(
        study, resume._trial_id)
    try:
        if resume is not None:
            study._storage.set_trial_user_attr(trial._trial_id, INTERRUPTED,
                                               False)
        frozen = _run_and_tell(study, objective, trial)
    except KeyboardInterrupt:
        _mark_interrupted(study, trial)
        raise
    callback(study, frozen)
    return frozen


def _run_and_tell(study, objective, trial):
    """The objective's run under the storage's heartbeat, then its
    outcome told to the study (a failure raised on)."""
    state, value = None, None
    with Heartbeat(study._storage, trial._trial_id):
        try:
            value = objective(trial)
        except optuna.TrialPruned:
            state = TrialState.PRUNED
        except OverBudget:
            state = TrialState.FAIL
        except Exception:
            study.tell(trial, state=TrialState.FAIL)
            raise
    with deferred_interrupt():
        return study.tell(trial, value, state=state)


@contextlib.contextmanager
def deferred_interrupt():
    """Hold Ctrl-C (SIGINT) while the block runs, then raise it: a trial
    whose parameters were drawn in part could not be resumed as it would
    have run (its missing ones would be drawn from a fresh generator).
    Outside the main thread, or under another SIGINT handler than
    Python's, the block runs as is."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT)
            is not signal.default_int_handler):
        yield
        return
    caught = []
    signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt


class Heartbeat:
    """The heartbeat of one trial in a SQL storage (nothing in a journal
    file), beaten every ``heartbeat_interval`` seconds by a daemon thread
    while the block runs: a Ctrl-C as it starts cannot leave a thread
    that keeps the process alive (Optuna's thread is not a daemon)."""

    def __init__(self, storage, trial_id):
        self.storage, self.trial_id = storage, trial_id
        self.stop, self.thread = threading.Event(), None

    def __enter__(self):
        if storage_has_heartbeat(self.storage):
            self.storage.record_heartbeat(self.trial_id)
            self.thread = threading.Thread(target=self._beat, daemon=True)
            self.thread.start()
        return self

    def _beat(self):
        while not self.stop.wait(self.storage.heartbeat_interval):
            self.storage.record_heartbeat(self.trial_id)

    def __exit__(self, *exc):
        self.stop.set()
        if self.thread is not None:
            self.thread.join()


def _mark_interrupted(study, trial):
    """Mark ``trial`` interrupted, unless it has finished."""
    try:
        study._storage.set_trial_user_attr(trial._trial_id, INTERRUPTED,
                                           True)
    except optuna.exceptions.UpdateFinishedTrialError:
        pass


def _ask(study):
    """A new trial of ``study`` (Optuna warns that heartbeats are meant
    for ``optimize``: ``run_trial`` runs them as it does)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Heartbeat of storage")
        return study.ask()


class Slots:
    """Trials left to run per solver in one process; none is left once
    ``stop()`` is true (a cluster's tasks, stopped by Ctrl-C)."""

    def __init__(self, todo, stop=None):
        self.left, self.stop = dict(todo), stop

    def take(self, solver):
        """Whether a trial of ``solver`` is left (and take it)."""
        if self.stop is not None and self.stop():
            return False
        if self.left[solver] <= 0:
            return False
        self.left[solver] -= 1
        return True


def trial_line(solver, trial):
    """The line of a finished trial: its number, outcome, time and
    parameters."""
    attrs = trial.user_attrs
    if trial.state == TrialState.COMPLETE:
        what = f"criterion {trial.value:.6g}"
    elif "excluded" in attrs:
        what = f"excluded: {attrs['excluded']}"
    elif trial.state == TrialState.PRUNED:
        at = attrs.get("pruned_at_epochs", math.nan)
        what = f"pruned at {at:.3g} epochs"
    else:
        what = trial.state.name.lower()
    params = ",".join(f"{k}={v}" for k, v in
                      attrs.get("parameters", {}).items())
    first = (f"  (first: {attrs[FIRST_ATTRIBUTE]})"
             if FIRST_ATTRIBUTE in attrs else "")
    return (f"  {solver:8s} trial {trial.number:3d}  {what}  "
            f"({attrs.get('seconds', math.nan):.2f} s)  [{params}]{first}")


def _log_trial(solver, clock=None, out=print, progress=None):
    """Callback printing one line per finished trial with ``out`` (None:
    nothing), then calling ``progress()`` and ``clock()``."""

    def callback(study, trial):
        if out is not None:
            out(trial_line(solver, trial), flush=True)
        if progress is not None:
            progress()
        if clock is not None:
            clock()
    return callback


def work(settings, slots, worker=0, runner=None, resume=True, clock=None,
         out=print, progress=None):
    """Run this worker's share of every solver's remaining trials: the
    interrupted ones first when ``resume`` (in place), then new ones;
    after each trial its line is printed with ``out`` (None: not
    printed), then ``progress()`` and ``clock()`` are called."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    runner = runner or Runner(settings.dataset, settings.splits)
    storage = open_storage(settings.storage)
    for solver in settings.solvers:
        study = load_study(storage, settings, solver, worker)
        over = []
        objective = trial_function(runner, settings, solver, over)
        callback = _log_trial(solver, clock, out, progress)
        for frozen in interrupted(study) if resume else []:
            if not slots.take(solver):
                break
            study.sampler = make_sampler(settings.seed, frozen.number,
                                         worker)
            run_trial(study, objective, callback, resume=frozen)
        while not over and has_room(study, settings) and \
                slots.take(solver):
            fail_stale(study)
            n = len(study.get_trials(deepcopy=False))
            study.sampler = make_sampler(settings.seed, n, worker)
            run_trial(study, objective, callback)


def resume_all(settings, todo, runner, clock=None, progress=None):
    """Run the interrupted trials of every study in this process (before
    parallel workers start: each is run once); ``todo`` less them."""
    left = dict(todo)
    slots = Slots({s: 0 for s in todo})
    storage = open_storage(settings.storage)
    for solver in settings.solvers:
        study = load_study(storage, settings, solver)
        n = min(len(interrupted(study)), left[solver])
        slots.left[solver] = n
        left[solver] -= n
    work(settings, slots, runner=runner, clock=clock, progress=progress)
    return left


def _worker_entry(settings, todo, taken, progress, threads):
    """A spawned process's target: it takes the next study not taken
    (``taken``: a shared counter over ``todo``'s solvers) and runs its
    trials as the sequential loop does (worker 0's sampler), until none
    is left.  Its metric passes take ``threads`` threads, its share of
    the cores (``exact_kernels.pass_threads``), as benchopt's -j N
    workers do, unless the caller set it."""
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    # Ctrl-C, even where the parent ignores it (a background job of a
    # script, a test runner's worker): stop_workers interrupts with it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    solvers = [solver for solver, n in todo.items() if n > 0]
    runner = None
    while True:
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        if index >= len(solvers):
            return
        solver = solvers[index]
        runner = runner or Runner(settings.dataset, settings.splits)
        work(dataclasses.replace(settings, solvers=[solver]),
             Slots({solver: todo[solver]}), runner=runner, resume=False,
             progress=progress)


@contextlib.contextmanager
def sigterm_as_exit():
    """SIGTERM raises SystemExit (code 143) in the block, so that its
    ``finally`` runs (the default handler ends the process at once,
    leaving spawned workers behind); in the main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def leave(number, frame):
        raise SystemExit(128 + number)

    previous = signal.signal(signal.SIGTERM, leave)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_workers(procs, join=JOIN_GRACE, grace=STOP_GRACE):
    """End the started worker processes still alive: an interrupt
    (SIGINT: each leaves its trial to be resumed) to those that have not
    ended within ``join`` seconds, termination for those still alive
    ``grace`` seconds later."""
    alive = _join_all([p for p in procs if p.pid is not None], join)
    for p in alive:
        os.kill(p.pid, signal.SIGINT)
    for p in _join_all(alive, grace):
        p.terminate()
        p.join()


def _join_all(procs, seconds):
    """Wait at most ``seconds`` in all for ``procs`` to end; those still
    alive."""
    deadline = time.monotonic() + seconds
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    return [p for p in procs if p.is_alive()]


def run_parallel(settings, todo, jobs, clock=None, every=10.0,
                 progress=None):
    """``jobs`` worker processes sharing the studies of ``todo`` (trials
    to run per solver): each study runs in one process at a time, so it
    holds, trial for trial, what a sequential run holds whatever the
    number of workers; each process calls ``progress()`` after its
    trials; ``clock()`` is called every ``every`` seconds while they
    run."""
    context = multiprocessing.get_context("spawn")
    taken = context.Value("i", 0)
    busy = sum(n > 0 for n in todo.values())
    jobs = max(1, min(jobs, busy))
    threads = max(1, len(os.sched_getaffinity(0)) // jobs)
    procs = [context.Process(target=_worker_entry,
                             args=(settings, todo, taken, progress, threads))
             for _ in range(jobs)]
    with sigterm_as_exit():
        try:
            for p in procs:
                p.start()
            for p in procs:
                while p.is_alive():
                    p.join(every)
                    if clock is not None:
                        clock()
        finally:
            stop_workers(procs)
    failed = [p.exitcode for p in procs if p.exitcode != 0]
    if failed:
        raise RuntimeError(f"{len(failed)} of {jobs} workers failed "
                           f"(exit codes {failed}); rerun to finish the "
                           "remaining trials")
