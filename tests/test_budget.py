"""Budgets that hold: ``--timeout`` ends a run at the deadline (between two
evaluations, not at the next scheduled one), and numba's compilation is
outside every run's budget, once per process."""
import itertools
import os
import time

import numpy as np
import pytest

from benchopt.callback import _Callback

from benchmark_utils import engine, solver_base
from benchmark_utils.algorithms import common, config_of, run_of
from benchmark_utils.stopping import ConvergenceCriterion
from bench_helpers import SMALL, objective_for, run_benchopt, solver_class

SMALL_PARAMS = {"n, m": (200, 300), "dim_x, dim_y": (5, 10)}


def benchopt_schedule(stop):
    """benchopt's evaluation points (callback counts) below ``stop``."""
    out = [0]
    while out[-1] < stop:
        out.append(max(out[-1] + 1, int(1.5 * out[-1])))
    return out


def test_the_solver_ends_the_run_at_the_deadline(monkeypatch):
    """A clock that ticks once per read makes the deadline deterministic:
    the run must end on the first chunk boundary after it, with an
    evaluation of the current iterate and benchopt's status 'timeout'."""
    obj = objective_for(SMALL_PARAMS)
    solver = solver_class("SOBA").get_instance(**{"step_size": 0.01})
    solver._set_objective(obj)
    clock = itertools.count()
    monkeypatch.setattr(time, "time", lambda: float(next(clock)))
    # 36 ticks: the deadline falls between the evaluations at calls 19
    # and 28 (39 to 41 would put it on call 28's)
    crit = solver._stopping_criterion.get_runner_instance(
        solver=solver, max_runs=1000, timeout=36)
    callback = _Callback(obj, solver, {}, crit)
    callback.start()
    solver.run(callback)
    curve, status, _ = callback.get_results()
    monkeypatch.undo()

    assert status == "timeout"
    stops = [c["stop_val"] for c in curve]
    last = stops[-1]
    schedule = benchopt_schedule(last)
    # every point before the last is on benchopt's schedule; the last one is
    # not: benchopt alone would have run on to the next scheduled point
    assert stops[:-1] == [s for s in schedule if s < last]
    assert last not in schedule and schedule[-1] > last
    # the last point is the iterate the solver stopped at: one step of the
    # grid per callback, none after the deadline
    grid = run_of(solver.problem, solver.cfg, solver.x0, solver.y0,
                  solver.z0, solver.seed)
    for call in range(1, last + 1):
        grid.run_until(solver.grid_target(call))
    assert solver.state.iteration == grid.iteration
    assert solver.state.n_samples == grid.n_samples
    assert curve[-1]["objective_n_samples"] == solver.state.n_samples
    assert np.isfinite(curve[-1]["objective_value"])


def run_with_timeout(name, timeout, **objective_params):
    """One run of solver ``name`` on the small Simulated problem through
    benchopt's callback, its criterion given ``timeout`` as benchopt's
    runner gives it; returns (curve, status, solver, criterion)."""
    obj = objective_for(SMALL_PARAMS, **objective_params)
    solver = solver_class(name).get_instance()
    solver._set_objective(obj)
    crit = solver._stopping_criterion.get_runner_instance(
        solver=solver, max_runs=100, timeout=timeout)
    callback = _Callback(obj, solver, {}, crit)
    callback.start()
    solver.run(callback)
    curve, status, _ = callback.get_results()
    return curve, status, solver, crit


@pytest.mark.parametrize("name", ["SOBA", "StocBiO", "ImplicitGD"])
def test_a_grid_step_longer_than_the_timeout_ends_at_the_deadline(name):
    """``eval_epochs=1e9``: callback call 1 waits for 1e9 epochs, which no
    run reaches.  The compiled loops (the single loop, a baseline family)
    are called in pieces of about 0.2 s with the deadline read between
    them, ImplicitGD reads it between its steps: the run stops at
    ``--timeout``, the iterate it reached is evaluated (call 1, off the
    grid), and benchopt reports it as a timeout with both points."""
    timeout = 1.0
    curve, status, solver, crit = run_with_timeout(
        name, timeout, eval_epochs=1e9)
    assert status == "timeout"
    assert crit.time_is_up()
    assert [c["stop_val"] for c in curve] == [0, 1]
    # the last point is the iterate at the deadline, short of call 1's
    # grid point, and it is that of the run's state
    last = curve[-1]
    assert 0 < last["objective_n_samples"] == solver.state.n_samples
    assert last["objective_n_samples"] < solver.grid_target(1)
    assert np.isfinite(last["objective_value"])
    # solver time (benchopt's, evaluations excluded): at most the deadline
    # plus one piece; the bound is loose against a loaded machine
    assert last["time"] < timeout + 3


def test_the_criterion_keeps_the_deadline_benchopt_is_given():
    """``time_is_up`` reads the deadline ``get_runner_instance`` keeps from
    its public ``timeout`` argument (none without one), set no earlier
    than benchopt's own: a solver stopping on it is past benchopt's."""
    crit = ConvergenceCriterion(strategy="callback")
    assert crit.get_runner_instance(max_runs=5).deadline is None
    assert not crit.get_runner_instance(max_runs=5).time_is_up()
    before = time.time()
    run = crit.get_runner_instance(max_runs=5, timeout=30)
    assert before + 30 <= run.deadline <= time.time() + 30
    assert not run.time_is_up()
    assert crit.get_runner_instance(max_runs=5, timeout=0).time_is_up()


@pytest.mark.parametrize("name, params", [
    ("SOBA", {}), ("SPABA", dict(p=0.3)), ("MRBO", {}), ("StocBiO", {})])
def test_a_deadline_cuts_the_compiled_loop_without_changing_iterates(
        name, params, monkeypatch):
    """Under a deadline ``run_until`` calls the compiled loop in pieces
    (one iteration, then paced to ``CHUNK_SECONDS``, at most
    ``CHUNK_GROWTH`` times the last piece) and reads the deadline between
    them only; the iterates are bit for bit those of one call."""
    obj = objective_for(SMALL_PARAMS)
    start = obj.get_objective()
    problem = start["problem"]
    cfg = config_of(name, batch_size=16, **params)
    point = (start["x0"], start["y0"], start["z0"])
    chunked = run_of(problem, cfg, *point, 7)
    calls = []
    loop = chunked._loop
    monkeypatch.setattr(chunked, "_loop", lambda n, target: (
        calls.append(n), loop(n, target)))
    reads = iter([False, False, True])
    chunked.run_until(10 ** 12, time_is_up=lambda: next(reads))
    # the deadline read after each call, up after the third
    assert len(calls) == 3 and calls[0] == 1
    assert calls[1] <= common.CHUNK_GROWTH
    assert chunked.iteration == sum(calls)
    whole = run_of(problem, cfg, *point, 7)
    whole.run(chunked.iteration)
    for a, b in zip((chunked.x, chunked.y, chunked.z),
                    (whole.x, whole.y, whole.z)):
        assert a.tobytes() == b.tobytes()
    assert chunked.n_samples == whole.n_samples
    # a target one piece reaches: no read of the deadline
    chunked.run_until(chunked.n_samples + 1, time_is_up=lambda: 1 / 0)


def test_a_criterion_without_deadline_lets_the_solver_run():
    """Outside benchopt's callback (or with a criterion that has no
    ``time_is_up``) the deadline check is never true."""
    assert solver_base._deadline_check(object())() is False

    class Callback:
        stopping_criterion = object()
    assert solver_base._deadline_check(Callback())() is False


def test_compile_core_runs_once_per_process(monkeypatch):
    engine.compile_core()  # compiled (or loaded) by now
    calls = []
    monkeypatch.setattr(engine.PnPBORun, "run",
                        lambda self, n: calls.append(n))
    assert engine.compile_core() is False
    obj = objective_for(SMALL_PARAMS)
    for name in ("SPABA", "SOBA"):
        solver = solver_class(name).get_instance()
        solver._set_objective(obj)
        solver._warm_up()
    assert calls == []


@pytest.mark.slow
def test_a_cold_compile_is_outside_every_run_budget(tmp_path):
    """With an empty numba cache (``NUMBA_CACHE_DIR``) the core compiles in
    the subprocess (about a minute); with ``--timeout 3`` every solver must
    still record its curve, the first one included (benchopt starts the
    clock before ``warm_up()``, so a compile there leaves it one point)."""
    cache = tmp_path / "numba"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    df, status = run_benchopt(
        tmp_path, "-d", SMALL, "-s", "SOBA[step_size=0.01]", "-s", "SPABA",
        "-n", "50", "--timeout", "3", env=env, timeout=1800)
    # the compile did happen here, from an empty cache
    assert list(cache.rglob("*.nbi")), "numba wrote no cache file"
    counts = df.groupby("solver_name", sort=False).size()
    assert len(counts) == 2
    assert (counts >= 4).all(), counts.to_dict()
    assert all(s in ("done", "done (timeout)", "done (not enough run)")
               for s in status.values()), status
