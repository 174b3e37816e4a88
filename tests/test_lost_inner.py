"""A run whose own y or z has left y*(x), z*(x), or whose x has left the
float64 range of its task's map, is diverged (``metrics.lost_inner``,
``metrics.saturation``; docs/metrics.md "Divergence")."""
import warnings

import numpy as np
import pandas as pd
import pytest

from benchmark_utils.algorithms.table import ALGORITHMS
from benchmark_utils.metrics import LOST, evaluate, lost_inner, saturation
from benchmark_utils.tasks.registry import get_task
from bench_helpers import objective_for, run_benchopt, solver_class
from benchmark_utils.stopping import ConvergenceCriterion
from tools import select


class GapMetrics:
    """Metrics returning the given gaps and solution sizes."""
    n, m = 40, 50

    def __init__(self):
        self.points = []

    def set(self, inner_gap, implicit_gap, y_star_norm2=1.0,
            z_star_norm2=1.0):
        self.next = dict(value=1.0, grad_norm2=1.0, inner_gap=inner_gap,
                         implicit_gap=implicit_gap,
                         y_star_norm2=y_star_norm2,
                         z_star_norm2=z_star_norm2)
        return self

    def __call__(self, x, y, z):
        return dict(self.next)


def _evaluate(metrics, n_samples, z_role="iterate"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = evaluate(metrics, np.zeros(3), np.zeros(4), np.zeros(4),
                       n_samples, z_role=z_role)
    return out, [str(w.message) for w in caught]


def test_the_scale_is_the_larger_of_the_start_gap_and_the_solution():
    out = dict(inner_gap=0.0, implicit_gap=0.0, y_star_norm2=2.0,
               z_star_norm2=3.0)
    start = dict(inner_gap=5.0, implicit_gap=0.5)
    # y: scale max(5, 2) = 5; z: scale max(0.5, 3) = 3
    assert lost_inner(out | dict(inner_gap=LOST * 5 * 0.999), start) is None
    reason = lost_inner(out | dict(inner_gap=LOST * 5 * 1.001), start)
    assert "own y has left y*(x)" in reason and "lost inner iterate" in reason
    assert lost_inner(out | dict(implicit_gap=LOST * 3 * 0.999),
                      start) is None
    assert "own z has left z*(x)" in lost_inner(
        out | dict(implicit_gap=LOST * 3 * 1.001), start)
    # without a start point, the solution's own size alone
    assert lost_inner(out | dict(inner_gap=LOST * 2 * 1.001), None)
    assert lost_inner(out | dict(inner_gap=LOST * 2 * 0.999), None) is None


def test_a_z_that_is_a_sample_is_not_judged():
    out = dict(inner_gap=0.0, implicit_gap=1e30, y_star_norm2=1.0,
               z_star_norm2=1.0)
    assert lost_inner(out, None, z_role="sample") is None
    assert lost_inner(out, None, z_role="iterate")
    roles = {name: a.z_role for name, a in ALGORITHMS.items()}
    assert {n for n, r in roles.items() if r == "sample"} == {
        "StocBiO", "BSA", "TTSA", "SUSTAIN", "MRBO", "VRBO", "BOME", "PZOBO"}


def test_evaluate_keeps_the_first_point_as_the_start():
    metrics = GapMetrics()
    out, _ = _evaluate(metrics.set(10.0, 1.0, y_star_norm2=0.1), 0)
    assert out["diverged"] == 0 and metrics.start["inner_gap"] == 10.0
    # 1e6 x the start gap (10), not x |y*|^2 (0.1), is the line
    out, _ = _evaluate(metrics.set(LOST * 10 * 0.99, 1.0,
                                   y_star_norm2=0.1), 100)
    assert out["diverged"] == 0
    out, caught = _evaluate(metrics.set(LOST * 10 * 1.01, 1.0,
                                        y_star_norm2=0.1), 200)
    assert out["diverged"] == 1
    assert any("lost inner iterate" in m and "inner_gap at the start 10"
               in m for m in caught)
    # the start survives the reset of a diverged point (a tuning's next
    # trial starts from the same point)
    assert metrics.start["inner_gap"] == 10.0


def test_evaluate_names_the_allowed_z_roles():
    with pytest.raises(ValueError, match=r"z_role must be one of "
                       r"\('iterate', 'sample'\), got 'other'"):
        _evaluate(GapMetrics().set(0.0, 0.0), 0, z_role="other")


@pytest.mark.parametrize("task, inside, outside", [
    ("datacleaning", 36.7, 36.8), ("logreg", 709.7, 709.8),
    ("multilogreg", -745.1, -745.2)])
def test_saturation_is_where_the_tasks_map_leaves_float64(task, inside,
                                                          outside):
    x_range = get_task(task).x_range
    assert saturation(np.array([inside, 0.0]), x_range) == 0.0
    assert saturation(np.array([outside, 0.0]), x_range) == 0.5
    assert get_task("quadratic").x_range == (-np.inf, np.inf)
    if task == "datacleaning":
        # the bound is where 1 - sigma(x) falls below float64's resolution
        assert 1.0 / (1.0 + np.exp(-outside)) == 1.0
        assert 1.0 / (1.0 + np.exp(-inside)) < 1.0
    else:
        with np.errstate(over="ignore"):
            assert np.exp(outside) in (0.0, np.inf)
        assert 0.0 < np.exp(inside) < np.inf


def test_a_saturated_x_is_reported_not_flagged():
    metrics = GapMetrics().set(0.0, 0.0)
    metrics.x_range = get_task("datacleaning").x_range
    x = np.zeros(10)
    x[:6] = 100.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = evaluate(metrics, x, np.zeros(4), np.zeros(4), 10)
    assert out["diverged"] == 0 and out["x_saturated"] == 0.6


def _point(grad_norm2, saturated):
    return dict(objective_value=1.0, objective_grad_norm2=grad_norm2,
                objective_diverged=0, objective_x_saturated=saturated)


def test_a_saturated_point_never_converges():
    criterion = ConvergenceCriterion(strategy="callback").get_runner_instance(
        max_runs=100, timeout=None)
    first = _point(1.0, 0.0)
    # grad_norm2 exactly 0 (BOME at step_size=10 on digits) with a single
    # coordinate of x saturated: not converged
    stop, _ = criterion.check_convergence([first, _point(0.0, 0.001)])
    assert not stop
    stop, _ = criterion.check_convergence([first, _point(0.0, 0.0)])
    assert stop and criterion.stop_reason.startswith("converged")


def test_select_never_ranks_a_saturated_run_by_stationarity():
    def run(solver, g, saturated):
        return pd.DataFrame(dict(
            dataset_name="digits", solver_name=solver, idx_rep=0,
            time=[0.0, 1.0], objective_epochs=[0.0, 1.0],
            objective_value=[1.7, 1.6], objective_grad_norm2=[1e-4, g],
            objective_diverged=[0, 0], objective_x_saturated=[0.0, saturated]))
    df = pd.concat([run("PZOBO[step_size=10]", 4e-55, 1.0),
                    run("BOME[step_size=10]", 0.0, 0.99),
                    run("SOBA[step_size=1]", 1e-9, 0.0)])
    table = select.score_table(df, "objective_grad_norm2")
    ranked = table[table["rank"] > 0]
    assert list(ranked.solver) == ["SOBA[step_size=1]"]
    assert set(table[table.saturated == 1].solver) == {
        "PZOBO[step_size=10]", "BOME[step_size=10]"}
    text = select.format_table(table, metric="objective_grad_norm2")
    assert "saturated x, not ranked by stationarity (1 runs)  PZOBO" in text
    # ranked by H, the saturated runs count as any other
    by_value = select.score_table(df, "objective_value")
    assert (by_value["rank"] > 0).all()


def _solver_points(dataset, spec, epochs, **params):
    """The metrics of solver ``spec`` ({name: params}) on ``dataset`` at
    each of ``epochs`` (its own grid), up to its first flagged point, with
    the warnings raised."""
    (name, values), = spec.items()
    objective = objective_for({}, dataset=dataset)
    solver = solver_class(name).get_instance(**values)
    solver.set_objective(**objective.get_objective())
    n_all = objective.metrics.n + objective.metrics.m
    points, messages = [], []
    for e in epochs:
        solver.state.run_until(int(e * n_all))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            points.append(objective.evaluate_result(**solver.get_result()))
        messages += [str(w.message) for w in caught]
        if points[-1]["diverged"]:
            break
    return points, messages


# The Fashion-MNIST study's SPABA winner: its own y leaves y*(x) at its
# first iterations, while H, at y*(x), looks fine for tens of epochs.
SPABA_LOST = dict(step_size=473, outer_ratio=0.00257, z_ratio=8310,
                  p=0.917, R=15.8)


def test_a_lost_inner_iterate_is_flagged_by_4_epochs_with_the_rule_named():
    points, messages = _solver_points(
        "digits", {"SPABA": SPABA_LOST}, [0, 1, 2, 3, 4])
    assert points[-1]["diverged"] == 1 and points[-1]["epochs"] <= 4
    assert all(p["diverged"] == 0 for p in points[:-1])
    # H at y*(x) is still finite and below its start: the rule, not H,
    # says the run is lost
    assert np.isfinite(points[-1]["value"])
    assert points[-1]["value"] <= points[0]["value"]
    assert any("rule: lost inner iterate" in m for m in messages)
    start, last = points[0], points[-1]
    assert last["inner_gap"] > LOST * max(start["inner_gap"],
                                          last["y_star_norm2"])


def test_a_legitimate_run_near_the_line_is_not_flagged():
    # MA-SABA with the study's winner's steps on digits: its own y stays
    # 1e2-1e3 x its scale from y*(x) (docs/metrics.md "Divergence"), the
    # largest ratio of an unflagged run offline, below LOST = 1e6
    points, messages = _solver_points(
        "digits", {"MA-SABA": dict(step_size=4.32, outer_ratio=87.1,
                                   z_ratio=6.63, rho=0.0116, R=666)},
        [0, 1, 2, 4, 8, 16])
    assert all(p["diverged"] == 0 for p in points)
    start = points[0]
    ratios = [p["inner_gap"] / max(start["inner_gap"], p["y_star_norm2"])
              for p in points]
    assert 10 < max(ratios) < LOST


@pytest.mark.slow
def test_a_saturated_run_is_not_stopped_or_ranked_as_stationary(tmp_path):
    """At step_size=10 on digits, PZOBO's x leaves sigma's float64 range at
    its first iterations (H above its start, grad_norm2 4e-55) and BOME's
    within 10 epochs (grad_norm2 then exactly 0): no point of theirs with
    such a gradient has an unsaturated x, so neither stops as converged,
    and tools.select does not rank them by grad_norm2."""
    df, status = run_benchopt(
        tmp_path, "-d", "digits", "-s", "PZOBO[step_size=10]", "-s",
        "BOME[step_size=10]", "-n", "12", "--timeout", "20")
    for name, run in df.groupby("solver_name"):
        g0 = run["objective_grad_norm2"].iloc[0]
        tiny = run["objective_grad_norm2"] <= 1e-20 * g0
        if name.startswith("PZOBO"):
            assert tiny.any()  # what read as converged before
        assert (run.loc[tiny, "objective_x_saturated"] > 0).all()
    table = select.score_table(df, "objective_grad_norm2")
    assert (table["rank"] == 0).all() and (table["saturated"] == 1).all()
