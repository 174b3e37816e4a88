"""tools.run_horizon: the longest run a config can make, and the quick
run's tuned steps over it (docs/comparisons.md "Compare solvers")."""
import yaml

from bench_helpers import ROOT, benchmark
from benchmark_utils.sample_grid import EVAL_EPOCHS, grid_target
from tools import run_horizon

SMALL = "Simulated[n=200,m=300,dim_x=5,dim_y=10]"


def test_callback_calls_follow_the_evaluation_schedule():
    # stopping.py: points at calls 0, 1, 2, 3, 4, 6, 9, 13, ...
    assert [run_horizon.callback_calls(k) for k in range(1, 9)] == \
        [0, 1, 2, 3, 4, 6, 9, 13]
    assert run_horizon.callback_calls(25) == 12138


def test_quick_config_cap():
    """quick.yml's last point, the 26th (-n 25 gives 26 points): call
    18 207, on the default grid (the config sets no objective)."""
    config = yaml.safe_load(open(f"{ROOT}/configs/quick.yml"))
    assert config["max-runs"] == 25
    assert run_horizon.config_objective(config) == "Bilevel Optimization"
    assert run_horizon.callback_calls(config["max-runs"] + 1) == 18207


def test_a_stable_run_goes_to_the_cap_and_an_unstable_one_reports():
    bench = benchmark()
    # -n 6: the 7th point, call 9 of a grid of 2.048 epochs: 9216
    # samples, 72 iterations of 128
    k, total, div = run_horizon.horizon_run(
        bench, SMALL, "SOBA[step_size=0.1]", 6,
        "Bilevel Optimization[eval_epochs=2.048]")
    assert (k, total, div) == (72, 9216, False)
    k, total, div = run_horizon.horizon_run(
        bench, SMALL, "SOBA[step_size=1000]", 12)
    assert total == grid_target(94, EVAL_EPOCHS, 200, 300)
    assert div and 0 < k < total / 128


def test_the_steps_that_once_diverged_in_the_quick_run_stay_finite():
    """MA-SOBA on breast_cancer (step 0.1 / 1 diverged at iteration
    1 262 723 of the former quick run's 1 553 664) and SFFBA on wine (1 / 10
    at iteration 2 072), at their tuned values, over the whole cap (call
    18 207 of the default grid)."""
    bench = benchmark()
    for dataset, solver in [
            ("breast_cancer", "MA-SOBA[step_size=tuned,outer_ratio=tuned]"),
            ("wine", "SFFBA[step_size=tuned,outer_ratio=tuned,R=tuned]")]:
        k, total, div = run_horizon.horizon_run(bench, dataset, solver, 25)
        assert not div and k > 0, solver
