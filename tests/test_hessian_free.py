"""BOME and PZOBO (docs/baselines.md §3, families/hessian_free.py) beyond the
transcription checks of tests/test_baselines.py:

* the generator's standard normals (``rng.normal``): their moments;
* full batches (``batch_size="full"``): the transcription to 1e-12 and the
  exact counts, then the closed forms of one iteration on the quadratic
  (BOME's y-hat, grad q, lambda and step; PZOBO's hypergradient from the
  Jacobian of the T steps, whatever mu, since those steps are affine in x
  there);
* ``batch_size="full"`` and ``choice_phi`` refused where they do not
  apply, with the parameter named.
"""
import numpy as np
import pytest
from types import SimpleNamespace

from benchmark_utils.algorithms import BaselineConfig, BaselineRun, config_of
from benchmark_utils.core.rng import normal, seed_state
from benchmark_utils.exact_quadratic import QuadraticExact
from benchmark_utils.simulated import make_quadratic
from conftest import glm_data, problem_of, start_point
from reference_baselines import reference_run
from test_baselines import _params


def test_normal_draws_have_standard_moments():
    """200 000 draws: mean 0, variance 1, skewness 0, kurtosis 3 and
    P(|u| < 1) = 0.6827, each within about 5 standard errors; the same
    seed gives the same draws, and each takes two uniforms."""
    N = 200_000
    rng = seed_state(3)
    u = np.array([normal(rng) for _ in range(N)])
    se = 1.0 / np.sqrt(N)
    assert abs(u.mean()) < 5 * se
    assert abs(u.var() - 1.0) < 5 * np.sqrt(2.0) * se
    assert abs(np.mean(u ** 3)) < 5 * np.sqrt(15.0) * se
    assert abs(np.mean(u ** 4) - 3.0) < 5 * np.sqrt(96.0) * se
    inside = np.mean(np.abs(u) < 1.0)
    assert abs(inside - 0.682689) < 5 * np.sqrt(0.2166 / N)
    again = seed_state(3)
    assert [normal(again) for _ in range(5)] == list(u[:5])
    a, b = seed_state(9), seed_state(9)
    normal(a)
    from benchmark_utils.core.rng import uniform
    uniform(b)
    uniform(b)
    assert np.array_equal(a, b)  # two uniforms per normal


def _compare_full(data, algorithm, n_iter, **kw):
    """Core and transcription with full batches: iterates to 1e-12, the
    same counts."""
    params = _params(algorithm, batch_size="full", **kw)
    x0, y0, z0 = start_point(data, 2)
    run = BaselineRun(problem_of(data), BaselineConfig(**params), x0, y0,
                      z0, 7)
    ref = reference_run(data, SimpleNamespace(**params), x0, y0, z0, 7)
    for k in range(n_iter):
        run.run(1)
        ref.run(1)
        for name, a, b in zip("xyz", (run.x, run.y, run.z),
                              (ref.x, ref.y, ref.z)):
            scale = max(1.0, np.linalg.norm(b))
            np.testing.assert_allclose(a / scale, b / scale, rtol=1e-12,
                                       atol=1e-13, err_msg=f"{name} at {k}")
        assert run.n_samples == ref.n_samples
    return run


@pytest.mark.parametrize("sampling", ["uniform", "blocks"])
@pytest.mark.parametrize("algorithm", ["BOME", "PZOBO"])
def test_full_batches_match_transcription(small_data, algorithm, sampling):
    """n = 40, m = 50, T = 3 (PZOBO: Q = 3): every batch is its level;
    counts per iteration T m + n + 2 m (BOME), (Q + 1) T m + n (PZOBO);
    z stays z_0."""
    K, T, n, m = 10, 3, 40, 50
    run = _compare_full(small_data, algorithm, K, sampling=sampling)
    per = T * m + n + 2 * m if algorithm == "BOME" else 4 * T * m + n
    assert run.n_samples == K * per
    assert np.array_equal(run.z, start_point(small_data, 2)[2])


@pytest.mark.parametrize("algorithm", ["BOME", "PZOBO"])
def test_full_batches_match_transcription_logreg(algorithm):
    _compare_full(glm_data("logreg"), algorithm, 8)


@pytest.fixture(scope="module")
def quad():
    data = make_quadratic(n=30, m=40, dim_x=3, dim_y=4, mu=0.5, cond=2.0,
                          seed=5)
    return data, QuadraticExact(**data)


def _grad_y_g(E, x, y):
    return E.Hg @ y - E.K @ x - E.k


def test_bome_one_full_batch_iteration_is_its_closed_form(quad):
    """y-hat - y* = (I - beta Hg)^T (y_0 - y*); grad_x q = -K^T (y_0 -
    y-hat) (the x-part of g's gradient is affine in y, hess_xy g = -K^T),
    grad_y q = grad_y g(x_0, y_0); lambda = max(eta |grad q|^2 - <grad f,
    grad q>, 0) / |grad q|^2 > 0 here; one step of (alpha, beta) along
    grad f + lambda grad q."""
    data, E = quad
    T, beta, alpha, eta = 4, 0.6, 0.3, 2.5
    cfg = config_of("BOME", batch_size="full", step_size=beta,
                    outer_ratio=beta / alpha, n_inner_steps=T, eta=eta)
    x0, y0, z0 = start_point(data, 1)
    run = BaselineRun(problem_of(data), cfg, x0, y0, z0, 0)
    run.run(1)
    ys = E.y_star(x0)
    yhat = ys + np.linalg.matrix_power(np.eye(4) - beta * E.Hg, T) @ (
        y0 - ys)
    qx, qy = -E.K.T @ (y0 - yhat), _grad_y_g(E, x0, y0)
    fx, fy = E.grad_x_f(x0, y0), E.grad_y_f(x0, y0)
    norm2 = qx @ qx + qy @ qy
    lam = max(eta * norm2 - fx @ qx - fy @ qy, 0.0) / norm2
    assert lam > 0
    assert run.work.own.lam[0] == pytest.approx(lam, rel=1e-12)
    np.testing.assert_allclose(run.x, x0 - alpha * (fx + lam * qx),
                               rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(run.y, y0 - beta * (fy + lam * qy),
                               rtol=1e-12, atol=1e-13)
    assert run.n_samples == T * 40 + 30 + 2 * 40


@pytest.mark.parametrize("mu", [1e-3, 0.1, 10.0])
def test_pzobo_full_batch_is_the_t_step_jacobian_estimate(quad, mu):
    """On the quadratic the T steps are affine in x, so delta_j = J_T u_j
    exactly with J_T = sum_{t<T} (I - beta Hg)^t beta K, whatever mu: x_1
    = x_0 - alpha (grad_x f + (1/Q) U^T U J_T^T grad_y f) at (x_0, y_1),
    U the Q directions the run's generator gives (nothing else is drawn
    with full batches)."""
    data, E = quad
    T, Q, beta, alpha, seed = 5, 4, 0.6, 0.3, 11
    cfg = config_of("PZOBO", batch_size="full", step_size=beta,
                    outer_ratio=beta / alpha, n_inner_steps=T,
                    n_gaussian_vectors=Q, mu=mu)
    x0, y0, z0 = start_point(data, 1)
    run = BaselineRun(problem_of(data), cfg, x0, y0, z0, seed)
    run.run(1)
    rng = seed_state(seed)
    U = np.array([[normal(rng) for _ in range(3)] for _ in range(Q)])
    step = np.eye(4) - beta * E.Hg
    J = sum(np.linalg.matrix_power(step, t) for t in range(T)) @ (
        beta * E.K)
    ys = E.y_star(x0)
    y1 = ys + np.linalg.matrix_power(step, T) @ (y0 - ys)
    d = E.grad_x_f(x0, y1) + U.T @ U @ J.T @ E.grad_y_f(x0, y1) / Q
    np.testing.assert_allclose(run.y, y1, rtol=1e-12, atol=1e-13)
    tol = 1e-12 + 1e-15 / mu  # the difference quotient's rounding
    np.testing.assert_allclose(run.x, x0 - alpha * d, rtol=tol, atol=tol)
    assert run.n_samples == (Q + 1) * T * 40 + 30


@pytest.mark.parametrize("name", ["StocBiO", "MRBO", "F2SA", "VRBO"])
def test_full_batch_is_refused_where_it_does_not_apply(name):
    """(VRBO checks its batch for its restart period first, without the
    note.)"""
    note = "" if name == "VRBO" else r" \(full batches: BOME, PZOBO only\)"
    with pytest.raises(ValueError, match=r"batch_size must be an integer "
                       r">= 1, got 'full'" + note):
        config_of(name, batch_size="full", sizes=(40, 50))


def test_choice_phi_value_is_refused_naming_the_allowed_values():
    with pytest.raises(ValueError, match=r"choice_phi must be one of "
                       r"\['grad_norm'\], got 'value' \(phi = eta"):
        config_of("BOME", choice_phi="value")
