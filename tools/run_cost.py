"""What a ``benchopt run`` costs beyond its solvers' own time, and where it
goes.

    python -m tools.run_cost [--profile] -- benchopt run . -d ... -s ...

runs the command (``--no-plot`` and an ``--output`` of its own are added
unless given), times its wall clock, reads the results it wrote and prints
the ratio of the wall clock to the solvers' own time (the sum over runs of
each run's last ``time``, what benchopt's curves are drawn against).  With
``--profile`` the command runs in this process under ``cProfile`` and the
wall clock is split into buckets (``BUCKETS``): the solvers' compiled
loops, the exact metrics (their reference results apart), the dataset's
preparation (``get_data``, ``set_data``), benchopt's start-up (imports,
reading the benchmark), and the rest (benchopt's bookkeeping, writing the
results).  docs/performance.md "Where a run's time goes" gives the
figures.
"""
import argparse
import cProfile
import pstats
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

# bucket -> (file suffix, function name) whose cumulative time it is
BUCKETS = {
    "solvers' own time (compiled loops)": (
        "benchmark_utils/algorithms/common.py", "run_until"),
    "exact metrics (all)": ("objective.py", "evaluate_result"),
    "  of which reference results": (
        "benchmark_utils/metrics.py", "references"),
    "dataset: get_data": ("benchopt/base.py", "_get_data"),
    "dataset: set_data": ("objective.py", "set_data"),
    "solver set-up (set_objective, compile)": (
        "benchopt/base.py", "_set_objective"),
}


def solver_time(parquet):
    """The sum over runs (solver, repetition) of the run's last ``time``:
    the solvers' own time, as benchopt measures it."""
    df = pd.read_parquet(parquet)
    keys = [k for k in ("dataset_name", "objective_name", "solver_name",
                        "idx_rep") if k in df]
    return float(df.groupby(keys)["time"].max().sum()), len(df)


def _with_output(argv, folder):
    argv = list(argv)
    if "--no-plot" not in argv:
        argv.append("--no-plot")
    if "--output" not in argv:
        argv += ["--output", str(Path(folder) / "run_cost")]
    out = Path(argv[argv.index("--output") + 1])
    return argv, out if out.suffix == ".parquet" else Path(
        str(out) + ".parquet")


def _cumulative(stats, suffix, name):
    total = 0.0
    for (path, _, func), (_, _, _, cum, _) in stats.stats.items():
        if func == name and path.endswith(suffix):
            total += cum
    return total


def profile(argv, dump=None):
    """Run ``benchopt ...`` in this process under cProfile; the buckets'
    seconds and the wall clock.  ``dump``: a file for the whole profile
    (``python -m pstats`` reads it)."""
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    try:
        from benchopt.cli import benchopt  # its import is start-up too
        benchopt(args=argv[1:], standalone_mode=False)
    finally:
        prof.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(prof)
    if dump:
        stats.dump_stats(dump)
    return {name: _cumulative(stats, *where)
            for name, where in BUCKETS.items()}, wall


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m tools.run_cost", description=__doc__.split("\n")[0])
    p.add_argument("--profile", action="store_true",
                   help="split the wall clock into buckets (cProfile)")
    p.add_argument("--profile-out", metavar="PATH",
                   help="with --profile: write the whole profile to PATH "
                        "(read it with python -m pstats PATH)")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="-- benchopt run . ...")
    args = p.parse_args(argv)
    command = [a for a in args.command if a != "--"]
    if not command or command[0] != "benchopt":
        p.error("give the command after --, starting with benchopt")
    with tempfile.TemporaryDirectory() as folder:
        command, parquet = _with_output(command, folder)
        if args.profile:
            buckets, wall = profile(command, dump=args.profile_out)
        else:
            start = time.perf_counter()
            done = subprocess.run(command)
            wall = time.perf_counter() - start
            if done.returncode:
                sys.exit(f"the command failed ({done.returncode}): "
                         f"{shlex.join(command)}")
            buckets = None
        own, points = solver_time(parquet)
    print(f"\n{shlex.join(command)}")
    print(f"wall clock {wall:.1f} s; solvers' own time {own:.1f} s over "
          f"{points} points: ratio {wall / own:.2f}")
    if buckets:
        for name, seconds in buckets.items():
            print(f"  {name:<42} {seconds:7.1f} s  "
                  f"{100 * seconds / wall:5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
