"""Speed figures of the PnPBO numba core, one row per named solver.

Run from the repository root::

    python -m benchmark_utils.bench [--solvers SPABA,SOBA] [--dim 100]
        [--n 10000] [--batch-size 64] [--shape quadratic] [--quick]
        [--skip-compile] [--skip-memory] [--json PATH]

On the ``Simulated`` quadratic problem (d_x = d_y = ``--dim``, n = m =
``--n``) it measures, for each preset of ``presets.PRESETS``:

1. the steady-state time per iteration and per sample evaluation (median of
   several timed chunks of ~0.5 s after a warm-up), and for the presets whose
   iterations mix minibatch steps and occasional full passes (SPABA, MSEBA,
   SRBA) the time of the minibatch ("non-full") iterations alone;
2. the time of one full pass over the n + m samples (SPABA with p = 1) against
   the time numpy takes to stream the same data once from memory;
3. the warm-up time (import, then compile or cache load) in fresh
   subprocesses, with a cold and with a warm numba cache;
4. the peak resident memory of fresh subprocesses running each solver, and
   of one that only builds the problem.

``--shape`` (``quadratic``: the problem above, the default; ``ijcnn1``,
``covtype``, ``mnist``; ``all``: the four in turn; ``fashion``: real
Fashion-MNIST, part 5 only) runs parts 1 and 2 on
problems of the real datasets' shapes, built from seeded random data
(standard normal features, uniformly random labels) of the exact sizes:

* ijcnn1: task ``logreg``, 49 990 training / 91 701 validation rows, 22
  features, labels -1 / +1;
* covtype: task ``multilogreg``, 7 classes, 371 847 / 92 962 rows (and
  116 203 test rows), 54 features;
* mnist: task ``datacleaning``, 10 classes, C_r = 0.2, 20 000 / 5 000 rows
  (and 10 000 test rows), 784 features;

with the step size ``SHAPE_STEP_SIZE`` (small: nothing diverges) from the
Objective's starting point (``tasks.starting_point``).  On the mnist shape it
also measures part 4 (peak memory), and on every shape

5. the time of one exact metric evaluation (``metrics.evaluate`` on
   ``make_metrics`` of the dataset dict, test set included): a cold one at
   the starting point (Newton-CG and CG from zeros) and three warm ones,
   each after 128 more iterations of SABA (what benchopt's callback sees),
   with the Newton steps, Hessian-vector products and whether the solves met
   their tolerances.  ``--metric-only`` measures only this part;
   ``--shape fashion`` measures it on real Fashion-MNIST hyper-cleaning
   (the mnist dataset's defaults, SABA with its default step 0.1).

Each shape's figures are printed with their targets, and a summary of the
targets ends the output.

Timings are printed, never asserted.  Subprocesses import this module, so
its top level only imports the standard library and numpy; the numba core is
imported inside the functions that need it.
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
STEP_SIZE = 1e-3
CHILD_TAG = "BENCH_JSON "
LAUNCHER = ("import subprocess, sys; "
            "sys.exit(subprocess.call([sys.executable, '-c', sys.argv[1]]))")
# Overrides that switch off the periodic/random full passes after k = 0.
NON_FULL = {"SPABA": dict(p=1e-9), "MSEBA": dict(p=1e-9),
            "SRBA": dict(period=10**9)}
FULL_PASS_SOLVER = "SPABA"

SHAPES = ("quadratic", "ijcnn1", "covtype", "mnist")
SHAPE_STEP_SIZE = 1e-4
# The real datasets' tasks and sizes (rows of X_train / X_val / X_test).
SHAPE_SPECS = {
    "ijcnn1": dict(task="logreg", n_features=22, n_train=49990, n_val=91701,
                   n_test=None, params={}),
    "covtype": dict(task="multilogreg", n_features=54, n_train=371847,
                    n_val=92962, n_test=116203, params=dict(n_classes=7)),
    "mnist": dict(task="datacleaning", n_features=784, n_train=20000,
                  n_val=5000, n_test=10000,
                  params=dict(n_classes=10, l2_reg=0.2)),
}
# Targets: us/iteration at batch 64, non-full iteration / SOBA, full pass /
# numpy stream, peak RSS (MiB), one metric evaluation (s).
SHAPE_TARGETS = {
    "ijcnn1": dict(us=dict(SOBA=7, SABA=15, **{"MA-SABA": 15}, SFFBA=15)),
    "covtype": dict(us=dict(SOBA=30, SABA=120, **{"MA-SABA": 120},
                            SFFBA=120),
                    full_pass=3.0, metric_s=dict(warm=3.0)),
    "mnist": dict(us=dict(SOBA=250, SABA=600, **{"MA-SABA": 600},
                          SFFBA=600),
                  peak_mib=1024.0, metric_s=dict(cold=3.0, warm=1.5)),
    "fashion": dict(metric_s=dict(cold=3.0, warm=1.5)),
}
NON_FULL_TARGET = dict(SPABA=2.2, MSEBA=2.2)  # x SOBA, on every shape
MEMORY_SHAPES = ("mnist",)

FULL_SETTINGS = dict(warmup=300, target=0.5, repeats=5, stream_repeats=10,
                     memory_iters=2000, warm_per_solver=True)
QUICK_SETTINGS = dict(warmup=100, target=0.1, repeats=2, stream_repeats=3,
                      memory_iters=200, warm_per_solver=False)


# --------------------------------------------------------------------------
# Problem and runs
# --------------------------------------------------------------------------
def build_problem(dim, n, seed=0):
    """The Simulated quadratic problem with d_x = d_y = dim and n = m."""
    from .problem import make_problem
    from .simulated import make_quadratic
    data = make_quadratic(n=n, m=n, dim_x=dim, dim_y=dim, seed=seed)
    params = [dim, dim, data["ridge"], data["lam"]]
    return make_problem("quadratic", data["X_train"], data["y_train"],
                        data["X_val"], data["y_val"], params, dim, dim)


def tiny_problem():
    """A 4-sample quadratic problem (d_x = d_y = 2): enough to compile."""
    from .problem import make_problem
    rng = np.random.default_rng(0)
    return make_problem("quadratic", rng.standard_normal((4, 4)),
                        rng.standard_normal(4), rng.standard_normal((4, 4)),
                        rng.standard_normal(4), [2, 2, 0.1, 0.0], 2, 2)


def make_config(name, batch_size, **overrides):
    """``PnPBOConfig`` of preset ``name`` with the bench's step size."""
    from .pnpbo import PnPBOConfig
    from .presets import PRESETS
    values = dict(PRESETS[name], batch_size=batch_size, step_size=STEP_SIZE)
    values.update(overrides)
    return PnPBOConfig(**values)


def make_run(problem, config, seed=0):
    """A fresh ``PnPBORun`` from a seeded start point: on the quadratic task
    x0, y0 ~ N(0, I), |z0| about 0.1; on the logistic tasks the Objective's
    (``tasks.starting_point``)."""
    from .pnpbo import PnPBORun
    if problem.task != "quadratic":
        from .tasks import starting_point
        return PnPBORun(problem, config, *starting_point(problem, seed), seed)
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal(problem.dim_x)
    y0 = rng.standard_normal(problem.dim_y)
    z0 = 0.1 * rng.standard_normal(problem.dim_y) / np.sqrt(problem.dim_y)
    return PnPBORun(problem, config, x0, y0, z0, seed)


# --------------------------------------------------------------------------
# Part 1 and 2: in-process timings
# --------------------------------------------------------------------------
def time_chunk(run, n_iter):
    """Run ``n_iter`` iterations; return (seconds, iterations, samples)."""
    k0, s0 = run.iteration, run.n_samples
    t0 = time.perf_counter()
    run.run(n_iter)
    elapsed = time.perf_counter() - t0
    return elapsed, run.iteration - k0, run.n_samples - s0


def calibrate(run, target, start=16):
    """Number of iterations that lasts about ``target`` seconds (tries
    ``start``, 4 ``start``, ... iterations until one lasts target / 10)."""
    n_iter = start
    while True:
        elapsed, done, _ = time_chunk(run, n_iter)
        if run.diverged or done == 0:
            return n_iter
        if elapsed >= target / 10:
            return max(1, int(round(n_iter * target / elapsed)))
        n_iter *= 4


def steady_state(problem, config, settings, start=16):
    """Median time per iteration / per sample evaluation of timed chunks."""
    run = make_run(problem, config)
    run.run(settings["warmup"])
    n_iter = calibrate(run, settings["target"], start)
    chunks = [time_chunk(run, n_iter) for _ in range(settings["repeats"])]
    chunks = [c for c in chunks if c[1] > 0]
    if not chunks:
        return dict(diverged=True)
    return dict(
        us_per_iter=statistics.median(1e6 * t / k for t, k, _ in chunks),
        ns_per_sample=statistics.median(1e9 * t / s for t, _, s in chunks),
        samples_per_iter=sum(s for *_, s in chunks) / sum(
            k for _, k, _ in chunks),
        iters_per_chunk=n_iter, chunks=len(chunks),
        diverged=run.diverged)


def stream_time(problem, repeats):
    """Best time of ``Xf.sum() + Xg.sum()`` (one read of all the samples)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        problem.Xf.sum() + problem.Xg.sum()
        best = min(best, time.perf_counter() - t0)
    return best


def full_pass_figures(problem, batch_size, settings, warmup=5, start=16,
                      **overrides):
    """One full pass (SPABA with p = 1) against streaming the data once.

    ``warmup`` passes first; ``start`` is the calibration's first chunk (in
    passes: small on large data, where one pass lasts a good fraction of a
    second); ``overrides`` go to the config (e.g. ``step_size``).
    """
    config = make_config(FULL_PASS_SOLVER, batch_size, p=1.0, **overrides)
    res = steady_state(problem, config, dict(settings, warmup=warmup), start)
    nbytes = problem.Xf.nbytes + problem.Xg.nbytes
    stream = stream_time(problem, settings["stream_repeats"])
    res.update(samples=problem.n + problem.m, data_mib=nbytes / 2**20,
               stream_us=1e6 * stream, stream_gbs=nbytes / stream / 1e9,
               pass_gbs=nbytes / (res["us_per_iter"] * 1e-6) / 1e9,
               ratio=res["us_per_iter"] / (1e6 * stream))
    return res


# --------------------------------------------------------------------------
# Subprocess helpers (parts 3 and 4)
# --------------------------------------------------------------------------
def emit(result):
    """Child side: print ``result`` as one tagged JSON line."""
    print(CHILD_TAG + json.dumps(result), flush=True)


def child_env(cache_dir=None):
    """Environment of a child: repo on PYTHONPATH, optional numba cache."""
    env = dict(os.environ)
    paths = [str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    return env


def start_child(code, cache_dir=None, launcher=False):
    """Start ``python -c code`` in the repo root; returns the Popen.

    With ``launcher``, the child is started by a small intermediate Python
    process: on Linux a process started directly from this (large) one
    inherits its peak RSS in ``ru_maxrss`` (the kernel records the pre-exec
    peak), which would hide the child's own peak.
    """
    cmd = [sys.executable, "-c", code]
    if launcher:
        cmd = [sys.executable, "-c", LAUNCHER, code]
    return subprocess.Popen(cmd, cwd=REPO, env=child_env(cache_dir),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish_child(proc):
    """Wait for a child; return its tagged JSON result (raises on error)."""
    out, err = proc.communicate()
    for line in out.splitlines():
        if line.startswith(CHILD_TAG):
            return json.loads(line[len(CHILD_TAG):])
    raise RuntimeError(
        f"child failed (exit {proc.returncode}):\n{err[-2000:]}")


def run_child(code, cache_dir=None):
    """Run one child to completion; add its wall time (incl. startup)."""
    t0 = time.perf_counter()
    result = finish_child(start_child(code, cache_dir))
    result["wall_s"] = time.perf_counter() - t0
    return result


# --------------------------------------------------------------------------
# Part 3: warm-up (compile / cache load) time
# --------------------------------------------------------------------------
def child_compile(name, t_start):
    """Child side: time importing numba, the core, then a tiny run(2)."""
    t0 = time.perf_counter()
    import numba  # noqa: F401
    t1 = time.perf_counter()
    from . import pnpbo  # noqa: F401
    t2 = time.perf_counter()
    make_run(tiny_problem(), make_config(name, 2)).run(2)
    t3 = time.perf_counter()
    emit(dict(startup_s=t0 - t_start, numba_import_s=t1 - t0,
              core_import_s=t2 - t1, first_run_s=t3 - t2))


def compile_code(name):
    """Code string of a compile-time child for preset ``name``."""
    return ("import time; t = time.perf_counter(); "
            "from benchmark_utils.bench import child_compile; "
            f"child_compile({name!r}, t)")


def count_cache_entries(cache_dir):
    """Number of compiled ``run_iterations`` specialisations in a cache."""
    return len(list(Path(cache_dir).rglob("engine.run_iterations-*.nbc")))


def compile_figures(names, per_solver):
    """Cold figure (fresh NUMBA_CACHE_DIR) then warm figures (same dir)."""
    cache_dir = tempfile.mkdtemp(prefix="bench_numba_cache_")
    try:
        cold = run_child(compile_code(names[0]), cache_dir)
        cold["solver"] = names[0]
        entries_cold = count_cache_entries(cache_dir)
        warm = {name: run_child(compile_code(name), cache_dir)
                for name in (names if per_solver else names[:1])}
        entries_warm = count_cache_entries(cache_dir)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    return dict(cold=cold, warm=warm, run_iterations_entries_after_cold=(
        entries_cold), run_iterations_entries_after_warm=entries_warm)


# --------------------------------------------------------------------------
# Part 4: peak memory
# --------------------------------------------------------------------------
def current_rss_mib():
    """Current resident set size (MiB) from /proc, or None elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def hwm_mib():
    """Peak RSS of this address space (VmHWM, MiB) from /proc, or None."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


def peak_rss_mib():
    """Peak resident set size of this process (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def save_problem(problem, path):
    """Write the problem's arrays to ``path`` (.npz) for memory children."""
    np.savez(path, Xf=problem.Xf, yf=problem.yf, Xg=problem.Xg,
             yg=problem.yg, params=problem.params,
             dims=np.array([problem.dim_x, problem.dim_y]),
             task=np.array(problem.task))


def load_problem(path):
    """The ``Problem`` saved by ``save_problem``."""
    from .problem import make_problem
    with np.load(path) as d:
        dim_x, dim_y = (int(v) for v in d["dims"])
        task = str(d["task"]) if "task" in d.files else "quadratic"
        return make_problem(task, d["Xg"], d["yg"], d["Xf"], d["yf"],
                            d["params"], dim_x, dim_y)


def child_memory(name, path, batch_size, n_iter, step_size=STEP_SIZE):
    """Child side: build the problem, optionally run a solver, report RSS.

    The problem is rebuilt from the parent's saved arrays (generating it
    would leave a transient peak above everything the solver adds).
    ``name=None`` is the baseline: same imports and problem, no solver; a
    solver child also records the RSS once the compiled core is loaded
    (tiny run), before its own ``PnPBORun`` on the problem.
    """
    from . import pnpbo  # noqa: F401  (numba and the core, as for a solver)
    problem = load_problem(path)
    result = dict(peak_build_mib=peak_rss_mib(),
                  rss_build_mib=current_rss_mib())
    if name is not None:
        make_run(tiny_problem(), make_config(name, 2)).run(2)
        result["rss_loaded_mib"] = current_rss_mib()
        run = make_run(problem, make_config(name, batch_size,
                                            step_size=step_size))
        run.run(n_iter)
        result["diverged"] = run.diverged
    result.update(peak_mib=peak_rss_mib(), hwm_mib=hwm_mib(),
                  rss_end_mib=current_rss_mib())
    emit(result)


def memory_code(name, path, batch_size, n_iter, step_size=STEP_SIZE):
    """Code string of a memory child (``name=None``: baseline)."""
    return ("from benchmark_utils.bench import child_memory; "
            f"child_memory({name!r}, {str(path)!r}, {batch_size}, {n_iter}, "
            f"{step_size!r})")


def memory_figures(names, path, batch_size, n_iter, jobs,
                   step_size=STEP_SIZE):
    """Peak RSS of a baseline child and of one child per solver.

    Up to ``jobs`` children run at once (memory figures are per process, so
    running them side by side does not change them).
    """
    todo = [None] + list(names)
    results, running = {}, []
    while todo or running:
        while todo and len(running) < jobs:
            name = todo.pop(0)
            code = memory_code(name, path, batch_size, n_iter, step_size)
            running.append((name, start_child(code, launcher=True)))
        name, proc = running.pop(0)
        results["baseline" if name is None else name] = finish_child(proc)
    return results


# --------------------------------------------------------------------------
# Real shapes: random data of the datasets' sizes, part 5 (metric time)
# --------------------------------------------------------------------------
def shape_labels(rng, spec, n):
    """``n`` random labels of a shape's task: -1.0 / +1.0 (logreg), else
    classes 0..C-1 stored as float64 (multilogreg, datacleaning)."""
    if spec["task"] == "logreg":
        return 2.0 * rng.integers(0, 2, n) - 1.0
    return rng.integers(0, spec["params"]["n_classes"], n).astype(np.float64)


def shape_data(shape, seed=0):
    """Dataset dict (DESIGN.md contract, test set not drawn yet) of seeded
    random data of ``shape``'s sizes: N(0, 1) features, uniform labels."""
    spec = SHAPE_SPECS[shape]
    rng = np.random.default_rng([seed, 0])
    data = dict(task=spec["task"], X_test=None, y_test=None,
                **spec["params"])
    for part in ("train", "val"):
        n = spec["n_" + part]
        data["X_" + part] = rng.standard_normal((n, spec["n_features"]))
        data["y_" + part] = shape_labels(rng, spec, n)
    return data


def add_test_set(data, shape, seed=0):
    """Draw the test set of ``shape`` into ``data`` (ijcnn1: the validation
    set, as the dataset does: LIBSVM ships no third set)."""
    spec = SHAPE_SPECS[shape]
    if spec["n_test"] is None:
        data["X_test"], data["y_test"] = data["X_val"], data["y_val"]
        return
    rng = np.random.default_rng([seed, 1])
    data["X_test"] = rng.standard_normal((spec["n_test"],
                                          spec["n_features"]))
    data["y_test"] = shape_labels(rng, spec, spec["n_test"])


def shape_problem(data, shape):
    """The core's ``Problem`` of a shape's dataset dict (arrays shared)."""
    from .tasks import problem_from_data
    return problem_from_data(data["task"], data["X_train"], data["y_train"],
                             data["X_val"], data["y_val"],
                             **SHAPE_SPECS[shape]["params"])


def count_calls(obj, names):
    """Count the calls of methods ``names`` of ``obj`` (instance wrappers);
    returns the live dict of counts."""
    counts = dict.fromkeys(names, 0)
    for name in names:
        def wrapper(*a, _method=getattr(obj, name), _name=name, **k):
            counts[_name] += 1
            return _method(*a, **k)
        setattr(obj, name, wrapper)
    return counts


def metric_figures(data, problem, seed=0, n_warm=3, solver="SABA",
                   step_size=SHAPE_STEP_SIZE, eval_freq=128):
    """Part 5: ``make_metrics(data)``, then one cold evaluation at the
    Objective's starting point (Newton-CG and CG from zeros) and ``n_warm``
    warm ones, each after ``eval_freq`` more iterations of ``solver`` (what
    benchopt's callback sees), each timed on its own.

    Newton steps, Hessian-vector products and the solves' residuals come
    from ``GLMExact.status``; ``tol_met`` says whether every evaluation met
    both tolerances (``solve_residual <= 1``).
    """
    from .metrics import evaluate, make_metrics
    from .tasks import starting_point
    x, y, z = starting_point(problem, seed)
    t0 = time.perf_counter()
    metrics = make_metrics(data)
    res = dict(make_metrics_s=time.perf_counter() - t0, solver=solver,
               step_size=step_size, eval_freq=eval_freq)
    run = make_run(problem, make_config(solver, 64, step_size=step_size),
                   seed)
    evals = []
    for k in range(n_warm + 1):
        if k:
            run.run(eval_freq)
            x, y, z = run.x, run.y, run.z
        t0 = time.perf_counter()
        values = evaluate(metrics, x, y, z, 0)
        st = dict(metrics.exact.status)
        evals.append(dict(s=time.perf_counter() - t0,
                          newton_steps=st["newton_steps"], hvps=st["hvps"],
                          residual=float(st["residual"]),
                          value=values["value"],
                          grad_norm2=values["grad_norm2"]))
    warm = evals[1:]
    res["cold"] = evals[0]
    res["warm"] = warm
    res["cold_s"] = evals[0]["s"]
    res["warm_s"] = statistics.median(e["s"] for e in warm)
    res["warm_max_s"] = max(e["s"] for e in warm)
    res["tol_met"] = all(e["residual"] <= 1.0 for e in evals)
    return res


def fashion_data():
    """The mnist dataset's default hyper-cleaning task (20 000 / 5 000 /
    10 000, ratio 0.5) on real Fashion-MNIST, from Debian's
    ``dataset-fashion-mnist`` or the ``fashion_mnist`` folder of
    ``data_paths`` (no download)."""
    from .data import mnist
    folders = mnist.default_folders("fashion", None)
    arrays = mnist.load_mnist("fashion", folders, cache_dir=None,
                              download=False)
    data = mnist.mnist_task(arrays, n_train=20000, n_val=5000,
                            n_test=10000, ratio=0.5, seed=0)
    data.pop("y_train_clean", None)
    data.pop("corruption_ratio", None)
    return data


def metric_section(shape, checks):
    """Part 5 alone (``--metric-only``, and the real ``fashion`` data), with
    the solver's default step on real data."""
    targets = SHAPE_TARGETS.get(shape, {})
    t0 = time.perf_counter()
    if shape == "fashion":
        data = fashion_data()
        step_size, params = 0.1, dict(n_classes=10, l2_reg=0.2)
        print(f"\n=== Real Fashion-MNIST hyper-cleaning: X_train "
              f"{data['X_train'].shape}, X_val {data['X_val'].shape}, "
              f"X_test {data['X_test'].shape}; loaded in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
    else:
        data = shape_data(shape)
        add_test_set(data, shape)
        step_size, params = SHAPE_STEP_SIZE, SHAPE_SPECS[shape]["params"]
        print(f"\n=== Shape {shape} (seeded random data), metric only",
              flush=True)
    from .tasks import problem_from_data
    problem = problem_from_data(data["task"], data["X_train"],
                                data["y_train"], data["X_val"],
                                data["y_val"], **params)
    res = metric_figures(data, problem, step_size=step_size)
    print_metric(res, prefix=f"[{shape}] ", target=targets.get("metric_s"))
    checks.extend(metric_checks(shape, res, targets))
    return res


def metric_checks(shape, res, targets):
    """Checks of part 5: cold and warm seconds, tolerance met."""
    out = [check(shape, f"metric evaluation, {label}", res[label + "_s"],
                 target, " s")
           for label, target in targets.get("metric_s", {}).items()]
    out.append(check(shape, "metric solves meet their tolerance",
                     0.0 if res["tol_met"] else 1.0, 0.0, ""))
    return out


def shape_section(shape, args, settings, info, checks):
    """Parts 1, 2, 4 (MEMORY_SHAPES only) and 5 on ``shape``; prints them,
    appends the target checks to ``checks``, returns the figures."""
    spec = SHAPE_SPECS[shape]
    targets = SHAPE_TARGETS.get(shape, {})
    prefix = f"[{shape}] "
    t0 = time.perf_counter()
    data = shape_data(shape)
    problem = shape_problem(data, shape)
    res = dict(task=spec["task"], n_features=spec["n_features"],
               n_train=spec["n_train"], n_val=spec["n_val"],
               n_test=spec["n_test"], params=spec["params"],
               dim_x=problem.dim_x, dim_y=problem.dim_y,
               step_size=SHAPE_STEP_SIZE,
               data_gen_s=time.perf_counter() - t0)
    print_shape(shape, res, args.batch_size)
    step = dict(step_size=SHAPE_STEP_SIZE)

    res["steady"] = {name: steady_state(
        problem, make_config(name, args.batch_size, **step), settings)
        for name in args.solvers}
    res["non_full"] = {name: steady_state(
        problem, make_config(name, args.batch_size, **NON_FULL[name], **step),
        settings) for name in args.solvers if name in NON_FULL}
    print_steady(res["steady"], res["non_full"], prefix=prefix,
                 targets=targets.get("us", {}))
    checks.extend(steady_checks(shape, res["steady"], res["non_full"],
                                targets.get("us", {})))

    res["full_pass"] = full_pass_figures(problem, args.batch_size, settings,
                                         warmup=1, start=1, **step)
    print_full_pass(res["full_pass"], prefix=prefix,
                    target=targets.get("full_pass"))
    if "full_pass" in targets:
        checks.append(check(shape, "full pass / numpy stream",
                            res["full_pass"]["ratio"], targets["full_pass"],
                            "x"))

    if shape in MEMORY_SHAPES and not args.skip_memory:
        with tempfile.TemporaryDirectory(prefix="bench_problem_") as tmp:
            path = Path(tmp) / "problem.npz"
            save_problem(problem, path)
            res["memory"] = memory_figures(
                args.solvers, path, args.batch_size, settings["memory_iters"],
                jobs=min(2, info["nproc"] or 1), step_size=SHAPE_STEP_SIZE)
        print_memory(res["memory"], settings["memory_iters"], prefix=prefix,
                     target_mib=targets.get("peak_mib"))
        if "peak_mib" in targets:
            checks.extend(
                check(shape, f"{name} peak RSS", r["peak_mib"],
                      targets["peak_mib"], " MiB")
                for name, r in res["memory"].items() if name != "baseline")

    del problem  # shares the arrays of data
    add_test_set(data, shape)
    res["metric"] = metric_figures(data, shape_problem(data, shape))
    del data
    print_metric(res["metric"], prefix=prefix,
                 target=targets.get("metric_s"))
    checks.extend(metric_checks(shape, res["metric"], targets))
    return res


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


def print_full_pass(fp, prefix="", target=None):
    """Table of part 2 (and its target, if any)."""
    rows = [[f"{FULL_PASS_SOLVER} p=1 (one full pass/iter)",
             fmt(fp["us_per_iter"], ".0f"), fmt(fp["ns_per_sample"], ".2f"),
             fmt(fp["pass_gbs"], ".2f"), fmt(fp["ratio"], ".2f")],
            ["numpy Xf.sum() + Xg.sum() (best)", fmt(fp["stream_us"], ".0f"),
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
                fmt(r["first_run_s"], ".2f")]
    rows = [row(f"cold cache ({comp['cold']['solver']}, compiles the core)",
                comp["cold"])]
    rows += [row(f"warm cache, {name}", r) for name, r in comp["warm"].items()]
    print_table("3. Warm-up in a fresh subprocess, seconds (first run = tiny "
                "PnPBORun + run(2): compile or cache load)",
                ["", "wall", "import numpy", "import numba", "import core",
                 "first run"], rows)
    print(f"  run_iterations specialisations in the cache: "
          f"{comp['run_iterations_entries_after_cold']} after the cold run, "
          f"{comp['run_iterations_entries_after_warm']} after the warm runs "
          "(one engine function shared by every preset)")


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
                f"imports + problem only; solvers: + core load + {n_iter} "
                "iterations)",
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
        (f"warm {k + 1}: after {m['eval_freq'] * (k + 1)} iterations",
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


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------
def parse_args(argv=None):
    """Command-line options."""
    from .presets import PRESETS
    parser = argparse.ArgumentParser(
        prog="python -m benchmark_utils.bench", description=__doc__.split(
            "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--solvers", default=",".join(PRESETS),
                        help="comma-separated presets (default: all)")
    parser.add_argument("--dim", type=int, default=100, help="d_x = d_y")
    parser.add_argument("--n", type=int, default=10000, help="n = m")
    parser.add_argument("--batch-size", type=int, default=64)
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
    parser.add_argument("--json", metavar="PATH", help="write figures here")
    args = parser.parse_args(argv)
    args.solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    unknown = [s for s in args.solvers if s not in PRESETS]
    if unknown or not args.solvers:
        parser.error(f"unknown solvers {unknown}; choose from {list(PRESETS)}")
    return args


def main(argv=None):
    """Measure and print every part; optionally write the JSON."""
    args = parse_args(argv)
    settings = QUICK_SETTINGS if args.quick else FULL_SETTINGS
    shapes = SHAPES if args.shape == "all" else (args.shape,)
    info = machine_info()
    print_machine(info, args, settings, shapes)
    out = dict(machine=info, settings=dict(
        settings, dim=args.dim, n=args.n, m=args.n, batch_size=args.batch_size,
        step_size=STEP_SIZE, quick=args.quick, solvers=args.solvers,
        shape=args.shape, shape_step_size=SHAPE_STEP_SIZE))

    metric_only = args.metric_only or args.shape == "fashion"
    if "quadratic" in shapes and not metric_only:
        quadratic_section(args, settings, info, out)
    else:
        make_run(tiny_problem(), make_config(args.solvers[0], 2)).run(2)
        if not (args.skip_compile or metric_only):  # problem-independent
            out["compile"] = compile_figures(args.solvers,
                                             settings["warm_per_solver"])
            print_compile(out["compile"])
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
        print_targets(checks)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
        print(f"\nfigures written to {args.json}")


def quadratic_section(args, settings, info, out):
    """Parts 1 to 4 on the Simulated quadratic problem, into ``out``."""
    problem = build_problem(args.dim, args.n)
    make_run(tiny_problem(), make_config(args.solvers[0], 2)).run(2)  # load
    out["steady"] = {name: steady_state(
        problem, make_config(name, args.batch_size), settings)
        for name in args.solvers}
    out["non_full"] = {name: steady_state(
        problem, make_config(name, args.batch_size, **NON_FULL[name]),
        settings) for name in args.solvers if name in NON_FULL}
    print_steady(out["steady"], out["non_full"])
    out["full_pass"] = full_pass_figures(problem, args.batch_size, settings)
    print_full_pass(out["full_pass"])

    if not args.skip_compile:
        out["compile"] = compile_figures(args.solvers,
                                         settings["warm_per_solver"])
        print_compile(out["compile"])
    if not args.skip_memory:
        with tempfile.TemporaryDirectory(prefix="bench_problem_") as tmp:
            path = Path(tmp) / "problem.npz"
            save_problem(problem, path)
            out["memory"] = memory_figures(
                args.solvers, path, args.batch_size, settings["memory_iters"],
                jobs=min(2, info["nproc"] or 1))
        print_memory(out["memory"], settings["memory_iters"])


if __name__ == "__main__":
    main()
