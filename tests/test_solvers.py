"""The benchopt solvers: each named solver is exactly its PnPBO setting,
bad parameters are refused with a clear message, and the callback loop
works."""
import math

import numpy as np
import pytest

from bench_helpers import objective_for, solver_class
from benchmark_utils.algorithms import ALGORITHMS, PnPBORun, config_of

SMALL = dict(n=200, m=300, dim_x=5, dim_y=10)
NAMED = ["SPABA", "SFFBA", "MSEBA", "MA-SABA", "SRMBA", "SRBA", "SOBA",
         "MA-SOBA", "SABA"]


def _run_solver(cls, params, objective, n_callbacks=6):
    solver = cls.get_instance(**params)
    solver.set_objective(**objective.get_objective())
    calls = iter(range(n_callbacks))
    solver.run(lambda: next(calls, None) is not None)
    return solver.get_result()


@pytest.mark.parametrize("name", NAMED)
def test_named_solver_is_its_pnpbo_setting(name):
    objective = objective_for(SMALL)
    cls = solver_class(name)
    own = {"batch_size": 16}
    res = _run_solver(cls, own, objective)
    # the same algorithm, spelled as PnPBO parameters
    cfg = cls.get_instance(**own).config()
    pnp = dict(own, estimator_x=cfg.estimator_x,
               estimator_y=cfg.estimator_y, estimator_z=cfg.estimator_z,
               ma=cfg.ma, rho=cfg.rho, R=cfg.R, p=cfg.p, rho_bar=cfg.rho_bar,
               storm_a=cfg.storm_a, period=cfg.period, init=cfg.init,
               large_batch=cfg.large_batch, exponent_x=cfg.exponent_x,
               exponent_yz=cfg.exponent_y, step_size=cfg.step_size,
               outer_ratio=cfg.outer_ratio, z_ratio=cfg.z_ratio)
    ref = _run_solver(solver_class("PnPBO"), pnp, objective)
    for key in "xyz":
        np.testing.assert_array_equal(res[key], ref[key])
    assert res["n_samples"] == ref["n_samples"] > 0
    # and the preset is the table of docs/algorithms.md §4
    for field in ("estimator_x", "estimator_y", "estimator_z"):
        assert getattr(cfg, field) == ALGORITHMS[name].fixed[field]
    assert cfg.ma_on == (name in ("MA-SABA", "MA-SOBA"))
    assert (cfg.R == math.inf) == (name in ("SOBA", "MA-SOBA", "SABA"))


def test_metrics_are_reported_by_the_objective():
    objective = objective_for(SMALL)
    res = _run_solver(solver_class("SABA"), {"batch_size": 16}, objective)
    out = objective.evaluate_result(**res)
    for key in ("value", "grad_norm2", "inner_gap", "implicit_gap",
                "n_samples", "epochs", "suboptimality", "dist_x_star"):
        assert np.isfinite(out[key]), key
    assert out["epochs"] == out["n_samples"] / 500
    assert out["diverged"] == 0


@pytest.mark.parametrize("params, message", [
    ({"estimator_x": "adam"},
     "estimator_x must be one of ['page', 'saga', 'sarah', 'sgd', 'storm', "
     "'zerosarah'], got 'adam'"),
    ({"step_size": 0.0}, "step_size must be a finite number > 0, got 0.0"),
    ({"step_size": -1.0}, "step_size must be a finite number > 0"),
    ({"outer_ratio": 0}, "outer_ratio must be a finite number > 0"),
    ({"z_ratio": -2.0}, "z_ratio must be a finite number > 0"),
    ({"p": 0.0}, "p must be in (0, 1], got 0.0"),
    ({"p": 1.5}, "p must be in (0, 1], got 1.5"),
    ({"estimator_y": "zerosarah", "rho_bar": 0.0},
     "rho_bar must be in (0, 1], got 0.0"),
    ({"ma": "on", "rho": 2.0}, "rho must be in (0, 1], got 2.0"),
    ({"ma": "sometimes"}, "ma must be one of ['auto', 'on', 'off']"),
    ({"batch_size": 250},
     "batch_size=250 > n (UL samples)=200"),
    ({"R": 0.0}, "R must be > 0 (math.inf disables clipping), got 0.0"),
    ({"R": -1.0}, "R must be > 0"),
    ({"init": "warm"}, "init must be one of ['full', 'minibatch']"),
    ({"sampling": "random"},
     "sampling must be one of ['blocks', 'uniform'], got 'random'"),
    ({"random_state": "abc"},
     "random_state must be an integer >= 0 or None, got 'abc'"),
    # non-numeric values name the parameter (benchopt's command line passes
    # `R=abc` or `R=nan` as the strings 'abc' and 'nan')
    ({"R": "abc"}, "R must be > 0 (math.inf disables clipping), got 'abc'"),
    ({"R": "nan"}, "R must be > 0 (math.inf disables clipping), got nan"),
    ({"batch_size": math.nan}, "batch_size must be an integer >= 1, got nan"),
    ({"batch_size": "abc"}, "batch_size must be an integer >= 1, got 'abc'"),
    ({"batch_size": True}, "batch_size must be an integer >= 1, got True"),
    ({"step_size": "abc"}, "step_size must be a finite number > 0, got "
     "'abc'"),
    ({"step_size": math.nan}, "step_size must be a finite number > 0, got "
     "nan"),
    ({"outer_ratio": math.inf}, "outer_ratio must be a finite number > 0, "
     "got inf"),
    ({"z_ratio": "x"}, "z_ratio must be a finite number > 0, got 'x'"),
    ({"exponent_x": "abc"}, "exponent_x must be in [0, 1], got 'abc'"),
    ({"exponent_yz": 2}, "exponent_yz must be in [0, 1], got 2"),
    ({"exponent_yz": math.nan}, "exponent_yz must be in [0, 1], got nan"),
    ({"p": "abc"}, "p must be in (0, 1], got 'abc'"),
    ({"p": math.nan}, "p must be in (0, 1], got nan"),
    ({"estimator_x": "sarah", "period": "abc"},
     "period must be an integer >= 1, got 'abc'"),
    ({"estimator_x": "sarah", "period": math.nan},
     "period must be an integer >= 1, got nan"),
    ({"estimator_x": "sarah", "period": 0},
     "period must be an integer >= 1, got 0"),
    # parameters the estimators do not use still reach the engine's float
    # arrays: they must at least be finite numbers
    ({"period": "abc"}, "period must be a finite number, got 'abc'"),
    ({"ma": "off", "rho": "abc"}, "rho must be a finite number, got 'abc'"),
    ({"rho_bar": math.nan}, "rho_bar must be a finite number, got nan"),
    ({"estimator_z": "storm", "storm_a": "abc"},
     "storm_a must be in (0, 1], got 'abc'"),
    ({"ma": "on", "rho": math.nan}, "rho must be in (0, 1], got nan"),
    ({"large_batch": math.nan},
     "large_batch must be an integer >= 0 (0: full pass), got nan"),
    ({"large_batch": -1},
     "large_batch must be an integer >= 0 (0: full pass), got -1"),
])
def test_bad_input_is_refused_with_a_clear_error(params, message):
    objective = objective_for(SMALL)
    solver = solver_class("PnPBO").get_instance(**params)
    with pytest.raises(ValueError) as err:
        solver.set_objective(**objective.get_objective())
    assert message in str(err.value)


@pytest.mark.parametrize("name, params, message", [
    ("SOBA", {"exponent_yz": 2}, "exponent_yz must be in [0, 1], got 2"),
    ("SABA", {"exponent_yz": -0.5}, "exponent_yz must be in [0, 1], got "
     "-0.5"),
    ("SPABA", {"p": "abc"}, "p must be in (0, 1], got 'abc'"),
    ("SRBA", {"period": math.nan}, "period must be an integer >= 1, got "
     "nan"),
    ("MA-SOBA", {"rho": "abc"}, "rho must be in (0, 1], got 'abc'"),
    ("SFFBA", {"rho_bar": "nan"}, "rho_bar must be in (0, 1], got 'nan'"),
    ("SRMBA", {"R": "abc"}, "R must be > 0 (math.inf disables clipping), "
     "got 'abc'"),
])
def test_named_solvers_name_the_bad_parameter(name, params, message):
    objective = objective_for(dict(SMALL, n=400, m=300))
    solver = solver_class(name).get_instance(**params)
    with pytest.raises(ValueError) as err:
        solver.set_objective(**objective.get_objective())
    assert message in str(err.value)


def test_string_inf_and_large_batch_at_the_data_size_are_accepted():
    objective = objective_for(SMALL)
    solver = solver_class("PnPBO").get_instance(R="inf", large_batch=200,
                                                batch_size=16)
    solver.set_objective(**objective.get_objective())
    assert solver.cfg.R == math.inf and solver.cfg.large_batch == 200


@pytest.mark.parametrize("params, message", [
    ({"batch_size": math.nan}, "batch_size must be an integer >= 1, got nan"),
    ({"batch_size": 64.5}, "batch_size must be an integer >= 1, got 64.5"),
    ({"large_batch": "10"}, "large_batch must be an integer >= 0 (0: full "
     "pass), got '10'"),
    ({"R": "1"}, "R must be > 0 (math.inf disables clipping), got '1'"),
    ({"exponent_y": 2}, "exponent_y must be in [0, 1], got 2"),
    ({"estimator_x": "sarah", "period": math.inf},
     "period must be an integer >= 1, got inf"),
    ({"storm_a": None}, "storm_a must be a finite number, got None"),
])
def test_pnpbo_config_names_the_bad_parameter(params, message):
    from benchmark_utils.algorithms import PnPBOConfig
    with pytest.raises(ValueError) as err:
        PnPBOConfig(**params).validate(100, 100)
    assert message in str(err.value)
    PnPBOConfig(large_batch=100, batch_size=100.0).validate(100, 100)


def test_batch_larger_than_ll_data_is_refused():
    objective = objective_for(dict(n=300, m=200, dim_x=5, dim_y=10))
    solver = solver_class("SOBA").get_instance(batch_size=250)
    with pytest.raises(ValueError, match=r"batch_size must be at most the "
                       r"number of samples: batch_size=250 > m \(LL "
                       r"samples\)=200"):
        solver.set_objective(**objective.get_objective())


def test_ma_saba_init_names():
    objective = objective_for(SMALL)
    with pytest.raises(ValueError, match=r"init must be one of \['full', "
                       r"'zero'\], got 'minibatch'"):
        solver_class("MA-SABA").get_instance(init="minibatch").set_objective(
            **objective.get_objective())
    zero = _run_solver(solver_class("MA-SABA"), {"init": "zero",
                                                 "batch_size": 16}, objective)
    assert np.all(np.isfinite(zero["x"]))


def test_unknown_task_is_refused():
    from benchmark_utils.tasks import task_code
    with pytest.raises(ValueError, match="task must be one of"):
        task_code("svm")


def test_large_batch_above_the_data_size_is_the_exact_full_pass():
    """large_batch >= a level's size gives that level's exact full pass:
    the iterates of large_batch = 0, bit for bit."""
    data = objective_for(SMALL).get_objective()
    runs = []
    for large in (0, 10 ** 6):
        cfg = config_of("SPABA", p=0.3, batch_size=8, large_batch=large)
        run = PnPBORun(data["problem"], cfg, data["x0"], data["y0"],
                       data["z0"], 0)
        run.run(50)
        runs.append(run.result())
    for key in ("x", "y", "z"):
        assert np.array_equal(runs[0][key], runs[1][key])
    assert runs[0]["n_samples"] == runs[1]["n_samples"]


def test_run_uses_the_state_built_off_the_clock_and_reruns_afresh():
    """set_objective builds the run's state (under blocks, the permuted copy
    of the rows) outside benchopt's timer; run() uses it, and a second run()
    of the same instance starts again from the same point, bit for bit."""
    obj = objective_for(dict(n=200, m=300, dim_x=3, dim_y=4))
    solver = solver_class("SPABA").get_instance(sampling="blocks",
                                                batch_size=16)
    solver._set_objective(obj)
    built = solver.state

    def callback(k):
        calls = iter(range(k + 1))
        return lambda: next(calls) < k
    solver.run(callback(3))
    assert solver.state is built
    first = solver.get_result()
    solver.run(callback(3))
    assert solver.state is not built
    again = solver.get_result()
    for key in ("x", "y", "z"):
        assert np.array_equal(first[key], again[key])
    assert first["n_samples"] == again["n_samples"] > 0
