"""A diverging run stops cleanly, is reported as diverged, and the benchmark
run goes on with the other solvers (and keeps the diverged curve)."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from benchmark_utils.metrics import LOST, evaluate, make_metrics
from benchmark_utils.algorithms import PnPBORun, config_of
from bench_helpers import ROOT
from conftest import problem_of, start_point

SMALL_SIM = "Simulated[n=200,m=300,dim_x=5,dim_y=10]"


def test_engine_stops_at_the_first_non_finite_iterate(small_data):
    cfg = config_of("SOBA", step_size=1e6, batch_size=8)
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
    # step 20: the run is stopped (not at -n) where its metrics overflow,
    # where H rose by more than 1e5 (benchopt's test: on the grid of 2
    # epochs, its first point after the start) or where its own y has left
    # y*(x) (metrics.lost_inner)
    last = big.iloc[-1]
    overflow = not (np.isfinite(last.objective_value)
                    and np.isfinite(last.objective_grad_norm2))
    first = big.iloc[0]
    lost = last.objective_inner_gap > LOST * max(
        first.objective_inner_gap, last.objective_y_star_norm2)
    rose = last.objective_value - big.iloc[-2].objective_value > 1e5
    assert overflow or lost or rose
    assert len(big) < 5 + 1
    assert (saba.objective_diverged == 0).all()
    assert np.isfinite(saba.objective_value).all()


class RaisingMetrics(FixedMetrics):
    """Metrics whose evaluation raises, as the multiclass preconditioner
    does when e^{x_c} underflows to 0 (``eigh`` of a matrix with infs)."""

    def __init__(self, error):
        self.error, self.resets = error, 0

    def __call__(self, x, y, z):
        raise self.error

    def nan_metrics(self):
        return dict(value=np.nan, grad_norm2=np.nan, inner_gap=np.nan,
                    implicit_gap=np.nan, solve_residual=np.nan)

    def reset(self):
        self.resets += 1


@pytest.mark.parametrize("error", [
    np.linalg.LinAlgError("Eigenvalues did not converge"),
    ValueError("array must not contain infs or NaNs"),
    FloatingPointError("overflow")])
def test_a_failed_evaluation_is_a_diverged_point(error):
    metrics = RaisingMetrics(error)
    with pytest.warns(RuntimeWarning, match=type(error).__name__):
        out = evaluate(metrics, np.ones(3), np.ones(4), np.ones(4), 10)
    assert out["diverged"] == 1 and np.isnan(out["value"])
    assert out["solve_residual"] == np.inf and out["n_samples"] == 10
    assert metrics.resets == 1  # the warm start of the solves is dropped


class SolvedMetrics(FixedMetrics):
    def __init__(self, residual, gap=0.0):
        self.residual, self.gap = residual, gap

    def __call__(self, x, y, z):
        return dict(value=1.0, grad_norm2=0.0, inner_gap=self.gap,
                    implicit_gap=0.0, solve_residual=self.residual)


@pytest.mark.parametrize("metrics, x, trusted", [
    (SolvedMetrics(1.0), np.ones(3), True),
    (SolvedMetrics(1.0 + 1e-9), np.ones(3), False),  # solves missed tol
    (SolvedMetrics(np.inf), np.ones(3), False),
    (SolvedMetrics(np.nan), np.ones(3), False),
    (SolvedMetrics(0.5, gap=1e101), np.ones(3), False),  # huge gap
    (SolvedMetrics(0.5), np.full(3, 1e60), False),  # huge iterate
    (SolvedMetrics(0.5), np.full(3, 1e49), True),
    (FixedMetrics(1.0, 0.0), np.full(3, 1e200), False),  # |x|^2 overflows
])
def test_untrusted_metrics_flag_the_point(metrics, x, trusted):
    """A point whose solves missed their tolerance or whose iterate or gap
    is beyond HUGE is diverged, even with grad_norm2 = 0: it must not end
    its run as converged."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = evaluate(metrics, x, np.ones(4), np.ones(4), 10)
    assert out["diverged"] == (0 if trusted else 1)
    assert bool(seen) != trusted  # a flagged point says why


def _div_run(tmp_path, *args):
    from bench_helpers import run_benchopt
    return run_benchopt(tmp_path, *args, "-n", "6", "--timeout", "60")


def test_saturated_and_crashed_logistic_runs_keep_a_flagged_curve(tmp_path):
    """digits with SABA step 10: the iterates reach 1e60, the sigmoids
    saturate and grad_norm2 falls to ~0 while H rises; wine with step 100:
    e^{x_c} underflows and the preconditioner's eigh raises; wine with
    step 30: the z* solve misses its tolerance by 1e11.  Each run keeps its
    first point, its last point is flagged, and tools.select excludes it
    while ranking a sound run."""
    from tools import select
    df, status = _div_run(
        tmp_path, "-d", "digits", "-d", "wine",
        "-s", "SABA[step_size=[10,30,100]]", "-s", "SABA[step_size=0.1]")
    assert all(v.startswith("done") for v in status.values()), status
    for (data, solver), run in df.groupby(["dataset_name", "solver_name"]):
        step = float(solver.split("step_size=")[1].split(",")[0].rstrip("]"))
        flags = run.objective_diverged.to_numpy()
        assert np.isfinite(run.objective_value.iloc[0])
        assert (flags[:-1] == 0).all(), (data, solver)
        if step == 0.1:
            assert flags[-1] == 0, (data, solver)
        elif data.startswith("digits") and step == 10 or \
                data.startswith("wine") and step in (30, 100):
            assert flags[-1] == 1, (data, solver)
            assert len(run) < 7  # stopped there, not at -n
    table = select.score_table(df, "objective_grad_norm2", "final")
    ranked = table[table.runs > 0]
    # ranked: exactly the runs whose last point is sound and whose x is
    # never saturated (grad_norm2 is no stationarity there), step 0.1
    # among them on both datasets (wine's step 10 is sound on its split)
    runs = df.groupby(["dataset_name", "solver_name"])
    last = runs.objective_diverged.last()
    saturated = runs.objective_x_saturated.max() > 0
    sound = {key for key, flag in last.items()
             if flag == 0 and not saturated[key]}
    assert set(zip(ranked.dataset, ranked.solver)) == sound
    assert sum("step_size=0.1," in solver for _, solver in sound) == 2
    out = table[table.runs == 0]
    assert ((out.diverged + out.saturated) == 1).all()


def test_blowups_stopped_by_benchopt_carry_the_flag(tmp_path):
    """H far above its start (benchopt's own test: up by more than 1e5) ends
    the run as done, and its last point says diverged = 1."""
    df, status = _div_run(tmp_path, "-d", SMALL_SIM,
                          "-s", "SABA[step_size=[3,5]]",
                          "-s", "MA-SOBA[step_size=5]")
    assert set(status.values()) == {"done"}, status
    for _, run in df.groupby("solver_name"):
        assert run.objective_diverged.iloc[-1] == 1
        assert (run.objective_diverged.iloc[:-1] == 0).all()
        assert len(run) >= 2


def test_an_underflowed_regularisation_is_a_named_failed_point():
    """multilogreg at x_c = -800: e^{x_c} is 0, g is not strongly convex and
    y*(x) does not exist; the evaluation says so and the point is flagged
    (the preconditioner used to hand eigh a matrix of infs)."""
    from conftest import glm_data
    metrics = make_metrics(glm_data("multilogreg"))
    x = np.full(3, -800.0)
    with pytest.warns(RuntimeWarning, match="regularisation weights"):
        out = evaluate(metrics, x, np.zeros(15), np.zeros(15), 5)
    assert out["diverged"] == 1 and out["solve_residual"] == np.inf
    # the next evaluation (another run) starts its solves afresh
    fine = evaluate(metrics, np.zeros(3), np.zeros(15), np.zeros(15), 0)
    assert fine["diverged"] == 0
