"""A diverging run stops cleanly, is reported as diverged, and the benchmark
run goes on with the other solvers (and keeps the diverged curve)."""
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

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


class FixedMetrics:
    """Metrics that return given values (n, m as a small problem's)."""
    n, m = 40, 50

    def __init__(self, value, grad_norm2):
        self.value, self.grad_norm2 = value, grad_norm2

    def __call__(self, x, y, z):
        return dict(value=self.value, grad_norm2=self.grad_norm2,
                    inner_gap=0.0, implicit_gap=0.0)


@pytest.mark.parametrize("value, grad_norm2", [
    (np.nan, np.inf), (1.0, np.inf), (np.inf, 1.0), (1.0, np.nan)])
def test_overflowing_metrics_of_a_finite_iterate_are_diverged(
        value, grad_norm2):
    out = evaluate(FixedMetrics(value, grad_norm2), np.ones(3), np.ones(4),
                   np.ones(4), 10)
    assert out["diverged"] == 1
    # the metrics are reported as computed
    assert out["value"] == value or np.isnan(value)
    assert out["grad_norm2"] == grad_norm2 or np.isnan(grad_norm2)
    assert out["n_samples"] == 10


def test_finite_metrics_are_not_diverged(small_data):
    res = evaluate(make_metrics(small_data), np.zeros(3), np.zeros(4),
                   np.zeros(4), 0)
    assert res["diverged"] == 0


def test_benchopt_run_goes_on_and_keeps_the_diverged_curve(tmp_path):
    """SOBA[step_size=1e4]: the iterate stops being finite; SABA with step
    20: the iterate stays finite but H overflows (value NaN, grad_norm2
    inf). Both end as done, keep their curve, and the last point carries
    diverged = 1; the default SABA is not affected."""
    out = tmp_path / "div.parquet"
    cmd = [sys.executable, "-m", "benchopt", "run", ROOT,
           "-d", "Simulated[n=200,m=300,dim_x=5,dim_y=10]",
           "-s", "SOBA[step_size=1e4]", "-s", "SABA[step_size=20]",
           "-s", "SABA", "-n", "5", "--timeout", "20", "--no-plot",
           "--no-html", "--no-cache", "--output", str(out)]
    env = dict(os.environ, BENCHOPT_RAISE_ON_ERROR="true")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "diverged" not in proc.stdout.lower()  # every run ends as done
    df = pd.read_parquet(out)
    soba = df[df.solver_name.str.startswith("SOBA")]
    saba = df[df.solver_name.str.startswith("SABA")]
    big = saba[saba.p_solver_step_size == 20]
    saba = saba[saba.p_solver_step_size == 0.1]
    assert len(soba) >= 2 and len(big) >= 2 and len(saba) >= 2
    for run in (soba, big):
        assert run.objective_diverged.iloc[-1] == 1
        assert (run.objective_diverged.iloc[:-1] == 0).all()
        assert np.isfinite(run.objective_value.iloc[0])
    # step 20: metrics overflow, the run is stopped there (not at -n)
    assert not (np.isfinite(big.objective_value.iloc[-1])
                and np.isfinite(big.objective_grad_norm2.iloc[-1]))
    assert len(big) < 5 + 1
    assert (saba.objective_diverged == 0).all()
    assert np.isfinite(saba.objective_value).all()
