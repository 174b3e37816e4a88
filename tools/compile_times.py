"""Where numba's compile time goes: a cold compile, function by function.

    python -m tools.compile_times [--entry core|baselines|metrics|all]
        [--task quadratic|logreg|multilogreg|datacleaning|all]
        [--algorithm stocBiO|AmIGO|...|every] [--dtype float64|float32]
        [--top 25]

Each (entry, task) compiles in a fresh process with an empty
``NUMBA_CACHE_DIR`` (nothing is read from or written to the benchmark's
cache) while numba's compile events are recorded.  Printed per compiled
function: its own time (``self``: numba's typing and lowering of that
function and LLVM's optimisation of it and of the callees it links in,
without the functions it compiles on the way), the time including them
(``total``), and how many specialisations it got; then the sum by module.
``core`` is what a single-loop solver compiles for one task
(``engine.compile_core``), ``baselines`` what a baseline solver
adds after it (``engine.compile_baselines``: its family's loop on
the task, ``--algorithm`` naming one algorithm of the family; ``every``,
the default, compiles all five families), ``metrics`` the exact metrics'
kernels (``exact_kernels.warm_up``, multiclass tasks).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ("core", "baselines", "metrics")
TASKS = ("quadratic", "logreg", "multilogreg", "datacleaning")

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
entry, task, dtype, algorithm = sys.argv[2:6]
algorithm = None if algorithm == 'every' else algorithm
import numpy as np
from numba.core import event
t0 = time.perf_counter()
import benchmark_utils.solver_base  # noqa: F401 (as a run imports it)
import benchmark_utils.engine as base
from benchmark_utils import exact_kernels
t_import = time.perf_counter() - t0
records = []


class Listener(event.Listener):
    def on_start(self, ev):
        records.append(("start", time.perf_counter(), _name(ev)))

    def on_end(self, ev):
        records.append(("end", time.perf_counter(), _name(ev)))


def _name(ev):
    d = ev.data["dispatcher"]
    f = d.py_func
    return f"{f.__module__}.{f.__qualname__}"


dtype = np.float32 if dtype == "float32" else np.float64
event.register("numba:compile", Listener())
t0 = time.perf_counter()
if entry == "core":
    base.compile_core(dtype, task)
elif entry == "baselines":
    base.compile_core(dtype, task)
    t0 = time.perf_counter()
    records.clear()
    base.compile_baselines(dtype, task, algorithm)
else:
    exact_kernels.warm_up()
wall = time.perf_counter() - t0
print(json.dumps(dict(wall=wall, import_s=t_import, records=records)))
"""


def profile(entry, task, dtype="float64", algorithm="every"):
    """(wall seconds, import seconds, {function: [self, total, count]}) of a
    cold compile of ``entry`` for ``task`` in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="compile_times_") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(ROOT), entry, task, dtype,
             algorithm],
            env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out["wall"], out["import_s"], by_function(out["records"])


def by_function(records):
    """Self and inclusive seconds per function from nested start/end
    events (a callee compiles inside its caller's typing)."""
    table = defaultdict(lambda: [0.0, 0.0, 0])
    stack = []  # [name, start, time spent in callees]
    for kind, t, name in records:
        if kind == "start":
            stack.append([name, t, 0.0])
            continue
        name, start, inner = stack.pop()
        total = t - start
        row = table[name]
        row[0] += total - inner
        row[1] += total
        row[2] += 1
        if stack:
            stack[-1][2] += total
    return dict(table)


def report(entry, task, wall, import_s, table, top):
    lines = [f"\n{entry} on {task}: {wall:.1f} s compiling "
             f"(importing the package: {import_s:.1f} s), "
             f"{sum(r[2] for r in table.values())} specialisations of "
             f"{len(table)} functions"]
    lines.append(f"  {'self s':>7} {'total s':>8} {'n':>3}  function")
    rows = sorted(table.items(), key=lambda kv: -kv[1][0])
    for name, (own, total, count) in rows[:top]:
        lines.append(f"  {own:7.2f} {total:8.2f} {count:3d}  {name}")
    modules = defaultdict(float)
    for name, (own, _, _) in table.items():
        modules[name.rsplit(".", 1)[0].replace("benchmark_utils.", "")] \
            += own
    lines.append("  by module (self s): " + ", ".join(
        f"{m} {s:.1f}" for m, s in sorted(modules.items(),
                                          key=lambda kv: -kv[1])))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entry", default="core", choices=ENTRIES + ("all",))
    ap.add_argument("--task", default="all", choices=TASKS + ("all",))
    ap.add_argument("--dtype", default="float64",
                    choices=("float64", "float32"))
    ap.add_argument("--algorithm", default="every",
                    help="baselines: the algorithm whose family compiles "
                         "(default: every family)")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args(argv)
    entries = ENTRIES if args.entry == "all" else (args.entry,)
    tasks = TASKS if args.task == "all" else (args.task,)
    start = time.perf_counter()
    for entry in entries:
        for task in (tasks if entry != "metrics" else ("multiclass",)):
            wall, import_s, table = profile(entry, task, args.dtype,
                                            args.algorithm)
            print(report(entry, task, wall, import_s, table, args.top),
                  flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
