"""The Simulated problem's closed forms and the objective's metrics against
independent computations: sums over samples, scipy minimisation, dense
solves and finite differences."""
import numpy as np
import pytest
from scipy.optimize import minimize

from benchmark_utils.exact_quadratic import QuadraticExact
from benchmark_utils.metrics import evaluate, make_metrics
from benchmark_utils.simulated import make_quadratic


def _sums(data):
    dx = data["dim_x"]
    A, C = data["X_train"][:, :-dx], data["X_train"][:, -dx:]
    B, E = data["X_val"][:, :-dx], data["X_val"][:, -dx:]

    def g(x, y):
        r = A @ y - C @ x - data["y_train"]
        return 0.5 * np.mean(r ** 2) + 0.5 * data["ridge"] * y @ y

    def f(x, y):
        r = B @ y + E @ x - data["y_val"]
        return 0.5 * np.mean(r ** 2) + 0.5 * data["lam"] * x @ x
    return f, g, A, B


def test_spectrum_and_z_star_norm_are_as_requested():
    data = make_quadratic(n=100, m=150, dim_x=4, dim_y=8, mu=0.2, cond=50,
                          z_star_norm=0.7, seed=4)
    ex = QuadraticExact(**data)
    np.testing.assert_allclose(np.linalg.eigvalsh(ex.Hg),
                               np.geomspace(0.2, 10.0, 8), rtol=1e-10)
    assert np.linalg.norm(ex.z_star(ex.x_star)) == pytest.approx(0.7,
                                                                 rel=1e-10)


def test_closed_forms_against_independent_computations(small_data):
    data = small_data
    ex = QuadraticExact(**data)
    f, g, A, B = _sums(data)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(ex.dim_x)
    # y*(x) by scipy on the plain sum g
    res = minimize(lambda y: g(x, y), np.zeros(ex.dim_y), method="L-BFGS-B",
                   options=dict(gtol=1e-12, ftol=1e-15))
    np.testing.assert_allclose(ex.y_star(x), res.x, atol=1e-5)
    ys = ex.y_star(x)
    assert ex.value(x) == pytest.approx(f(x, ys), rel=1e-12)
    # z*(x): dense solve with the Hessian and grad_y f built from the rows
    m, n = A.shape[0], B.shape[0]
    H = A.T @ A / m + data["ridge"] * np.eye(ex.dim_y)
    gy = B.T @ (B @ ys + data["X_val"][:, -ex.dim_x:] @ x
                - data["y_val"]) / n
    np.testing.assert_allclose(ex.z_star(x), np.linalg.solve(H, gy),
                               rtol=1e-10)
    # grad H by central differences of H(x) = f(x, y*(x))
    h = 1e-6
    fd = np.array([(ex.value(x + h * e) - ex.value(x - h * e)) / (2 * h)
                   for e in np.eye(ex.dim_x)])
    np.testing.assert_allclose(ex.grad(x), fd, atol=1e-7)
    # x* is the minimiser: zero gradient, and scipy on H finds it
    assert np.linalg.norm(ex.grad(ex.x_star)) < 1e-12
    res = minimize(ex.value, np.zeros(ex.dim_x), jac=ex.grad,
                   method="L-BFGS-B", options=dict(gtol=1e-12, ftol=1e-15))
    np.testing.assert_allclose(res.x, ex.x_star, atol=1e-6)


def test_metrics_values(small_data):
    ex = QuadraticExact(**small_data)
    metrics = make_metrics(small_data)
    x = ex.x_star + 0.1
    ys, zs = ex.y_star(x), ex.z_star(x)
    out = evaluate(metrics, x, ys, zs, n_samples=180)
    assert out["inner_gap"] == 0 and out["implicit_gap"] == 0
    assert out["grad_norm2"] == pytest.approx(np.sum(ex.grad(x) ** 2),
                                              rel=1e-12)
    assert out["suboptimality"] > 0
    assert out["dist_x_star"] == pytest.approx(
        np.linalg.norm(x - ex.x_star) / np.linalg.norm(ex.x_star))
    assert out["epochs"] == 180 / 90 and out["diverged"] == 0
    out = evaluate(metrics, x, ys + 1, zs - 2, n_samples=0)
    assert out["inner_gap"] == pytest.approx(ex.dim_y)
    assert out["implicit_gap"] == pytest.approx(4 * ex.dim_y)
    nan = evaluate(metrics, x * np.nan, ys, zs, n_samples=5)
    assert nan["diverged"] == 1 and np.isnan(nan["value"])
