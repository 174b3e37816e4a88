"""Progress of long work: one line per finished run, with the time elapsed
and an estimate of the time left.

    run 3 of 12, elapsed 0:00:14, about 0:00:42 left

``benchopt run`` (1.10) prints each solver's curve as it goes but not how
far the whole run is, and has no hook for it.  ``BilevelSolver.run``
calls ``run_ended()`` when a run returns; the line is printed when
benchopt's runner (``benchopt.runner.run_one_to_cvg``) is on the call
stack, so a solver run called directly (the tests, the tools) prints
nothing.  In the process of ``benchopt run`` itself (a sequential run),
N is counted once, at the first run's end, from the options of the
command (``click``'s context: the solver, dataset and objective patterns,
``-r``, the ``--config`` file as benchopt reads it) with benchopt's own
run generation: every (dataset, objective, solver parameters) times the
repetitions.  Runs that benchopt's cache answers, or that a solver or the
Objective skips, never print a line, so the count may stop short of N and
the time left is then an upper bound.

Under ``-j N``, dask or submitit the runs happen in worker processes,
which have no command to read: each prints ``run k in this worker
process`` with its own k and the time since it loaded the benchmark.

The estimate is the mean wall time of a run so far (loading, compiling
and evaluating included) times the runs left.  Progress never ends a
run: any error while counting or printing is dropped.

``tools.tune`` prints its trials' progress with ``progress_text`` too.
"""
import shutil
import sys
import time

LOADED = time.monotonic()  # this process loaded the benchmark's code
RUNNER = ("benchopt.runner", "run_one_to_cvg")  # benchopt's run of a solver
# The options of `benchopt run` that select the runs (click's names)
SELECTION = ("solver", "force_solver", "dataset", "objective",
             "n_repetitions")
WORKER = " in this worker process"
MIN_WIDTH = 20  # the narrowest line _print pads to (as benchopt)


def clock_text(seconds):
    """``seconds`` as H:MM:SS (rounded to the second)."""
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


def progress_text(label, done, total, elapsed, left, where=""):
    """``'run 3 of 12, elapsed 0:00:14, about 0:00:42 left'``; the total
    and the estimate are left out when unknown (None)."""
    of = "" if total is None else f" of {total}"
    about = "" if left is None else f", about {clock_text(left)} left"
    return (f"{label} {done}{of}{where}, elapsed {clock_text(elapsed)}"
            f"{about}")


class RunProgress:
    """The count of finished runs of one process against ``total`` (None
    when unknown), timed by ``clock`` from ``start``."""

    def __init__(self, total=None, start=None, clock=time.monotonic,
                 where=""):
        self.total, self.clock, self.where = total, clock, where
        self.start = clock() if start is None else start
        self.done = 0

    def run_ended(self):
        """Count a finished run and return its line."""
        self.done += 1
        elapsed = self.clock() - self.start
        total = self.total
        if total is not None and self.done > total:
            total = None  # more runs than counted: say nothing false
        left = None if total is None else (
            elapsed / self.done * (total - self.done))
        return progress_text("run", self.done, total, elapsed, left,
                             self.where)


def driven_by_benchopt(frame=None):
    """Whether benchopt's runner is on the call stack above ``frame``
    (default: the caller's)."""
    frame = sys._getframe(1) if frame is None else frame
    while frame is not None:
        if (frame.f_globals.get("__name__"), frame.f_code.co_name) == RUNNER:
            return True
        frame = frame.f_back
    return False


def run_selection(context):
    """The options of ``benchopt run`` (``context``: click's) that select
    the runs, as benchopt reads them: the command line's, then for an
    option left at its default the ``--config`` file's."""
    params = {k: context.params.get(k) for k in SELECTION}
    config_file = context.params.get("config_file")
    if not config_file:
        return params
    import yaml
    with open(config_file) as f:
        config = yaml.safe_load(f) or {}
    for key, value in config.items():
        name = key.replace("-", "_")
        source = context.get_parameter_source(name)
        if name not in SELECTION or source is None \
                or source.name != "DEFAULT":
            continue
        if name in ("solver", "dataset", "objective") and not isinstance(
                value, list):
            value = [value]
        params[name] = value
    return params


class _Silent:
    """A stand-in for benchopt's terminal output: prints nothing."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def count_runs(context, benchmark):
    """The number of runs ``benchopt run`` makes with the options of
    ``context`` on ``benchmark``, from benchopt's own run generation;
    None when the repetitions come from the Objective's cross-validation
    (not counted here)."""
    from benchopt._generate_runs import _get_all_runs

    params = run_selection(context)
    solvers = list(params["solver"] or []) + list(
        params["force_solver"] or [])
    forced = list(params["force_solver"] or [])
    objectives = benchmark.check_objective_filters(params["objective"])
    repetitions = params["n_repetitions"]
    if repetitions is None:
        if any(hasattr(cls, "cv") for cls, _ in objectives):
            return None
        repetitions = 1
    runs = _get_all_runs(
        benchmark, benchmark.check_solver_patterns(solvers), forced,
        benchmark.check_dataset_patterns(params["dataset"]), objectives,
        terminal=_Silent())
    return sum(1 for _ in runs) * repetitions


def _command_context():
    """click's context of ``benchopt run`` in this process, or None."""
    import click
    context = click.get_current_context(silent=True)
    if context is None or context.command.name != "run" or any(
            k not in context.params for k in SELECTION):
        return None
    return context


def make_progress():
    """This process's ``RunProgress``: counted against the runs of the
    ``benchopt run`` command it runs, or alone in a worker process."""
    context = _command_context()
    if context is None:
        return RunProgress(start=LOADED, where=WORKER)
    total = None
    try:
        from benchopt.benchmark import get_running_benchmark
        benchmark = get_running_benchmark()
        if benchmark is not None:
            total = count_runs(context, benchmark)
    except Exception:  # an option read otherwise than here: no total
        total = None
    return RunProgress(total, start=LOADED)


_progress = None


def _print(line):
    """Print ``line`` padded with spaces to the terminal's width (at least
    ``MIN_WIDTH``), so that it covers a solver's progress line, which
    benchopt ends with a carriage return, as benchopt pads its own."""
    width = max(MIN_WIDTH, shutil.get_terminal_size((100, 24)).columns)
    print(line.ljust(width), flush=True)


def run_ended():
    """Print the progress line of the run that just ended, when
    benchopt's runner drives it; never raises."""
    global _progress
    try:
        if not driven_by_benchopt(sys._getframe(1)):
            return
        if _progress is None:
            _progress = make_progress()
        _print("    " + _progress.run_ended())
    except Exception:
        pass
