"""``sampling="blocks"`` (docs/algorithms.md §2, "Contiguous blocks"): each
batch is ``b`` consecutive samples of an order permuted once per run, from a
uniformly random start on the circle.  Inclusion probability b/N for every
sample, no duplicate within a batch (the wrap-around block included), the
estimators' transcription on these draws, bitwise reproducibility."""
import math

import numpy as np
import pytest

from benchmark_utils.algorithms import PnPBOConfig, PnPBORun
from benchmark_utils.algorithms import PRESETS, config_of
from benchmark_utils.core.rng import seed_state
from benchmark_utils.core.sampling import draw_block
from conftest import glm_data, problem_of, start_point
from test_estimators import _cfg, _compare, _compare_logistic

N_ITER = 25


def test_bad_sampling_is_refused():
    with pytest.raises(ValueError, match=r"sampling must be one of "
                       r"\['blocks', 'uniform'\], got 'block'"):
        PnPBOConfig(sampling="block").validate()


def test_block_inclusion_frequency_is_b_over_n():
    """200 000 draws of a block of b = 8 among N = 50: every sample's
    inclusion frequency is b/N = 0.16 within 5 standard deviations
    (0.0041), and every batch is b distinct entries."""
    N, b, K = 50, 8, 200_000
    rng = seed_state(4)
    order = np.random.default_rng(0).permutation(N).astype(np.int64)
    perm = np.zeros(N, dtype=np.int64)
    counts = np.zeros(N)
    wraps = 0
    for _ in range(K):
        draw_block(rng, order, perm, b)
        batch = perm[:b]
        assert len(set(batch.tolist())) == b
        counts[batch] += 1
        wraps += int(order[0] in batch and order[-1] in batch)
    assert counts.sum() == K * b
    freq = counts / K
    sd = math.sqrt(b / N * (1 - b / N) / K)
    assert np.max(np.abs(freq - b / N)) < 5 * sd
    # the wrap-around block (end of the order then its beginning) occurs
    # with probability (b - 1) / N
    assert abs(wraps / K - (b - 1) / N) < 5 * math.sqrt(0.14 * 0.86 / K)


def _run_batches(problem, cfg, seed, n_iter):
    """The batches (original sample ids) the engine takes at each
    iteration, per level, and the run."""
    x0, y0, z0 = starting_point_of(problem)
    run = PnPBORun(problem, cfg, x0, y0, z0, seed)
    out = ([], [])
    for _ in range(n_iter):
        run.run(1)
        for part, lv in enumerate(run.levels):
            rows = lv.cur.copy()
            ids = rows if not (lv.order is lv.ident) else \
                run.orders[part][rows]
            out[part].append((rows, ids))
    return run, out


def starting_point_of(problem):
    rng = np.random.default_rng(1)
    return (0.1 * rng.standard_normal(problem.dim_x),
            0.1 * rng.standard_normal(problem.dim_y),
            np.zeros(problem.dim_y))


def test_engine_batches_are_contiguous_distinct_and_b_over_n(small_data):
    """The engine's batches under blocks (SOBA, b = 8, n = 40, m = 50,
    4000 iterations): consecutive rows of the permuted copy on the circle,
    distinct samples (wrap-around blocks included), inclusion frequency
    b/N within 5 standard deviations."""
    p = problem_of(small_data)
    cfg = config_of("SOBA", batch_size=8, step_size=1e-3,
                    sampling="blocks")
    K, b = 4000, 8
    run, batches = _run_batches(p, cfg, 3, K)
    for part, (X, yv) in enumerate(((p.Xf, p.yf), (p.Xg, p.yg))):
        lv = run.levels[part]
        order = run.orders[part]
        N = lv.N
        assert sorted(order.tolist()) == list(range(N))
        # the level reads a permuted copy: row j is sample order[j]
        np.testing.assert_array_equal(lv.X, X[order])
        np.testing.assert_array_equal(lv.yv, yv[order])
        counts = np.zeros(N)
        wraps = 0
        for rows, ids in batches[part]:
            np.testing.assert_array_equal(rows, (rows[0] + np.arange(b)) % N)
            assert len(set(ids.tolist())) == b
            wraps += int(rows[-1] < rows[0])
            counts[ids] += 1
        assert wraps > 0
        sd = math.sqrt(b / N * (1 - b / N) / K)
        assert np.max(np.abs(counts / K - b / N)) < 5 * sd
    # another seed: another order
    other = PnPBORun(p, cfg, *starting_point_of(p), 4)
    assert not np.array_equal(other.orders[0], run.orders[0])


def test_datacleaning_keeps_rows_and_blocks_the_order():
    """Hyper-cleaning's x has one weight per LL row: rows stay in place,
    each batch is consecutive entries of the order (original ids)."""
    from benchmark_utils.problem import problem_from_data
    P = problem_from_data(**glm_data("datacleaning", n=30, m=40, p=5, C=3))
    cfg = config_of("SOBA", batch_size=6, step_size=1e-3,
                    sampling="blocks")
    run, batches = _run_batches(P, cfg, 2, 300)
    for part in range(2):
        lv = run.levels[part]
        order = run.orders[part]
        np.testing.assert_array_equal(lv.order, order)
        assert lv.X is (P.Xf, P.Xg)[part] or np.shares_memory(
            lv.X, (P.Xf, P.Xg)[part])
        pos = np.argsort(order)
        for rows, _ in batches[part]:
            at = pos[rows]
            np.testing.assert_array_equal(at, (at[0] + np.arange(6)) % lv.N)
            assert len(set(rows.tolist())) == 6


def _blocks(est, **kw):
    return _cfg(est, sampling="blocks", **kw)


@pytest.mark.parametrize("est", ["sgd", "saga", "sarah", "storm", "page",
                                 "zerosarah"])
@pytest.mark.parametrize("init", ["full", "minibatch"])
def test_estimator_matches_transcription_under_blocks(small_data, est, init):
    _compare(small_data, _blocks(est, init=init))


@pytest.mark.parametrize("xyz", [("page", "zerosarah", "page"),
                                 ("saga", "sgd", "storm"),
                                 ("sgd", "saga", "page")])
def test_mixtures_and_large_batch_match_transcription_under_blocks(
        small_data, xyz):
    cfg = _blocks("sgd", estimator_x=xyz[0], estimator_y=xyz[1],
                  estimator_z=xyz[2], ma="on", rho=0.3, R=0.5,
                  large_batch=20)
    _compare(small_data, cfg)


@pytest.mark.parametrize("task", ["logreg", "multilogreg", "datacleaning"])
@pytest.mark.parametrize("xyz", [("saga", "saga", "saga"),
                                 ("page", "zerosarah", "page")])
def test_logistic_tasks_match_transcription_under_blocks(task, xyz):
    _compare_logistic(task, _blocks(
        "sgd", estimator_x=xyz[0], estimator_y=xyz[1], estimator_z=xyz[2],
        R=0.5, step_size=0.3))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_blocks_bitwise_across_chunkings(small_data, name):
    cfg = config_of(name, batch_size=8, step_size=0.05, p=0.2,
                    sampling="blocks")
    x0, y0, z0 = start_point(small_data)
    p = problem_of(small_data)
    a = PnPBORun(p, cfg, x0, y0, z0, seed=11)
    a.run(200)
    b = PnPBORun(p, cfg, x0, y0, z0, seed=11)
    for chunk in (1, 7, 92, 100):
        b.run(chunk)
    u = PnPBORun(p, config_of(name, batch_size=8, step_size=0.05, p=0.2),
                 x0, y0, z0, seed=11)
    u.run(200)
    for key in "xyz":
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
        assert not np.array_equal(getattr(a, key), getattr(u, key))
    assert a.n_samples == b.n_samples


@pytest.mark.parametrize("name", ["SOBA", "SABA", "PnPBO"])
def test_solvers_pass_sampling_to_the_core(small_data, name):
    """The common solver parameter reaches the configuration and the run
    (blocks and uniform give other iterates from the same seed, the same
    sample count where it does not depend on the draws)."""
    from bench_helpers import objective_for, solver_class
    objective = objective_for(dict(n=200, m=300, dim_x=5, dim_y=10))
    out = {}
    for sampling in ("uniform", "blocks"):
        solver = solver_class(name).get_instance(batch_size=16,
                                                 sampling=sampling)
        assert solver.config().sampling == sampling
        solver.set_objective(**objective.get_objective())
        calls = iter(range(2))
        solver.run(lambda: next(calls, None) is not None)
        out[sampling] = solver.get_result()
    assert not np.array_equal(out["uniform"]["x"], out["blocks"]["x"])
    if name != "PnPBO":  # PAGE's coins differ with the stream
        assert out["uniform"]["n_samples"] == out["blocks"]["n_samples"]
