"""Task switch: one entry point per kernel, branching on the integer task code.

numba caches functions over plain arrays but not functions that receive other
jitted functions as arguments, so tasks are selected by an integer code.

Calling convention: kernels act on the ``count`` samples ``idx[start:start +
count]`` of one part (UL rows for ``*_f``, LL rows for ``*_g``). ``coef_*``
writes the coefficients of the t-th sample at ``(x, y, z)`` into ``K[t]``;
``apply_*`` adds ``sum_t L_q(Cx[t])`` to ``ox`` (D^x), ``sum_t L_q(Cy[t])``
to ``oy`` (D^y) and ``sum_t L_q(Cz[t])`` to ``oz`` (D^z). An empty (length-0)
vector in the z slot of ``coef_g`` means the pass needs no z-direction: the
kernels then write zero z coefficients without reading z (the baselines' SGD
steps on y). Each is one small loop over the batch: LLVM vectorises such
loops far better than one large fused function, and no array view is made per
sample.

``coef2_*`` write the coefficients at two points on the same samples,
``(x, y, z)`` into ``K`` and ``(xp, yp, zp)`` into ``Kp`` (the single
loop's u_k and u_{k-1}, the baselines' joint evaluations): two ``coef_*``
calls, except for short-row tasks with a two-point kernel of their own
(logreg's ``coef2_*`` reads each row once for both points, which may change
the last bits of the dot products; multilogreg's puts both points' class
rows in one pass of lanes when they fit, with the numbers of two calls).

``apply2_*`` are ``apply_*`` twice on the same samples, ``C*`` into
``o*`` and ``D*`` into ``o*2`` (a joint evaluation's two points): two
calls, except for multilogreg, whose short rows take both points' products
in one pass when each asks for the same single output (same sums).

``gradx_g`` adds ``c sum_t grad_x G_{idx[start + t]}(x, y)`` to ``ox``
(F2SA). ``reg_gradx`` writes grad_x of g's exact regularisation at (x, y)
into ``rx``.
"""
from numba import njit

from . import DATACLEANING, LOGREG, MULTILOGREG, QUADRATIC
from . import datacleaning, logreg, multilogreg, quadratic


@njit(cache=True, inline="always")
def coef_f(task, Xf, yf, params, idx, start, count, x, y, z, K):
    if task == QUADRATIC:
        quadratic.coef_f(Xf, yf, params, idx, start, count, x, y, z, K)
    elif task == LOGREG:
        logreg.coef_f(Xf, yf, params, idx, start, count, x, y, z, K)
    elif task == MULTILOGREG:
        multilogreg.coef_f(Xf, yf, params, idx, start, count, x, y, z, K)
    elif task == DATACLEANING:
        datacleaning.coef_f(Xf, yf, params, idx, start, count, x, y, z, K)


@njit(cache=True, inline="always")
def coef_g(task, Xg, yg, params, idx, start, count, x, y, z, K):
    if task == QUADRATIC:
        quadratic.coef_g(Xg, yg, params, idx, start, count, x, y, z, K)
    elif task == LOGREG:
        logreg.coef_g(Xg, yg, params, idx, start, count, x, y, z, K)
    elif task == MULTILOGREG:
        multilogreg.coef_g(Xg, yg, params, idx, start, count, x, y, z, K)
    elif task == DATACLEANING:
        datacleaning.coef_g(Xg, yg, params, idx, start, count, x, y, z, K)


@njit(cache=True, inline="always")
def coef2_f(task, Xf, yf, params, idx, start, count, x, y, z, xp, yp, zp,
            K, Kp):
    if task == QUADRATIC:
        quadratic.coef_f(Xf, yf, params, idx, start, count,
                         x, y, z, K)
        quadratic.coef_f(Xf, yf, params, idx, start, count,
                         xp, yp, zp, Kp)
    elif task == LOGREG:
        logreg.coef2_f(Xf, yf, params, idx, start, count, x, y, z,
                       xp, yp, zp, K, Kp)
    elif task == MULTILOGREG:
        multilogreg.coef2_f(Xf, yf, params, idx, start, count, x, y, z,
                            xp, yp, zp, K, Kp)
    elif task == DATACLEANING:
        datacleaning.coef_f(Xf, yf, params, idx, start, count,
                            x, y, z, K)
        datacleaning.coef_f(Xf, yf, params, idx, start, count,
                            xp, yp, zp, Kp)


@njit(cache=True, inline="always")
def coef2_g(task, Xg, yg, params, idx, start, count, x, y, z, xp, yp, zp,
            K, Kp):
    if task == QUADRATIC:
        quadratic.coef_g(Xg, yg, params, idx, start, count,
                         x, y, z, K)
        quadratic.coef_g(Xg, yg, params, idx, start, count,
                         xp, yp, zp, Kp)
    elif task == LOGREG:
        logreg.coef2_g(Xg, yg, params, idx, start, count, x, y, z,
                       xp, yp, zp, K, Kp)
    elif task == MULTILOGREG:
        multilogreg.coef2_g(Xg, yg, params, idx, start, count, x, y, z,
                            xp, yp, zp, K, Kp)
    elif task == DATACLEANING:
        datacleaning.coef_g(Xg, yg, params, idx, start, count,
                            x, y, z, K)
        datacleaning.coef_g(Xg, yg, params, idx, start, count,
                            xp, yp, zp, Kp)


@njit(cache=True, inline="always")
def apply_f(task, Xf, yf, params, idx, start, count, Cx, Cy, Cz,
            ox, oy, oz):
    if task == QUADRATIC:
        quadratic.apply_f(Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox,
                          oy, oz)
    elif task == LOGREG:
        logreg.apply_f(Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy,
                       oz)
    elif task == MULTILOGREG:
        multilogreg.apply_f(Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox,
                            oy, oz)
    elif task == DATACLEANING:
        datacleaning.apply_f(Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox,
                             oy, oz)


@njit(cache=True, inline="always")
def apply_g(task, Xg, yg, params, idx, start, count, Cx, Cy, Cz,
            ox, oy, oz):
    if task == QUADRATIC:
        quadratic.apply_g(Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox,
                          oy, oz)
    elif task == LOGREG:
        logreg.apply_g(Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy,
                       oz)
    elif task == MULTILOGREG:
        multilogreg.apply_g(Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox,
                            oy, oz)
    elif task == DATACLEANING:
        datacleaning.apply_g(Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox,
                             oy, oz)


@njit(cache=True, inline="always")
def apply2_f(task, Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy,
             oz, Dx, Dy, Dz, ox2, oy2, oz2):
    if task == QUADRATIC:
        quadratic.apply_f(
            Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)
        quadratic.apply_f(
            Xf, yf, params, idx, start, count, Dx, Dy, Dz, ox2, oy2, oz2)
    elif task == LOGREG:
        logreg.apply_f(
            Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)
        logreg.apply_f(
            Xf, yf, params, idx, start, count, Dx, Dy, Dz, ox2, oy2, oz2)
    elif task == MULTILOGREG:
        multilogreg.apply2_f(Xf, yf, params, idx, start, count, Cx, Cy,
                             Cz, ox, oy, oz, Dx, Dy, Dz, ox2, oy2, oz2)
    elif task == DATACLEANING:
        datacleaning.apply_f(
            Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)
        datacleaning.apply_f(
            Xf, yf, params, idx, start, count, Dx, Dy, Dz, ox2, oy2, oz2)


@njit(cache=True, inline="always")
def apply2_g(task, Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy,
             oz, Dx, Dy, Dz, ox2, oy2, oz2):
    if task == QUADRATIC:
        quadratic.apply_g(
            Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)
        quadratic.apply_g(
            Xg, yg, params, idx, start, count, Dx, Dy, Dz, ox2, oy2, oz2)
    elif task == LOGREG:
        logreg.apply_g(
            Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)
        logreg.apply_g(
            Xg, yg, params, idx, start, count, Dx, Dy, Dz, ox2, oy2, oz2)
    elif task == MULTILOGREG:
        multilogreg.apply2_g(Xg, yg, params, idx, start, count, Cx, Cy,
                             Cz, ox, oy, oz, Dx, Dy, Dz, ox2, oy2, oz2)
    elif task == DATACLEANING:
        datacleaning.apply_g(
            Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)
        datacleaning.apply_g(
            Xg, yg, params, idx, start, count, Dx, Dy, Dz, ox2, oy2, oz2)


@njit(cache=True, inline="always")
def reg(task, params, x, y, z, rx, ry, rz):
    if task == QUADRATIC:
        quadratic.reg(params, x, y, z, rx, ry, rz)
    elif task == LOGREG:
        logreg.reg(params, x, y, z, rx, ry, rz)
    elif task == MULTILOGREG:
        multilogreg.reg(params, x, y, z, rx, ry, rz)
    elif task == DATACLEANING:
        datacleaning.reg(params, x, y, z, rx, ry, rz)


@njit(cache=True, inline="always")
def reg_yz(task, params, x, y, z, ry, rz):
    if task == QUADRATIC:
        quadratic.reg_yz(params, x, y, z, ry, rz)
    elif task == LOGREG:
        logreg.reg_yz(params, x, y, z, ry, rz)
    elif task == MULTILOGREG:
        multilogreg.reg_yz(params, x, y, z, ry, rz)
    elif task == DATACLEANING:
        datacleaning.reg_yz(params, x, y, z, ry, rz)


@njit(cache=True, inline="always")
def gradx_g(task, Xg, yg, params, idx, start, count, x, y, c, ox):
    if task == QUADRATIC:
        quadratic.gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox)
    elif task == LOGREG:
        logreg.gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox)
    elif task == MULTILOGREG:
        multilogreg.gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox)
    elif task == DATACLEANING:
        datacleaning.gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox)


@njit(cache=True, inline="always")
def reg_gradx(task, params, x, y, rx):
    if task == QUADRATIC:
        quadratic.reg_gradx(params, x, y, rx)
    elif task == LOGREG:
        logreg.reg_gradx(params, x, y, rx)
    elif task == MULTILOGREG:
        multilogreg.reg_gradx(params, x, y, rx)
    elif task == DATACLEANING:
        datacleaning.reg_gradx(params, x, y, rx)
