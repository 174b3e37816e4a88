"""Per-sample oracles of the quadratic task against central finite
differences of F_i and G_j, and the fused full pass against the closed-form
directions."""
import numpy as np
import pytest

from benchmark_utils.core import passes, records
from benchmark_utils.exact_quadratic import QuadraticExact
from benchmark_utils.tasks import dispatch
from conftest import fd_grad, kernel_dirs, problem_of

H = 1e-5


def _F(data, i, x, y):
    dx = data["dim_x"]
    row = data["X_val"][i]
    r = row[:-dx] @ y + row[-dx:] @ x - data["y_val"][i]
    return 0.5 * r * r


def _G(data, j, x, y):
    dx = data["dim_x"]
    row = data["X_train"][j]
    r = row[:-dx] @ y - row[-dx:] @ x - data["y_train"][j]
    return 0.5 * r * r


@pytest.mark.parametrize("scale", [1.0, 30.0])
def test_oracles_match_finite_differences(small_data, scale):
    data = small_data
    p = problem_of(data)
    rng = np.random.default_rng(5)
    x = scale * rng.standard_normal(p.dim_x)
    y = scale * rng.standard_normal(p.dim_y)
    z = rng.standard_normal(p.dim_y)
    tol = 1e-7 * scale ** 2
    for i in (0, 7, p.n - 1):
        Dx, Dy, Dz = kernel_dirs(p, "f", i, x, y, z)
        gx = fd_grad(lambda u: _F(data, i, u, y), x, H)
        gy = fd_grad(lambda u: _F(data, i, x, u), y, H)
        np.testing.assert_allclose(Dx, gx, atol=tol)
        np.testing.assert_allclose(Dy, 0.0)
        np.testing.assert_allclose(Dz, -gy, atol=tol)
    for j in (0, 11, p.m - 1):
        Dx, Dy, Dz = kernel_dirs(p, "g", j, x, y, z)
        gy = fd_grad(lambda u: _G(data, j, x, u), y, H)
        np.testing.assert_allclose(Dy, gy, atol=tol)

        # hess_yy G z = d/dt grad_y G(x, y + t z); hess_xy G z = d/dt
        # grad_x G(x, y + t z): central differences of FD gradients.
        def grad_y(t):
            return fd_grad(lambda u: _G(data, j, x, u), y + t * z, H)

        def grad_x(t):
            return fd_grad(lambda u: _G(data, j, u, y + t * z), x, H)
        h2 = 1e-3
        hvp = (grad_y(h2) - grad_y(-h2)) / (2 * h2)
        cross = (grad_x(h2) - grad_x(-h2)) / (2 * h2)
        np.testing.assert_allclose(Dz, hvp, atol=1e-5 * scale ** 2)
        np.testing.assert_allclose(Dx, -cross, atol=1e-5 * scale ** 2)


def test_full_pass_equals_closed_form_directions(small_data):
    """The fused full pass + exact regularisation = D^x, D^y, D^z of §1."""
    p = problem_of(small_data)
    ex = QuadraticExact(**small_data)
    rng = np.random.default_rng(1)
    x, y, z = (rng.standard_normal(p.dim_x), rng.standard_normal(p.dim_y),
               rng.standard_normal(p.dim_y))
    fx, fy, fz = np.zeros(p.dim_x), np.zeros(p.dim_y), np.zeros(p.dim_y)
    # chunks of 16 samples, so the chunked accumulation is exercised
    model = records.make_model(p)
    for part, level in enumerate(records.make_levels(p, "one", 16)):
        level = level._replace(
            S=np.zeros((records.N_BUF, 16, level.T.shape[1])))
        passes.full_pass(part, model, level, level.ident, level.N,
                         (x, y, z), (fx, fy, fz), False)
    rx, ry, rz = np.zeros(p.dim_x), np.zeros(p.dim_y), np.zeros(p.dim_y)
    dispatch.reg(p.code, p.params, x, y, z, rx, ry, rz)
    np.testing.assert_allclose(fx + rx, ex.grad_x_f(x, y) + ex.K.T @ z,
                               rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(fy + ry, ex.Hg @ y - ex.K @ x - ex.k,
                               rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(fz + rz, ex.Hg @ z - ex.grad_y_f(x, y),
                               rtol=1e-12, atol=1e-13)
