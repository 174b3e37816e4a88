"""Budgets that hold: numba's compilation is outside every run's budget,
once per process."""
import os

from benchmark_utils import solver_base
from bench_helpers import SMALL, objective_for, run_benchopt, solver_class

SMALL_PARAMS = {"n, m": (200, 300), "dim_x, dim_y": (5, 10)}


def test_compile_core_runs_once_per_process(monkeypatch):
    solver_base.compile_core()  # compiled (or loaded) by now
    calls = []
    monkeypatch.setattr(solver_base.PnPBORun, "run",
                        lambda self, n: calls.append(n))
    assert solver_base.compile_core() is False
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
