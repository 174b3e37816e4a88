"""Exact metrics of the logistic tasks against an independent computation:
scipy's L-BFGS-B on the full lower-level problem for y*(x), a dense solve
with the explicit Hessian for z*(x), finite differences of H for grad H."""
import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp, softmax

from benchmark_utils.metrics import evaluate, make_metrics
from conftest import GLM_TASKS, glm_data


class Independent:
    """The full objectives and the dense Hessian, written from the task
    definitions (not from benchmark_utils)."""

    def __init__(self, data):
        self.d = data
        self.task = data["task"]
        self.C = data.get("n_classes", 1)
        self.A, self.B = data["X_train"], data["X_val"]

    def _ce(self, X, lab, y):
        U = X @ y.reshape(self.C, -1).T
        return logsumexp(U, axis=1) - U[np.arange(len(lab)), lab.astype(int)]

    def g(self, x, y):
        d = self.d
        if self.task == "logreg":
            return (-np.mean(log_expit(d["y_train"] * (self.A @ y)))
                    + 0.5 * np.exp(x) @ (y * y))
        ce = self._ce(self.A, d["y_train"], y)
        if self.task == "multilogreg":
            p = self.A.shape[1]
            return np.mean(ce) + np.repeat(np.exp(x), p) @ (y * y)
        return np.mean(expit(x) * ce) + d["l2_reg"] * y @ y

    def grad_g(self, x, y):
        """grad_y g, written from the definitions."""
        d, A, m = self.d, self.A, self.A.shape[0]
        if self.task == "logreg":
            b = d["y_train"]
            return A.T @ (-b * expit(-b * (A @ y))) / m + np.exp(x) * y
        C, p = self.C, A.shape[1]
        R = softmax(A @ y.reshape(C, p).T, axis=1)
        R[np.arange(m), d["y_train"].astype(int)] -= 1.0
        if self.task == "multilogreg":
            return (R.T @ A).ravel() / m + np.repeat(2 * np.exp(x), p) * y
        return ((expit(x)[:, None] * R).T @ A).ravel() / m \
            + 2 * d["l2_reg"] * y

    def f(self, y):
        d = self.d
        if self.task == "logreg":
            return -np.mean(log_expit(d["y_val"] * (self.B @ y)))
        return np.mean(self._ce(self.B, d["y_val"], y))

    def hessian(self, x, y):
        """Dense hess_yy g."""
        d, A, m = self.d, self.A, self.A.shape[0]
        if self.task == "logreg":
            t = d["y_train"] * (A @ y)
            w = expit(t) * expit(-t) / m
            return A.T @ (w[:, None] * A) + np.diag(np.exp(x))
        C, p = self.C, A.shape[1]
        S = softmax(A @ y.reshape(C, p).T, axis=1)
        wts = expit(x) if self.task == "datacleaning" else np.ones(m)
        H = np.zeros((C * p, C * p))
        for j in range(m):
            M = np.diag(S[j]) - np.outer(S[j], S[j])
            H += wts[j] * np.kron(M, np.outer(A[j], A[j])) / m
        if self.task == "multilogreg":
            return H + np.diag(np.repeat(2 * np.exp(x), p))
        return H + 2 * d["l2_reg"] * np.eye(C * p)


def _fd_grad(fun, u, h=1e-6):
    return np.array([(fun(u + h * e) - fun(u - h * e)) / (2 * h)
                     for e in np.eye(u.size)])


def _precise_y_star(ind, x, dim_y):
    """y*(x) to machine precision: scipy's trust-exact with the dense
    Hessian (for finite differences of H)."""
    res = minimize(lambda y: ind.g(x, y), np.zeros(dim_y),
                   jac=lambda y: ind.grad_g(x, y),
                   hess=lambda y: ind.hessian(x, y), method="trust-exact",
                   options=dict(gtol=1e-14))
    return res.x


def _scipy_y_star(ind, x, dim_y):
    res = minimize(lambda y: ind.g(x, y), np.zeros(dim_y),
                   jac=lambda y: ind.grad_g(x, y), method="L-BFGS-B",
                   options=dict(gtol=1e-13, ftol=1e-300, maxiter=10000))
    return res.x


@pytest.mark.parametrize("task", GLM_TASKS)
def test_glm_metrics_against_scipy_and_dense_solve(task):
    data = glm_data(task, n=25, m=20 if task == "datacleaning" else 30,
                    p=4, C=3)
    metrics = make_metrics(data)
    ind = Independent(data)
    P = metrics.exact.P
    rng = np.random.default_rng(4)
    x = (0.0 if task == "datacleaning" else np.log(0.1)) + \
        0.3 * rng.standard_normal(P.dim_x)
    ys, zs, grad, _ = metrics.exact.solve(x)
    y_ref = _scipy_y_star(ind, x, P.dim_y)
    np.testing.assert_allclose(ys, y_ref, atol=1e-6)
    assert np.linalg.norm(ind.grad_g(x, ys)) < 1e-10
    np.testing.assert_allclose(ind.grad_g(x, y_ref), _fd_grad(
        lambda u: ind.g(x, u), y_ref), atol=1e-7)  # the reference itself
    z_ref = np.linalg.solve(ind.hessian(x, ys), _fd_grad(ind.f, ys))
    np.testing.assert_allclose(zs, z_ref, rtol=1e-6, atol=1e-8)
    # grad H by central differences of H(x) = f(y*(x)), y* from scipy
    fd = _fd_grad(lambda u: ind.f(_precise_y_star(ind, u, P.dim_y)), x,
                  h=1e-4)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-9)
    # the objective's metrics
    y, z = ys + 0.01, zs - 0.02
    out = evaluate(metrics, x, y, z, n_samples=10)
    assert out["value"] == pytest.approx(ind.f(y_ref), rel=1e-9)
    assert out["grad_norm2"] == pytest.approx(grad @ grad, rel=1e-9)
    assert out["inner_gap"] == pytest.approx(1e-4 * P.dim_y, rel=1e-6)
    assert out["implicit_gap"] == pytest.approx(4e-4 * P.dim_y, rel=1e-6)
    for key in ("train_error", "val_error", "test_error",
                "test_error_iterate"):
        assert 0.0 <= out[key] <= 1.0


def test_warm_start_gives_the_same_answer():
    data = glm_data("multilogreg", p=4, C=3)
    metrics = make_metrics(data)
    x = np.log(0.1) * np.ones(3)
    cold = metrics.exact.solve(x)[0]
    warm = metrics.exact.solve(x + 1e-3)[0]
    again = metrics.exact.solve(x)[0]
    np.testing.assert_allclose(again, cold, atol=1e-9)
    assert not np.allclose(warm, cold, atol=1e-9)
