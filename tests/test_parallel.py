"""``benchopt run --parallel-config configs/parallel_dask.yml`` (docs/results.md "Run
on a cluster"): a two-solver sweep run on a local dask cluster gives the
same curves, bit for bit, as the same sweep run sequentially; the SLURM
template is a config benchopt accepts, and its runs, made by submitit's
local executor (each job a process of this machine, nothing submitted to
SLURM), give the sequential curves bit for bit too."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from benchopt.parallel_backends import check_parallel_config

ROOT = Path(__file__).resolve().parents[1]
DASK_CONFIG = ROOT / "configs" / "parallel_dask.yml"
SLURM_CONFIG = ROOT / "configs" / "parallel_slurm.yml"

# Three runs (SOBA at two step sizes, SABA) on a small quadratic problem, a
# few evaluations each; --no-cache: both sweeps are computed, none is read
# from benchopt's result cache. The timeout is far above what the runs take
# so that no run stops on time (the curves would then differ in length).
SWEEP = ["-d", "Simulated[n=200,m=200,dim_x=3,dim_y=5]",
         "-s", "SOBA[step_size=[0.05,0.1]]", "-s", "SABA",
         "-n", "5", "-r", "1", "--timeout", "120",
         "--no-plot", "--no-html", "--no-cache"]
# What a run computes; time and the machine/environment columns differ.
KEYS = ["dataset_name", "objective_name", "solver_name", "idx_rep",
        "stop_val"]


def run_sweep(output, *extra, sweep=SWEEP, launcher=None):
    """The sweep through ``benchopt run`` in a subprocess (as
    bench_helpers.run_benchopt; ``launcher``: the command in place of
    ``python -m benchopt``); returns (results, stdout)."""
    launcher = launcher or [sys.executable, "-m", "benchopt"]
    cmd = [*launcher, "run", str(ROOT), *sweep, "--output", str(output),
           *extra]
    env = dict(os.environ, BENCHOPT_RAISE_ON_ERROR="true")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout.replace("\r", "\n"))
    return pd.read_parquet(output), text


def curves(df):
    metrics = sorted(c for c in df.columns if c.startswith("objective_")
                     and c != "objective_name")
    return (df[KEYS + metrics].sort_values(KEYS).reset_index(drop=True),
            metrics)


@pytest.mark.slow
def test_a_sweep_on_a_local_dask_cluster_equals_the_sequential_sweep(
        tmp_path):
    pytest.importorskip(
        "distributed", reason="the dask backend needs the `distributed` "
        "package: pip install -r requirements.txt (or pip install "
        "distributed)")
    # outputs under tmp_path: benchopt writes an absolute --output there,
    # outputs/ is left untouched and pytest removes the files
    par, text = run_sweep(tmp_path / "dask.parquet",
                          "--parallel-config", str(DASK_CONFIG))
    assert "Distributed run with backend: dask" in text
    seq, _ = run_sweep(tmp_path / "sequential.parquet")

    seq = assert_same_curves(par, seq)
    solvers = seq["solver_name"].unique()
    assert len(solvers) == 3                    # SOBA x 2 step sizes, SABA
    for s in solvers:                           # 0..5: -n 5 stops each
        assert (seq["solver_name"] == s).sum() == 6


def assert_same_curves(par, seq):
    """The same runs, the same stops and every metric bitwise equal (NaN
    == NaN) in ``par`` as in ``seq``; returns ``seq``'s curves."""
    par, metrics = curves(par)
    seq, _ = curves(seq)
    assert {"objective_value", "objective_grad_norm2",
            "objective_n_samples"} <= set(metrics)
    pd.testing.assert_frame_equal(par[KEYS], seq[KEYS])
    for m in metrics:
        a, b = par[m].to_numpy(), seq[m].to_numpy()
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), m
    assert np.isfinite(seq["objective_value"]).all()
    return seq


# `benchopt run` with the SLURM config on submitit's local executor.
# benchopt 1.10 (parallel_backends/slurm_executor.py) builds
# submitit.AutoExecutor(folder) with no `cluster`, which picks SLURM where
# `srun` exists and the local executor otherwise, and offers no option to
# choose: here, in the process of `benchopt run`, AutoExecutor gets
# cluster="local" (each job a process of this machine, whatever the
# machine), the jobs' folder is the test's (not ./benchopt_run/) and
# benchopt polls the jobs every 0.5 s (submitit's default: 10 s).
SUBMITIT_LOCAL = r"""
import functools, sys
from pathlib import Path
import submitit
import submitit.helpers
from benchopt.benchmark import Benchmark
from benchopt.cli import benchopt
from benchopt.parallel_backends import slurm_executor
submitit.AutoExecutor = functools.partial(submitit.AutoExecutor,
                                          cluster="local")
folder = Path(sys.argv[1])
Benchmark.get_slurm_folder = lambda self: folder
slurm_executor.as_completed = functools.partial(
    submitit.helpers.as_completed, poll_frequency=0.5)
sys.argv = ["benchopt", *sys.argv[2:]]
benchopt()
"""
# Two runs (SOBA, SABA), 3 evaluations each
SMALL_SWEEP = ["-d", "Simulated[n=200,m=200,dim_x=3,dim_y=5]", "-s", "SOBA",
               "-s", "SABA", "-n", "3", "-r", "1", "--timeout", "120",
               "--no-plot", "--no-html", "--no-cache"]


@pytest.mark.slow  # 30-50 s: each job is a Python process that loads all
def test_the_slurm_config_runs_on_submitits_local_executor(tmp_path):
    pytest.importorskip(
        "submitit", reason="the SLURM backend needs `submitit`: pip install "
        "-r requirements-test.txt")
    jobs = tmp_path / "jobs"
    par, text = run_sweep(
        tmp_path / "slurm.parquet", "--parallel-config", str(SLURM_CONFIG),
        sweep=SMALL_SWEEP,
        launcher=[sys.executable, "-c", SUBMITIT_LOCAL, str(jobs)])
    assert "Distributed run with backend: submitit" in text
    # one job per run, each its own process, logged in the jobs' folder
    logs = sorted(jobs.glob("*_log.out"))
    assert len(logs) == 2
    for log in logs:
        assert "run 1 in this worker process, elapsed" in log.read_text()
    seq, seq_text = run_sweep(tmp_path / "sequential.parquet",
                              sweep=SMALL_SWEEP)
    # the sequential run's progress: run k of the 2 runs
    progress = re.findall(r"run (\d) of (\d)", seq_text)
    assert progress == [("1", "2"), ("2", "2")]
    seq = assert_same_curves(par, seq)
    assert sorted(seq["solver_name"].str.split("[").str[0].unique()) == [
        "SABA", "SOBA"]
    assert len(seq) == 2 * 4                    # 0..3: -n 3 stops each


def test_the_parallel_configs_are_read_as_benchopt_reads_them():
    dask = check_parallel_config(str(DASK_CONFIG), None)
    assert dask["backend"] == "dask"
    assert dask.get("dask_cluster", "local") == "local"
    assert "dask_address" not in dask           # a local cluster
    # -j N becomes the number of dask workers
    assert check_parallel_config(str(DASK_CONFIG), 3)["n_jobs"] == 3

    slurm = check_parallel_config(str(SLURM_CONFIG), None)
    assert slurm["backend"] == "submitit"
    # every other key goes to submitit.AutoExecutor.update_parameters
    assert all(k.startswith("slurm_") for k in slurm if k != "backend")
    # a quoted time stays "HH:MM:SS" (unquoted, YAML reads a number)
    assert re.fullmatch(r"\d+:\d\d:\d\d", slurm["slurm_time"])
    assert isinstance(slurm["slurm_additional_parameters"], dict)


# The default Simulated problem and its metrics at a few points, printed as
# the bytes of every array (a worker process of -j N or dask has one BLAS
# thread; the sequential process has as many as the machine's cores).
SIMULATED_BYTES = r"""
import hashlib, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from benchmark_utils.metrics import make_metrics
from benchmark_utils.simulated import make_quadratic
data = make_quadratic(n=2000, m=2000, dim_x=20, dim_y=40, seed=0)
h = hashlib.sha256()
for key in ("X_train", "y_train", "X_val", "y_val"):
    h.update(np.ascontiguousarray(data[key]).tobytes())
metrics = make_metrics(data)
rng = np.random.default_rng(1)
for _ in range(3):
    out = metrics(rng.standard_normal(20), rng.standard_normal(40),
                  rng.standard_normal(40))
    h.update(np.array([out[k] for k in sorted(out)]).tobytes())
print(h.hexdigest())
"""


def test_the_default_simulated_problem_and_metrics_ignore_blas_threads():
    """Bitwise the same data and metrics with one BLAS thread (a worker of
    -j 2 or dask) as with two (a sequential run on two cores): every
    product runs under the metrics' one-thread limit."""
    digests = set()
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads,
                   OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
        proc = subprocess.run(
            [sys.executable, "-c", SIMULATED_BYTES, str(ROOT)], env=env,
            capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        digests.add(proc.stdout.strip())
    assert len(digests) == 1
