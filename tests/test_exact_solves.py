"""The solves behind the exact metrics of the logistic tasks: the fused
softmax passes, the Kronecker-factored preconditioner, the Newton line
search near round-off, visible failures, and the BLAS thread limit."""
import warnings

import numpy as np
import pytest
from scipy.special import expit, logsumexp, softmax
from threadpoolctl import threadpool_info

from benchmark_utils import exact_glm, metrics as metrics_mod
from benchmark_utils.exact_kernels import ce_grad_pass, ce_hvp_pass
from benchmark_utils.metrics import evaluate, make_metrics
from benchmark_utils.tasks.registry import get_task
from conftest import glm_data


def _stall_case():
    """A tiny hyper-cleaning problem (n=25, m=30, p=4, C=3) and a point x
    where backtracking on the Armijo condition alone stalls: it cannot
    resolve the decrease of g near |grad_y g| ~ 1e-9, halves every step
    down to 1e-12 and stops at |grad_y g| = 3.6e-9 > 1e-10 after 1 428
    evaluations of g."""
    data = glm_data("datacleaning", n=25, m=30, p=4, C=3, seed=0)
    x = 3.0 * np.random.default_rng(0).standard_normal(30)
    return data, x


def _grad_g(data, x, y):
    """grad_y g of hyper-cleaning, written from the task's definition."""
    A, lab, C = data["X_train"], data["y_train"].astype(int), 3
    m, p = A.shape
    R = softmax(A @ y.reshape(C, p).T, axis=1)
    R[np.arange(m), lab] -= 1.0
    return ((expit(x)[:, None] * R).T @ A).ravel() / m \
        + 2 * data["l2_reg"] * y


def test_newton_meets_its_tolerance_where_armijo_stalled():
    data, x = _stall_case()
    ex = exact_glm.GLMExact("datacleaning", data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ys, zs, grad, _ = ex.solve(x)
    g0 = np.linalg.norm(_grad_g(data, x, np.zeros_like(ys)))
    assert np.linalg.norm(_grad_g(data, x, ys)) <= 1e-10 * max(1.0, g0)
    st = ex.status
    assert st["residual"] <= 1.0
    assert st["g_evals"] <= 12 and st["newton_steps"] <= 8


@pytest.mark.parametrize("task", ("logreg", "multilogreg", "datacleaning"))
def test_solves_meet_their_tolerances(task):
    data = glm_data(task, n=25, m=30, p=4, C=3, seed=1)
    ex = exact_glm.GLMExact(task, data)
    rng = np.random.default_rng(2)
    for scale in (0.3, 3.0):
        x = scale * rng.standard_normal(ex.P.dim_x)
        if task != "datacleaning":
            x += np.log(0.1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ex.solve(x)
        assert ex.status["residual"] <= 1.0


def test_a_missed_tolerance_warns_and_is_reported():
    data, x = _stall_case()
    m = make_metrics(data)
    m.exact.max_newton = 1
    with pytest.warns(RuntimeWarning, match="y\\*\\(x\\) solve stopped"):
        out = evaluate(m, x, np.zeros(12), np.zeros(12), 0)
    assert out["solve_residual"] > 1.0
    m = make_metrics(data)
    m.exact.max_cg = 1
    with pytest.warns(RuntimeWarning, match="z\\*\\(x\\) solve stopped"):
        out = evaluate(m, x, np.zeros(12), np.zeros(12), 0)
    assert out["solve_residual"] > 1.0
    assert out["diverged"] == 1  # inexact metrics: never a converged end
    m = make_metrics(data)
    out = evaluate(m, x, np.zeros(12), np.zeros(12), 0)
    assert 0.0 <= out["solve_residual"] <= 1.0 and out["diverged"] == 0


@pytest.mark.parametrize("m, p, C", [(7, 5, 3), (9, 130, 4), (6, 131, 3),
                                     (1, 3, 2)])
def test_fused_passes_against_numpy(m, p, C):
    rng = np.random.default_rng(m + p)
    A = rng.standard_normal((m, p))
    lab = rng.integers(0, C, m)
    W, V = rng.standard_normal((C, p)), rng.standard_normal((C, p))
    w = rng.random(m)
    S, G, out = np.empty((m, C)), np.empty((C, p)), np.empty((C, p))
    loss = ce_grad_pass(A, lab, W, w, S, G)
    U = A @ W.T
    lse = logsumexp(U, axis=1)
    ref_S = np.exp(U - lse[:, None])
    R = ref_S.copy()
    R[np.arange(m), lab] -= 1.0
    assert loss == pytest.approx(w @ (lse - U[np.arange(m), lab]),
                                 rel=1e-13)
    np.testing.assert_allclose(S, ref_S, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(G, (w[:, None] * R).T @ A, rtol=1e-12,
                               atol=1e-13)
    ce_hvp_pass(A, S, w, V, out)
    ref = np.zeros((C, p))
    for j in range(m):
        K = np.diag(ref_S[j]) - np.outer(ref_S[j], ref_S[j])
        ref += w[j] * np.outer(K @ (V @ A[j]), A[j])
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("task", ("multilogreg", "datacleaning"))
def test_preconditioner_inverts_the_kronecker_model(task):
    data = glm_data(task, n=25, m=30, p=4, C=3, seed=3)
    P = get_task(task).make_oracle(data)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(P.dim_x)
    P.value_grad(x, rng.standard_normal(P.dim_y))
    A, m = data["X_train"], data["X_train"].shape[0]
    w, S, lam = P.weights(x), P.S, P.lam(x)
    K = sum(w[j] * (np.diag(S[j]) - np.outer(S[j], S[j])) for j in range(m))
    model = np.kron(K, A.T @ A / m) + np.kron(np.diag(lam), np.eye(4))
    r = rng.standard_normal(P.dim_y)
    np.testing.assert_allclose(P.precond(r), np.linalg.solve(model, r),
                               rtol=1e-10)


def test_pcg_solves_a_dense_spd_system():
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((30, 30))
    H = Q @ Q.T + 0.1 * np.eye(30)
    b = rng.standard_normal(30)
    d = np.diag(H)
    z, res, n = exact_glm.pcg(lambda v: H @ v, b, lambda r: r / d,
                              np.zeros(30), rtol=1e-12, max_iter=500)
    np.testing.assert_allclose(z, np.linalg.solve(H, b), rtol=1e-8)
    assert res <= 1e-12 and 0 < n <= 500
    z2, _, n2 = exact_glm.pcg(lambda v: H @ v, b, lambda r: r / d, z,
                              rtol=1e-12, max_iter=500)
    assert n2 <= 2  # warm start at the solution


def test_forcing_term():
    # tight while far, never tighter than what reaches tol in one step
    assert exact_glm.forcing(1.0, 1e-10) == 1e-3
    assert exact_glm.forcing(1e-4, 1e-10) == pytest.approx(1e-5)
    assert exact_glm.forcing(1e-9, 1e-10) == pytest.approx(1e-2)
    assert exact_glm.forcing(1e-20, 1e-10) == 0.5


def _blas_threads():
    return [i["num_threads"] for i in threadpool_info()
            if i["user_api"] == "blas"]


def test_metric_evaluations_limit_blas_threads(monkeypatch):
    seen = []
    data = glm_data("multilogreg", p=4, C=3)
    m = make_metrics(data)
    solve = m.exact.solve

    def spy(x, **kwargs):
        seen.append(_blas_threads())
        return solve(x, **kwargs)
    m.exact.solve = spy
    evaluate(m, np.zeros(3), np.zeros(12), np.zeros(12), 0)
    assert seen and all(n == 1 for n in seen[0])
    monkeypatch.setenv(metrics_mod.THREADS_ENV, "2")
    assert metrics_mod.metric_threads() == 2
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(metrics_mod.THREADS_ENV, bad)
        with pytest.raises(ValueError, match=metrics_mod.THREADS_ENV):
            metrics_mod.metric_threads()
