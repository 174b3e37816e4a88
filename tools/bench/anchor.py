"""Back-to-back speed comparison with the reference benchmark.

Run from the repository root::

    python -m tools.bench.anchor [--solvers StocBiO,AmIGO,MRBO]
        [--shapes ijcnn1,covtype,mnist] [--rounds 2]
        [--samplings blocks,uniform] [--dtypes float64,float32] [--quick]
        [--json PATH]

The reference is benchopt/benchmark_bilevel at commit 3ad65dc (JAX,
float32).  It is reached through a *harness*, a directory kept outside this
repository and given by ``--harness PATH`` or the environment variable
``ANCHOR_HARNESS`` (one of the two is required unless ``--no-reference``):
its ``setup.sh`` prepares the reference in ``$ANCHOR_DIR`` (default
``~/.cache/bilevel-anchor``: the checkout ``bb_jax`` and the venv
``venv-jax``), its ``measure.sh`` times it (docs/performance.md, "The
reference benchmark").  Its code is run and measured, never imported here.

Each round runs, one after the other (the machine's speed drifts by tens of
percent over minutes: only figures of the same round are compared):

a. the reference: ``measure.sh SOLVERS DATASETS`` of the harness folder
   (``--harness``, env ``ANCHOR_HARNESS``) on the datasets ijcnn1-shape,
   covtype-shape, mnist-datacleaning-shape (seeded synthetic data of the
   real sizes), batch 64 and the solvers' defaults (T = Q = 10), one fresh
   process per cell; its steady-state time per outer iteration
   (``iter_us`` of ``anchor_driver.py``: the slope between two numbers
   of iterations per evaluation, the per-epoch overhead removed).  The
   round's JSON lines go to a fresh file (``run_matrix.py`` skips cells
   already in its output file), kept under ``--keep-raw DIR`` if given;
b. ours, in this process: the same solvers on the bench's shapes
   (``tools.bench.shapes``: seeded random data of the same sizes, features
   stored as each ``--dtypes`` value (float64 by default; float32 is the
   reference's storage, the arithmetic is float64 either way), one core)
   with each ``--samplings`` value, batch 64, the solvers'
   defaults (baselines: ``algorithms.solver_parameters``; T = Q = 10) and the
   bench's step size; µs per outer iteration from ``timing.steady_state``
   (median of timed chunks after a warm-up).

It then prints one table: per (solver, shape), ours µs per iteration for
each sampling, the reference's, and the ratios ours / reference, each
round's figures side by side (``r1 / r2 / ...``).  The 1-minute load
average is printed before each phase (another job on the 2 cores skews
both sides).  Solver names are the benchopt ones, the same in both
benchmarks (StocBiO, AmIGO, MRBO, SOBA, ...).

Without a harness it stops with a message saying what the harness is and
how to give it; without the reference set up, with a message naming
``setup.sh`` and ``ANCHOR_DIR``.  No network is used.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .settings import FULL_SETTINGS, QUICK_SETTINGS, SHAPE_STEP_SIZE

PROG = "python -m tools.bench.anchor"
DEFAULT_SOLVERS = "StocBiO,AmIGO,MRBO"
# bench shape -> the reference's (harness) dataset
DATASETS = {"ijcnn1": "ijcnn1-shape", "covtype": "covtype-shape",
            "mnist": "mnist-datacleaning-shape"}


NO_HARNESS = (
    "no harness given.\n"
    "The harness is a directory, kept outside this repository, that holds "
    "the reference\nbenchmark (benchopt/benchmark_bilevel at 3ad65dc, JAX, "
    "float32) as prepared by its\nsetup script: setup.sh (the reference's "
    "checkout and venv, into $ANCHOR_DIR),\nmeasure.sh (times its solvers), "
    "run_matrix.py, anchor_driver.py and datasets/\n(seeded data of the "
    "real shapes); see docs/performance.md, \"The reference benchmark\".\n"
    "Give it with --harness PATH or the environment variable "
    "ANCHOR_HARNESS=PATH;\n--no-reference times ours alone.")


class NotSetUp(RuntimeError):
    """The reference benchmark is not where it is looked for."""


def anchor_dir():
    """``$ANCHOR_DIR``, default ``~/.cache/bilevel-anchor``."""
    return Path(os.environ.get("ANCHOR_DIR")
                or Path.home() / ".cache" / "bilevel-anchor")


def check_reference(harness, adir=None):
    """Raise ``NotSetUp`` naming ``setup.sh`` and ``ANCHOR_DIR`` unless
    the harness (``measure.sh``), the checkout and its venv exist."""
    adir = Path(adir) if adir is not None else anchor_dir()
    harness = Path(harness)
    setup = harness / "setup.sh"
    missing = [str(p) for p in (
        harness / "measure.sh", adir / "venv-jax" / "bin" / "python",
        adir / "bb_jax" / "objective.py",
        adir / "bb_jax" / "datasets" / "ijcnn1_shape.py") if not p.exists()]
    if missing:
        raise NotSetUp(
            "the reference benchmark is not set up: missing "
            + ", ".join(missing) + f".\nRun {setup} (about 5 minutes; it "
            f"prepares $ANCHOR_DIR, here {adir}), or point the ANCHOR_DIR "
            "environment variable at a folder it prepared (and --harness / "
            "ANCHOR_HARNESS at the folder of measure.sh).")


def load_avg():
    """1-minute load average (None where unavailable)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


# --------------------------------------------------------------------------
# (a) the reference
# --------------------------------------------------------------------------
def run_reference(harness, solvers, shapes, out_path, timeout=None):
    """``measure.sh`` on ``solvers`` x ``shapes`` writing JSON lines to
    ``out_path``; its progress lines are echoed.  Returns {(solver,
    shape): record} of the cells (``iter_us`` or a ``reason``)."""
    env = dict(os.environ, OUT=str(out_path), ANCHOR_DIR=str(anchor_dir()))
    cmd = ["bash", str(Path(harness) / "measure.sh"), ",".join(solvers),
           ",".join(DATASETS[s] for s in shapes)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    for line in proc.stdout:
        if line.startswith("["):  # run_matrix's one line per cell
            print("  reference " + line.rstrip(), flush=True)
    proc.wait(timeout=timeout)
    cells = {}
    if Path(out_path).exists():
        shape_of = {d: s for s, d in DATASETS.items()}
        for line in Path(out_path).read_text().splitlines():
            if not line.startswith("{"):
                continue
            rec = json.loads(line)
            key = (rec.get("solver"), shape_of.get(rec.get("dataset")))
            cells[key] = rec
    if proc.returncode and not cells:
        raise RuntimeError(f"measure.sh failed (exit {proc.returncode})")
    return cells


def reference_figure(rec):
    """(µs per iteration or None, note) of one reference cell."""
    if rec is None:
        return None, "missing"
    if rec.get("status") == "ok":
        return rec["iter_us"], rec.get("iter_method", "")
    return None, f"{rec.get('status')}: {str(rec.get('reason'))[:120]}"


# --------------------------------------------------------------------------
# (b) ours
# --------------------------------------------------------------------------
def variant(sampling, dtype):
    """Column label of ours with ``sampling`` and features stored as
    ``dtype``: the sampling alone for float64, ``blocks+float32`` else."""
    return sampling if dtype == "float64" else f"{sampling}+{dtype}"


def run_ours(solvers, shapes, samplings, settings, batch_size=64,
             dtypes=("float64",)):
    """Steady state of every (solver, shape, sampling, feature dtype) in
    this process: {(solver, shape, variant(sampling, dtype)): figures of
    ``timing.steady_state``}."""
    from benchmark_utils.data.storage import features_as
    from .shapes import (is_baseline, problem_config, problem_of,
                         shape_data, warm_core)
    from .timing import steady_state
    for dtype in dtypes:
        warm_core(baselines=[s for s in solvers if is_baseline(s)],
                  dtype=dtype)
    out = {}
    for shape, dtype in [(s, d) for s in shapes for d in dtypes]:
        data = features_as(shape_data(shape), dtype)
        problem = problem_of(data)
        for sampling in samplings:
            for name in solvers:
                config = problem_config(problem, name, batch_size,
                                        step_size=SHAPE_STEP_SIZE,
                                        sampling=sampling)
                res = steady_state(problem, config, settings)
                out[name, shape, variant(sampling, dtype)] = res
                print(f"  ours {shape} {variant(sampling, dtype)} {name}: "
                      f"{res.get('us_per_iter', float('nan')):.1f} us/iter"
                      f" ({res.get('samples_per_iter', 0):.0f} samples, "
                      f"{res.get('ns_per_sample', float('nan')):.1f} "
                      "ns/sample)" + (" DIVERGED" if res.get("diverged")
                                      else ""), flush=True)
        del problem, data
    return out


# --------------------------------------------------------------------------
# Table
# --------------------------------------------------------------------------
def fmt(value, spec=".1f"):
    return "-" if value is None else format(value, spec)


def fmt_us(value):
    if value is None:
        return "-"
    return f"{value:,.0f}".replace(",", " ") if value >= 1000 else (
        f"{value:.0f}" if value >= 100 else f"{value:.1f}")


def joined(values, formatter):
    return " / ".join(formatter(v) for v in values)


def table_rows(rounds, solvers, shapes, samplings, versus=None):
    """Rows of the final table: per (solver, shape), each round's ours
    (per sampling), the reference's (its solver ``versus[name]``, the same
    name by default), and ours / reference."""
    versus = versus or {}
    rows = []
    for name in solvers:
        against = versus.get(name, name)
        for shape in shapes:
            ref = [r["reference"].get(f"{against}|{shape}") for r in rounds]
            row = dict(solver=name, against=against, shape=shape,
                       reference_us=ref)
            for sampling in samplings:
                ours = [r["ours"].get(f"{name}|{shape}|{sampling}", {})
                        .get("us_per_iter") for r in rounds]
                row[f"{sampling}_us"] = ours
                row[f"{sampling}_ratio"] = [
                    o / f if o is not None and f else None
                    for o, f in zip(ours, ref)]
            rows.append(row)
    return rows


def print_final(rows, samplings, n_rounds):
    from .report import print_table
    headers = (["solver", "shape"]
               + [f"ours {s} us" for s in samplings] + ["reference us"]
               + [f"{s} / ref" for s in samplings])
    cells = []
    for row in rows:
        cells.append(
            [row["solver"] + ("" if row.get("against", row["solver"])
                              == row["solver"] else
                              f" vs {row['against']}"), row["shape"]]
            + [joined(row[f"{s}_us"], fmt_us) for s in samplings]
            + [joined(row["reference_us"], fmt_us)]
            + [joined(row[f"{s}_ratio"], lambda v: fmt(v, ".2f"))
               for s in samplings])
    print_table(f"Ours (numba, float64 arithmetic, one core; +float32: "
                f"features stored in float32) against the reference "
                f"(JAX, float32), us per outer iteration, batch 64; "
                f"{n_rounds} round(s), shown r1 / r2 / ...", headers, cells)
    for s in samplings:
        ratios = [v for row in rows for v in row[f"{s}_ratio"]
                  if v is not None]
        if ratios:
            print(f"  {s}: ours / reference {min(ratios):.2f}-"
                  f"{max(ratios):.2f} (median {statistics.median(ratios):.2f})")


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------
def parse_args(argv=None):
    from benchmark_utils.algorithms import PRESETS

    from .shapes import baseline_names
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--solvers", default=DEFAULT_SOLVERS,
                        help="comma-separated benchopt solver names, run in "
                        f"both benchmarks (default: {DEFAULT_SOLVERS})")
    parser.add_argument("--shapes", default=",".join(DATASETS),
                        help="comma-separated shapes among "
                        f"{','.join(DATASETS)} (default: all three)")
    parser.add_argument("--versus", default="",
                        help="OURS=REF,...: time our solver OURS against the "
                        "reference's REF (e.g. MA-SOBA=SOBA,SFFBA=SABA: a "
                        "solver the reference does not have, against the "
                        "reference's nearest one); OURS is added to "
                        "--solvers")
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds of (reference, ours) (default: 2)")
    parser.add_argument("--samplings", default="blocks,uniform",
                        help="our sampling values, each timed (default: "
                        "blocks,uniform)")
    parser.add_argument("--dtypes", default="float64",
                        help="storage of ours' features, comma-separated: "
                        "float64 (default), float32 (the reference's "
                        "storage; arithmetic float64 either way)")
    parser.add_argument("--batch-size", type=int, default=64,
                        help="our batch (the reference's cells use 64)")
    parser.add_argument("--harness", metavar="PATH",
                        default=os.environ.get("ANCHOR_HARNESS") or None,
                        help="the harness: the folder of the reference's "
                        "setup.sh and measure.sh (default: env "
                        "ANCHOR_HARNESS; required unless --no-reference); "
                        "the reference itself is in $ANCHOR_DIR")
    parser.add_argument("--quick", action="store_true",
                        help="our short timings (the reference's are its "
                        "harness's own)")
    parser.add_argument("--no-reference", action="store_true",
                        help="ours only (no reference cells, no ratios)")
    parser.add_argument("--keep-raw", metavar="DIR",
                        help="keep the reference's JSON lines here, one "
                        "file per round")
    parser.add_argument("--json", metavar="PATH",
                        help="write every figure here")
    args = parser.parse_args(argv)
    split = (lambda text: [s.strip() for s in text.split(",") if s.strip()])
    args.solvers, args.shapes = split(args.solvers), split(args.shapes)
    args.samplings = split(args.samplings)
    pairs = [p.split("=", 1) for p in split(args.versus)]
    if any(len(p) != 2 for p in pairs):
        parser.error(f"--versus takes OURS=REF pairs, got {args.versus!r}")
    args.versus = {a.strip(): b.strip() for a, b in pairs}
    args.solvers += [s for s in args.versus if s not in args.solvers]
    args.reference_solvers = list(dict.fromkeys(
        args.versus.get(s, s) for s in args.solvers))
    known = list(PRESETS) + list(baseline_names())
    bad = [s for s in args.reference_solvers if s not in known]
    if bad:
        parser.error(f"unknown reference solvers {bad}; choose from {known}")
    bad = [s for s in args.solvers if s not in known]
    if bad or not args.solvers:
        parser.error(f"unknown solvers {bad}; choose from {known}")
    bad = [s for s in args.shapes if s not in DATASETS]
    if bad or not args.shapes:
        parser.error(f"unknown shapes {bad}; choose from {list(DATASETS)}")
    bad = [s for s in args.samplings if s not in ("blocks", "uniform")]
    if bad or not args.samplings:
        parser.error(f"unknown samplings {bad}; choose blocks, uniform")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    args.dtypes = split(args.dtypes)
    bad = [d for d in args.dtypes if d not in ("float64", "float32")]
    if bad or not args.dtypes:
        parser.error(f"unknown dtypes {bad}; choose float64, float32")
    # the table's columns: one per (sampling, dtype)
    args.variants = [variant(s, d) for d in args.dtypes
                     for s in args.samplings]
    return args


def main(argv=None):
    args = parse_args(argv)
    if not args.no_reference:
        if not args.harness:
            print(f"{PROG}: error: {NO_HARNESS}", file=sys.stderr)
            return 2
        try:
            check_reference(args.harness)
        except NotSetUp as err:
            print(f"{PROG}: error: {err}", file=sys.stderr)
            return 2
    from .report import machine_info
    settings = QUICK_SETTINGS if args.quick else FULL_SETTINGS
    info = machine_info()
    print(f"{PROG}: {', '.join(args.solvers)} on {', '.join(args.shapes)}; "
          f"{args.rounds} round(s); ours: {', '.join(args.samplings)}, "
          f"batch {args.batch_size}, step {SHAPE_STEP_SIZE:g}, features "
          f"{', '.join(args.dtypes)} (arithmetic float64), "
          f"{info['cpu']}, {info['nproc']} cores, python {info['python']}, "
          f"numba {info['numba']}"
          + ("" if args.no_reference else f"; reference in {anchor_dir()}"),
          flush=True)
    raw_dir = Path(args.keep_raw or tempfile.mkdtemp(prefix="anchor_raw_"))
    raw_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    rounds = []
    for k in range(args.rounds):
        rnd = dict(round=k + 1, reference={}, ours={})
        if not args.no_reference:
            rnd["load_reference"] = load_avg()
            print(f"\n--- round {k + 1}: reference (load "
                  f"{fmt(rnd['load_reference'], '.2f')})", flush=True)
            t0 = time.perf_counter()
            cells = run_reference(args.harness, args.reference_solvers,
                                  args.shapes,
                                  raw_dir / f"{stamp}_round{k + 1}.jsonl")
            rnd["reference_s"] = time.perf_counter() - t0
            for (name, shape), rec in cells.items():
                us, note = reference_figure(rec)
                rnd["reference"][f"{name}|{shape}"] = us
                if us is None:
                    print(f"  reference {shape} {name}: {note}", flush=True)
        rnd["load_ours"] = load_avg()
        print(f"\n--- round {k + 1}: ours (load "
              f"{fmt(rnd['load_ours'], '.2f')})", flush=True)
        t0 = time.perf_counter()
        ours = run_ours(args.solvers, args.shapes, args.samplings, settings,
                        args.batch_size, args.dtypes)
        rnd["ours_s"] = time.perf_counter() - t0
        rnd["ours"] = {"|".join(key): res for key, res in ours.items()}
        rnd["load_end"] = load_avg()
        rounds.append(rnd)
    rows = table_rows(rounds, args.solvers, args.shapes, args.variants,
                      args.versus)
    print_final(rows, args.variants, len(rounds))
    print("  load averages (1 min) reference / ours per round: " + "; ".join(
        f"r{r['round']} {fmt(r.get('load_reference'), '.2f')} / "
        f"{fmt(r['load_ours'], '.2f')}" for r in rounds))
    if not args.no_reference:
        print(f"  reference JSON lines: {raw_dir}")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(
            machine=info, args=vars(args), rounds=rounds, table=rows),
            indent=2, default=str))
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
