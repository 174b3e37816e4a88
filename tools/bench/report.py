"""Machine information, the printed tables and the target checks."""
import os
import platform
import subprocess
import sys

import numpy as np

from .settings import (FULL_PASS_SOLVER, NON_FULL_TARGET, SHAPE_STEP_SIZE,
                       STEP_SIZE)


# --------------------------------------------------------------------------
# Target checks
# --------------------------------------------------------------------------
def check(shape, figure, value, target, unit):
    """One target check: ``value <= target``."""
    return dict(shape=shape, figure=figure, value=value, target=target,
                unit=unit, ok=value is not None and value <= target)


def steady_checks(shape, steady, non_full, us_targets):
    """Checks of part 1: us/iter targets, non-full / SOBA targets."""
    out = [check(shape, f"{name} us/iter", steady[name].get("us_per_iter"),
                 target, " us")
           for name, target in us_targets.items() if name in steady]
    ref = steady.get("SOBA", {}).get("us_per_iter")
    for name, target in NON_FULL_TARGET.items():
        nf = non_full.get(name, {}).get("us_per_iter")
        if nf is not None and ref:
            out.append(check(shape, f"{name} non-full / SOBA", nf / ref,
                             target, "x"))
    return out


def metric_checks(shape, res, targets):
    """Checks of part 5: cold and warm seconds, tolerance met."""
    out = [check(shape, f"metric evaluation, {label}", res[label + "_s"],
                 target, " s")
           for label, target in targets.get("metric_s", {}).items()]
    out.append(check(shape, "metric solves meet their tolerance",
                     0.0 if res["tol_met"] else 1.0, 0.0, ""))
    return out


# --------------------------------------------------------------------------
# Machine info and printing
# --------------------------------------------------------------------------
def cpu_model():
    """CPU model name from lscpu, /proc/cpuinfo or platform.processor()."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info():
    """CPU, core counts and the versions that matter for the figures."""
    import numba
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return dict(cpu=cpu_model(), processor=platform.processor(),
                nproc=usable, cpu_count=os.cpu_count(),
                platform=platform.platform(),
                python=platform.python_version(), numpy=np.__version__,
                numba=numba.__version__)


def fmt(value, spec):
    """Format a number, or '-' when it is missing."""
    return "-" if value is None else format(value, spec)


def print_table(title, headers, rows):
    """Print a fixed-width table: first column left-, others right-aligned."""
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows))
              for i, h in enumerate(headers)]

    def line(cells):
        first = str(cells[0]).ljust(widths[0])
        rest = [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return "  ".join([first] + rest)

    print(f"\n{title}")
    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))
    sys.stdout.flush()


def print_machine(info, args, settings, shapes=("quadratic",)):
    """Header: machine, versions and problem size(s)."""
    print("PnPBO core speed figures")
    print(f"  CPU      : {info['cpu']} "
          f"(platform.processor: {info['processor'] or '?'})")
    print(f"  cores    : {info['nproc']} usable / {info['cpu_count']} total")
    print(f"  platform : {info['platform']}")
    print(f"  versions : python {info['python']}, numpy {info['numpy']}, "
          f"numba {info['numba']}")
    if "quadratic" in shapes:
        print(f"  problem  : Simulated quadratic, d_x = d_y = {args.dim}, "
              f"n = m = {args.n} ({2 * args.n} samples), "
              f"batch {args.batch_size}, step {STEP_SIZE:g}, float64")
    real = [shape for shape in shapes
            if shape not in ("quadratic", "fashion")]
    if "fashion" in shapes:
        print("  data     : real Fashion-MNIST hyper-cleaning, metric "
              "evaluation only, float64")
    if real:
        print(f"  shapes   : {', '.join(real)}: seeded random data of the "
              f"real sizes, batch {args.batch_size}, step "
              f"{SHAPE_STEP_SIZE:g}, float64 (see each section)")
    print(f"  timing   : warm-up {settings['warmup']} it, "
          f"{settings['repeats']} chunks of ~{settings['target']} s, median"
          + ("  [--quick]" if args.quick else ""), flush=True)
    print(f"  sampling : {getattr(args, 'sampling', 'uniform')}", flush=True)
    print(f"  features : {getattr(args, 'dtype', 'float64')} (real-data "
          "shapes; arithmetic float64)", flush=True)


def target_cell(value, target):
    """``<=target ok`` / ``<=target MISS``, or '-' without a target."""
    if target is None:
        return "-"
    status = "?" if value is None else ("ok" if value <= target else "MISS")
    return f"<={target:g} {status}"


def print_steady(steady, non_full, prefix="", targets=None):
    """Table of part 1 (with ``targets``: us/iter and non-full targets)."""
    ref = steady.get("SOBA", {}).get("us_per_iter")
    rows = []
    for name, r in steady.items():
        nf = non_full.get(name, {})
        row = [
            name + (" (diverged)" if r.get("diverged") else ""),
            fmt(r.get("us_per_iter"), ".2f"),
            fmt(r.get("ns_per_sample"), ".1f"),
            fmt(r.get("samples_per_iter"), ".1f"),
            fmt(r["us_per_iter"] / ref if ref and "us_per_iter" in r
                else None, ".2f"),
            fmt(nf.get("us_per_iter"), ".2f"),
            fmt(nf.get("ns_per_sample"), ".1f"),
            fmt(nf["us_per_iter"] / ref if ref and "us_per_iter" in nf
                else None, ".2f")]
        if targets is not None:
            row.insert(2, target_cell(r.get("us_per_iter"),
                                      targets.get(name)))
            row.append(target_cell(
                nf["us_per_iter"] / ref if ref and "us_per_iter" in nf
                else None, NON_FULL_TARGET.get(name) if nf else None))
        rows.append(row)
    headers = ["solver", "us/iter", "ns/sample", "samples/iter", "x SOBA",
               "non-full us/iter", "non-full ns/sample", "non-full x SOBA"]
    if targets is not None:
        headers.insert(2, "target")
        headers.append("target (x SOBA)")
    print_table(
        prefix + "1. Steady state (non-full: PAGE p=1e-9 / SARAH "
        "period=1e9, iterations after k=0 only)", headers, rows)


def baseline_ratios(steady, baselines, reference="SOBA"):
    """{baseline: its ns per sample evaluation / ``reference``'s} (None
    where either is missing, e.g. diverged)."""
    ref = steady.get(reference, {}).get("ns_per_sample")
    return {name: (steady[name]["ns_per_sample"] / ref
                   if ref and "ns_per_sample" in steady.get(name, {})
                   else None)
            for name in baselines}


def print_baselines(steady, ratios, prefix="", goal=None, added=False):
    """Table of the baselines against SOBA, per sample evaluation (an
    iteration of a baseline is one OUTER iteration: its inner loop, linear
    system steps and hypergradient)."""
    ref = steady.get("SOBA", {})
    rows = [["SOBA" + (" (measured for the ratio)" if added else ""),
             fmt(ref.get("us_per_iter"), ".2f"),
             fmt(ref.get("samples_per_iter"), ".1f"),
             fmt(ref.get("ns_per_sample"), ".1f"), "1.00", "-"]]
    for name, ratio in ratios.items():
        r = steady[name]
        rows.append([
            name + (" (diverged)" if r.get("diverged") else ""),
            fmt(r.get("us_per_iter"), ".2f"),
            fmt(r.get("samples_per_iter"), ".1f"),
            fmt(r.get("ns_per_sample"), ".1f"), fmt(ratio, ".2f"),
            target_cell(ratio, goal)])
    print_table(prefix + "1b. Baselines per sample evaluation against SOBA "
                "(us per OUTER iteration; ns/sample over SOBA's, same "
                "sampling)",
                ["solver", "us/outer iter", "samples/iter", "ns/sample",
                 "ns/sample x SOBA", "goal"], rows)


def print_full_pass(fp, prefix="", target=None):
    """Table of part 2 (and its target, if any)."""
    rows = [[f"{FULL_PASS_SOLVER} p=1 (one full pass/iter)",
             fmt(fp["us_per_iter"], ".0f"), fmt(fp["ns_per_sample"], ".2f"),
             fmt(fp["pass_gbs"], ".2f"), fmt(fp["ratio"], ".2f")],
            ["numpy X_train.sum() + X_val.sum() (best)",
             fmt(fp["stream_us"], ".0f"),
             fmt(1e3 * fp["stream_us"] / fp["samples"], ".2f"),
             fmt(fp["stream_gbs"], ".2f"), "1.00"]]
    print_table(f"{prefix}2. Full pass over {fp['samples']} samples "
                f"({fp['data_mib']:.1f} MiB of rows)",
                ["", "us", "ns/sample", "GB/s", "x stream"], rows)
    if target is not None:
        print(f"  target: one full pass <= {target:g}x the numpy stream: "
              f"{target_cell(fp['ratio'], target)} ({fp['ratio']:.2f}x)",
              flush=True)


def print_compile(comp):
    """Table of part 3."""
    def row(label, r):
        return [label, fmt(r["wall_s"], ".2f"), fmt(r["startup_s"], ".2f"),
                fmt(r["numba_import_s"], ".2f"),
                fmt(r["core_import_s"], ".2f"),
                fmt(r["base_import_s"], ".2f"),
                fmt(r["first_run_s"], ".2f")]
    rows = [row(f"cold cache ({comp['cold']['solver']}, compiles the core)",
                comp["cold"])]
    rows += [row(f"warm cache, {name}", r) for name, r in comp["warm"].items()]
    print_table("3. Warm-up in a fresh subprocess, seconds (first run = "
                "PnPBORun + run(2) on the solvers' tiny warm-up problem: "
                "compile or cache load)",
                ["", "wall", "import numpy", "import numba", "import core",
                 "import solver_base (benchopt)", "first run"], rows)
    (fun_cold, spec_cold), (fun_warm, spec_warm) = (
        comp["cache_files_after_cold"], comp["cache_files_after_warm"])
    print(f"  numba cache: {fun_cold} functions, {spec_cold} compiled "
          f"specialisations after the cold run; {fun_warm} and {spec_warm} "
          "after the warm runs (the same: no preset compiles anything "
          "new)")


def print_memory(mem, n_iter, prefix="", target_mib=None):
    """Table of part 4 (and the peak target, if any)."""
    base = mem["baseline"]

    def delta(a, b):
        return None if a is None or b is None else a - b

    rows = []
    for name, r in mem.items():
        rows.append([
            name + (" (diverged)" if r.get("diverged") else ""),
            fmt(r["peak_mib"], ".1f"), fmt(r.get("hwm_mib"), ".1f"),
            fmt(r["peak_mib"] - base["peak_mib"], "+.1f"),
            fmt(r["rss_build_mib"], ".1f"),
            fmt(delta(r.get("rss_loaded_mib"), r["rss_build_mib"]), "+.1f"),
            fmt(delta(r["rss_end_mib"], r.get("rss_loaded_mib")), "+.1f"),
            fmt(r["rss_end_mib"], ".1f")])
    print_table(f"{prefix}4. Memory of a fresh subprocess, MiB (baseline: "
                "imports, benchopt included, + problem only; solvers: + "
                f"core load + {n_iter} iterations)",
                ["", "peak (ru_maxrss)", "VmHWM", "peak - baseline",
                 "RSS after build",
                 "+ core load", "+ PnPBORun", "RSS at end"], rows)
    if target_mib is not None:
        solvers = {k: r for k, r in mem.items() if k != "baseline"}
        worst = max(solvers, key=lambda k: solvers[k]["peak_mib"])
        peak = solvers[worst]["peak_mib"]
        print(f"  target: peak <= {target_mib:g} MiB for every solver: "
              f"{target_cell(peak, target_mib)} (largest: {worst}, "
              f"{peak:.1f} MiB)", flush=True)


def print_shape(shape, res, batch_size):
    """Header of a shape's section."""
    p, params = res["n_features"], res["params"]
    test = ("X_test = X_val" if res["n_test"] is None
            else f"X_test {res['n_test']} x {p}")
    extra = "".join(f", {k} {v}" for k, v in params.items())
    print(f"\n=== Shape {shape}: task {res['task']}{extra}; seeded random "
          "data: N(0, 1) features, uniform labels")
    print(f"  X_train {res['n_train']} x {p}, X_val {res['n_val']} x {p} "
          f"({test}, metric only); d_x = {res['dim_x']}, d_y = "
          f"{res['dim_y']}; batch {batch_size}, step {res['step_size']:g}; "
          f"data generated in {res['data_gen_s']:.1f} s", flush=True)


def print_metric(m, prefix="", target=None):
    """Table of part 5."""
    target = target or {}
    rows = [["make_metrics(data)", fmt(m["make_metrics_s"], ".3f"), "-",
             "-", "-", "-"]]
    evals = [("cold: at the starting point", m["cold"], "cold")] + [
        (f"warm {k + 1}: after {m['iterations'] * (k + 1)} iterations",
         e, "warm") for k, e in enumerate(m["warm"])]
    for text, e, label in evals:
        rows.append([text, fmt(e["s"], ".3f"), str(e["newton_steps"]),
                     str(e["hvps"]), fmt(e["residual"], ".2g"),
                     target_cell(e["s"], target.get(label))])
    print_table(f"{prefix}5. One metric evaluation, seconds (evaluate("
                "make_metrics(data), x, y, z, n), test set included; "
                f"iterates of {m['solver']}, step {m['step_size']:g}; "
                "residual <= 1: tolerances met)",
                ["", "seconds", "Newton steps", "Hv products", "residual",
                 "target"], rows)


def print_targets(checks):
    """Summary of every target check of the shape sections."""
    rows = [[c["shape"], c["figure"],
             fmt(c["value"], ".2f") + c["unit"],
             f"<= {c['target']:g}{c['unit']}",
             "ok" if c["ok"] else "MISS"] for c in checks]
    missed = sum(not c["ok"] for c in checks)
    print_table(f"Targets on the real shapes: {len(checks) - missed} met, "
                f"{missed} missed (one run; timings vary run to run)",
                ["shape", "figure", "measured", "target", "status"], rows)
