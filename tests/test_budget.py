"""Budgets that hold: ``--timeout`` ends a run at the deadline (between two
evaluations, not at the next scheduled one), and numba's compilation is
outside every run's budget, once per process."""
import itertools
import os
import time

import numpy as np

from benchopt.callback import _Callback

from benchmark_utils import engine, solver_base
from benchmark_utils.algorithms import run_of
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
    crit = solver._stopping_criterion.get_runner_instance(
        solver=solver, max_runs=1000, timeout=40)
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
