"""The tuning's progress, printed after each trial:

    trials 12 of 40 (all solvers), elapsed 0:00:31, about 0:01:10 left

read from the storage, so that every process of a tuning (``--jobs``
workers, a cluster's tasks) counts the trials of all: the trials done are
the counted trials (complete or pruned) of every solver's study, up to its
budget, against ``--trials`` x the solvers; elapsed is this invocation's
wall time.  The time left is the mean wall time of a counted trial so far
(from its start to its end in the storage) times the trials left, divided
among the ``parallel`` workers; when each study's trials run one after
another (a cluster's tasks, one per study: ``cluster``), never less than
the longest study's trials left.
"""
import math
import time

from benchmark_utils.progress import progress_text

from .study import COUNTED, load_study, open_storage


def time_left(mean, left, parallel, longest):
    """Seconds for ``left`` trials of ``mean`` seconds on ``parallel``
    workers, at least ``longest`` of them one after another."""
    return mean * max(left / parallel, longest)


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
        budget = self.settings.trials
        counted = {s: [t for t in ts if t.state in COUNTED]
                   for s, ts in trials.items()}
        done = sum(min(len(c), budget) for c in counted.values())
        total = budget * len(trials)
        seconds = [t.duration.total_seconds() for c in counted.values()
                   for t in c if t.duration is not None]
        left = None
        if seconds:
            mean = math.fsum(seconds) / len(seconds)
            rest = [max(0, budget - len(c)) for c in counted.values()]
            longest = max(rest) if self.per_study else min(sum(rest), 1)
            left = time_left(mean, sum(rest), self.parallel, longest)
        return "  " + progress_text("trials", done, total, now - self.start,
                                    left, " (all solvers)")

    def __call__(self):
        """Print the line (after a trial)."""
        self.out(self.line(), flush=True)
