"""Multinomial logistic regression with one regularisation weight per class
(task ``multilogreg``, the covtype experiment of the PnPBO paper, Section 6).

    f(x, y) = 1/n sum_i CE(W a_i, b_i)                                (validation)
    g(x, y) = 1/m sum_j CE(W a_j, b_j) + sum_c e^{x_c} sum_k W_{c,k}^2  (training)

``y = vec(W)`` class-major (``softmax_ce``), x in R^C.  Per sample, with
s = softmax(W a), v = Z a (Z = z reshaped like W):

    UL coefficients k_i = s_i - e_{b_i}  (C):   D^z -= k_i a_i^T
    LL coefficients k_j = [s_j - e_{b_j}, (diag(s_j) - s_j s_j^T) v_j] (2C):
                         D^y += k_j[:C] a_j^T,  D^z += k_j[C:] a_j^T

Regularisation, exactly at (x, y, z): D^y += 2 e^{x_c} W_c, D^z += 2 e^{x_c}
Z_c, D^x_c = -2 e^{x_c} <W_c, Z_c> (f has no x, the data part of g neither).
F2SA oracle (Kwon et al., ICML 2023): grad_x G_j = 0, (grad_x R)_c = e^{x_c} |W_c|^2.
``params = [p, C]``.
"""
import math

import numpy as np

from ..numba_cache import njit
from .batch_products import any_nonzero, batch_add_outer, \
    batch_add_outer_one, batch_add_outer_pair, batch_class_dots, \
    batch_class_dots2, row_offsets
from .softmax_ce import batch_grad_coef, hvp_coef_label
from .spec import EXP_RESOLVED, TaskSpec, logistic_starting_point


@njit(cache=True)
def coef_f(Xf, yf, params, idx, start, count, point, K):
    x, y, z = point
    p = int(params[0])
    C = int(params[1])
    batch_class_dots(Xf, idx, start, count, y, y, C, p, C, K)
    batch_grad_coef(K, count, C, yf, idx, start)


@njit(cache=True)
def ll_coefs(Xg, yg, params, idx, start, count, y, z, K, cross_col):
    """LL coefficients [s - e_b, (diag(s) - s s^T) v] of the batch; with
    ``cross_col >= 0`` also ``(s - e_b).v`` in that column (needed by
    ``datacleaning`` before v is replaced)."""
    p = int(params[0])
    C = int(params[1])
    R = C if z.shape[0] == 0 else 2 * C
    batch_class_dots(Xg, idx, start, count, y, z, R, p, C, K)
    _ll_finish(yg, idx, start, count, C, R, K, cross_col)


@njit(cache=True, inline="always")
def _ll_finish(yg, idx, start, count, C, R, K, cross_col):
    """Logits (and v = Z a when R = 2C) in ``K`` -> the LL coefficients;
    R = C (no vector in the z slot): zero z coefficients."""
    batch_grad_coef(K, count, C, yg, idx, start)
    if R == C:
        for t in range(count):
            for c in range(C, 2 * C):
                K[t, c] = 0.0
            if cross_col >= 0:
                K[t, cross_col] = 0.0
        return
    for t in range(count):
        label = int(yg[idx[start + t]])
        if cross_col >= 0:
            cross = 0.0
            for c in range(C):
                cross += K[t, c] * K[t, C + c]
            K[t, cross_col] = cross
        hvp_coef_label(K, t, 0, C, C, label)


@njit(cache=True)
def coef_g(Xg, yg, params, idx, start, count, point, K):
    x, y, z = point
    ll_coefs(Xg, yg, params, idx, start, count, y, z, K, -1)


# Two points on the same rows (the single loop's u_k and u_{k-1}, the
# baselines' joint evaluations): covtype's 7 + 7 UL class rows share one
# pass of 16 lanes (``batch_class_dots2``; its 14 + 14 LL rows take two),
# with the numbers of two ``coef_*`` calls.

@njit(cache=True)
def coef2_f(Xf, yf, params, idx, start, count, point, point_p, K,
            Kp):
    x, y, z = point
    xp, yp, zp = point_p
    p = int(params[0])
    C = int(params[1])
    batch_class_dots2(Xf, idx, start, count, C, p, C, (y, y, K),
                      (yp, yp, Kp))
    batch_grad_coef(K, count, C, yf, idx, start)
    batch_grad_coef(Kp, count, C, yf, idx, start)


@njit(cache=True)
def coef2_g(Xg, yg, params, idx, start, count, point, point_p, K,
            Kp):
    """``coef_g`` at both points (both z slots empty, or neither)."""
    x, y, z = point
    xp, yp, zp = point_p
    p = int(params[0])
    C = int(params[1])
    R = C if z.shape[0] == 0 else 2 * C
    batch_class_dots2(Xg, idx, start, count, R, p, C, (y, z, K),
                      (yp, zp, Kp))
    _ll_finish(yg, idx, start, count, C, R, K, -1)
    _ll_finish(yg, idx, start, count, C, R, Kp, -1)


@njit(cache=True)
def apply_f(Xf, yf, params, idx, start, count, coefs, out):
    Cx, Cy, Cz = coefs
    ox, oy, oz = out
    p = int(params[0])
    C = int(params[1])
    first, _ = row_offsets(C)
    batch_add_outer_one(Xf, idx, start, count, p, C, Cz, first, -1.0, oz)


@njit(cache=True)
def apply_g(Xg, yg, params, idx, start, count, coefs, out):
    Cx, Cy, Cz = coefs
    ox, oy, oz = out
    p = int(params[0])
    C = int(params[1])
    # A pass that asks for one output only (a zero weight on the other, as
    # the baselines' SGD steps on y and Hessian-vector products) skips the
    # other group of class rows.
    on_y, on_z = row_offsets(C)
    need_y = any_nonzero(Cy, count, on_y, C)
    need_z = any_nonzero(Cz, count, on_z, C)
    if need_y and need_z:
        batch_add_outer(Xg, idx, start, count, 2 * C, p, C,
                        (Cy, on_y, 1.0, oy), (Cz, on_z, 1.0, oz))
    elif need_y:
        batch_add_outer_one(Xg, idx, start, count, p, C, Cy, on_y, 1.0, oy)
    elif need_z:
        batch_add_outer_one(Xg, idx, start, count, p, C, Cz, on_z, 1.0, oz)


# The products of a joint evaluation (two points, the same rows): when each
# point asks for the same single output (the baselines' paired
# Hessian-vector products and SGD steps), both go through one pass of 2C
# lanes, with the sums of two ``apply_*`` calls.

@njit(cache=True)
def apply2_f(Xf, yf, params, idx, start, count, coefs, out, coefs2,
             out2):
    Cz = coefs[2]
    oz = out[2]
    Dz = coefs2[2]
    oz2 = out2[2]
    p = int(params[0])
    C = int(params[1])
    first, _ = row_offsets(C)
    batch_add_outer_pair(Xf, idx, start, count, p, C,
                         (Cz, first, -1.0, oz), (Dz, first, -1.0, oz2))


@njit(cache=True)
def apply2_g(Xg, yg, params, idx, start, count, coefs, out, coefs2,
             out2):
    Cy, Cz = coefs[1], coefs[2]
    oy, oz = out[1], out[2]
    Dy, Dz = coefs2[1], coefs2[2]
    oy2, oz2 = out2[1], out2[2]
    p = int(params[0])
    C = int(params[1])
    on_y, on_z = row_offsets(C)
    need_y = any_nonzero(Cy, count, on_y, C)
    need_z = any_nonzero(Cz, count, on_z, C)
    need_y2 = any_nonzero(Dy, count, on_y, C)
    need_z2 = any_nonzero(Dz, count, on_z, C)
    if need_z and need_z2 and not (need_y or need_y2):
        batch_add_outer_pair(Xg, idx, start, count, p, C,
                             (Cz, on_z, 1.0, oz), (Dz, on_z, 1.0, oz2))
    elif need_y and need_y2 and not (need_z or need_z2):
        batch_add_outer_pair(Xg, idx, start, count, p, C,
                             (Cy, on_y, 1.0, oy), (Dy, on_y, 1.0, oy2))
    else:
        apply_g(Xg, yg, params, idx, start, count, coefs, out)
        apply_g(Xg, yg, params, idx, start, count, coefs2, out2)


@njit(cache=True)
def gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox):
    """Add ``c sum_t grad_x G_j``: the data part of g has no x, nothing is
    added (the F2SA oracle; its x-gradient is ``reg_gradx``)."""
    return


@njit(cache=True)
def reg_gradx(params, x, y, rx):
    """(grad_x R)_c = e^{x_c} |W_c|^2 (written, not added)."""
    p = int(params[0])
    C = int(params[1])
    for c in range(C):
        s = 0.0
        for k in range(c * p, (c + 1) * p):
            s += y[k] * y[k]
        rx[c] = math.exp(x[c]) * s


@njit(cache=True)
def reg(params, x, y, z, rx, ry, rz):
    """Exact regularisation parts (written, not added)."""
    p = int(params[0])
    C = int(params[1])
    for c in range(C):
        w = 2.0 * math.exp(x[c])
        s = 0.0
        for k in range(c * p, (c + 1) * p):
            ry[k] = w * y[k]
            rz[k] = w * z[k]
            s += y[k] * z[k]
        rx[c] = -w * s


@njit(cache=True)
def reg_yz(params, x, y, z, ry, rz):
    """``reg``'s D^y and D^z parts only, the same numbers (a y step or an
    HVP needs no D^x)."""
    p = int(params[0])
    C = int(params[1])
    for c in range(C):
        w = 2.0 * math.exp(x[c])
        for k in range(c * p, (c + 1) * p):
            ry[k] = w * y[k]
            rz[k] = w * z[k]


# --------------------------------------------------------------------------
# The task's registry entry (``registry.py``)
# --------------------------------------------------------------------------
def _problem_params(X_train, n_classes, **_):
    """params [p, C]; x in R^C, y in R^{pC}."""
    p, C = np.shape(X_train)[1], int(n_classes)
    return [p, C], C, p * C


def _check(task, parts, p, task_params):
    """``n_classes`` an integer >= 2 and labels integers in
    ``0..n_classes - 1``."""
    # imported here: the data checks are Python-side, and a module-level
    # import would make this task's compiled kernels depend on them
    from ..validation import check_class_labels
    check_class_labels(task, parts, task_params)


SPEC = TaskSpec(
    name="multilogreg",
    n_coef=lambda params: (int(params[1]), 2 * int(params[1])),
    problem_params=_problem_params,
    # regularisation weights e^{x_c} start near 0.01
    starting_point=logistic_starting_point(np.log(0.01)),
    check=_check,
    metrics="metrics:GLMMetrics",
    oracle="exact_glm:MultiLogReg",
    cross_in_data=False,
    x_range=EXP_RESOLVED,
    search_box=(-10.0, 5.0),  # as logreg's: 2 e^x from 9e-5 to 297
    tiny_params=(("n_classes", 2),),
    compile_seconds=(30, 30))
