"""The command line of ``python -m tools.tune`` (see the package
docstring)."""
import argparse
import json
import sys
import time
from pathlib import Path

import optuna

from .report import (add_eval_freq, config_text, record, record_path,
                     summary, write_record)
from .run import METRICS, Runner, check_metric
from .space import (SOLVERS, check_fixed, check_solvers, parse_fixed,
                    parse_range)
from .study import PRUNERS, Settings, prepare
from .workers import Slots, run_parallel, work


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
                   help="trials per solver (finished ones count)")
    p.add_argument("--epochs", required=True, type=_positive_float,
                   help="epochs of each trial")
    p.add_argument("--storage", required=True,
                   help="outputs/<name>.db (SQLite), .log (journal file) "
                        "or a database URL")
    p.add_argument("--jobs", type=_positive_int("--jobs"), default=1,
                   help="parallel worker processes on this machine")
    p.add_argument("--seed", type=int, default=0, help="the sampler's seed")
    p.add_argument("--evals", type=_positive_int("--evals"), default=10,
                   help="evaluation points over the epochs (the pruner's "
                        "steps)")
    p.add_argument("--metric", default="value",
                   help=f"validation-side criterion, one of {list(METRICS)}")
    p.add_argument("--pruner", choices=PRUNERS, default="hyperband")
    p.add_argument("--range", action="append", default=[],
                   metavar="NAME=LOW:HIGH", help="narrow a parameter's range")
    p.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                   help="fix a parameter (not searched), e.g. R=tuned")
    p.add_argument("--fail-running", action="store_true",
                   help="mark running trials failed first (a journal file's "
                        "trials whose process was killed)")
    p.add_argument("--write", metavar="PATH",
                   help="write the best configurations as a run config")
    p.add_argument("--record", metavar="PATH",
                   help="the JSON record (default: the storage's name with "
                        ".json)")
    return p


def settings_of(args):
    """The ``Settings`` of parsed arguments; ValueError on bad values."""
    solvers = check_solvers([s.strip() for s in args.solvers.split(",")
                             if s.strip()])
    ranges = dict(parse_range(r) for r in args.range)
    fixed = dict(parse_fixed(f) for f in args.fix)
    check_fixed(solvers, fixed)
    clash = sorted(set(ranges) & set(fixed))
    if clash:
        raise ValueError(f"--range and --fix both name {clash}")
    return Settings(dataset=args.dataset, solvers=solvers,
                    trials=args.trials, epochs=args.epochs,
                    storage=args.storage, evals=args.evals,
                    metric=check_metric(args.metric), pruner=args.pruner,
                    seed=args.seed, ranges=ranges, fixed=fixed)


def earlier_elapsed(rec_path, settings, todo):
    """Wall time of the earlier runs of a resumed tuning, from its record
    (0 for a fresh one), so that the record's ``elapsed_seconds`` is the
    whole tuning's."""
    fresh = sum(todo.values()) == settings.trials * len(settings.solvers)
    if fresh or not Path(rec_path).is_file():
        return 0.0
    try:
        earlier = json.loads(Path(rec_path).read_text())
    except ValueError:
        return 0.0
    return float(earlier.get("elapsed_seconds", 0.0))


def best_rates(runner, rec, epochs):
    """Sample evaluations per iteration of each solver's best
    configuration in the record ``rec`` over ``epochs`` epochs (for the
    run config's ``eval_freq``; restarts and random full passes
    included)."""
    return {solver: runner.samples_per_iteration(
                solver, srec["best"]["parameters"], epochs)
            for solver, srec in rec["solvers"].items()
            if srec["best"] is not None}


def main(argv=None):
    p = parser()
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        settings = settings_of(args)
        rec_path = record_path(settings, args.record)
        runner = Runner(settings.dataset)
        runner.check_metric(settings.metric)
        todo, lines = prepare(settings, args.fail_running)
    except ValueError as err:
        p.error(str(err))
    print("\n".join(lines), flush=True)
    t0 = time.perf_counter()
    if sum(todo.values()):
        if args.jobs == 1:
            work(settings, Slots(todo), runner=runner)
        else:
            run_parallel(settings, todo, args.jobs)
    elapsed = time.perf_counter() - t0 + earlier_elapsed(
        rec_path, settings, todo)
    rec = record(settings, runner.tuning_key, elapsed)
    if args.write:
        add_eval_freq(rec, best_rates(runner, rec, settings.epochs),
                      runner.n_samples)
    write_record(rec_path, rec)
    print(summary(rec))
    print(f"\nrecord written to {rec_path}")
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(config_text(rec, rec_path))
        print(f"run config written to {args.write}: benchopt run . "
              f"--config {args.write}")
    return 0
