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

import numpy as np

from ..jit.scratch import TILE, stack_scratch
from ..numba_cache import njit
from .spec import EXP_RESOLVED, TaskSpec, logistic_starting_point
from .stable import exp_vec

_FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True, fastmath=_FAST)
def _dot_row(X, q, v, p):
    s = 0.0
    for k in range(p):
        s += X[q, k] * v[k]
    return s


@njit(cache=True, fastmath={"contract"})
def batch_logistic(K, count, labels, idx, start, with_d2):
    """Margins ``m_t = a_t.y`` in ``K[t, 0]`` (and ``a_t.z`` in ``K[t, 1]``)
    -> ``K[t, 0] = b_t phi'(b_t m_t)`` (and ``K[t, 1] = phi''(b_t m_t)
    K[t, 1]``), b_t = ``labels[idx[start + t]]``.

    The same arithmetic as ``stable.logistic_d1_d2`` (one e = exp(-|r|),
    r = b m), with the samples as vector lanes: a tile's r and e sit in a
    stack scratch, so the exponentials (``exp_vec``, within 1 ulp of
    glibc's) vectorise (IJCNN1, 64 rows: 0.42 against 0.57 us with the
    dot products)."""
    buf = stack_scratch()  # r at [0, TILE), e at [TILE, 2 TILE)
    for t0 in range(0, count, TILE):
        n = min(TILE, count - t0)
        for i in range(n):
            buf[i] = labels[idx[start + t0 + i]] * K[t0 + i, 0]
        for i in range(n):
            buf[TILE + i] = exp_vec(-abs(buf[i]))
        for i in range(n):
            r = buf[i]
            e = buf[TILE + i]
            inv = 1.0 / (1.0 + e)  # sigma(|r|)
            s_neg = e * inv        # sigma(-|r|)
            d1 = -s_neg if r >= 0.0 else -inv  # phi'(r) = -sigma(-r)
            K[t0 + i, 0] = labels[idx[start + t0 + i]] * d1
            if with_d2:
                K[t0 + i, 1] = inv * s_neg * K[t0 + i, 1]


# Two short loops per kernel: first the dot products of all the batch's rows
# (their memory loads overlap), then the nonlinearity on the stored margins.

@njit(cache=True)
def coef_f(Xf, yf, params, idx, start, count, point, K):
    x, y, z = point
    p = y.shape[0]
    for t in range(count):
        K[t, 0] = _dot_row(Xf, idx[start + t], y, p)
    batch_logistic(K, count, yf, idx, start, False)


@njit(cache=True)
def coef_g(Xg, yg, params, idx, start, count, point, K):
    x, y, z = point
    p = y.shape[0]
    with_z = z.shape[0] != 0  # an empty z slot: gradient part only
    for t in range(count):
        j = idx[start + t]
        K[t, 0] = _dot_row(Xg, j, y, p)
        K[t, 1] = _dot_row(Xg, j, z, p) if with_z else 0.0
    batch_logistic(K, count, yg, idx, start, True)


# The same coefficients at two points on the same rows (the single loop's
# u_k and u_{k-1}, the baselines' joint evaluations): every row is read
# once for its two (four) dot products, which the loop computes together.
# numba inlines ``inline="always"`` helpers into the caller's IR, where the
# caller's fastmath flags apply, not the helper's: coef2_f/coef2_g carry
# the flags of the dot products themselves (without them the four sums ran
# as scalar chains, 1.46 against 0.79 us for coef2_g on 64 IJCNN1 rows).

@njit(cache=True, fastmath=_FAST, inline="always")
def _dots2_row(X, q, v1, v2, p):
    s1 = 0.0
    s2 = 0.0
    for k in range(p):
        a = X[q, k]
        s1 += a * v1[k]
        s2 += a * v2[k]
    return s1, s2


@njit(cache=True, fastmath=_FAST, inline="always")
def _dots4_row(X, q, v1, v2, v3, v4, p):
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    s4 = 0.0
    for k in range(p):
        a = X[q, k]
        s1 += a * v1[k]
        s2 += a * v2[k]
        s3 += a * v3[k]
        s4 += a * v4[k]
    return s1, s2, s3, s4


@njit(cache=True, fastmath=_FAST)
def coef2_f(Xf, yf, params, idx, start, count, point, point_p, K,
            Kp):
    """``coef_f`` at (x, y, z) into ``K`` and at (xp, yp, zp) into ``Kp``."""
    x, y, z = point
    xp, yp, zp = point_p
    p = y.shape[0]
    for t in range(count):
        K[t, 0], Kp[t, 0] = _dots2_row(Xf, idx[start + t], y, yp, p)
    batch_logistic(K, count, yf, idx, start, False)
    batch_logistic(Kp, count, yf, idx, start, False)


@njit(cache=True, fastmath=_FAST)
def coef2_g(Xg, yg, params, idx, start, count, point, point_p, K,
            Kp):
    """``coef_g`` at (x, y, z) into ``K`` and at (xp, yp, zp) into ``Kp``
    (both z slots empty, or neither)."""
    x, y, z = point
    xp, yp, zp = point_p
    p = y.shape[0]
    if z.shape[0] == 0:
        for t in range(count):
            K[t, 0], Kp[t, 0] = _dots2_row(Xg, idx[start + t], y, yp, p)
            K[t, 1] = 0.0
            Kp[t, 1] = 0.0
    else:
        for t in range(count):
            K[t, 0], K[t, 1], Kp[t, 0], Kp[t, 1] = _dots4_row(
                Xg, idx[start + t], y, z, yp, zp, p)
    batch_logistic(K, count, yg, idx, start, True)
    batch_logistic(Kp, count, yg, idx, start, True)


# The products X^T c add four rows at a time: one load and one store of the
# output per four rows, instead of a chain of stores and reloads of the
# output from row to row.  No reassociation: the sums keep their written
# order wherever the kernels are inlined, so float32 features give bitwise
# the float64 run on the rounded values (tests/test_float32_features.py).

@njit(cache=True, fastmath={"contract"}, inline="always")
def _add_rows(X, idx, start, count, C, col, s, out, p):
    """``out += s sum_t C[t, col] X[idx[start + t]]``."""
    t = 0
    while t + 4 <= count:
        j0 = idx[start + t]
        j1 = idx[start + t + 1]
        j2 = idx[start + t + 2]
        j3 = idx[start + t + 3]
        c0 = s * C[t, col]
        c1 = s * C[t + 1, col]
        c2 = s * C[t + 2, col]
        c3 = s * C[t + 3, col]
        for k in range(p):
            out[k] += (c0 * X[j0, k] + c1 * X[j1, k] + c2 * X[j2, k]
                       + c3 * X[j3, k])
        t += 4
    while t < count:
        j = idx[start + t]
        c = s * C[t, col]
        for k in range(p):
            out[k] += c * X[j, k]
        t += 1


@njit(cache=True, fastmath={"contract"}, inline="always")
def _add_rows2(X, idx, start, count, C1, col1, out1, C2, col2, out2, p):
    """``out1 += sum_t C1[t, col1] X[q_t]`` and ``out2 += sum_t C2[t,
    col2] X[q_t]`` in one pass over the rows."""
    t = 0
    while t + 4 <= count:
        j0 = idx[start + t]
        j1 = idx[start + t + 1]
        j2 = idx[start + t + 2]
        j3 = idx[start + t + 3]
        a0 = C1[t, col1]
        a1 = C1[t + 1, col1]
        a2 = C1[t + 2, col1]
        a3 = C1[t + 3, col1]
        b0 = C2[t, col2]
        b1 = C2[t + 1, col2]
        b2 = C2[t + 2, col2]
        b3 = C2[t + 3, col2]
        for k in range(p):
            u0 = X[j0, k]
            u1 = X[j1, k]
            u2 = X[j2, k]
            u3 = X[j3, k]
            out1[k] += a0 * u0 + a1 * u1 + a2 * u2 + a3 * u3
            out2[k] += b0 * u0 + b1 * u1 + b2 * u2 + b3 * u3
        t += 4
    while t < count:
        j = idx[start + t]
        a = C1[t, col1]
        b = C2[t, col2]
        for k in range(p):
            v = X[j, k]
            out1[k] += a * v
            out2[k] += b * v
        t += 1


@njit(cache=True, inline="always")
def _any_nonzero(C, count, col):
    for t in range(count):
        if C[t, col] != 0.0:
            return True
    return False


@njit(cache=True, fastmath={"contract"})
def apply_f(Xf, yf, params, idx, start, count, coefs, out):
    """D^z -= Cz[t, 0] a_t."""
    Cx, Cy, Cz = coefs
    ox, oy, oz = out
    _add_rows(Xf, idx, start, count, Cz, 0, -1.0, oz, oz.shape[0])


@njit(cache=True, fastmath={"contract"})
def apply_g(Xg, yg, params, idx, start, count, coefs, out):
    """D^y += Cy[t, 0] a_t, D^z += Cz[t, 1] a_t; a pass that asks for one
    output only (the baselines' SGD steps on y, Hessian-vector products)
    skips the other."""
    Cx, Cy, Cz = coefs
    ox, oy, oz = out
    p = oy.shape[0]
    need_y = _any_nonzero(Cy, count, 0)
    need_z = _any_nonzero(Cz, count, 1)
    if need_y and need_z:
        _add_rows2(Xg, idx, start, count, Cy, 0, oy, Cz, 1, oz, p)
    elif need_y:
        _add_rows(Xg, idx, start, count, Cy, 0, 1.0, oy, p)
    elif need_z:
        _add_rows(Xg, idx, start, count, Cz, 1, 1.0, oz, p)


@njit(cache=True)
def gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox):
    """Add ``c sum_t grad_x G_j``: the data part of g has no x, nothing is
    added (the F2SA oracle; its x-gradient is ``reg_gradx``)."""
    return


@njit(cache=True, fastmath={"contract"})
def reg_gradx(params, x, y, rx):
    """grad_x R = 1/2 e^x * y^2 (written, not added)."""
    for k in range(x.shape[0]):
        rx[k] = 0.5 * exp_vec(x[k]) * y[k] * y[k]


@njit(cache=True, fastmath={"contract"})
def reg(params, x, y, z, rx, ry, rz):
    """D^x = -e^x y z, D^y = e^x y, D^z = e^x z (written, not added); the
    exponentials vectorise (``exp_vec``)."""
    for k in range(x.shape[0]):
        w = exp_vec(x[k])
        rx[k] = -w * y[k] * z[k]
        ry[k] = w * y[k]
        rz[k] = w * z[k]


@njit(cache=True, fastmath={"contract"})
def reg_yz(params, x, y, z, ry, rz):
    """``reg``'s D^y and D^z parts only, the same numbers (a y step or an
    HVP needs no D^x)."""
    for k in range(x.shape[0]):
        w = exp_vec(x[k])
        ry[k] = w * y[k]
        rz[k] = w * z[k]


# --------------------------------------------------------------------------
# The task's registry entry (``registry.py``)
# --------------------------------------------------------------------------
def _problem_params(X_train, **_):
    """params [p]; x and y in R^p."""
    p = np.shape(X_train)[1]
    return [p], p, p


def _check(task, parts, p, task_params):
    """Labels exactly -1 or +1."""
    # imported here: the data checks are Python-side, and a module-level
    # import would make this task's compiled kernels depend on them
    from ..validation import check_pm1
    for part, _, y in parts:
        check_pm1(f"y_{part}", y, task)


SPEC = TaskSpec(
    name="logreg",
    n_coef=lambda params: (1, 2),
    problem_params=_problem_params,
    # regularisation weights e^{x_k} start near 0.01
    starting_point=logistic_starting_point(np.log(0.01)),
    check=_check,
    metrics="metrics:GLMMetrics",
    oracle="exact_glm:LogReg",
    cross_in_data=False,
    x_range=EXP_RESOLVED,
    # log-regularisation weights: from e^-10 = 4.5e-5, negligible beside
    # the curvature of the data term, to e^5 = 148, which switches a
    # coordinate off
    search_box=(-10.0, 5.0),
    tiny_labels=(-1.0, 1.0, 1.0, -1.0),
    compile_seconds=(12, 20))
