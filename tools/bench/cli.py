"""Command line: ``python -m tools.bench [options]`` (see the package
docstring), and the sections it runs."""
import argparse
import json
import tempfile
import time
from pathlib import Path

from benchmark_utils.data.storage import features_as

from . import report
from .metric import metric_figures
from .probes import compile_figures, memory_figures, save_data
from .settings import (BASELINE_TARGET, FULL_SETTINGS, MEMORY_SHAPES,
                       NON_FULL, QUICK_SETTINGS, RATIO_REFERENCE,
                       SHAPE_STEP_SIZE, SHAPE_TARGETS, STEP_SIZE)
from .shapes import (SHAPE_SPECS, SHAPES, add_test_set, baseline_names,
                     fashion_data, problem_config, problem_of,
                     quadratic_data, shape_data, warm_core)
from .timing import full_pass_figures, steady_state

PROG = "python -m tools.bench"


def parse_args(argv=None):
    """Command-line options."""
    from benchmark_utils.algorithms import PRESETS

    from . import __doc__ as doc
    parser = argparse.ArgumentParser(
        prog=PROG, description=doc.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--solvers", default=",".join(PRESETS),
        help="comma-separated presets and/or baseline solvers (StocBiO, "
        "AmIGO, BSA, TTSA, SUSTAIN, MRBO, VRBO, FSLA, F2SA: their solver "
        "defaults, the bench's batch and step size; timed per outer "
        "iteration, and per sample evaluation against SOBA's) "
        "(default: all presets)")
    parser.add_argument("--dim", type=int, default=100, help="d_x = d_y")
    parser.add_argument("--n", type=int, default=10000, help="n = m")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument(
        "--sampling", choices=("uniform", "blocks"), default="uniform",
        help="the solvers' batches (PnPBOConfig.sampling): uniformly random "
        "subsets (default) or contiguous blocks of a permuted order")
    parser.add_argument(
        "--dtype", choices=("float64", "float32"), default="float64",
        help="storage of the real-data shapes' features (the datasets' "
        "dtype parameter): float64 (default) or float32; the arithmetic "
        "is float64 either way")
    parser.add_argument(
        "--shape", choices=SHAPES + ("fashion", "all"), default="quadratic",
        help="problem: the Simulated quadratic one (default), random data "
        "of a real dataset's shape, all four in turn, or real "
        "Fashion-MNIST hyper-cleaning (metric evaluation only; Debian's "
        "dataset-fashion-mnist or the fashion_mnist data_paths folder)")
    parser.add_argument("--metric-only", action="store_true",
                        help="on the real-data shapes, measure only the "
                        "metric evaluation (part 5)")
    parser.add_argument("--quick", action="store_true",
                        help="short timings, for a smoke test")
    parser.add_argument("--skip-compile", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument(
        "--steady-only", action="store_true",
        help="part 1 only (steady state): no full pass, compile, memory "
        "or metric parts")
    parser.add_argument("--json", metavar="PATH", help="write figures here")
    args = parser.parse_args(argv)
    args.solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    known = list(PRESETS) + list(baseline_names())
    unknown = [s for s in args.solvers if s not in known]
    if unknown or not args.solvers:
        parser.error(f"unknown solvers {unknown}; choose from {known}")
    args.presets = [s for s in args.solvers if s in PRESETS]
    args.baselines = [s for s in args.solvers if s not in PRESETS]
    if args.steady_only:
        args.skip_compile = args.skip_memory = True
    return args


def main(argv=None):
    """Measure and print every part; optionally write the JSON."""
    args = parse_args(argv)
    settings = QUICK_SETTINGS if args.quick else FULL_SETTINGS
    shapes = SHAPES if args.shape == "all" else (args.shape,)
    info = report.machine_info()
    report.print_machine(info, args, settings, shapes)
    out = dict(machine=info, settings=dict(
        settings, dim=args.dim, n=args.n, m=args.n, batch_size=args.batch_size,
        step_size=STEP_SIZE, quick=args.quick, solvers=args.solvers,
        sampling=args.sampling, dtype=args.dtype, baselines=args.baselines,
        steady_only=args.steady_only,
        shape=args.shape, shape_step_size=SHAPE_STEP_SIZE))

    metric_only = args.metric_only or args.shape == "fashion"
    if "quadratic" in shapes and not metric_only:
        quadratic_section(args, settings, info, out)
    else:
        warm_core(baselines=() if metric_only else args.baselines,
                  dtype=args.dtype)
        if not (args.skip_compile or metric_only):  # problem-independent
            compile_section(args, settings, out)
    checks = []
    for shape in shapes:
        if shape == "quadratic":
            continue
        if metric_only:
            res = metric_section(shape, checks)
        else:
            res = shape_section(shape, args, settings, info, checks)
        out.setdefault("shapes", {})[shape] = res
    if checks:
        out["targets"] = checks
        report.print_targets(checks)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
        print(f"\nfigures written to {args.json}")
    return 0


def steady_part(problem, args, settings, prefix="", targets=None,
                **step):
    """Part 1: steady state of every solver (and, with baselines, of SOBA
    for their per-sample ratio, measured even when not asked for), the
    non-full iterations of the presets of ``NON_FULL``; prints the tables
    and returns (steady, non_full, baseline ratios)."""
    smp = dict(sampling=args.sampling)
    names = list(args.solvers)
    if args.baselines and RATIO_REFERENCE not in names:
        names.append(RATIO_REFERENCE)
    steady = {name: steady_state(problem, problem_config(
        problem, name, args.batch_size, **step, **smp), settings)
        for name in names}
    non_full = {name: steady_state(
        problem, problem_config(problem, name, args.batch_size,
                                **NON_FULL[name], **step, **smp),
        settings) for name in args.presets if name in NON_FULL}
    report.print_steady(steady, non_full, prefix=prefix, targets=targets)
    ratios = {}
    if args.baselines:
        ratios = report.baseline_ratios(steady, args.baselines)
        report.print_baselines(steady, ratios, prefix=prefix,
                               goal=BASELINE_TARGET,
                               added=RATIO_REFERENCE not in args.solvers)
    return steady, non_full, ratios


def compile_section(args, settings, out):
    """Part 3 for the presets; the baselines are skipped (said in the
    output)."""
    if args.presets:
        out["compile"] = compile_figures(args.presets,
                                         settings["warm_per_solver"])
        report.print_compile(out["compile"])
    if args.baselines:
        print(("  " if args.presets else "\n3. Warm-up: ")
              + f"baselines not probed ({', '.join(args.baselines)}): the "
              "compile probe times the presets' entry only; the baselines' "
              "entry (engine.run_baseline) is compiled by "
              "engine.compile_baselines", flush=True)


def memory_section(data, args, settings, info, **kwargs):
    """Part 4: the dataset saved for the children, their peak memory."""
    with tempfile.TemporaryDirectory(prefix="bench_problem_") as tmp:
        path = Path(tmp) / "data.npz"
        save_data(data, path)
        return memory_figures(args.solvers, path, args.batch_size,
                              settings["memory_iters"],
                              jobs=min(2, info["nproc"] or 1), **kwargs)


def quadratic_section(args, settings, info, out):
    """Parts 1 to 4 on the Simulated quadratic problem, into ``out``."""
    data = quadratic_data(args.dim, args.n)
    problem = problem_of(data)
    warm_core(baselines=args.baselines)
    out["steady"], out["non_full"], ratios = steady_part(problem, args,
                                                         settings)
    if ratios:
        out["baseline_ns_x_soba"] = ratios
    if args.steady_only:
        return
    out["full_pass"] = full_pass_figures(data, problem, args.batch_size,
                                         settings)
    report.print_full_pass(out["full_pass"])

    if not args.skip_compile:
        compile_section(args, settings, out)
    if not args.skip_memory:
        out["memory"] = memory_section(data, args, settings, info)
        report.print_memory(out["memory"], settings["memory_iters"])


def shape_section(shape, args, settings, info, checks):
    """Parts 1, 2, 4 (MEMORY_SHAPES only) and 5 on ``shape``; prints them,
    appends the target checks to ``checks``, returns the figures."""
    spec = SHAPE_SPECS[shape]
    targets = SHAPE_TARGETS.get(shape, {})
    prefix = f"[{shape}] "
    t0 = time.perf_counter()
    data = features_as(shape_data(shape), args.dtype)
    problem = problem_of(data)
    res = dict(task=spec["task"], n_features=spec["n_features"],
               n_train=spec["n_train"], n_val=spec["n_val"],
               n_test=spec["n_test"], params=spec["params"],
               dim_x=problem.dim_x, dim_y=problem.dim_y,
               step_size=SHAPE_STEP_SIZE,
               data_gen_s=time.perf_counter() - t0)
    report.print_shape(shape, res, args.batch_size)
    step = dict(step_size=SHAPE_STEP_SIZE)

    res["steady"], res["non_full"], ratios = steady_part(
        problem, args, settings, prefix=prefix,
        targets=targets.get("us", {}), **step)
    checks.extend(report.steady_checks(shape, res["steady"], res["non_full"],
                                       targets.get("us", {})))
    if ratios:
        res["baseline_ns_x_soba"] = ratios
        checks.extend(report.check(
            shape, f"{name} ns/sample / SOBA", ratio, BASELINE_TARGET, "x")
            for name, ratio in ratios.items())
    if args.steady_only:
        return res

    res["full_pass"] = full_pass_figures(data, problem, args.batch_size,
                                         settings, warmup=1, start=1, **step)
    report.print_full_pass(res["full_pass"], prefix=prefix,
                           target=targets.get("full_pass"))
    if "full_pass" in targets:
        checks.append(report.check(
            shape, "full pass / numpy stream", res["full_pass"]["ratio"],
            targets["full_pass"], "x"))

    if shape in MEMORY_SHAPES and not args.skip_memory:
        res["memory"] = memory_section(data, args, settings, info,
                                       step_size=SHAPE_STEP_SIZE)
        report.print_memory(res["memory"], settings["memory_iters"],
                            prefix=prefix,
                            target_mib=targets.get("peak_mib"))
        if "peak_mib" in targets:
            checks.extend(
                report.check(shape, f"{name} peak RSS", r["peak_mib"],
                             targets["peak_mib"], " MiB")
                for name, r in res["memory"].items() if name != "baseline")

    del problem  # shares the arrays of data
    add_test_set(data, shape)
    data = features_as(data, args.dtype)
    res["metric"] = metric_figures(data, problem_of(data))
    del data
    report.print_metric(res["metric"], prefix=prefix,
                        target=targets.get("metric_s"))
    checks.extend(report.metric_checks(shape, res["metric"], targets))
    return res


def metric_section(shape, checks):
    """Part 5 alone (``--metric-only``, and the real ``fashion`` data), with
    the solver's default step on real data."""
    targets = SHAPE_TARGETS.get(shape, {})
    t0 = time.perf_counter()
    if shape == "fashion":
        data = fashion_data()
        step_size = 0.1
        print(f"\n=== Real Fashion-MNIST hyper-cleaning: X_train "
              f"{data['X_train'].shape}, X_val {data['X_val'].shape}, "
              f"X_test {data['X_test'].shape}; loaded in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
    else:
        data = shape_data(shape)
        add_test_set(data, shape)
        step_size = SHAPE_STEP_SIZE
        print(f"\n=== Shape {shape} (seeded random data), metric only",
              flush=True)
    res = metric_figures(data, problem_of(data), step_size=step_size)
    report.print_metric(res, prefix=f"[{shape}] ",
                        target=targets.get("metric_s"))
    checks.extend(report.metric_checks(shape, res, targets))
    return res
