"""Each estimator, and their mixtures, against the NumPy transcription of
docs/algorithms.md (tests/reference.py), iteration by iteration, same samples and
coins; plus the closed-form checks of §3 (PAGE p = 1, table means, clipping).
"""
import math

import numpy as np
import pytest

from benchmark_utils.core.estimators import clip_norm
from benchmark_utils.exact_quadratic import QuadraticExact
from benchmark_utils.algorithms import PnPBOConfig, PnPBORun, config_of
from conftest import problem_of, start_point
from reference import ReferencePnPBO

N_ITER = 25


def _compare(data, cfg, n_iter=N_ITER, seed=7):
    x0, y0, z0 = start_point(data, seed=2)
    run = PnPBORun(problem_of(data), cfg, x0, y0, z0, seed)
    ref = ReferencePnPBO(data, cfg, x0, y0, z0, seed)
    for k in range(n_iter):
        run.run(1)
        ref.step()
        for name, a, b in zip("xyz", (run.x, run.y, run.z), ref.u):
            scale = max(1.0, np.linalg.norm(b))
            err = np.linalg.norm(a - b) / scale
            assert err < 1e-12, f"{name} differs at iteration {k}: {err:.2e}"
        assert run.n_samples == ref.n_samples, f"n_samples at {k}"
    return run, ref


def _cfg(est, **kw):
    base = dict(estimator_x=est, estimator_y=est, estimator_z=est,
                step_size=0.05, batch_size=8, R=math.inf, p=0.3,
                rho_bar=0.2, storm_a=0.3, period=7)
    base.update(kw)
    return PnPBOConfig(**base)


@pytest.mark.parametrize("est", ["sgd", "saga", "sarah", "storm", "page",
                                 "zerosarah"])
@pytest.mark.parametrize("init", ["full", "minibatch"])
def test_estimator_matches_transcription(small_data, est, init):
    _compare(small_data, _cfg(est, init=init))


@pytest.mark.parametrize("xyz", [("page", "zerosarah", "page"),
                                 ("saga", "sgd", "storm"),
                                 ("zerosarah", "sarah", "saga"),
                                 ("sgd", "page", "zerosarah"),
                                 ("sgd", "saga", "page"),
                                 ("saga", "saga", "zerosarah")])
@pytest.mark.parametrize("init", ["full", "minibatch"])
def test_mixed_estimators_match_transcription(small_data, xyz, init):
    """Mixtures, including SAGA tables on some directions only (T-bar taken
    from the batch part of e) and SAGA beside ZeroSARAH (second pass)."""
    cfg = _cfg("sgd", estimator_x=xyz[0], estimator_y=xyz[1],
               estimator_z=xyz[2], init=init)
    _compare(small_data, cfg)


@pytest.mark.parametrize("ma", ["on", "off"])
@pytest.mark.parametrize("est", ["sgd", "saga", "page"])
def test_moving_average_matches_transcription(small_data, ma, est):
    _compare(small_data, _cfg(est, ma=ma, rho=0.3))


def test_clipping_schedules_and_large_batch_match_transcription(small_data):
    cfg = _cfg("page", R=0.05, exponent_x=0.5, exponent_y=0.3,
               exponent_z=0.7, outer_ratio=2.0, z_ratio=0.5, large_batch=20)
    run, ref = _compare(small_data, cfg)
    assert np.linalg.norm(run.z) == pytest.approx(0.05, rel=1e-12)


def test_page_p1_is_full_batch_gradient_descent(small_data):
    """PAGE with p = 1 on x, y, z: v = D_k exactly, every iteration."""
    ex = QuadraticExact(**small_data)
    cfg = _cfg("page", p=1.0, step_size=0.05, outer_ratio=2.0)
    x, y, z = start_point(small_data, seed=2)
    run = PnPBORun(problem_of(small_data), cfg, x, y, z, 0)
    run.run(30)
    for _ in range(30):
        Dx = ex.grad_x_f(x, y) + ex.K.T @ z
        Dy = ex.Hg @ y - ex.K @ x - ex.k
        Dz = ex.Hg @ z - ex.grad_y_f(x, y)
        x, y, z = x - cfg.alpha * Dx, y - cfg.beta * Dy, z - cfg.gamma * Dz
    for a, b in ((run.x, x), (run.y, y), (run.z, z)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    n, m = small_data["X_val"].shape[0], small_data["X_train"].shape[0]
    assert run.n_samples == 30 * (n + m)


def test_sample_count_follows_the_definition_by_hand(small_data):
    """docs/metrics.md "Metrics": one evaluation = all derivatives of one sample at
    one point.  MSEBA (PAGE on x and z, ZeroSARAH on y; n = 40, m = 50,
    b = 8, p = 0.2, seed 1: 9 coins give a full pass in k = 1..39):
    k = 0: one full pass, n + m = 90 (every direction full);
    coin: full pass n + m, and y's LL batch only at u_{k-1}: b (its
    samples at u_k are in the full pass), 98 each;
    else: UL and LL batches at u_k and u_{k-1}: 4 b = 32 each."""
    cfg = config_of("MSEBA", p=0.2, batch_size=8, step_size=0.05)
    x0, y0, z0 = start_point(small_data, seed=2)
    run = PnPBORun(problem_of(small_data), cfg, x0, y0, z0, 1)
    ref = ReferencePnPBO(small_data, cfg, x0, y0, z0, 1)
    n_full = 0
    for k in range(40):
        before = run.n_samples
        run.run(1)
        ref.step()
        if k > 0 and run.n_samples - before == 90 + 8:
            n_full += 1
    assert n_full == 9
    assert run.n_samples == ref.n_samples == 90 + 9 * 98 + 30 * 32 == 1932
    # saga / page / zerosarah on the same draws: a full y direction needs
    # the LL level only (m); x's and z's UL batch at u_k and u_{k-1} (2 b),
    # the LL batch at u_{k-1} (b): 50 + 24 on coin iterations.
    cfg = PnPBOConfig(estimator_x="saga", estimator_y="page",
                      estimator_z="zerosarah", p=0.2, batch_size=8,
                      step_size=0.05)
    run = PnPBORun(problem_of(small_data), cfg, x0, y0, z0, 1)
    run.run(40)
    assert run.n_samples == 90 + 9 * (50 + 24) + 30 * 32 == 1716


@pytest.mark.parametrize("est", ["saga", "zerosarah"])
@pytest.mark.parametrize("init", ["full", "minibatch"])
def test_table_mean_is_full_direction_at_memory_points(small_data, est, init):
    """Tbar_d = mean_q D_q(w_q): the data part of the full direction with
    every sample evaluated at its memory point w_q (0 if never visited)."""
    run, ref = _compare(small_data, _cfg(est, init=init), n_iter=15)
    n, m = small_data["X_val"].shape[0], small_data["X_train"].shape[0]
    expected = ref.table_mean(np.arange(n), np.arange(m))
    for got, want in zip((run.work.tbx, run.work.tby, run.work.tbz), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_clipping_is_by_norm():
    z = np.array([3.0, -4.0, 0.5])
    clipped = z.copy()
    clip_norm(clipped, 1.0)
    assert np.linalg.norm(clipped) == pytest.approx(1.0, rel=1e-15)
    np.testing.assert_allclose(clipped, z / np.linalg.norm(z), rtol=1e-15)
    # not elementwise: an elementwise clip to [-1, 1] would give (1, -1, .5)
    assert not np.allclose(clipped, np.clip(z, -1, 1))
    inside = np.array([0.1, 0.2])
    kept = inside.copy()
    clip_norm(kept, 1.0)
    np.testing.assert_array_equal(kept, inside)
    free = z.copy()
    clip_norm(free, math.inf)
    np.testing.assert_array_equal(free, z)


@pytest.mark.parametrize("task", ["logreg", "multilogreg", "datacleaning"])
@pytest.mark.parametrize("xyz, init", [
    (("saga", "saga", "saga"), "full"),
    (("zerosarah", "zerosarah", "zerosarah"), "minibatch"),
    (("page", "zerosarah", "page"), "full"),
    (("sgd", "storm", "sarah"), "full"),
])
def test_estimators_on_logistic_tasks_match_transcription(task, xyz, init):
    """Same check on the logistic tasks: coefficient tables of C or 2C+1
    numbers per sample, D^x of hyper-cleaning on one coordinate."""
    _compare_logistic(task, _cfg(
        "sgd", estimator_x=xyz[0], estimator_y=xyz[1], estimator_z=xyz[2],
        init=init, R=0.5, step_size=0.3))


def _compare_logistic(task, cfg):
    """Engine against the transcription on a small dataset of a logistic
    task, iteration by iteration (1e-12), same sample counts."""
    from benchmark_utils.problem import problem_from_data
    from conftest import glm_data
    data = glm_data(task, n=30, m=40, p=5, C=3)
    P = problem_from_data(**data)
    rng = np.random.default_rng(2)
    x0 = 0.3 * rng.standard_normal(P.dim_x)
    y0 = 0.3 * rng.standard_normal(P.dim_y)
    z0 = 0.1 * rng.standard_normal(P.dim_y)
    run = PnPBORun(P, cfg, x0, y0, z0, 5)
    ref = ReferencePnPBO(data, cfg, x0, y0, z0, 5)
    for k in range(N_ITER):
        run.run(1)
        ref.step()
        for name, a, b in zip("xyz", (run.x, run.y, run.z), ref.u):
            err = np.linalg.norm(a - b) / max(1.0, np.linalg.norm(b))
            assert err < 1e-12, f"{name} differs at iteration {k}: {err:.2e}"
        assert run.n_samples == ref.n_samples
