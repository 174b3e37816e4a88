"""An A/B of two builds: ``python -m tools.bench.ab``.

    python -m tools.bench.ab --old e216bda --new HEAD \\
        --shape covtype,mnist --solvers SOBA,SPABA,StocBiO,MRBO \\
        [--rounds 200] [--minutes 15] [--dtype float32] [--sampling blocks]
        [--chunk 0.05] [--no-aa] [--ci sign|bootstrap] [--json PATH]

Each build runs in a long-lived process of its own (``ab_worker``) from
its checkout (``ab_builds``: a git worktree of the commit, or the working
tree for ``WORKTREE``) with its own ``NUMBA_CACHE_DIR``.  Both compile and
warm every (shape, solver) cell first, untimed and in parallel; then every
round times, cell after cell, a chunk of the same ``n_iter`` iterations
(about ``--chunk`` seconds, calibrated on the new build) on each side in a
palindromic order (old new new old, then new old old new: a linear drift
of the machine cancels), and takes per cell the paired ratio of the two
sides' sums.  The noise check is an A/A: a second process of the new build
takes part in every round as a third side, and its ratio to the new build
must read "same" for the A/B to mean anything.

Per cell, ``ab_stats`` gives the median of the per-round paired log-ratios
(as a ratio new / old), its 95 % interval (sign test, or bootstrap) and a
verdict: "faster", "slower", "same within ±3 %" or "undecided ..." (the
interval wider than 6 %: more rounds).  Rounds stop at ``--rounds``, at
``--minutes`` of timing, or once every cell (A/A included) is decided
after ``--min-rounds``.  A cell whose interval lies beyond 1.05 breaks the
rule of docs/performance.md (no cell more than 5 % slower) and is flagged.
"""
import argparse
import datetime
import itertools
import json
import math
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from . import ab_stats
from .ab_builds import WORKTREE, checkout, scratch_dir
from .report import machine_info
from .settings import FULL_SETTINGS, REPO, SHAPE_STEP_SIZE, STEP_SIZE
from .shapes import SHAPES

PROG = "python -m tools.bench.ab"
WORKER = Path(__file__).with_name("ab_worker.py")
CLOCKS = ("cpu", "wall")


def parse_args(argv=None):
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True,
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
    parser.add_argument("--rounds", type=int, default=200,
                        help="most rounds (default 200)")
    parser.add_argument("--min-rounds", type=int, default=30,
                        help="rounds before stopping on every cell decided "
                        "(default 30)")
    parser.add_argument("--minutes", type=float, default=15.0,
                        help="most minutes of timed rounds (default 15)")
    parser.add_argument("--chunk", type=float, default=0.05,
                        help="seconds of one timed chunk (default 0.05)")
    parser.add_argument("--warmup", type=int, default=FULL_SETTINGS["warmup"],
                        help="untimed iterations of every cell first")
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
    args = parser.parse_args(argv)
    args.shapes = _names(parser, "--shape", args.shape, SHAPES)
    args.solvers = _names(parser, "--solvers", args.solvers, _solver_names())
    for name in ("rounds", "min_rounds", "batch_size", "warmup"):
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


def start_sides(builds, args, stack):
    """Start and prepare the workers: old and new compile at once (one
    after the other when they are one build, so that the second loads
    what the first compiled); the A/A process starts once the new build's
    cache is written."""
    msg = prepare_message(args)
    workers, seconds = {}, {}
    shared = builds["old"] is builds["new"]
    for side in ("new", "old"):
        workers[side] = stack.enter_context(_closing(Worker(builds[side])))
        workers[side].send(**msg)
        if shared:
            seconds[side] = workers[side].receive()["s"]
    if not shared:
        seconds["new"] = workers["new"].receive()["s"]
    if not args.no_aa:
        workers["aa"] = stack.enter_context(_closing(Worker(builds["new"])))
        seconds["aa"] = workers["aa"].ask(**msg)["s"]
    if not shared:
        seconds["old"] = workers["old"].receive()["s"]
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


def run_rounds(workers, n_iter, args, on_round=None):
    """Timed rounds; returns {clock: {side: [[seconds per round] per
    cell]}} for both clocks ("cpu", "wall")."""
    sides = tuple(workers)
    times = {clock: {side: [[] for _ in n_iter] for side in sides}
             for clock in CLOCKS}
    t_end = time.perf_counter() + 60.0 * args.minutes
    for r in range(args.rounds):
        for cell, k in enumerate(n_iter):
            spent = {clock: dict.fromkeys(sides, 0.0) for clock in CLOCKS}
            for side in palindrome(sides, r):
                answer = workers[side].ask(op="time", cell=cell, n_iter=k)
                if answer["iters"] != k:
                    raise RuntimeError(f"cell {cell} of the {side} build "
                                       f"ran {answer['iters']} of {k} "
                                       "iterations (diverged?)")
                for clock in CLOCKS:
                    spent[clock][side] += answer[clock]
            for clock, side in itertools.product(CLOCKS, sides):
                times[clock][side][cell].append(spent[clock][side])
        done = r + 1
        if on_round and on_round(done, times[args.clock]):
            break
        if time.perf_counter() > t_end:
            print(f"--minutes {args.minutes:g} reached after {done} rounds",
                  flush=True)
            break
    return times


def estimates(times, pairs, method):
    """{(num, den): [Estimate per cell]} of the paired ratios num / den."""
    return {(num, den): [ab_stats.estimate(
        ab_stats.paired_log_ratios(a, b), method)
        for a, b in zip(times[num], times[den])] for num, den in pairs}


def pairs_of(sides):
    return [("new", "old")] + ([("aa", "new")] if "aa" in sides else [])


def all_decided(times, method):
    return all(not ab_stats.verdict(e).startswith("undecided")
               for ests in estimates(times, pairs_of(times), method).values()
               for e in ests)


def print_table(title, cells, ests, times, num, den, n_iter):
    """One line per cell: both sides' µs per iteration, the ratio, its
    interval, the per-round spread and the verdict."""
    print(f"\n{title}")
    head = (f"{'cell':<20}{den + ' µs/it':>13}{num + ' µs/it':>13}"
            f"{num + '/' + den:>9}  {'95 % CI':<13}{'round ±':>8}  verdict")
    print(head)
    print("-" * len(head))
    for i, ((shape, solver), est) in enumerate(zip(cells, ests)):
        us = {s: 1e6 * ab_stats.median(times[s][i]) / (2 * n_iter[i])
              for s in (num, den)}
        flag = "  (rule: > 5 % slower)" if (
            num == "new" and ab_stats.slipped(est)) else ""
        print(f"{shape + ' ' + solver:<20}{us[den]:>13.2f}{us[num]:>13.2f}"
              f"{est.ratio:>9.3f}  {est.low:.3f}-{est.high:<7.3f}"
              f"{100 * est.spread:>7.1f}%  {ab_stats.verdict(est)}{flag}",
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
    """Check out, compile, time the rounds, print the verdicts."""
    args = parse_args(argv)
    info = machine_info()
    cells = cell_names(args)
    started = datetime.datetime.now().isoformat(timespec="seconds")
    print(f"{PROG} {' '.join(sys.argv[1:] if argv is None else argv)}\n"
          f"{started}, {info.get('cpu')}, {info.get('nproc')} cores",
          flush=True)
    scratch = scratch_dir(args.scratch)
    with ExitStack() as stack:
        old = stack.enter_context(checkout(REPO, args.old, scratch))
        same = args.new != WORKTREE and old.commit and _same_commit(
            old, args.new)
        new = old if same else stack.enter_context(
            checkout(REPO, args.new, scratch))
        builds = dict(old=old, new=new)
        print(f"old {old.name} = {old.label} ({old.root}), "
              f"new {new.name} = {new.label} ({new.root})", flush=True)
        t0 = time.perf_counter()
        workers, prep = start_sides(builds, args, stack)
        print("compiled and warmed (s): " + ", ".join(
            f"{s} {v:.0f}" for s, v in prep.items()), flush=True)
        if args.compile_only:
            return 0
        n_iter = [workers["new"].ask(op="calibrate", cell=i,
                                     target=args.chunk)["n_iter"]
                  for i in range(len(cells))]
        print("iterations per chunk: " + ", ".join(
            f"{sh} {so} {k}" for (sh, so), k in zip(cells, n_iter)),
              flush=True)
        t_rounds = time.perf_counter()
        times = run_rounds(workers, n_iter, args,
                           on_round=_progress(args, t_rounds))
        timed_s = time.perf_counter() - t_rounds
    times, all_times = times[args.clock], times
    ests = estimates(times, pairs_of(times), args.ci)
    rounds = len(times["new"][0])
    print(f"\n{rounds} rounds in {timed_s / 60:.1f} min "
          f"(+{(t_rounds - t0) / 60:.1f} min compile and calibration); "
          f"chunks of ~{args.chunk:g} s, {args.clock} time, {args.ci} "
          "interval", flush=True)
    print_table(f"A/B: new {new.label} / old {old.label}", cells,
                ests[("new", "old")], times, "new", "old", n_iter)
    if ("aa", "new") in ests:
        print_table("A/A: new / new (a second process of the new build)",
                    cells, ests[("aa", "new")], times, "aa", "new", n_iter)
        print_noise(ests[("aa", "new")])
    if args.json:
        write_json(args, info, started, builds, cells, n_iter, all_times,
                   ests)
    return 0


def _same_commit(old, rev):
    from .ab_builds import resolve
    return resolve(REPO, rev) == old.commit


def _progress(args, t_start):
    """Every 10 rounds: a progress line; stops once every cell is decided
    after ``--min-rounds``."""
    def on_round(done, times):
        if done % 10:
            return False
        ests = estimates(times, pairs_of(times), args.ci)
        widest = max(e.width for e in ests[("new", "old")])
        print(f"round {done}: {(time.perf_counter() - t_start) / 60:.1f} "
              f"min, widest A/B CI {100 * widest:.1f} %", flush=True)
        return done >= args.min_rounds and all_decided(times, args.ci)
    return on_round


def write_json(args, info, started, builds, cells, n_iter, times, ests):
    """Settings, builds, every round's seconds per clock, side and cell,
    and the estimates with their verdicts."""
    def est_dict(e):
        return dict(ratio=e.ratio, low=e.low, high=e.high, rounds=e.rounds,
                    spread=e.spread, verdict=ab_stats.verdict(e),
                    slipped=ab_stats.slipped(e))
    out = dict(
        started=started, machine=info,
        builds={s: dict(name=b.name, commit=b.commit)
                for s, b in builds.items()},
        settings={k: v for k, v in vars(args).items()
                  if k not in ("json",)},
        cells=[list(c) for c in cells], n_iter=n_iter, times=times,
        estimates={f"{num}/{den}": [est_dict(e) for e in es]
                   for (num, den), es in ests.items()})
    text = json.dumps(out, indent=1, default=_finite)
    Path(args.json).write_text(text)
    print(f"\nfigures written to {args.json}")


def _finite(x):
    return None if isinstance(x, float) and not math.isfinite(x) else str(x)


if __name__ == "__main__":
    sys.exit(main())
