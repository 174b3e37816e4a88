"""Binary logistic regression with one regularisation weight per feature
(task ``logreg``, the IJCNN1 experiment of the PnPBO paper, Section 6).

    f(x, y) = 1/n sum_i phi(b_i a_i.y)                      (validation)
    g(x, y) = 1/m sum_j phi(b_j a_j.y) + 1/2 sum_k e^{x_k} y_k^2   (training)

with phi(t) = log(1 + e^{-t}), labels b in {-1, +1}, x and y in R^p.
Per sample (r = b a.y): grad_y phi = phi'(r) b a, hess_yy phi z =
phi''(r) (a.z) a, and f and the data part of g do not depend on x, so

    UL coefficient  k_i = [b_i phi'(r_i)]:        D^z -= k_i[0] a_i
    LL coefficients k_j = [b_j phi'(r_j), phi''(r_j) a_j.z]:
                                                  D^y += k_j[0] a_j,
                                                  D^z += k_j[1] a_j

and the regularisation gives, exactly at (x, y, z):
D^x = -e^x * y * z (= -hess_xy g z), D^y += e^x * y, D^z += e^x * z.
F2SA oracle (Kwon et al., ICML 2023): grad_x G_j = 0, grad_x R = 1/2 e^x * y^2.
``params = [p]``.
"""
import math

import numpy as np
from numba import njit

from ..validation import check_pm1_labels
from . import LOGREG
from .spec import TaskSpec, logistic_starting_point
from .stable import logistic_d1_d2

_FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True, fastmath=_FAST)
def _dot_row(X, q, v, p):
    s = 0.0
    for k in range(p):
        s += X[q, k] * v[k]
    return s


@njit(cache=True, fastmath=_FAST)
def _axpy_row(a, X, q, out, p):
    for k in range(p):
        out[k] += a * X[q, k]


# Two short loops per kernel: first the dot products of all the batch's rows
# (their memory loads overlap), then the nonlinearity on the stored margins.

@njit(cache=True)
def coef_f(Xf, yf, params, idx, start, count, x, y, z, K):
    p = y.shape[0]
    for t in range(count):
        K[t, 0] = _dot_row(Xf, idx[start + t], y, p)
    for t in range(count):
        b = yf[idx[start + t]]
        d1, _ = logistic_d1_d2(b * K[t, 0])
        K[t, 0] = b * d1


@njit(cache=True)
def coef_g(Xg, yg, params, idx, start, count, x, y, z, K):
    p = y.shape[0]
    with_z = z.shape[0] != 0  # an empty z slot: gradient part only
    for t in range(count):
        j = idx[start + t]
        K[t, 0] = _dot_row(Xg, j, y, p)
        K[t, 1] = _dot_row(Xg, j, z, p) if with_z else 0.0
    for t in range(count):
        b = yg[idx[start + t]]
        d1, d2 = logistic_d1_d2(b * K[t, 0])
        K[t, 0] = b * d1
        K[t, 1] = d2 * K[t, 1]


@njit(cache=True)
def apply_f(Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz):
    p = oz.shape[0]
    for t in range(count):
        c = -Cz[t, 0]
        if c != 0.0:
            _axpy_row(c, Xf, idx[start + t], oz, p)


@njit(cache=True, fastmath=_FAST)
def apply_g(Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz):
    p = oy.shape[0]
    for t in range(count):
        j = idx[start + t]
        by = Cy[t, 0]
        cz = Cz[t, 1]
        if by != 0.0 or cz != 0.0:
            for k in range(p):
                v = Xg[j, k]
                oy[k] += by * v
                oz[k] += cz * v


@njit(cache=True)
def gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox):
    """Add ``c sum_t grad_x G_j``: the data part of g has no x, nothing is
    added (the F2SA oracle; its x-gradient is ``reg_gradx``)."""
    return


@njit(cache=True)
def reg_gradx(params, x, y, rx):
    """grad_x R = 1/2 e^x * y^2 (written, not added)."""
    for k in range(x.shape[0]):
        rx[k] = 0.5 * math.exp(x[k]) * y[k] * y[k]


@njit(cache=True)
def reg(params, x, y, z, rx, ry, rz):
    """D^x = -e^x y z, D^y = e^x y, D^z = e^x z (written, not added)."""
    for k in range(x.shape[0]):
        w = math.exp(x[k])
        rx[k] = -w * y[k] * z[k]
        ry[k] = w * y[k]
        rz[k] = w * z[k]


# --------------------------------------------------------------------------
# The task's registry entry (``registry.py``)
# --------------------------------------------------------------------------
def _problem_params(X_train, **_):
    """params [p]; x and y in R^p."""
    p = np.shape(X_train)[1]
    return [p], p, p


SPEC = TaskSpec(
    name="logreg", code=LOGREG,
    n_coef=lambda params: (1, 2),
    problem_params=_problem_params,
    # regularisation weights e^{x_k} start near 0.01
    starting_point=logistic_starting_point(np.log(0.01)),
    check=check_pm1_labels,
    metrics="metrics:GLMMetrics",
    oracle="exact_glm:LogReg",
    cross_in_data=False)
