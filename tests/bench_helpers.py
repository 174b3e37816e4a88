"""Access to the benchmark's classes the way benchopt loads them, and
``benchopt run`` in a subprocess."""
import os
import re
import subprocess
import sys
from functools import lru_cache

import pandas as pd
from benchopt.benchmark import Benchmark
from benchopt.utils.run_context import RunContext

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A small Simulated problem for benchopt runs in the tests
SMALL = "Simulated[n=200,m=300,dim_x=5,dim_y=10]"


@lru_cache(maxsize=1)
def benchmark():
    return Benchmark(ROOT)


def solver_class(name):
    return next(s for s in benchmark().get_solvers() if s.name == name)


def dataset_class(name):
    return next(d for d in benchmark().get_datasets() if d.name == name)


def dataset(name, repetition=0, **params):
    """A benchopt dataset instance with a run context (base seed 0,
    ``repetition``), ready for ``get_data()``."""
    instance = dataset_class(name).get_instance(**params)
    RunContext().set_run_context("dummy", instance, "dummy",
                                 repetition=repetition, base_seed=0)
    return instance


def objective_for(dataset_params, repetition=0, base_seed=0,
                  dataset="Simulated", **objective_params):
    """An Objective instance (with ``objective_params``, such as
    ``eval_epochs``) set on a dataset (Simulated by default)."""
    bench = benchmark()
    ds_cls = next(d for d in bench.get_datasets() if d.name == dataset)
    dataset = ds_cls.get_instance(**dataset_params)
    objective = bench.get_benchmark_objective().get_instance(
        **objective_params)
    RunContext().set_run_context(objective, dataset, "dummy",
                                 repetition=repetition, base_seed=base_seed)
    objective._set_dataset(dataset)
    return objective


def run_benchopt(tmp_path, *args, env=None, timeout=900):
    """``benchopt run`` in a subprocess (no result cache: every run is
    computed by the current code); returns (results, status per solver)."""
    out = tmp_path / "res.parquet"
    cmd = [sys.executable, "-m", "benchopt", "run", ROOT, *args,
           "--no-plot", "--no-html", "--no-cache", "--output", str(out)]
    env = dict(os.environ if env is None else env,
               BENCHOPT_RAISE_ON_ERROR="true")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout.replace("\r", "\n"))
    status = dict(re.findall(
        r"\|--(\S+?\[.*?\]): (done(?: \([a-z ]+\))?|diverged|error)", text))
    return pd.read_parquet(out), status


def sleep_when_ready(ready, seconds):
    """A spawned process's target that takes Ctrl-C (SIGINT) as a
    tuning's worker does (even where its parent ignores it: an xdist
    worker), says it has started on ``ready`` (an Event), then sleeps."""
    import signal
    import time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    ready.set()
    time.sleep(seconds)


def sleep_through_interrupts(ready, seconds):
    """A spawned process's target that ignores Ctrl-C (SIGINT), says so
    on ``ready`` (an Event), then sleeps: a worker that will not stop."""
    import signal
    import time
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ready.set()
    time.sleep(seconds)
