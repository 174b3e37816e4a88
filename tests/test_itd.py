"""ITD (docs/baselines.md §3, ``families/unrolled.py``) against

* its plain NumPy transcription (``reference_baselines.ITD``), iteration
  by iteration on the same generator stream: x, y, z to 1e-12 relative and
  the exact sample count (T + 1 + T) b, on the quadratic and the logistic
  tasks, under both ``sampling`` schemes, with and without warm start;
* the closed form of its hypergradient on a full-batch quadratic (batch =
  n = m: every batch is the whole level): y_T = y* + (I - beta H)^T (y_0 -
  y*), z_T = beta sum_{j<T} (I - beta H)^j grad_y f(x, y_T), d_T =
  grad_x f(x, y_T) + K^T z_T, which tends to the exact grad H(x) as T
  grows (geometrically, at the rate of the inner loop);
* bitwise reproducibility across chunkings.
"""
from types import SimpleNamespace

import numpy as np
import pytest

from benchmark_utils.algorithms import BaselineConfig, BaselineRun
from benchmark_utils.exact_quadratic import QuadraticExact
from benchmark_utils.simulated import make_quadratic
from conftest import glm_data, problem_of, start_point
from reference_baselines import reference_run

BASE = dict(algorithm="ITD", step_size=0.1, outer_ratio=2.0,
            exponent_x=0.0, exponent_y=0.0, batch_size=8, n_inner_steps=3,
            sampling="uniform", warm_start=True)


def _pair(data, params, seed, start_seed=2):
    x0, y0, z0 = start_point(data, start_seed)
    run = BaselineRun(problem_of(data), BaselineConfig(**params), x0, y0,
                      z0, seed)
    ref = reference_run(data, SimpleNamespace(**params), x0, y0, z0, seed)
    return run, ref


def _compare(data, n_iter, seed=7, **kw):
    params = dict(BASE, **kw)
    run, ref = _pair(data, params, seed)
    for k in range(n_iter):
        run.run(1)
        ref.run(1)
        assert not run.diverged
        for name, a, b in zip("xyz", (run.x, run.y, run.z),
                              (ref.x, ref.y, ref.z)):
            scale = max(1.0, np.linalg.norm(b))
            np.testing.assert_allclose(
                a / scale, b / scale, rtol=1e-12, atol=1e-13,
                err_msg=f"ITD {kw}: {name} at iteration {k}")
        assert run.n_samples == ref.n_samples, f"n_samples at {k}"
    return run, ref


@pytest.mark.parametrize("kw", [
    {}, dict(sampling="blocks"), dict(warm_start=False),
    dict(exponent_x=0.5, exponent_y=0.5, n_inner_steps=1)],
    ids=["uniform", "blocks", "cold", "decay-T1"])
def test_matches_transcription_quadratic(small_data, kw):
    _compare(small_data, 20, **kw)


@pytest.mark.parametrize("task, kw", [
    ("logreg", {}), ("logreg", dict(sampling="blocks", warm_start=False)),
    ("datacleaning", dict(step_size=0.2)),
    ("multilogreg", dict(step_size=0.2))])
def test_matches_transcription_glm(task, kw):
    """logreg and multilogreg: x only in g's exact regularisation (the
    cross term's data part is skipped); datacleaning: x in the data."""
    _compare(glm_data(task), 12, **kw)


@pytest.mark.parametrize("T", [1, 3])
def test_counts(small_data, T):
    """(T forward + 1 UL + T backward) b per outer iteration."""
    b, K = 8, 7
    run, ref = _pair(small_data, dict(BASE, n_inner_steps=T), seed=3)
    run.run(K)
    ref.run(K)
    assert run.n_samples == ref.n_samples == K * (2 * T + 1) * b


def test_bitwise_reproducible_across_chunkings(small_data):
    params = dict(BASE, sampling="blocks")
    a, _ = _pair(small_data, params, seed=5)
    b, _ = _pair(small_data, params, seed=5)
    a.run(12)
    for _ in range(4):
        b.run(3)
    for u, v in zip((a.x, a.y, a.z, a.n_samples),
                    (b.x, b.y, b.z, b.n_samples)):
        assert np.array_equal(u, v)


# --------------------------------------------------------------------------
# Full batch on the quadratic: the closed form and the limit T -> inf
# --------------------------------------------------------------------------
NB = 30


@pytest.fixture(scope="module")
def eq_data():
    """n = m = 30, Hg's spectrum in [0.5, 1]: beta = 1 contracts the inner
    loop by 1/2 per step."""
    return make_quadratic(n=NB, m=NB, dim_x=3, dim_y=4, mu=0.5, cond=2.0,
                          seed=5)


def _one_step(eq_data, T, beta, alpha=0.5, warm_start=False):
    """(x0, y0, x1, y1, z1, d) of one full-batch outer iteration."""
    x0, y0, z0 = start_point(eq_data, 1)
    cfg = BaselineConfig(algorithm="ITD", step_size=beta,
                         outer_ratio=beta / alpha, batch_size=NB,
                         n_inner_steps=T, warm_start=warm_start)
    run = BaselineRun(problem_of(eq_data), cfg, x0, y0, z0, 0)
    run.run(1)
    return x0, y0, run.x.copy(), run.y.copy(), run.z.copy(), \
        (x0 - run.x) / cfg.alpha


@pytest.mark.parametrize("T, beta", [(1, 1.0), (3, 1.0), (5, 0.7)])
def test_full_batch_closed_form(eq_data, T, beta):
    E = QuadraticExact(**eq_data)
    x0, y0, x1, y1, z1, d = _one_step(eq_data, T, beta)
    M = np.eye(E.dim_y) - beta * E.Hg
    ys = E.y_star(x0)
    yT = ys + np.linalg.matrix_power(M, T) @ (y0 - ys)
    r = E.grad_y_f(x0, yT)
    zT = beta * sum(np.linalg.matrix_power(M, j) @ r for j in range(T))
    dT = E.grad_x_f(x0, yT) + E.K.T @ zT
    for name, a, b in (("y", y1, yT), ("z", z1, zT), ("d", d, dT)):
        scale = max(1.0, np.linalg.norm(b))
        assert np.linalg.norm(a - b) <= 1e-12 * scale, (name, a, b)


def test_full_batch_hypergradient_tends_to_grad_h(eq_data):
    """|d_T - grad H(x)| falls like 2^-T (beta = 1, Hg in [0.5, 1]) and
    reaches 1e-10 of |grad H| by T = 60; z_T tends to z*(x)."""
    E = QuadraticExact(**eq_data)
    errors = {}
    for T in (5, 10, 20, 40, 60):
        x0, _, _, _, z1, d = _one_step(eq_data, T, 1.0)
        grad = E.grad(x0)
        errors[T] = np.linalg.norm(d - grad) / np.linalg.norm(grad)
        if T == 60:
            assert np.linalg.norm(z1 - E.z_star(x0)) <= \
                1e-10 * np.linalg.norm(E.z_star(x0))
    for a, b in zip((5, 10, 20, 40), (10, 20, 40, 60)):
        assert errors[b] < errors[a] * 2.0 ** -(b - a) * 4 or \
            errors[b] < 1e-12, errors
    assert errors[5] > 1e-3 and errors[60] < 1e-10, errors


def test_warm_start_follows_y_star(eq_data):
    """Full batch, warm start: y keeps its T steps across iterations, so
    with a small x step y ends near y*(x) although T = 2 (gap 5.5e-4, the
    lag behind the last x step); from y0 at each iteration
    (``warm_start=False``) it stays T steps from y0 (gap 0.53)."""
    x0, y0, z0 = start_point(eq_data, 1)
    E = QuadraticExact(**eq_data)
    gaps = {}
    for warm in (True, False):
        cfg = BaselineConfig(algorithm="ITD", step_size=1.0,
                             outer_ratio=100.0, batch_size=NB,
                             n_inner_steps=2, warm_start=warm)
        run = BaselineRun(problem_of(eq_data), cfg, x0, y0, z0, 0)
        run.run(20)
        gaps[warm] = np.linalg.norm(run.y - E.y_star(run.x))
    assert gaps[True] < 1e-2 * gaps[False], gaps
