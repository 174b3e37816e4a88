"""An A/B of two builds: ``python -m tools.bench.ab``.

    python -m tools.bench.ab --old e216bda --new HEAD \\
        --shape covtype,mnist --solvers SOBA,SPABA,StocBiO,MRBO \\
        [--processes 40] [--rounds 3] [--minutes 20] [--dtype float32]
        [--sampling blocks] [--chunk 0.05] [--no-aa] [--ci sign|bootstrap]
        [--clock cpu|wall] [--json PATH]
    python -m tools.bench.ab --pool A.json B.json [--ci ...] [--clock ...]

Each build runs in processes of its own (``ab_worker``) from its checkout
(``ab_builds``: a git worktree of the commit, or the working tree for
``WORKTREE``) with its own ``NUMBA_CACHE_DIR``.  The first processes
compile (or load) and warm every (shape, solver) cell, untimed; then, in
each set of processes, every round times, cell after cell, a chunk of the
same ``n_iter`` iterations (about ``--chunk`` seconds, calibrated once on
the new build) on each side in a palindromic order (old new new old, then
new old old new: a linear drift of the machine cancels).  A process keeps
a speed of its own on a cell for its whole life (two processes of one
build: up to 40 % apart, steady for 18 minutes), so after ``--rounds``
rounds every process stops and a new set starts: the set of processes,
not the round, is what is replicated.

The noise check is an A/A: a second process of the new build takes part
in every set as a third side; its ratio to the new build must read "same"
for the A/B to mean anything.  Per cell, ``ab_stats`` gives the median over
the sets of processes of each set's median paired log-ratio (as a ratio
new / old), its 95 % interval (sign test, or bootstrap) and a verdict:
"faster", "slower", "same within ±3 %" or "undecided ..." (the interval
wider than 6 %: more processes).  Sets stop at ``--processes``, at
``--minutes``, or once every cell (A/A included) is decided after
``--min-processes``.  A cell whose interval lies beyond 1.05 breaks the
rule of docs/performance.md (no cell more than 5 % slower) and is
flagged.
"""
import argparse
import datetime
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from . import ab_stats
from .ab_builds import WORKTREE, checkout, scratch_dir
from .report import machine_info
from .settings import REPO, SHAPE_STEP_SIZE, STEP_SIZE
from .shapes import SHAPES

PROG = "python -m tools.bench.ab"
WORKER = Path(__file__).with_name("ab_worker.py")
CLOCKS = ("cpu", "wall")
UNIT = "seconds per iteration"


def parse_args(argv=None):
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old",
                        help="the reference build: a commit (or branch, tag)")
    parser.add_argument("--new", default=WORKTREE,
                        help=f"the build under test: a commit, or {WORKTREE} "
                        "(the working tree as it is; default)")
    parser.add_argument("--shape", default="covtype,mnist",
                        help=f"comma-separated shapes among {SHAPES} or "
                        "'all' (default: covtype,mnist)")
    parser.add_argument("--solvers", default="SOBA,SPABA,StocBiO,MRBO",
                        help="comma-separated presets and baseline solvers")
    parser.add_argument("--dtype", choices=("float64", "float32"),
                        default="float32",
                        help="storage of the real shapes' features (the "
                        "quadratic shape stays float64); default float32")
    parser.add_argument("--sampling", choices=("uniform", "blocks"),
                        default="blocks")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--dim", type=int, default=100,
                        help="d_x = d_y of the quadratic shape")
    parser.add_argument("--n", type=int, default=10000,
                        help="n = m of the quadratic shape")
    parser.add_argument("--processes", type=int, default=40,
                        help="most sets of processes (default 40; 20 gave "
                        "intervals of 2-14 %% on a shared 2-core machine)")
    parser.add_argument("--min-processes", type=int, default=10,
                        help="sets of processes before stopping on every "
                        "cell decided (default 10)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds per set of processes (default 3)")
    parser.add_argument("--minutes", type=float, default=20.0,
                        help="no new set of processes after this many "
                        "minutes (default 20)")
    parser.add_argument("--chunk", type=float, default=0.05,
                        help="seconds of one timed chunk (default 0.05)")
    parser.add_argument("--warmup", type=int, default=50,
                        help="untimed iterations of every cell in every "
                        "process (default 50)")
    parser.add_argument(
        "--clock", choices=CLOCKS, default="cpu",
        help="the time compared: the timing thread's CPU time (default: "
        "leaves out the time other processes held the core) or wall time")
    parser.add_argument("--compile-only", action="store_true",
                        help="compile both builds into their caches, then "
                        "stop (no rounds)")
    parser.add_argument("--no-aa", action="store_true",
                        help="skip the A/A noise check (a second process of "
                        "the new build)")
    parser.add_argument("--ci", choices=ab_stats.METHODS, default="sign",
                        help="interval of the median: sign test (default) or "
                        "bootstrap")
    parser.add_argument("--scratch", metavar="DIR",
                        help="worktrees and numba caches (default: a private "
                        "folder of the temporary directory; the caches are "
                        "kept for the next A/B)")
    parser.add_argument("--json", metavar="PATH",
                        help="write the settings, every round's times and "
                        "the estimates here")
    parser.add_argument("--pool", nargs="+", metavar="JSON",
                        help="time nothing: print the tables of the sets of "
                        "processes of these --json files together (the same "
                        "builds and cells)")
    args = parser.parse_args(argv)
    if args.pool:
        return args
    if not args.old:
        parser.error("--old is required (or --pool)")
    args.shapes = _names(parser, "--shape", args.shape, SHAPES)
    args.solvers = _names(parser, "--solvers", args.solvers, _solver_names())
    for name in ("processes", "min_processes", "rounds", "batch_size",
                 "warmup"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.chunk <= 0 or args.minutes <= 0:
        parser.error("--chunk and --minutes must be > 0")
    return args


def _names(parser, option, text, allowed):
    """The comma-separated names of ``text``, each one of ``allowed``."""
    if text == "all":
        return list(allowed)
    names = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in names if s not in allowed]
    if bad or not names:
        parser.error(f"{option}: unknown {bad or 'empty list'}; choose from "
                     f"{', '.join(allowed)}")
    return names


def _solver_names():
    from benchmark_utils.algorithms import BASELINES, PRESETS
    return tuple(PRESETS) + tuple(BASELINES)


class Worker:
    """A side's process (``ab_worker``) and its request/answer pipe."""

    def __init__(self, build):
        env = dict(os.environ, NUMBA_CACHE_DIR=str(build.cache))
        env.pop("PYTHONPATH", None)
        self.build = build
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER)], cwd=build.root, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            bufsize=1)

    def send(self, **msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def receive(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.build.label} build's process "
                               f"ended (exit {self.proc.wait()}); its error "
                               "is printed above")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"{self.build.label}: {answer['error']}")
        return answer

    def ask(self, **msg):
        self.send(**msg)
        return self.receive()

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send(op="quit")
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def cell_names(args):
    """The (shape, solver) cells, shape by shape."""
    return [(shape, solver) for shape in args.shapes
            for solver in args.solvers]


def prepare_message(args):
    return dict(op="prepare", cells=cell_names(args), dtype=args.dtype,
                sampling=args.sampling, batch_size=args.batch_size,
                step_size={s: STEP_SIZE if s == "quadratic"
                           else SHAPE_STEP_SIZE for s in args.shapes},
                dim=args.dim, n=args.n, warmup=args.warmup)


def start_sides(builds, args, stack, first):
    """Start and prepare one pair (or, with the A/A, trio) of processes.
    The ``first`` ones may compile: old and new at once (one after the
    other when they are one build, so that the second loads what the first
    compiled), the A/A process once the new build's cache is written.
    Later ones load from the caches, all at once."""
    msg = prepare_message(args)
    sides = ("new", "old") + (() if args.no_aa else ("aa",))
    build = dict(builds, aa=builds["new"])
    shared = builds["old"] is builds["new"]
    workers, seconds = {}, {}
    for side in sides:
        if first and side == "aa" and "new" not in seconds:
            seconds["new"] = workers["new"].receive()["s"]
        workers[side] = stack.enter_context(_closing(Worker(build[side])))
        workers[side].send(**msg)
        if first and shared and side == "new":
            seconds["new"] = workers["new"].receive()["s"]
    for side in sides:
        if side not in seconds:
            seconds[side] = workers[side].receive()["s"]
    return workers, seconds


class _closing:
    def __init__(self, worker):
        self.worker = worker

    def __enter__(self):
        return self.worker

    def __exit__(self, *exc):
        self.worker.close()


def palindrome(sides, round_index):
    """The round's order of the sides: one permutation and its reverse,
    rotating through the permutations from round to round."""
    perms = list(itertools.permutations(sides))
    perm = list(perms[round_index % len(perms)])
    return perm + perm[::-1]


def time_rounds(workers, n_iter, rounds, first_round=0):
    """``rounds`` timed rounds of one set of processes; returns {clock:
    {side: [[seconds per iteration, per round] per cell]}} for both
    clocks, and the sample evaluations of each round under
    ``"samples"``."""
    sides = tuple(workers)
    keys = CLOCKS + ("samples",)
    times = {key: {side: [[] for _ in n_iter] for side in sides}
             for key in keys}
    for r in range(first_round, first_round + rounds):
        for cell, k in enumerate(n_iter):
            spent = {key: dict.fromkeys(sides, 0) for key in keys}
            for side in palindrome(sides, r):
                answer = workers[side].ask(op="time", cell=cell, n_iter=k)
                if answer["iters"] != k:
                    raise RuntimeError(f"cell {cell} of the {side} build "
                                       f"ran {answer['iters']} of {k} "
                                       "iterations (diverged?)")
                for key in keys:
                    spent[key][side] += answer[key]
            for clock, side in itertools.product(CLOCKS, sides):
                spent[clock][side] /= 2 * k  # two chunks per side
            for key, side in itertools.product(keys, sides):
                times[key][side][cell].append(spent[key][side])
    return times


def same_work(samples, num, den, cell):
    """Whether both sides evaluated the same samples in every round of
    ``cell`` (builds whose iterations differ, e.g. in SPABA's random full
    passes, compare different work per iteration)."""
    return samples[num][cell] == samples[den][cell]


def measure(builds, args, cells, on_set=None):
    """Process after process: start, (first: calibrate), time
    ``--rounds`` rounds, stop; until ``--processes``, ``--minutes``, a
    kill, or every cell decided.  Calls ``on_set(times, n_iter)`` after
    each set.  Returns ({clock: {side: [[[seconds per iteration, per
    round] per set of processes] per cell]}}, iterations per chunk,
    start-up seconds)."""
    times = None
    n_iter = None
    startup = []
    t_end = time.perf_counter() + 60.0 * args.minutes
    for g in range(args.processes):
        try:
            part, n_iter = one_set(builds, args, cells, g, n_iter, startup)
        except (Stopped, KeyboardInterrupt):
            print(f"stopped: {g} complete sets of processes", flush=True)
            if g == 0:
                raise
            break
        if part is None:
            return None, None, startup
        if times is None:
            times = {key: {side: [[] for _ in cells] for side in sides}
                     for key, sides in part.items()}
        for key, sides in part.items():
            for side, cell_rounds in sides.items():
                for cell, rounds in enumerate(cell_rounds):
                    times[key][side][cell].append(rounds)
        if on_set:
            on_set(times, n_iter)
        if progress(times[args.clock], args, g + 1, t_end):
            break
    return times, n_iter, startup


def one_set(builds, args, cells, g, n_iter, startup):
    """Start the ``g``-th set of processes, calibrate (the first set),
    time its rounds; returns (times, n_iter), or (None, None) after the
    first set's compile with ``--compile-only``."""
    t0 = time.perf_counter()
    with ExitStack() as stack:
        workers, prep = start_sides(builds, args, stack, first=g == 0)
        startup.append(time.perf_counter() - t0)
        if g == 0:
            print("processes 1 compiled or loaded and warmed (s): "
                  + ", ".join(f"{s} {v:.0f}" for s, v in prep.items()),
                  flush=True)
            if args.compile_only:
                return None, None
            n_iter = [workers["new"].ask(op="calibrate", cell=i,
                                         target=args.chunk)["n_iter"]
                      for i in range(len(cells))]
            print("iterations per chunk: " + ", ".join(
                f"{sh} {so} {k}" for (sh, so), k in zip(cells, n_iter)),
                flush=True)
        return time_rounds(workers, n_iter, args.rounds,
                           first_round=g * args.rounds), n_iter


def progress(times, args, done, t_end):
    """A line per set of processes; whether to stop (``--minutes``
    reached, or every cell decided after ``--min-processes``)."""
    ests = estimates(times, pairs_of(times), args.ci)
    widest = max(e.width for e in ests[("new", "old")])
    left = (t_end - time.perf_counter()) / 60
    print(f"processes {done}: {args.minutes - left:.1f} min, widest A/B "
          f"CI {100 * widest:.1f} %", flush=True)
    if time.perf_counter() > t_end:
        print(f"--minutes {args.minutes:g} reached after {done} sets of "
              "processes", flush=True)
        return True
    return done >= args.min_processes and all(
        not ab_stats.verdict(e).startswith("undecided")
        for es in ests.values() for e in es)


def estimates(times, pairs, method):
    """{(num, den): [Estimate per cell]} of the ratios num / den, one
    log-ratio per set of processes."""
    return {(num, den): [ab_stats.estimate(
        ab_stats.process_log_ratios(a, b), method)
        for a, b in zip(times[num], times[den])] for num, den in pairs}


def pairs_of(sides):
    return [("new", "old")] + ([("aa", "new")] if "aa" in sides else [])


def print_table(title, cells, ests, times, pair, samples):
    """One line per cell: both sides' µs per iteration, the ratio, its
    interval, the spread between sets of processes (median absolute
    deviation) and the verdict."""
    num, den = pair
    print(f"\n{title}")
    head = (f"{'cell':<20}{den + ' µs/it':>13}{num + ' µs/it':>13}"
            f"{num + '/' + den:>9}  {'95 % CI':<13}{'sets':>5}{'proc ±':>8}"
            "  verdict")
    print(head)
    print("-" * len(head))
    for i, ((shape, solver), est) in enumerate(zip(cells, ests)):
        us = {s: 1e6 * ab_stats.median(
            [t for proc in times[s][i] for t in proc]) for s in (num, den)}
        flag = "  (rule: > 5 % slower)" if (
            num == "new" and ab_stats.slipped(est)) else ""
        if not same_work(samples, num, den, i):
            flag += "  (samples differ: not the same work)"
        print(f"{shape + ' ' + solver:<20}{us[den]:>13.2f}{us[num]:>13.2f}"
              f"{est.ratio:>9.3f}  {est.low:.3f}-{est.high:<7.3f}"
              f"{est.n:>5}{100 * est.spread:>7.1f}%  "
              f"{ab_stats.verdict(est)}{flag}",
              flush=True)


def print_noise(ests):
    """The A/A's summary: what the noise check says of the A/B."""
    bad = [e for e in ests if not ab_stats.verdict(e).startswith("same")]
    widest = max(e.width for e in ests)
    print(f"\nnoise check (A/A): ratios {min(e.ratio for e in ests):.3f}-"
          f"{max(e.ratio for e in ests):.3f}, widest CI "
          f"{100 * widest:.1f} %; " + (
              "every cell reads the same: the A/B's verdicts stand" if not bad
              else f"{len(bad)} cell(s) do not read the same: the machine's "
              "noise or a bias of the order exceeds the band; read the A/B "
              "with care"), flush=True)


def main(argv=None):
    """Check out, compile, time the sets of processes, print the
    verdicts."""
    args = parse_args(argv)
    if args.pool:
        return pool(args)
    signal.signal(signal.SIGTERM, _stop)
    info = machine_info()
    cells = cell_names(args)
    started = datetime.datetime.now().isoformat(timespec="seconds")
    print(f"{PROG} {' '.join(sys.argv[1:] if argv is None else argv)}\n"
          f"{started}, {info.get('cpu')}, {info.get('nproc')} cores",
          flush=True)
    scratch = scratch_dir(args.scratch)
    t0 = time.perf_counter()
    with ExitStack() as stack:
        old = stack.enter_context(checkout(REPO, args.old, scratch))
        same = args.new != WORKTREE and old.commit and _same_commit(
            old, args.new)
        new = old if same else stack.enter_context(
            checkout(REPO, args.new, scratch))
        builds = dict(old=old, new=new)
        print(f"old {old.name} = {old.label} ({old.root}), "
              f"new {new.name} = {new.label} ({new.root})", flush=True)
        header = dict(started=started, machine=info, builds={
            s: dict(name=b.name, commit=b.commit) for s, b in builds.items()},
            settings={k: v for k, v in vars(args).items() if k != "json"},
            cells=[list(c) for c in cells])

        def record(times, n_iter):
            if args.json:
                write_json(args.json, header, n_iter, times, args.ci)
        times, n_iter, startup = measure(builds, args, cells, record)
    if times is None:
        return 0
    print_results(args, {s: b.label for s, b in builds.items()}, cells,
                  times,
                  dict(total=time.perf_counter() - t0, startup=startup))
    if args.json:
        print(f"\nfigures written to {args.json}")
    return 0


def print_results(args, labels, cells, times, seconds=None):
    """The A/B's table, the A/A's and the noise check's summary
    (``labels``: the old and new builds' short names)."""
    samples = times["samples"]
    times = times[args.clock]
    ests = estimates(times, pairs_of(times), args.ci)
    counts = sorted({len(sets) for sets in times["new"]})
    sets = "-".join(str(c) for c in dict.fromkeys((counts[0], counts[-1])))
    took = "" if seconds is None else (
        f" in {seconds['total'] / 60:.1f} min (start-ups "
        f"{sum(seconds['startup']) / 60:.1f} min, the first "
        f"{seconds['startup'][0]:.0f} s)")
    print(f"\n{sets} sets of processes per cell x {args.rounds} rounds"
          f"{took}; "
          f"chunks of ~{args.chunk:g} s, {args.clock} time, {args.ci} "
          "interval", flush=True)
    print_table(f"A/B: new {labels['new']} / old {labels['old']}", cells,
                ests[("new", "old")], times, ("new", "old"), samples)
    if ("aa", "new") in ests:
        print_table("A/A: new / new (a second process of the new build)",
                    cells, ests[("aa", "new")], times, ("aa", "new"),
                    samples)
        print_noise(ests[("aa", "new")])


class Stopped(Exception):
    """A plain kill (SIGTERM) or Ctrl-C: the complete sets of processes
    are reported and the worktrees removed."""


def _stop(*_):
    raise Stopped()


def _same_commit(old, rev):
    from .ab_builds import resolve
    return resolve(REPO, rev) == old.commit


def write_json(path, header, n_iter, times, method):
    """The header (date, machine, builds, settings, cells), the iterations
    per chunk, every round's seconds and samples (per clock, side, cell
    and set of processes) and the estimates with their verdicts; written
    after every set of processes."""
    def est_dict(e):
        return dict(ratio=e.ratio, low=e.low, high=e.high, n=e.n,
                    spread=e.spread, verdict=ab_stats.verdict(e),
                    slipped=ab_stats.slipped(e))
    clock = header["settings"]["clock"]
    ests = estimates(times[clock], pairs_of(times[clock]), method)
    out = dict(header, n_iter=n_iter, unit=UNIT, times=times, estimates={
        f"{num}/{den}": [est_dict(e) for e in es]
        for (num, den), es in ests.items()})
    Path(path).write_text(json.dumps(out, indent=1, default=_finite))


def load_sets(path):
    """A ``--json`` file, its times in seconds per iteration (older files
    hold the seconds of a round's two chunks of ``n_iter`` iterations, and
    no sample evaluations)."""
    data = json.loads(Path(path).read_text())
    cpu = data["times"]["cpu"]
    data["times"].setdefault("samples", {  # not recorded: taken as equal
        side: [[None] * len(sets) for sets in cells]
        for side, cells in cpu.items()})
    if data.get("unit") != UNIT:
        for clock in CLOCKS:
            for cells in data["times"][clock].values():
                for i, sets in enumerate(cells):
                    k = 2 * data["n_iter"][i]
                    cells[i] = [[t / k for t in rounds] for rounds in sets]
    return data


def pool(args):
    """``--pool``: the sets of processes of several runs of the same two
    builds read as one run, cell by cell (a cell pools the runs that timed
    it; ``--clock``, ``--ci`` apply)."""
    runs = [load_sets(path) for path in args.pool]
    first = runs[0]

    def commits(run):
        return {s: b["commit"] for s, b in run["builds"].items()}

    def sides(run):
        return sorted(run["times"]["cpu"])
    for path, run in zip(args.pool[1:], runs[1:]):
        if commits(run) != commits(first) or sides(run) != sides(first):
            raise ValueError(f"--pool: {path} times other builds (or "
                             f"sides) than {args.pool[0]}")
    cells = list(dict.fromkeys(tuple(c) for run in runs
                               for c in run["cells"]))
    times = {key: {side: [[] for _ in cells] for side in sides(first)}
             for key in first["times"]}
    for run in runs:
        for i, cell in enumerate(map(tuple, run["cells"])):
            for key, side in itertools.product(times, sides(first)):
                times[key][side][cells.index(cell)].extend(
                    run["times"][key][side][i])
    settings = argparse.Namespace(**dict(
        first["settings"], clock=args.clock, ci=args.ci))
    labels = {s: (c or WORKTREE)[:10] for s, c in commits(first).items()}
    print(f"{len(runs)} runs pooled: " + ", ".join(
        f"{path} ({run['started']})" for path, run in zip(args.pool, runs)))
    print_results(settings, labels, cells, times)
    return 0


def _finite(x):
    return None if isinstance(x, float) and not math.isfinite(x) else str(x)


if __name__ == "__main__":
    sys.exit(main())
