"""Seeds: the same seed gives bitwise-identical runs (whatever the chunking
into callbacks), another seed or another repetition gives another run."""
import math

import numpy as np
import pytest

from bench_helpers import objective_for
from benchmark_utils.algorithms import PRESETS, PnPBORun, config_of
from conftest import problem_of, start_point


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_same_seed_bitwise_other_seed_differs(small_data, name):
    cfg = config_of(name, batch_size=8, step_size=0.05, p=0.2)
    x0, y0, z0 = start_point(small_data)
    p = problem_of(small_data)
    a = PnPBORun(p, cfg, x0, y0, z0, seed=11)
    a.run(200)
    b = PnPBORun(p, cfg, x0, y0, z0, seed=11)
    for chunk in (1, 7, 92, 100):  # 200 iterations in uneven chunks
        b.run(chunk)
    c = PnPBORun(p, cfg, x0, y0, z0, seed=12)
    c.run(200)
    for key in "xyz":
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
        assert not np.array_equal(getattr(a, key), getattr(c, key))
    assert a.n_samples == b.n_samples


def test_repetitions_differ_and_replay():
    params = dict(n=200, m=300, dim_x=5, dim_y=10)
    o0 = objective_for(params, repetition=0).get_objective()
    o0b = objective_for(params, repetition=0).get_objective()
    o1 = objective_for(params, repetition=1).get_objective()
    assert o0["seed"] == o0b["seed"] != o1["seed"]
    np.testing.assert_array_equal(o0["x0"], o0b["x0"])
    assert not np.array_equal(o0["x0"], o1["x0"])
    # each repetition draws its own problem; the same one replays
    np.testing.assert_array_equal(o0["problem"].Xg, o0b["problem"].Xg)
    assert not np.array_equal(o0["problem"].Xg, o1["problem"].Xg)


@pytest.mark.parametrize("ma, plain, steps", [
    ("MA-SOBA", "SOBA", dict(exponent_x=0.0, exponent_yz=0.0)),
    ("MA-SABA", "SABA", dict(R=math.inf)),
])
def test_moving_average_with_rho_one_is_the_plain_solver(small_data, ma,
                                                         plain, steps):
    """rho = 1 switches the moving average off: v^x_k = v^x-hat_k, so
    MA-SOBA is SOBA at constant steps and MA-SABA is SABA, bit for bit
    (the ablation of the moving average at equal steps)."""
    common = dict(batch_size=8, step_size=0.05, outer_ratio=2.0)
    x0, y0, z0 = start_point(small_data)
    p = problem_of(small_data)
    runs = []
    for name, extra in ((ma, dict(rho=1.0, **steps)), (plain, steps)):
        run = PnPBORun(p, config_of(name, **common, **extra), x0, y0, z0,
                       seed=5)
        run.run(150)
        runs.append(run)
    for key in "xyz":
        np.testing.assert_array_equal(getattr(runs[0], key),
                                      getattr(runs[1], key))
    averaged = PnPBORun(p, config_of(ma, **common, rho=0.5, **steps),
                        x0, y0, z0, seed=5)
    averaged.run(150)
    assert not np.array_equal(averaged.x, runs[1].x)
