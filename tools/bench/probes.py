"""Parts 3 and 4, in fresh subprocesses: warm-up (compile or cache load)
time and peak memory.

A child runs ``python -c "from tools.bench.probes import child_...; ..."``
from the repository root and prints one tagged JSON line; this module's top
level imports only the standard library and numpy (its import is part of
the child's start-up time).
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .settings import REPO, STEP_SIZE

CHILD_TAG = "BENCH_JSON "
CHILD_MODULE = __name__  # tools.bench.probes: what the children import
LAUNCHER = ("import subprocess, sys; "
            "sys.exit(subprocess.call([sys.executable, '-c', sys.argv[1]]))")


# --------------------------------------------------------------------------
# Children
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


def child_code(function, *args):
    """``python -c`` code calling ``function(*args)`` of this module."""
    call = ", ".join(repr(a) for a in args)
    return f"from {CHILD_MODULE} import {function}; {function}({call})"


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
    """Child side: time importing numba, the core, the solvers' base
    (benchopt), then a run(2) of preset ``name`` on the solvers' tiny
    warm-up problem (``engine.tiny_problem``)."""
    from .shapes import make_config, make_run
    t0 = time.perf_counter()
    import numba  # noqa: F401
    t1 = time.perf_counter()
    import benchmark_utils.algorithms  # noqa: F401
    t2 = time.perf_counter()
    import benchmark_utils.solver_base  # noqa: F401
    from benchmark_utils.engine import tiny_problem
    t3 = time.perf_counter()
    make_run(tiny_problem(), make_config(name, 2)).run(2)
    t4 = time.perf_counter()
    emit(dict(startup_s=t0 - t_start, numba_import_s=t1 - t0,
              core_import_s=t2 - t1, base_import_s=t3 - t2,
              first_run_s=t4 - t3))


def compile_code(name):
    """Code string of a compile-time child for preset ``name``."""
    return ("import time; t = time.perf_counter(); "
            f"from {CHILD_MODULE} import child_compile; "
            f"child_compile({name!r}, t)")


def count_cache_files(cache_dir):
    """(cached functions, compiled specialisations) in a numba cache: its
    ``.nbi`` index and ``.nbc`` code files."""
    root = Path(cache_dir)
    return len(list(root.rglob("*.nbi"))), len(list(root.rglob("*.nbc")))


def compile_figures(names, per_solver):
    """Cold figure (fresh NUMBA_CACHE_DIR) then warm figures (same dir)."""
    cache_dir = tempfile.mkdtemp(prefix="bench_numba_cache_")
    try:
        cold = run_child(compile_code(names[0]), cache_dir)
        cold["solver"] = names[0]
        files_cold = count_cache_files(cache_dir)
        warm = {name: run_child(compile_code(name), cache_dir)
                for name in (names if per_solver else names[:1])}
        files_warm = count_cache_files(cache_dir)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    return dict(cold=cold, warm=warm, cache_files_after_cold=files_cold,
                cache_files_after_warm=files_warm)


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


def save_data(data, path):
    """Write a dataset dict's training and validation sets and task
    parameters to ``path`` (.npz) for the memory children."""
    from .shapes import task_params
    np.savez(path, X_train=data["X_train"], y_train=data["y_train"],
             X_val=data["X_val"], y_val=data["y_val"],
             task=np.array(data["task"]),
             params=np.array(json.dumps(task_params(data))))


def load_data(path):
    """The dataset dict saved by ``save_data`` (no test set)."""
    with np.load(path) as d:
        data = dict(task=str(d["task"]), **json.loads(str(d["params"])))
        for key in ("X_train", "y_train", "X_val", "y_val"):
            data[key] = d[key]
    return data


def child_memory(name, path, batch_size, n_iter, step_size=STEP_SIZE):
    """Child side: build the problem, optionally run a solver, report RSS.

    The problem is rebuilt from the parent's saved arrays (generating it
    would leave a transient peak above everything the solver adds).
    ``name=None`` is the baseline: same imports (numba, the core and the
    solvers' base, benchopt included, as in a benchopt run) and problem,
    no solver; a solver child also records the RSS once the compiled core
    is loaded (``engine.compile_for``: the core, or a baseline's family
    loop), before its own
    ``PnPBORun`` (``BaselineRun``) on the problem.
    """
    from benchmark_utils.engine import compile_for
    from .shapes import make_run, problem_config, problem_of
    problem = problem_of(load_data(path))
    result = dict(peak_build_mib=peak_rss_mib(),
                  rss_build_mib=current_rss_mib())
    if name is not None:
        # a baseline loads its family's entry instead of the core's
        compile_for(name, problem.Xg.dtype.type, problem.task)
        result["rss_loaded_mib"] = current_rss_mib()
        run = make_run(problem, problem_config(problem, name, batch_size,
                                               step_size=step_size))
        run.run(n_iter)
        result["diverged"] = run.diverged
    result.update(peak_mib=peak_rss_mib(), hwm_mib=hwm_mib(),
                  rss_end_mib=current_rss_mib())
    emit(result)


def memory_code(name, path, batch_size, n_iter, step_size=STEP_SIZE):
    """Code string of a memory child (``name=None``: baseline)."""
    return child_code("child_memory", name, str(path), batch_size, n_iter,
                      step_size)


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
