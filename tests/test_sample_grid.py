"""The grid of sample evaluations (docs/metrics.md "Grid of sample
evaluations", ``benchmark_utils/sample_grid.py``): callback call c of every
solver is at the end of the first iteration whose sample count reaches
c eval_epochs (n + m); the compiled loops stop exactly there; a point
evaluated again after a full pass is not "no progress"; a bad grid is
named."""
import numpy as np
import pytest

from bench_helpers import benchmark, objective_for, solver_class
from benchmark_utils.algorithms import config_of, run_of
from benchmark_utils.sample_grid import (EVAL_EPOCHS, check_eval_epochs,
                                         grid_target)
from benchmark_utils.stopping import ConvergenceCriterion
from conftest import glm_data, problem_of, start_point

SMALL = dict(n=200, m=300, dim_x=5, dim_y=10)
# SABA and SFFBA start with a full pass (init=full); SPABA at p = 0.01
# draws random full passes (PAGE); SOBA and SRBA do not pass over the data.
GRID_SOLVERS = ["SOBA", "SABA", "SRBA", "SPABA[p=0.01]", "SFFBA"]


def _solver(spec):
    """A solver instance from ``NAME[key=value]`` (numbers only)."""
    name, _, rest = spec.partition("[")
    params = dict(item.split("=") for item in rest.rstrip("]").split(",")
                  if item)
    return solver_class(name).get_instance(
        **{key: float(value) for key, value in params.items()})


def _samples_at_every_call(solver, objective, calls, eval_epochs):
    """The solver's sample count at each of its first ``calls`` callback
    calls (evaluated or not), on the grid of ``eval_epochs``."""
    solver.set_objective(**dict(objective.get_objective(),
                                eval_epochs=eval_epochs))
    seen = []

    def callback():
        seen.append(solver.state.n_samples)
        return len(seen) < calls

    solver.run(callback)
    return seen


def _one_at_a_time(solver, targets):
    """The same run advanced by single iterations from Python: for each
    target, (sample count at the first iteration end that reaches it, that
    iteration's own count, which an earlier target may have run)."""
    run = run_of(solver.problem, solver.cfg, solver.x0, solver.y0,
                 solver.z0, solver.seed)
    out = []
    last = 0
    for target in targets:
        while run.n_samples < target:
            before = run.n_samples
            run.run(1)
            last = run.n_samples - before
        out.append((run.n_samples, last))
    return out


@pytest.fixture(scope="module")
def objectives():
    return {"Simulated": objective_for({}),
            "digits": objective_for({}, dataset="digits")}


@pytest.mark.slow
@pytest.mark.parametrize("eval_epochs", [EVAL_EPOCHS, 0.3])
@pytest.mark.parametrize("data", ["Simulated", "digits"])
@pytest.mark.parametrize("spec", GRID_SOLVERS)
def test_every_call_is_within_one_iteration_of_its_grid_point(
        objectives, data, spec, eval_epochs):
    """At every callback call c: c u (n + m) <= n_samples < c u (n + m) +
    the cost of the iteration that crossed it (an earlier call's when no
    iteration was needed: the point is the previous one again), as a run
    advanced one iteration at a time finds."""
    objective = objectives[data]
    solver = _solver(spec)
    calls = 40
    seen = _samples_at_every_call(solver, objective, calls, eval_epochs)
    n, m = objective.problem.n, objective.problem.m
    targets = [grid_target(c, eval_epochs, n, m) for c in range(calls)]
    expected = _one_at_a_time(solver, targets)
    assert seen == [samples for samples, _ in expected]
    for c, (samples, cost) in enumerate(expected):
        assert c * eval_epochs * (n + m) <= samples + 1e-6, (c, samples)
        assert samples < targets[c] + max(cost, 1), (c, samples, cost)


@pytest.mark.slow
def test_solvers_end_at_one_sample_budget_through_benchopt(tmp_path):
    """The four solvers of docs/metrics.md's example on one grid through
    ``benchopt run``: their k-th points are within one iteration of each
    other (SPABA's full passes aside, 0.1 epochs on this problem)."""
    from bench_helpers import SMALL as SMALL_SPEC, run_benchopt
    df, _ = run_benchopt(
        tmp_path, "-d", SMALL_SPEC, "-s", "SOBA", "-s", "SABA", "-s",
        "SRBA", "-s", "SPABA[p=0.01]", "-n", "8",
        "-o", "Bilevel Optimization[eval_epochs=0.5]")
    table = df.pivot_table(index="stop_val", columns="solver_name",
                           values="objective_epochs")
    assert table.shape[1] == 4
    for call, row in table.iterrows():
        assert (row >= 0.5 * call - 1e-9).all(), row
        # one iteration of SOBA, SABA, SRBA: at most 4 b = 256 samples;
        # SPABA's full pass: one epoch more
        assert (row < 0.5 * call + 1.0 + 256 / 500).all(), row


@pytest.mark.parametrize("name, params", [
    ("SOBA", {}), ("SABA", {}), ("SPABA", dict(p=0.3)),
    ("SRBA", dict(period=7)), ("SFFBA", {}), ("MRBO", {}),
    ("VRBO", dict(period=5)), ("StocBiO", {}), ("ITD", {})])
def test_the_compiled_loop_stops_at_the_first_crossing(name, params):
    """``run_until(target)``: one call of the compiled loop ends at the
    first iteration whose count reaches the target, with the iterates of
    single iterations from Python, bit for bit; a target already reached
    runs nothing; ``max_iter`` caps the iterations."""
    data = glm_data("logreg", n=30, m=40)
    problem = problem_of(data)
    start = start_point(data)
    cfg = config_of(name, batch_size=4, **params)
    grid = run_of(problem, cfg, *start, 3)
    single = run_of(problem, cfg, *start, 3)
    for target in (1, 35, 70, 71, 300, 301, 1000):
        grid.run_until(target)
        while single.n_samples < target:
            single.run(1)
        assert grid.iteration == single.iteration, (target, name)
        assert grid.n_samples == single.n_samples >= target
        for a, b in zip((grid.x, grid.y, grid.z),
                        (single.x, single.y, single.z)):
            assert a.tobytes() == b.tobytes(), (target, name)
    k = grid.iteration
    grid.run_until(grid.n_samples)  # reached: nothing runs
    assert grid.iteration == k
    grid.run_until(10 ** 9, max_iter=3)
    assert grid.iteration == k + 3


@pytest.mark.parametrize("name", ["ImplicitGD", "Optuna"])
def test_python_side_runs_stop_at_the_first_crossing(name):
    """ImplicitGD's steps and Optuna's trials: the same rule, one
    iteration at a time, and the deadline checked between them."""
    data = glm_data("logreg", n=30, m=40)
    problem = problem_of(data)
    run = run_of(problem, config_of(name), *start_point(data), 0)
    run.run_until(500)
    assert run.n_samples >= 500
    counts = run.n_samples
    run.run_until(500)
    assert run.n_samples == counts
    k = run.iteration
    reads = iter([False, False, True])
    run.run_until(10 ** 9, time_is_up=lambda: next(reads))
    assert run.iteration == k + 2


def _point(value, n_samples):
    return dict(objective_value=value, objective_grad_norm2=1.0,
                objective_diverged=0, objective_n_samples=n_samples)


def _stop_index(points, patience=3):
    """The index of the point ``ConvergenceCriterion`` stops on, or None."""
    criterion = ConvergenceCriterion(
        patience=patience, strategy="callback").get_runner_instance(
        max_runs=1000, timeout=None)
    curve, stop_val = [], criterion.init_stop_val()
    for i, p in enumerate(points):
        curve.append(p)
        stop, _, stop_val = criterion.should_stop(stop_val, curve)
        if stop:
            return i
    return None


def test_repeated_points_are_not_counted_as_no_progress():
    """After a full pass the grid evaluates one iterate at several calls
    (same sample count): those points do not count towards ``patience``;
    distinct points without a new lowest value do."""
    start = [_point(2.0, 0), _point(1.0, 1000)]
    repeated = [_point(1.0, 1000)] * 6
    assert _stop_index(start + repeated) is None
    flat = [_point(1.0, 1000 + k) for k in range(1, 7)]
    assert _stop_index(start + flat) == 4  # the third distinct flat point
    # repeated points between flat ones: only the distinct ones count
    mixed = [_point(1.0, 1001), _point(1.0, 1001), _point(1.0, 1002),
             _point(1.0, 1002), _point(1.0, 1003)]
    assert _stop_index(start + mixed) == 6


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"),
                                   "abc", None, True])
def test_a_bad_grid_is_named(value):
    with pytest.raises(ValueError, match=r"eval_epochs must be a finite "
                       r"number > 0 \(the epochs"):
        check_eval_epochs(value)


def test_the_objective_refuses_a_bad_grid_and_passes_a_good_one():
    with pytest.raises(ValueError, match="eval_epochs must be a finite "
                       "number > 0"):
        objective_for(SMALL, eval_epochs=0.0)
    good = objective_for(SMALL, eval_epochs=0.25)
    assert good.get_objective()["eval_epochs"] == 0.25
    solver = solver_class("SOBA").get_instance()
    solver.set_objective(**good.get_objective())
    assert solver.grid_target(3) == 375  # 3 x 0.25 x 500
    assert benchmark().get_benchmark_objective().parameters == {
        "eval_epochs": [EVAL_EPOCHS]}


def test_grid_targets_absorb_float_rounding():
    """10/63 epochs: call 63 is exactly 10 epochs, not one sample more."""
    assert grid_target(63, 10 / 63, 20000, 5000) == 250000
    assert grid_target(0, 0.3, 200, 300) == 0
    assert grid_target(1, 0.3, 200, 300) == 150
    assert grid_target(1, 0.001, 200, 300) == 1
    assert np.all(np.diff([grid_target(c, 0.1, 7, 6) for c in range(50)])
                  >= 1)
