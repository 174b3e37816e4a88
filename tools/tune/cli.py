"""The command line of ``python -m tools.tune`` (see the package
docstring).

Refused before anything runs or is written, with the option named (exit
code 2): bad values, ``--fix`` values and ``--range`` bounds the solvers'
own configuration check refuses (``space.check_ranges``), another
``--seed`` than the stored studies', an output (``--write``,
``--record``) that is the storage's file, another output's or a file the
tuning reads (``--continue-from``'s storage and record, ``--first
config=PATH``; paths resolved, symbolic links followed), a storage that
cannot be used (an in-memory one included), more than one of ``--jobs``,
``--dask-address`` and ``--dask-workers``, and a dask cluster that cannot
be reached or whose workers do not share the storage (``cluster``).
Outputs are written atomically (``report.write_atomic``).  Ctrl-C ends
the command with one line (exit code 130): the same command resumes.
"""
import argparse
import os
import socket
import sys
import time
import uuid
from pathlib import Path

import optuna

from tools.arguments import refuse_inputs, same_file

from .report import config_text, record, record_path, summary, \
    write_atomic, write_record
from .run import METRICS, Runner, check_metric
from .space import (SOLVERS, check_fixed, check_ranges, check_solvers,
                    parse_fixed, parse_range)
from .cluster import ClusterProblem, run_on_cluster
from .first import CONFIG, FIRST, check_first
from .work import BUDGETS
from .progress import TrialProgress
from .study import (PRUNERS, STORAGE_ERRORS, Settings, StorageProblem,
                    check_not_in_memory, elapsed, load_study, open_storage, prepare,
                    problem_text, save_clock, storage_file)
from .workers import (Slots, deferred_interrupt, resume_all, run_parallel,
                      work)

INTERRUPTED_EXIT = 130  # 128 + SIGINT, as a shell reports a Ctrl-C


def _positive_int(name):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < 1:
            raise argparse.ArgumentTypeError(
                f"{name} must be an integer >= 1, got {text!r}")
        return value
    return parse


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(
            f"--epochs must be a number > 0, got {text!r}")
    return value


def parser():
    p = argparse.ArgumentParser(
        prog="python -m tools.tune",
        description="Tune every solver with the same budget (Optuna TPE, "
                    "one study per dataset and solver).")
    p.add_argument("--dataset", required=True,
                   help='benchopt dataset selection, e.g. '
                        '"mnist[variant=fashion]"')
    p.add_argument("--solvers", required=True,
                   help=f"comma-separated, among {', '.join(SOLVERS)}")
    p.add_argument("--trials", required=True, type=_positive_int("--trials"),
                   help="the budget of each solver: this many complete "
                        "trials' epochs (--budget work), or this many "
                        "finished trials (--budget trials)")
    p.add_argument("--budget", choices=BUDGETS, default="work",
                   help="how a solver's budget is counted: work, in epochs "
                        "of sample evaluations, each trial charged what it "
                        "ran, pruned and diverged ones included (default); "
                        "trials, in finished trials")
    p.add_argument("--epochs", required=True, type=_positive_float,
                   help="epochs of each trial")
    p.add_argument("--storage", required=True,
                   help="outputs/<name>.db (SQLite), .log (journal file) "
                        "or a database URL")
    p.add_argument("--jobs", type=_positive_int("--jobs"), default=1,
                   help="parallel worker processes on this machine")
    p.add_argument("--dask-address", metavar="tcp://HOST:8786",
                   help="run the studies on the dask cluster of this "
                        "scheduler, one task per solver (the storage must "
                        "be one every worker reaches: a .log journal file "
                        "on a shared file system or a database URL)")
    p.add_argument("--dask-workers", metavar="N",
                   type=_positive_int("--dask-workers"),
                   help="run the studies on a dask cluster of N "
                        "single-threaded processes of this machine")
    p.add_argument("--seed", type=int, default=0, help="the sampler's seed")
    p.add_argument("--splits", type=_positive_int("--splits"), default=1,
                   help="score each trial on this many splits (benchopt "
                        "run's repetitions 0, 1, ...: each its own data "
                        "split and starting point), the criterion averaged "
                        "over them (default: %(default)s)")
    p.add_argument("--evals", type=_positive_int("--evals"), default=10,
                   help="evaluation points over the epochs (the pruner's "
                        "steps)")
    p.add_argument("--metric", default="value",
                   help=f"validation-side criterion, one of {list(METRICS)}")
    p.add_argument("--pruner", choices=PRUNERS, default="hyperband")
    p.add_argument("--first", default=",".join(FIRST),
                   metavar="SOURCES",
                   help="the known-good points each new study runs first, "
                        "in order: sweep (the dataset's tuned values, "
                        "benchmark_utils/tuned.py), defaults (the solver's "
                        "own), config=PATH (the solver's line in a run "
                        "config, e.g. another task's --write); "
                        "comma-separated, or none (default: %(default)s)")
    p.add_argument("--range", action="append", default=[],
                   metavar="NAME=LOW:HIGH",
                   help="a parameter's range, narrower or wider than "
                        "its default (docs/comparisons.md lists them)")
    p.add_argument("--continue-from", metavar="OLD_STORAGE",
                   help="start each new study with the trials of the same "
                        "study in OLD_STORAGE, made with the same settings "
                        "but narrower ranges: widen a range (--range) on a "
                        "new --storage without losing the finished work; "
                        "--trials counts them")
    p.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                   help="fix a parameter (not searched), e.g. R=tuned")
    p.add_argument("--fail-running", action="store_true",
                   help="mark running trials failed first (a journal file's "
                        "trials whose process was killed; those stopped by "
                        "Ctrl-C are kept, and resumed)")
    p.add_argument("--write", metavar="PATH",
                   help="write the best configurations as a run config")
    p.add_argument("--record", metavar="PATH",
                   help="the JSON record (default: the storage's name with "
                        ".json)")
    return p


def check_parallel(args):
    """A ValueError when more than one of ``--jobs``, ``--dask-address``
    and ``--dask-workers`` chooses where the trials run."""
    given = [name for name, on in (
        ("--jobs", args.jobs > 1), ("--dask-address", args.dask_address),
        ("--dask-workers", args.dask_workers)) if on]
    if len(given) > 1:
        raise ValueError(f"{' and '.join(given)}: give one of them (where "
                         "the trials run)")


def settings_of(args):
    """The ``Settings`` of parsed arguments; ValueError on bad values."""
    check_parallel(args)
    check_not_in_memory(args.storage)
    solvers = check_solvers([s.strip() for s in args.solvers.split(",")
                             if s.strip()])
    ranges = dict(parse_range(r) for r in args.range)
    fixed = dict(parse_fixed(f) for f in args.fix)
    check_fixed(solvers, fixed)
    clash = sorted(set(ranges) & set(fixed))
    if clash:
        raise ValueError(f"--range and --fix both name {clash}")
    check_ranges(solvers, ranges, fixed)
    first = [] if args.first.strip() == "none" else [
        f.strip() for f in args.first.split(",") if f.strip()]
    return Settings(dataset=args.dataset, solvers=solvers,
                    trials=args.trials, epochs=args.epochs,
                    storage=args.storage, evals=args.evals,
                    metric=check_metric(args.metric), pruner=args.pruner,
                    seed=args.seed, ranges=ranges, fixed=fixed,
                    first=check_first(first), budget=args.budget,
                    splits=args.splits,
                    continue_from=_continue_from(args))


def _continue_from(args):
    """``--continue-from``, checked: another storage than ``--storage``
    (a ValueError otherwise)."""
    old = args.continue_from
    if old is None:
        return None
    check_not_in_memory(old)
    a, b = storage_file(old), storage_file(args.storage)
    if old == args.storage or (a is not None and b is not None
                               and a.exists() and same_file(a, b)):
        raise ValueError(f"--continue-from {old} is --storage itself; give "
                         "the older storage, and a new --storage for the "
                         "wider ranges")
    if a is not None and not a.exists():
        raise ValueError(f"--continue-from {old}: no such file")
    return old


def check_outputs(storage, outputs):
    """A ValueError when an output (``{option: path or None}``) is the
    storage's file or another output: writing it would replace that."""
    taken = []
    data = storage_file(storage)
    if data is not None:
        taken.append(("--storage", data))
    for option, path in outputs.items():
        if path is None:
            continue
        path = Path(path)
        if path.is_dir():
            raise ValueError(f"{option} {path} is a folder; give a file "
                             "path")
        for other, where in taken:
            if same_file(path, where):
                what = ("the tuning database" if other == "--storage"
                        else "that output")
                raise ValueError(
                    f"{option} {path} is the file of {other} ({where}): "
                    f"writing it would replace {what}; give {option} "
                    "another path")
        taken.append((option, path))


def inputs_of(settings):
    """{what: path} of the files the tuning reads besides its storage:
    ``--continue-from``'s storage and its record (its name with
    ``.json``), the run configs of ``--first config=PATH``."""
    found = {}
    old = (None if settings.continue_from is None
           else storage_file(settings.continue_from))
    if old is not None:
        found["--continue-from"] = old
        found["--continue-from's record"] = old.with_suffix(".json")
    configs = [f[len(CONFIG):] for f in settings.first
               if f.startswith(CONFIG)]
    if configs:
        found["--first config"] = configs
    return found


class Clock:
    """This invocation's wall time, kept in the storage (the first
    solver's study) so that an interrupted invocation counts too."""

    def __init__(self, settings):
        self.t0, self.started = time.perf_counter(), time.time()
        self.key = (f"{socket.gethostname()} {os.getpid()} "
                    f"{time.strftime('%Y-%m-%dT%H:%M:%S')} "
                    f"{uuid.uuid4().hex[:8]}")
        self.study = load_study(open_storage(settings.storage), settings,
                                settings.solvers[0])

    def __call__(self):
        """Save the time so far (a Ctrl-C held until it is saved)."""
        with deferred_interrupt():
            save_clock(self.study, self.key, time.perf_counter() - self.t0)


def check_fixed_values(runner, settings):
    """Every solver's ``--fix`` values through its own configuration
    check (a ValueError naming them), before any trial."""
    for solver in settings.solvers:
        runner.check_fixed(solver, settings.fixed_of(solver))


def run_trials(settings, todo, args, runner, clock):
    """Run the remaining trials (``todo`` per solver) on ``--jobs``
    processes or a dask cluster (``--dask-address``, ``--dask-workers``),
    printing the progress after each; the clock is saved on the way out,
    Ctrl-C included."""
    try:
        if args.dask_address or args.dask_workers:
            run_on_cluster(settings, todo, clock, args.dask_address,
                           args.dask_workers, start=clock.started)
        elif args.jobs == 1:
            work(settings, Slots(todo), runner=runner, clock=clock,
                 progress=TrialProgress(settings, start=clock.started))
        else:
            progress = TrialProgress(settings, parallel=args.jobs,
                                     per_study=True, start=clock.started)
            left = resume_all(settings, todo, runner, clock, progress)
            run_parallel(settings, left, args.jobs, clock,
                         progress=progress)
    finally:
        try:
            clock()
        except STORAGE_ERRORS:
            pass


def write_outputs(args, settings, runner, rec_path):
    """The record (and the run config of ``--write``), written
    atomically; their names printed."""
    studies = [load_study(open_storage(settings.storage), settings, s)
               for s in settings.solvers]
    rec = record(settings, runner.tuning_key, elapsed(studies))
    write_record(rec_path, rec)
    print(summary(rec))
    print(f"\nrecord written to {rec_path}")
    if args.write:
        write_atomic(args.write, config_text(rec, rec_path))
        print(f"run config written to {args.write}: benchopt run . "
              f"--config {args.write}")


def storage_error(p, storage, err):
    """Exit (code 2) with one line naming the storage and what to do."""
    text = str(err) if isinstance(err, StorageProblem) else problem_text(
        storage, err)
    print(f"{p.prog}: error: {text}", file=sys.stderr)
    raise SystemExit(2)


def main(argv=None):
    """The command: its exit code; Ctrl-C ends it with one line (the
    trials it stopped are resumed by the same command)."""
    p = parser()
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _tune(p, args)
    except KeyboardInterrupt:
        print(f"{p.prog}: interrupted: the finished trials are kept in "
              f"--storage {args.storage}, and the trials stopped are run "
              "again first: run the same command to resume the tuning",
              file=sys.stderr, flush=True)
        raise SystemExit(INTERRUPTED_EXIT) from None


def _tune(p, args):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        settings = settings_of(args)
        rec_path = record_path(settings, args.record)
        outputs = {"--record": rec_path, "--write": args.write}
        check_outputs(settings.storage, outputs)
        refuse_inputs(p, outputs, inputs_of(settings))
        runner = Runner(settings.dataset, settings.splits)
        runner.check_metric(settings.metric)
        check_fixed_values(runner, settings)
        todo, lines = prepare(settings, args.fail_running,
                              tuning_key=runner.tuning_key)
        clock = Clock(settings)
    except ValueError as err:
        p.error(str(err))
    except StorageProblem as err:
        storage_error(p, args.storage, err)
    print("\n".join(lines), flush=True)
    try:
        if sum(todo.values()):
            run_trials(settings, todo, args, runner, clock)
        else:
            clock()
    except (StorageProblem, optuna.exceptions.StorageInternalError) as err:
        storage_error(p, args.storage, err)
    except ClusterProblem as err:
        print(f"{p.prog}: error: {err}", file=sys.stderr)
        raise SystemExit(2)
    try:
        write_outputs(args, settings, runner, rec_path)
    except (StorageProblem, optuna.exceptions.StorageInternalError) as err:
        storage_error(p, args.storage, err)
    except ValueError as err:
        p.error(str(err))
    return 0
