"""A diverging run stops cleanly, is reported as diverged, and the benchmark
run goes on with the other solvers (and keeps the diverged curve)."""
import os
import subprocess
import sys

import numpy as np
import pandas as pd

from benchmark_utils.metrics import evaluate, make_metrics
from benchmark_utils.pnpbo import PnPBOConfig, PnPBORun
from benchmark_utils.presets import PRESETS
from bench_helpers import ROOT
from conftest import problem_of, start_point


def test_engine_stops_at_the_first_non_finite_iterate(small_data):
    cfg = PnPBOConfig(**PRESETS["SOBA"], step_size=1e6, batch_size=8)
    run = PnPBORun(problem_of(small_data), cfg, *start_point(small_data), 0)
    run.run(10_000)
    assert run.diverged
    assert run.iteration < 10_000  # stopped early, inside the chunk
    k = run.iteration
    run.run(100)  # a diverged run does not move any more
    assert run.iteration == k
    res = run.result()
    assert not all(np.all(np.isfinite(res[v])) for v in "xyz")
    out = evaluate(make_metrics(small_data), res["x"], res["y"], res["z"],
                   res["n_samples"], res["diverged"])
    assert out["diverged"] == 1 and np.isnan(out["value"])
    assert out["n_samples"] == res["n_samples"] > 0


def test_benchopt_run_goes_on_and_keeps_the_diverged_curve(tmp_path):
    out = tmp_path / "div.parquet"
    cmd = [sys.executable, "-m", "benchopt", "run", ROOT,
           "-d", "Simulated[n=200,m=300,dim_x=5,dim_y=10]",
           "-s", "SOBA[step_size=1e4]", "-s", "SABA",
           "-n", "5", "--timeout", "20", "--no-plot", "--no-html",
           "--output", str(out)]
    env = dict(os.environ, BENCHOPT_RAISE_ON_ERROR="true")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    df = pd.read_parquet(out)
    soba = df[df.solver_name.str.startswith("SOBA")]
    saba = df[df.solver_name.str.startswith("SABA")]
    assert len(soba) >= 2 and len(saba) >= 2
    assert soba.objective_diverged.iloc[-1] == 1
    assert np.isfinite(soba.objective_value.iloc[0])
    assert (saba.objective_diverged == 0).all()
    assert np.isfinite(saba.objective_value).all()
