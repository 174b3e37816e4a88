"""Finite-sum quadratic bilevel problem (task ``quadratic``), batch kernels.

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

F2SA oracle (Kwon et al., ICML 2023): grad_x G_j = -r_j c_j, grad_x (ridge/2
|y|^2) = 0 (lam/2 |x|^2 belongs to f, not g): ``gradx_g``, ``reg_gradx``.
``params = [d_x, d_y, ridge, lam]``.  One sample costs O(d_x + d_y).
Kernels work on ``count`` samples ``idx[start:start + count]``; ``C*[t]``
holds the coefficients of the t-th of them (see ``dispatch``).
"""
import math

import numpy as np

from ..numba_cache import njit
from .spec import TaskSpec

_FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True, fastmath=_FAST)
def coef_f(Xf, yf, params, idx, start, count, point, K):
    x, y, z = point
    dx = x.shape[0]
    dy = y.shape[0]
    for t in range(count):
        i = idx[start + t]
        s = 0.0
        for k in range(dy):
            s += Xf[i, k] * y[k]
        for k in range(dx):
            s += Xf[i, dy + k] * x[k]
        K[t, 0] = s - yf[i]


@njit(cache=True, fastmath=_FAST)
def coef_g(Xg, yg, params, idx, start, count, point, K):
    x, y, z = point
    dx = x.shape[0]
    dy = y.shape[0]
    if z.shape[0] == 0:  # an empty z slot: gradient part only
        for t in range(count):
            j = idx[start + t]
            r = 0.0
            for k in range(dy):
                r += Xg[j, k] * y[k]
            for k in range(dx):
                r -= Xg[j, dy + k] * x[k]
            K[t, 0] = r - yg[j]
            K[t, 1] = 0.0
        return
    for t in range(count):
        j = idx[start + t]
        r = 0.0
        w = 0.0
        for k in range(dy):
            r += Xg[j, k] * y[k]
            w += Xg[j, k] * z[k]
        for k in range(dx):
            r -= Xg[j, dy + k] * x[k]
        K[t, 0] = r - yg[j]
        K[t, 1] = w


@njit(cache=True, fastmath=_FAST)
def apply_f(Xf, yf, params, idx, start, count, coefs, out):
    Cx, Cy, Cz = coefs
    ox, oy, oz = out
    dx = ox.shape[0]
    dy = oz.shape[0]
    for t in range(count):
        i = idx[start + t]
        a = Cx[t, 0]
        c = -Cz[t, 0]
        if a != 0.0:
            for k in range(dx):
                ox[k] += a * Xf[i, dy + k]
        if c != 0.0:
            for k in range(dy):
                oz[k] += c * Xf[i, k]


@njit(cache=True, fastmath=_FAST)
def apply_g(Xg, yg, params, idx, start, count, coefs, out):
    Cx, Cy, Cz = coefs
    ox, oy, oz = out
    dx = ox.shape[0]
    dy = oy.shape[0]
    for t in range(count):
        j = idx[start + t]
        a = Cx[t, 1]
        by = Cy[t, 0]
        cz = Cz[t, 1]
        if a != 0.0:
            for k in range(dx):
                ox[k] += a * Xg[j, dy + k]
        if by != 0.0 or cz != 0.0:
            for k in range(dy):
                v = Xg[j, k]
                oy[k] += by * v
                oz[k] += cz * v


@njit(cache=True, fastmath=_FAST)
def gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox):
    """Add ``c sum_t grad_x G_{idx[start + t]}(x, y) = -c sum_t r_j c_j``
    to ``ox`` (data part only; the F2SA oracle)."""
    dx = x.shape[0]
    dy = y.shape[0]
    for t in range(count):
        j = idx[start + t]
        r = 0.0
        for k in range(dy):
            r += Xg[j, k] * y[k]
        for k in range(dx):
            r -= Xg[j, dy + k] * x[k]
        a = -c * (r - yg[j])
        if a != 0.0:
            for k in range(dx):
                ox[k] += a * Xg[j, dy + k]


@njit(cache=True)
def reg_gradx(params, x, y, rx):
    """grad_x of the exact part of g (ridge/2 |y|^2): zero (written)."""
    for k in range(x.shape[0]):
        rx[k] = 0.0


@njit(cache=True)
def reg(params, x, y, z, rx, ry, rz):
    """Exact deterministic parts: D^x += lam x, D^y += ridge y,
    D^z += ridge z (written, not added)."""
    lam = params[3]
    for k in range(x.shape[0]):
        rx[k] = lam * x[k]
    reg_yz(params, x, y, z, ry, rz)


@njit(cache=True, inline="always")
def reg_yz(params, x, y, z, ry, rz):
    """``reg``'s D^y and D^z parts only (a y step or an HVP needs no
    D^x)."""
    ridge = params[2]
    for k in range(y.shape[0]):
        ry[k] = ridge * y[k]
        rz[k] = ridge * z[k]


# --------------------------------------------------------------------------
# The task's registry entry (``registry.py``)
# --------------------------------------------------------------------------
def _problem_params(X_train, dim_x, ridge, lam, **_):
    """params [d_x, d_y, ridge, lam]: the last d_x columns of X multiply
    x, the first d_y = p - d_x multiply y."""
    dim_x = int(dim_x)
    dim_y = np.shape(X_train)[1] - dim_x
    return [dim_x, dim_y, ridge, lam], dim_x, dim_y


def _starting_point(rng, dim_x, dim_y):
    """x0, y0 ~ N(0, I), z0 ~ N(0, 0.01 I / d_y) (|z0| ~ 0.1, inside R = 1),
    drawn in that order."""
    return (rng.standard_normal(dim_x), rng.standard_normal(dim_y),
            0.1 * rng.standard_normal(dim_y) / np.sqrt(dim_y))


def _check(task, parts, p, task_params):
    """``dim_x`` an integer in ``[1, p - 1]`` (``p`` features), ``ridge``
    and ``lam`` finite numbers."""
    # imported here: the data checks are Python-side, and a module-level
    # import would make this task's compiled kernels depend on them
    from ..validation import is_integer, is_real, task_param
    dim_x = task_param(task, task_params, "dim_x")
    if not (is_integer(dim_x) and 1 <= dim_x <= p - 1):
        raise ValueError(
            f"dim_x must be an integer in [1, p - 1] = [1, {p - 1}] "
            f"(p = {p} features: the last dim_x columns of X multiply "
            f"x, the first p - dim_x multiply y), got {dim_x!r}")
    for name in ("ridge", "lam"):
        value = task_param(task, task_params, name)
        if not (is_real(value) and math.isfinite(value)):
            raise ValueError(
                f"{name} must be a finite number, got {value!r}")


SPEC = TaskSpec(
    name="quadratic",
    n_coef=lambda params: (1, 2),
    problem_params=_problem_params,
    starting_point=_starting_point,
    check=_check,
    metrics="metrics:QuadraticMetrics",
    oracle="exact_quadratic:QuadraticExact",
    exact_solves="closed_form",
    # x in the data's units (x* of Simulated lies within +-2, x0 ~ N(0, I))
    search_box=(-5.0, 5.0),
    tiny_labels=(0.3, -1.2, 0.8, 1.5),
    tiny_params=(("dim_x", 1), ("ridge", 0.1), ("lam", 0.0)),
    references=("x0", "x_star"),
    compile_seconds=(10, 20))
