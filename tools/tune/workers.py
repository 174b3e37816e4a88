"""The workers: each runs trials of every solver's study until the budget
is reached, taking a slot per trial (shared by the processes of one
machine), checking the budget against the storage before each trial
(for the processes of other machines), and printing one line per trial.
"""
import math
import multiprocessing
import time

import optuna
from optuna.trial import TrialState

from .run import Diverged, Runner
from .space import suggest
from .study import COUNTED, load_study, make_sampler, open_storage


class OverBudget(Exception):
    """A trial started after the study's budget was reached elsewhere."""


def _check_budget(trial, budget):
    """Raise ``OverBudget`` when ``budget`` counted or running trials
    precede ``trial``."""
    ahead = trial.study.get_trials(
        deepcopy=False, states=COUNTED + (TrialState.RUNNING,))
    if sum(t.number < trial.number for t in ahead) >= budget:
        trial.set_user_attr("excluded", "over budget (trials of other "
                                        "processes filled it)")
        raise OverBudget


def trial_function(runner, settings, solver, over):
    """The Optuna objective of ``solver``'s study (``over`` gets an entry
    when a trial is past the budget)."""
    space, fixed = settings.space(solver), settings.fixed_of(solver)

    def objective(trial):
        try:
            _check_budget(trial, settings.trials)
        except OverBudget:
            over.append(trial.number)
            raise
        values = {**suggest(trial, space), **fixed}
        trial.set_user_attr("parameters", values)

        def report(step, value, epochs):
            trial.report(value, step)
            # a trial that ran its whole budget completes
            if step < settings.evals and trial.should_prune():
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
        trial.set_user_attr("points", points)
        return criterion

    return objective


class Slots:
    """Trials left to run per solver, shared by the workers of one
    machine (``shared``: multiprocessing values) or local."""

    def __init__(self, todo, context=None):
        self.shared = context is not None
        self.left = ({k: context.Value("i", v) for k, v in todo.items()}
                     if self.shared else dict(todo))

    def take(self, solver):
        """Whether a trial of ``solver`` is left (and take it)."""
        if not self.shared:
            if self.left[solver] <= 0:
                return False
            self.left[solver] -= 1
            return True
        value = self.left[solver]
        with value.get_lock():
            if value.value <= 0:
                return False
            value.value -= 1
            return True


def _log_trial(solver):
    """Optuna callback printing one line per finished trial."""

    def callback(study, trial):
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
        print(f"  {solver:8s} trial {trial.number:3d}  {what}  "
              f"({attrs.get('seconds', math.nan):.2f} s)  [{params}]",
              flush=True)
    return callback


def work(settings, slots, worker=0, runner=None):
    """Run this worker's share of every solver's remaining trials."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    runner = runner or Runner(settings.dataset)
    storage = open_storage(settings.storage)
    for solver in settings.solvers:
        study = load_study(storage, settings, solver, worker)
        over = []
        objective = trial_function(runner, settings, solver, over)
        callback = _log_trial(solver)
        while not over and slots.take(solver):
            n = len(study.get_trials(deepcopy=False))
            study.sampler = make_sampler(settings.seed, n, worker)
            study.optimize(objective, n_trials=1, catch=(OverBudget,),
                           callbacks=[callback])


def _worker_entry(settings, slots, worker):
    """A spawned process's target."""
    work(settings, slots, worker)


def run_parallel(settings, todo, jobs):
    """``jobs`` worker processes sharing the storage and the slots."""
    context = multiprocessing.get_context("spawn")
    slots = Slots(todo, context)
    procs = [context.Process(target=_worker_entry,
                             args=(settings, slots, w)) for w in range(jobs)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    failed = [p.exitcode for p in procs if p.exitcode != 0]
    if failed:
        raise RuntimeError(f"{len(failed)} of {jobs} workers failed "
                           f"(exit codes {failed}); rerun to finish the "
                           "remaining trials")
