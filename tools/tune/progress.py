"""The tuning's progress, printed after each trial:

    epochs 120 of 400 (all solvers), elapsed 0:00:31, about 0:01:10 left

(``trials 12 of 40`` under ``--budget trials``) read from the storage, so
that every process of a tuning (``--jobs`` workers, a cluster's tasks)
counts the trials of all: the work done is the epochs charged to the
counted trials (complete or pruned) of every solver's study, up to its
budget, against the budgets of all solvers (``work``; or the counted
trials against ``--trials`` x the solvers); elapsed is this invocation's
wall time. The time left is the mean wall time of an epoch charged (or of
a counted trial) so far, from a trial's start to its end in the storage,
times the epochs (trials) left, divided among the ``parallel`` workers;
when each study's trials run one after another (a cluster's tasks, one per
study: ``cluster``), never less than the longest study's trials left.
"""
import math
import time

from benchmark_utils.progress import progress_text

from . import work as budget
from .study import COUNTED, load_study, open_storage


def time_left(mean, left, parallel, longest):
    """Seconds for ``left`` trials of ``mean`` seconds on ``parallel``
    workers, at least ``longest`` of them one after another."""
    return mean * max(left / parallel, longest)


def _whole(value):
    """``value`` as an int when it is one (trials, whole epochs)."""
    return int(value) if float(value).is_integer() else round(value, 1)


class TrialProgress:
    """The progress line of ``settings``'s tuning, run on ``parallel``
    workers (``per_study``: one study each at a time) since ``start``
    (``time.time()``: the same clock in every process of a machine)."""

    def __init__(self, settings, parallel=1, per_study=False, start=None,
                 out=print):
        if parallel < 1:
            raise ValueError(f"parallel must be >= 1, got {parallel}")
        self.settings, self.parallel = settings, parallel
        self.per_study, self.out = per_study, out
        self.start = time.time() if start is None else start
        self._studies = None

    def __getstate__(self):
        # a worker process opens the storage itself
        return dict(self.__dict__, _studies=None)

    def studies(self):
        """Every solver's study, opened once per process."""
        if self._studies is None:
            storage = open_storage(self.settings.storage)
            self._studies = {s: load_study(storage, self.settings, s)
                             for s in self.settings.solvers}
        return self._studies

    def trials(self):
        """Every solver's trials, as the storage holds them now."""
        return {s: study.get_trials(deepcopy=False)
                for s, study in self.studies().items()}

    def line(self, trials=None, now=None):
        """The progress line of ``trials`` (read from the storage if not
        given) at time ``now``."""
        trials = self.trials() if trials is None else trials
        now = time.time() if now is None else now
        counted = {s: [t for t in ts if t.state in COUNTED]
                   for s, ts in trials.items()}
        if self.settings.budget == "trials":
            unit, size, one = "trials", self.settings.trials, 1.0
            done = {s: min(len(c), size) for s, c in counted.items()}
            cost = {s: [1.0] * len(c) for s, c in counted.items()}
        else:
            unit, size = "epochs", budget.budget_epochs(self.settings)
            one = budget.full(self.settings)
            cost = {s: [budget.charged(t, self.settings) for t in c]
                    for s, c in counted.items()}
            done = {s: min(math.fsum(c), size) for s, c in cost.items()}
        total = size * len(trials)
        seconds = math.fsum(t.duration.total_seconds() for c in
                            counted.values() for t in c
                            if t.duration is not None)
        units = math.fsum(x for s, c in counted.items()
                          for t, x in zip(c, cost[s])
                          if t.duration is not None)
        left = None
        if units > 0:
            rest = [size - d for d in done.values()]
            longest = max(rest) if self.per_study else min(sum(rest), one)
            left = time_left(seconds / units, sum(rest), self.parallel,
                             longest)
        return "  " + progress_text(unit, _whole(sum(done.values())),
                                    _whole(total), now - self.start, left,
                                    " (all solvers)")

    def __call__(self):
        """Print the line (after a trial)."""
        self.out(self.line(), flush=True)
