"""Finite-sum quadratic bilevel problem (task ``quadratic``), per-sample kernels.

UL sample ``i`` has row ``[b_i | e_i]`` (``d_y + d_x`` numbers) and target
``s_i``; LL sample ``j`` has row ``[a_j | c_j]`` and target ``t_j``:

    F_i(x, y) = 1/2 (b_i.y + e_i.x - s_i)^2            (+ lam/2 |x|^2, exact)
    G_j(x, y) = 1/2 (a_j.y - c_j.x - t_j)^2            (+ ridge/2 |y|^2, exact)

Per-sample derivatives (r_i = b_i.y + e_i.x - s_i, r_j = a_j.y - c_j.x - t_j):

    grad_x F_i = r_i e_i,   grad_y F_i = r_i b_i,
    grad_y G_j = r_j a_j,   hess_yy G_j z = (a_j.z) a_j,
    hess_xy G_j z = -(a_j.z) c_j.

So the coefficients are ``k_i = [r_i]`` and ``k_j = [r_j, a_j.z]``, and

    D^x: +k_i[0] e_i  (f-part),  +k_j[1] c_j  (g-part: minus hess_xy G_j z)
    D^y: +k_j[0] a_j
    D^z: -k_i[0] b_i  (f-part),  +k_j[1] a_j

``params = [d_x, d_y, ridge, lam]``.  One sample costs O(d_x + d_y).
"""
from numba import njit

from ..linalg import axpy, dot


@njit(cache=True)
def coef_f(Xf, yf, params, i, x, y, z, out):
    dx = x.shape[0]
    dy = y.shape[0]
    row = Xf[i]
    out[0] = dot(row, 0, y, dy) + dot(row, dy, x, dx) - yf[i]


@njit(cache=True)
def coef_g(Xg, yg, params, j, x, y, z, out):
    dx = x.shape[0]
    dy = y.shape[0]
    row = Xg[j]
    out[0] = dot(row, 0, y, dy) - dot(row, dy, x, dx) - yg[j]
    out[1] = dot(row, 0, z, dy)


@njit(cache=True)
def apply_f(Xf, yf, params, i, cx, cy, cz, ox, oy, oz):
    dx = ox.shape[0]
    dy = oz.shape[0]
    row = Xf[i]
    if cx[0] != 0.0:
        axpy(cx[0], row, dy, ox, dx)
    if cz[0] != 0.0:
        axpy(-cz[0], row, 0, oz, dy)


@njit(cache=True)
def apply_g(Xg, yg, params, j, cx, cy, cz, ox, oy, oz):
    dx = ox.shape[0]
    dy = oy.shape[0]
    row = Xg[j]
    if cx[1] != 0.0:
        axpy(cx[1], row, dy, ox, dx)
    if cy[0] != 0.0:
        axpy(cy[0], row, 0, oy, dy)
    if cz[1] != 0.0:
        axpy(cz[1], row, 0, oz, dy)


@njit(cache=True)
def reg(params, x, y, z, rx, ry, rz):
    """Exact deterministic parts: D^x += lam x, D^y += ridge y,
    D^z += ridge z (written, not added)."""
    ridge = params[2]
    lam = params[3]
    for k in range(x.shape[0]):
        rx[k] = lam * x[k]
    for k in range(y.shape[0]):
        ry[k] = ridge * y[k]
        rz[k] = ridge * z[k]
