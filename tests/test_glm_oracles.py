"""Per-sample oracles of the logistic tasks against central finite
differences of the losses written independently (NumPy / SciPy), also at
large |x| and |y|; numerical stability at extreme inputs."""
import numpy as np
import pytest
from scipy.special import expit, log_expit, logsumexp

from benchmark_utils.tasks import dispatch
from benchmark_utils.problem import problem_from_data
from conftest import GLM_TASKS, fd_grad, glm_data, kernel_dirs


def _losses(data):
    """Per-sample F_i(x, y), G_j(x, y) (data parts) and the regulariser R."""
    task = data["task"]
    C = data.get("n_classes", 1)

    def ce(a, b, y):
        W = y.reshape(C, -1)
        u = W @ a
        return logsumexp(u) - u[int(b)]

    if task == "logreg":
        F = lambda i, x, y: -log_expit(  # noqa: E731
            data["y_val"][i] * data["X_val"][i] @ y)
        G = lambda j, x, y: -log_expit(  # noqa: E731
            data["y_train"][j] * data["X_train"][j] @ y)
        R = lambda x, y: 0.5 * np.exp(x) @ (y * y)  # noqa: E731
    else:
        F = lambda i, x, y: ce(data["X_val"][i],  # noqa: E731
                               data["y_val"][i], y)
        if task == "multilogreg":
            G = lambda j, x, y: ce(data["X_train"][j],  # noqa: E731
                                   data["y_train"][j], y)
            p = data["X_train"].shape[1]
            R = lambda x, y: np.repeat(  # noqa: E731
                np.exp(x), p) @ (y * y)
        else:
            G = lambda j, x, y: expit(x[j]) * ce(  # noqa: E731
                data["X_train"][j], data["y_train"][j], y)
            R = lambda x, y: data["l2_reg"] * y @ y  # noqa: E731
    return F, G, R


@pytest.mark.parametrize("task", GLM_TASKS)
@pytest.mark.parametrize("scale", [1.0, 8.0])
def test_glm_oracles_match_finite_differences(task, scale):
    data = glm_data(task)
    P = problem_from_data(**data)
    F, G, R = _losses(data)
    rng = np.random.default_rng(1)
    # large |x| and |y|: margins of tens, regularisation weights e^{+-8}
    x = scale * rng.standard_normal(P.dim_x)
    y = scale * rng.standard_normal(P.dim_y)
    z = rng.standard_normal(P.dim_y)
    h, h2 = 1e-6, 1e-4

    def close(a, b, what, tol=1e-6):
        # relative to the largest entry; second-order checks (nested
        # differences) get tol=1e-4: a wrong formula is off by O(1).
        err = np.abs(a - b).max() / max(1.0, np.abs(b).max())
        assert err < tol, f"{task} {what}: {err:.1e}"

    for i in (0, 5, P.n - 1):
        Dx, Dy, Dz = kernel_dirs(P, "f", i, x, y, z)
        close(Dx, 0.0 * Dx, "D^x f-part")  # f does not depend on x
        close(Dy, 0.0 * Dy, "D^y f-part")
        close(Dz, -fd_grad(lambda u: F(i, x, u), y, h), "grad_y F")
    for j in (0, 7, P.m - 1):
        Dx, Dy, Dz = kernel_dirs(P, "g", j, x, y, z)

        def grad_y(t):
            return fd_grad(lambda u: G(j, x, u), y + t * z, h)

        def dir_x(t):  # d/dt grad_x G(x, y + t z)
            return fd_grad(lambda u: G(j, u, y + t * z), x, h)
        close(Dy, grad_y(0.0), "grad_y G")
        close(Dz, (grad_y(h2) - grad_y(-h2)) / (2 * h2), "hess_yy G z", 1e-4)
        close(Dx, -(dir_x(h2) - dir_x(-h2)) / (2 * h2), "hess_xy G z", 1e-4)
    # the exact regularisation parts
    rx, ry, rz = (np.zeros(P.dim_x), np.zeros(P.dim_y), np.zeros(P.dim_y))
    dispatch.reg(P.code, P.params, x, y, z, rx, ry, rz)

    def rgrad_y(t):
        return fd_grad(lambda u: R(x, u), y + t * z, h)

    def rgrad_x(t):
        return fd_grad(lambda u: R(u, y + t * z), x, h)
    close(ry, rgrad_y(0.0), "grad_y R")
    close(rz, (rgrad_y(h2) - rgrad_y(-h2)) / (2 * h2), "hess_yy R z", 1e-4)
    close(rx, -(rgrad_x(h2) - rgrad_x(-h2)) / (2 * h2), "hess_xy R z", 1e-4)


@pytest.mark.parametrize("task", GLM_TASKS)
def test_glm_oracles_are_stable_at_extreme_inputs(task):
    """Margins and logits of +-1e4, sample weights at x = +-800: finite
    directions, with the limits of the losses."""
    data = glm_data(task)
    P = problem_from_data(**data)
    rng = np.random.default_rng(2)
    for sign in (1.0, -1.0):
        x = sign * 800.0 * np.ones(P.dim_x) if task == "datacleaning" \
            else np.zeros(P.dim_x)
        y = sign * 1e4 * rng.standard_normal(P.dim_y)
        z = rng.standard_normal(P.dim_y)
        for part, q in (("f", 0), ("g", 1)):
            for d in kernel_dirs(P, part, q, x, y, z):
                assert np.all(np.isfinite(d)), (task, part, sign)
    if task == "logreg":
        # phi'(t) -> 0 for t -> +inf and -> -1 for t -> -inf
        from benchmark_utils.tasks.stable import (logistic_d1_d2,
                                                  logistic_loss)
        d1_pos, d2_pos = logistic_d1_d2(1e4)
        d1_neg, d2_neg = logistic_d1_d2(-1e4)
        assert abs(d1_pos) < 1e-300 and d1_neg == -1.0
        assert d2_pos == 0.0 and d2_neg == 0.0
        for t in (-30.0, -1.0, 0.0, 2.5, 30.0):  # against scipy's expit
            d1, d2 = logistic_d1_d2(t)
            assert d1 == pytest.approx(-expit(-t), rel=1e-14)
            assert d2 == pytest.approx(expit(t) * expit(-t), rel=1e-13)
        assert logistic_loss(-1e4) == 1e4 and logistic_loss(1e4) == 0.0
        assert logistic_loss(0.0) == pytest.approx(np.log(2), rel=1e-15)
