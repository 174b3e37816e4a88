"""The stopping rule (benchmark_utils/stopping.py, docs/metrics.md "Stopping"): a run
that has converged or stalls ends, one that progresses does not, and a
diverged one ends as done with its curve; then the same seen through
``benchopt run``."""
import math

import numpy as np
import pytest

from benchmark_utils.stopping import ConvergenceCriterion
from bench_helpers import SMALL, benchmark, run_benchopt


def runner_criterion(max_runs=1000, **params):
    return ConvergenceCriterion(strategy="callback", **params) \
        .get_runner_instance(max_runs=max_runs, timeout=None)


def point(value, grad_norm2, diverged=0):
    # suboptimality is NaN on the logistic tasks: it must not matter
    return dict(objective_value=value, objective_grad_norm2=grad_norm2,
                objective_diverged=diverged,
                objective_suboptimality=np.nan, objective_test_error=0.1)


def feed(criterion, points):
    """Call ``should_stop`` as benchopt's callback does; return the index of
    the point the run stops on (None if it does not) and the status."""
    curve, stop_val = [], criterion.init_stop_val()
    status = "running"
    for i, p in enumerate(points):
        curve.append(p)
        stop, status, stop_val = criterion.should_stop(stop_val, curve)
        if stop:
            return i, status
    return None, status


def test_the_objective_uses_the_criterion_with_its_documented_defaults():
    crit = benchmark().get_benchmark_objective().stopping_criterion
    assert isinstance(crit, ConvergenceCriterion)
    assert (crit.tol, crit.patience, crit.value_rtol) == (1e-20, 5, 1e-10)
    assert crit.strategy == "callback" and crit.key_to_monitor == "value"
    # the runner copy keeps them
    run = crit.get_runner_instance(max_runs=10, timeout=5)
    assert (run.tol, run.patience, run.value_rtol) == (1e-20, 5, 1e-10)


def test_converged_when_grad_norm2_falls_below_tol_times_the_first():
    # linear convergence: grad_norm2 divided by 100 per point
    pts = [point(1 + 10.0 ** (-2 * k), 3 * 10.0 ** (-2 * k))
           for k in range(30)]
    i, status = feed(runner_criterion(), pts)
    assert status == "done"
    assert pts[i]["objective_grad_norm2"] <= 1e-20 * 3
    assert pts[i - 1]["objective_grad_norm2"] > 1e-20 * 3
    i, _ = feed(runner_criterion(tol=1e-8), pts)
    assert i == 4


def test_an_exactly_zero_gradient_stops():
    i, status = feed(runner_criterion(), [point(2.0, 1.0), point(1.0, 0.0)])
    assert (i, status) == (1, "done")
    i, status = feed(runner_criterion(), [point(2.0, 0.0)])
    assert (i, status) == (0, "done")


def test_a_progressing_run_is_not_stopped():
    # slow, steady decrease (1e-6 relative per point), gradient far from tol
    pts = [point(1 + 0.999999 ** k, 1e-3 * 0.99 ** k) for k in range(300)]
    assert feed(runner_criterion(), pts) == (None, "running")


def test_a_few_points_without_progress_are_tolerated():
    # H goes up for patience - 1 points (a transient), then down again
    v = [3.0, 2.0, 2.1, 2.2, 2.3, 2.4, 1.9, 1.8, 1.7]
    pts = [point(x, 1.0) for x in v]
    assert feed(runner_criterion(patience=5), pts) == (None, "running")
    i, status = feed(runner_criterion(patience=4), pts)
    assert (i, status) == (5, "done")


@pytest.mark.parametrize("tail", ["flat", "ulps", "noise"])
def test_no_progress_for_patience_points_stops(tail):
    rng = np.random.default_rng(0)
    best = 2.5073493927028894
    head = [point(best + d, 1e-5 + d) for d in (1, 0.1, 0.01, 1e-3, 0.0)]
    if tail == "flat":       # the value does not change at all
        vals = [best] * 20
    elif tail == "ulps":     # float64 rounding noise below value_rtol
        vals = best * (1 + 4e-16 * rng.standard_normal(20))
    else:                    # a noise floor above the best point so far
        vals = best + 1e-3 + 1e-3 * rng.random(20)
    # grad_norm2 stalls above tol (e.g. the logistic tasks' metric floor)
    pts = head + [point(v, 1e-5) for v in vals]
    i, status = feed(runner_criterion(patience=5), pts)
    assert status == "done"
    assert i == len(head) - 1 + 5
    i, _ = feed(runner_criterion(patience=8), pts)
    assert i == len(head) - 1 + 8


def test_the_no_progress_rule_works_without_a_gradient_metric():
    pts = [dict(objective_value=v, objective_diverged=0)
           for v in [3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]
    assert feed(runner_criterion(patience=5), pts) == (6, "done")
    # a non-finite first grad_norm2 only disables the tolerance rule
    pts = [point(3.0, np.nan)] + [point(2.0, 0.0)] * 6
    assert feed(runner_criterion(patience=5), pts) == (6, "done")


@pytest.mark.parametrize("bad", [
    dict(value=np.nan, grad_norm2=np.nan, diverged=1),  # benchopt's test
    dict(value=1.0, grad_norm2=np.inf, diverged=1),     # only our flag
    dict(value=1.0, grad_norm2=1.0, diverged=1),        # iterate not finite
])
def test_a_diverged_point_ends_the_run_as_done(bad):
    pts = [point(3.0, 1.0), point(2.0, 0.5), point(**bad)]
    crit = runner_criterion()
    assert feed(crit, pts) == (2, "done")
    assert crit.stop_reason == "diverged"


def test_benchopts_own_divergence_test_flags_the_point_it_fires_on():
    """benchopt ends a run whose value is NaN or rose by more than 1e5; the
    criterion keeps it (done) and that last point says diverged = 1."""
    for last in (2e5, np.nan):
        pts = [point(5.0, 1.0), point(4.0, 0.5), point(last, 1e3)]
        i, status = feed(runner_criterion(), pts)
        assert (i, status) == (2, "done")
        assert [p["objective_diverged"] for p in pts] == [0, 0, 1]


def test_a_flagged_point_never_ends_a_run_as_converged():
    # saturation: grad_norm2 exactly 0 while H rose, flagged by evaluate
    crit = runner_criterion()
    feed(crit, [point(1.7, 1e-4), point(2.25, 0.0, diverged=1)])
    assert crit.stop_reason == "diverged"


def test_evaluations_stay_spaced_x1_5_on_a_flat_curve():
    # benchopt stretches the gaps x1.2 after each point whose value is
    # exactly unchanged; here the spacing stays benchopt's x1.5
    crit = runner_criterion(patience=math.inf, tol=-1)
    curve, stop_val, seen = [], crit.init_stop_val(), []
    for _ in range(20):
        seen.append(stop_val)
        curve.append(point(1.0, 1.0))
        stop, status, stop_val = crit.should_stop(stop_val, curve)
        assert not stop
    expected = [0]
    while len(expected) < 20:
        s = expected[-1]
        expected.append(max(s + 1, int(1.5 * s)))
    assert seen == expected


def test_max_runs_still_ends_the_run():
    pts = [point(1 + 0.99 ** k, 1.0) for k in range(50)]
    assert feed(runner_criterion(max_runs=10), pts) == (10, "max_runs")


def test_bad_parameters_are_rejected():
    with pytest.raises(ValueError, match="patience"):
        ConvergenceCriterion(patience=0)
    with pytest.raises(ValueError, match="value_rtol"):
        ConvergenceCriterion(value_rtol=-1)


def test_benchopt_run_stops_converged_runs_only(tmp_path):
    n = 20
    # 64 epochs per call: 128 to 256 iterations
    args = ["-d", SMALL, "-n", str(n), "--timeout", "600",
            "-o", "Bilevel Optimization[eval_epochs=64]",
            "-s", "SABA", "-s", "SPABA",        # converge in ~20 callbacks
            "-s", "SOBA[step_size=0.01]"]       # still progressing at -n
    df, status = run_benchopt(tmp_path, *args)
    assert df.solver_name.nunique() == 3
    for name, g in df.groupby("solver_name", sort=False):
        g2 = g.objective_grad_norm2.to_numpy()
        if not name.startswith("SOBA"):
            # stopped by the tolerance, long before -n and the timeout
            assert status[name] == "done", (name, status)
            assert len(g) <= n // 2
            assert g2[-1] <= 1e-20 * g2[0] < g2[-2]
        else:
            # not converged, still making progress: runs to -n
            assert status[name] == "done (not enough run)", (name, status)
            assert len(g) == n + 1
            assert g2[-1] > 1e-20 * g2[0]
            assert (g.objective_diverged == 0).all()
