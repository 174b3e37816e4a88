"""The black-box search baseline ``Optuna`` (docs/solvers.md "Optuna"): its
curve is the best trial so far (H never goes up), a fixed seed gives the
same trials, every trial counts the samples its exact solve evaluates, bad
parameters are named, and an x of too many coordinates is skipped with the
reason."""
import math
import re

import numpy as np
import pytest

from bench_helpers import SMALL, objective_for, run_benchopt, solver_class
from benchmark_utils.algorithms import SearchRun, config_of
from benchmark_utils.exact_glm import GLMExact
from benchmark_utils.exact_value import ExactValue
from benchmark_utils.metrics import make_metrics
from benchmark_utils.sample_grid import EVAL_EPOCHS, grid_target
from benchmark_utils.tasks.registry import get_task
from conftest import glm_data, problem_of, start_point

SMALL_PARAMS = dict(n=200, m=300, dim_x=5, dim_y=10)


def _curve(objective, n_points=12, trials=4, **parameters):
    """The evaluations of an Optuna run at its first ``n_points`` callback
    calls, and the solver; the grid is ``trials`` trials of the quadratic
    task (n + m samples each) per call."""
    solver = solver_class("Optuna").get_instance(**parameters)
    solver.set_objective(**dict(objective.get_objective(),
                                eval_epochs=float(trials)))
    points = []

    def callback():
        points.append(objective.evaluate_result(**solver.get_result()))
        points[-1]["x"] = solver.get_result()["x"]
        return len(points) < n_points

    solver.run(callback)
    return points, solver


@pytest.fixture(scope="module")
def simulated():
    return objective_for(SMALL_PARAMS)


def test_the_best_value_never_goes_up_on_simulated(simulated):
    points, solver = _curve(simulated, trials=4)
    values = [p["value"] for p in points]
    assert all(b <= a for a, b in zip(values, values[1:])), values
    assert values[-1] < values[0]  # TPE improved on x0 in 44 trials
    exact = simulated.metrics.exact
    for p in points:
        assert p["value"] == pytest.approx(exact.value(p["x"]), rel=1e-12)
        assert p["diverged"] == 0
    # y is the best trial's exact y*(x): no inner gap after the first call
    assert all(p["inner_gap"] < 1e-20 for p in points[1:])
    # trial 0 is x0 (inside the box [-5, 5] here)
    x0 = simulated.get_objective()["x0"]
    assert np.all(np.abs(x0) < 5)
    assert solver.state.study.trials[0].params == {
        f"x{k}": v for k, v in enumerate(x0)}


def test_a_trial_counts_n_plus_m_on_the_quadratic(simulated):
    points, _ = _curve(simulated, n_points=6, trials=3)
    n, m = 200, 300
    assert [p["n_samples"] for p in points] == [
        k * 3 * (n + m) for k in range(6)]


def test_a_fixed_seed_gives_the_same_trials(simulated):
    def trials(random_state):
        points, solver = _curve(simulated, n_points=5, trials=4,
                                random_state=random_state)
        return ([p["x"] for p in points],
                [t.params for t in solver.state.study.trials])

    xs, params = trials(7)
    xs_again, params_again = trials(7)
    assert params == params_again and len(params) == 16
    assert all(np.array_equal(a, b) for a, b in zip(xs, xs_again))
    assert trials(8)[1] != params


@pytest.mark.parametrize("task", ["logreg", "multilogreg", "datacleaning"])
def test_a_logistic_trial_counts_its_newton_passes(task):
    """m per value/gradient pass, per Hessian-vector product and per
    preconditioner (one per Newton step) of the y*(x) solve, n for f: the
    solve's own counters (GLMExact.status) give the same number, as they
    do for ImplicitGD; H and y* are the metrics' (to their tolerance)."""
    data = glm_data(task, n=30, m=40)
    problem = problem_of(data)
    exact = ExactValue(problem)
    metrics = make_metrics(data)
    x = start_point(data, seed=2)[0] + 0.5
    for _ in range(2):  # cold, then warm-started
        value, y, samples = exact(x)
        status = exact._glm.status
        assert samples == 40 * (status["g_evals"] + status["hvps"]
                                + status["newton_steps"]) + 30
        assert samples >= 2 * 40 + 30
        ys, _, _, fval = metrics.exact.solve(x)
        assert value == pytest.approx(fval, rel=1e-9)
        assert np.allclose(y, ys, atol=1e-8)
        x = x - 0.3


def test_a_search_run_adds_up_its_trials():
    data = glm_data("multilogreg", n=30, m=40)
    problem = problem_of(data)
    x0, y0, z0 = start_point(data, seed=1)
    run = SearchRun(problem, config_of("Optuna"), x0, y0, z0, seed=3)
    replay = ExactValue(problem)
    run.run(6)
    total = 0
    for trial in run.study.trials:
        total += replay(np.array(list(trial.params.values())))[2]
    assert run.iteration == 6 and run.n_samples == total
    assert run.result()["z"].tolist() == z0.tolist()  # no z estimated


def test_the_task_boxes_are_log_scale_for_the_weights():
    assert get_task("logreg").search_box == (-10.0, 5.0)
    assert get_task("multilogreg").search_box == (-10.0, 5.0)
    assert config_of("Optuna").box("logreg") == (-10.0, 5.0)
    assert config_of("Optuna", low=-3).box("quadratic") == (-3.0, 5.0)


@pytest.mark.parametrize("values, message", [
    (dict(low=math.nan), "low must be None (the task's box) or a number "
                         "in [-1e+06, 1e+06], got nan"),
    (dict(high="abc"), "high must be None (the task's box) or a number"),
    # Optuna's TPE overflows on a box this wide
    (dict(low=-1e308, high=1e308), "low must be None (the task's box) or a "
                                   "number in [-1e+06, 1e+06], got -1e+308"),
    (dict(low=2.0, high=1.0), "low must be < high, got low=2.0, high=1.0"),
    (dict(max_dim=0), "max_dim must be an integer >= 1, got 0"),
    (dict(max_dim=2.5), "max_dim must be an integer >= 1, got 2.5"),
    (dict(random_state=-1), "random_state must be an integer >= 0 or None"),
    (dict(batch_size=8), "unknown parameter 'batch_size' for Optuna"),
])
def test_a_bad_parameter_is_named(values, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        config_of("Optuna", **values)


def test_a_box_empty_on_the_task_is_named(simulated):
    solver = solver_class("Optuna").get_instance(low=6.0)
    with pytest.raises(ValueError, match=r"low must be < high, got low=6.0, "
                       r"high=5.0 \(the quadratic task's box is \[-5, 5\]\)"):
        solver.set_objective(**simulated.get_objective())


class DeadlineCallback:
    """benchopt's callback, faked: its criterion's ``time_is_up`` turns
    true after ``reads`` reads; it evaluates nothing and stops the run at
    its first call after the deadline (benchopt's timeout check)."""

    def __init__(self, reads):
        self.reads, self.calls = reads, 0
        self.stopping_criterion = self

    def time_is_up(self):
        self.reads -= 1
        return self.reads < 0

    def __call__(self):
        self.calls += 1
        return self.reads >= 0


def test_the_deadline_ends_a_search_within_a_trial(simulated):
    """A grid step of a million trials: the deadline, checked between
    trials, ends the run one trial after it passes."""
    solver = solver_class("Optuna").get_instance()
    solver.set_objective(**dict(simulated.get_objective(), eval_epochs=1e6))
    callback = DeadlineCallback(reads=5)
    solver.run(callback)
    assert solver.state.iteration <= 5
    assert callback.calls == 2


def test_an_x_of_too_many_coordinates_is_skipped():
    data = glm_data("datacleaning", n=30, m=40)
    problem = problem_of(data)
    kwargs = dict(zip(("x0", "y0", "z0"), start_point(data)))
    solver = solver_class("Optuna").get_instance(max_dim=39)
    skip, reason = solver.skip(problem=problem, seed=0, **kwargs)
    assert skip and reason.startswith(
        "x has 40 coordinates (datacleaning: one weight per training "
        "sample), more than max_dim=39")
    with pytest.raises(ValueError, match="refuses this problem: x has 40"):
        SearchRun(problem, config_of("Optuna", max_dim=39), seed=0, **kwargs)
    # at max_dim = 40 it searches
    solver = solver_class("Optuna").get_instance(max_dim=40)
    assert solver.skip(problem=problem, seed=0, **kwargs) == (False, None)
    run = SearchRun(problem, config_of("Optuna", max_dim=40), seed=0,
                    **kwargs)
    run.run(3)
    assert math.isfinite(run.value)


def test_the_oracle_data_rebuild_the_dataset():
    for task in ("logreg", "multilogreg", "datacleaning"):
        data = glm_data(task)
        rebuilt = problem_of(data).oracle_data()
        assert set(data) - set(rebuilt) == {"X_test", "y_test"}
        for key, value in rebuilt.items():
            assert np.array_equal(value, data[key]), (task, key)
    GLMExact("logreg", problem_of(glm_data("logreg")).oracle_data())


@pytest.mark.slow
def test_a_benchopt_run(tmp_path):
    df, status = run_benchopt(tmp_path, "-d", SMALL, "-s", "Optuna",
                              "-n", "6", "-r", "1")
    assert list(status.values()) == ["done (not enough run)"], status
    values = df["objective_value"].to_numpy()
    assert np.all(np.diff(values) <= 0)
    # each point at the first trial (n + m = 500 samples) that reaches the
    # default grid's target of its callback call
    targets = [grid_target(c, EVAL_EPOCHS, 200, 300) for c in df["stop_val"]]
    assert df["objective_n_samples"].tolist() == [-(-t // 500) * 500
                                                  for t in targets]


def test_a_search_whose_trials_all_fail_ends_diverged_with_a_warning(
        simulated):
    """Every exact solve fails: after ALL_FAILED trials the run has no
    point to report, says so and ends flagged (not ``done`` at x0)."""
    from benchmark_utils.algorithms.search import ALL_FAILED
    solver = solver_class("Optuna").get_instance()
    solver.set_objective(**simulated.get_objective())
    state = solver.state
    state.exact = lambda x: (math.nan, None, 10)
    with pytest.warns(RuntimeWarning, match=f"the search's {ALL_FAILED} "
                      "trial.s. all failed"):
        state.run(ALL_FAILED + 3)
    assert state.diverged and state.result()["diverged"]
    out = simulated.evaluate_result(**solver.get_result())
    assert out["diverged"] == 1
