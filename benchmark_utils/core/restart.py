"""The restart family (docs/baselines.md §3.7): VRBO (Yang, Ji, Liang,
NeurIPS 2021, Alg. 2), SARAH on the sequence of evaluation points P.

    outer iteration k:
      if k mod q == 0 (full restart at P = u_k):
        v^y = grad_y g(u_k),  v^x = grad_x f - X NEU_Q^full(grad_y f)
      x_{k+1} = x_k - alpha_k v^x;   CORRECT((x_{k+1}, y_k))
      T times:  y <- y - beta_k v^y;  CORRECT((x_{k+1}, y))
    CORRECT(N): I, J, J^N_1..J^N_Q fresh, joint at N and P:
      v^y += grad_y g_J(N) - grad_y g_J(P),
      v^x += Phi_{I,J}(N, s_N) - Phi_{I,J}(P, s_P),   P <- N

Every move of x or y is corrected, so with full batches v^y = grad_y g(P)
and v^x = Phi(P) hold exactly at every step (the public implementation
never corrects the x move; docs/baselines.md §7).  P is held in (xp, yp);
the reported z is the last s_N.
"""

from ..jit.refcount import copy_into
from ..numba_cache import njit
from .records import F, G
from .solves import (FULL_HESSIANS, ONE_POINT, SAMPLED_HESSIANS, TWO_POINTS,
                     WITH_GY, fresh, inverse_hvp, keep, phi, phi2, ul_pass,
                     ul_pass2)
from .steps import schedule


@njit(cache=True, inline="always")
def _restart(model, levels, it, w, cfg, stream):
    """Full-batch directions at P = u_k (n + (1 + Q) m evaluations)."""
    x, y = it.x, it.y
    lf, lg = levels[F], levels[G]
    ul_pass(model, levels, stream, lf.ident, lf.N, (x, y), (w.ux, w.r), w)
    inverse_hvp(model, levels, stream, cfg, FULL_HESSIANS, ONE_POINT, (x, y),
                (w.r, w.s), (x, y), (w.r2, w.s2), w)
    phi(model, levels, stream, lg.ident, lg.N, (x, y, w.s),
        (w.ux, w.vx, w.vy), WITH_GY, cfg.cross, w)
    copy_into(it.xp, x)
    copy_into(it.yp, y)
    copy_into(it.z, w.s)


@njit(cache=True, inline="always")
def _correct(model, levels, it, w, cfg, stream):
    """SARAH correction from P = (xp, yp) to N = (x, y); P <- N."""
    b = cfg.batch
    blocks = cfg.blocks
    x, y = it.x, it.y
    ids = fresh(stream, levels[F], b, blocks)
    J = keep(levels[G].cur, fresh(stream, levels[G], b, blocks), b)
    ul_pass2(model, levels, stream, ids, b, (x, y), (w.ux, w.r),
             (it.xp, it.yp), (w.ux2, w.r2), w)
    inverse_hvp(model, levels, stream, cfg, SAMPLED_HESSIANS, TWO_POINTS,
                (x, y), (w.r, w.s), (it.xp, it.yp), (w.r2, w.s2), w)
    phi2(model, levels, stream, J, b, (x, y, w.s), (w.ux, w.d, w.gy),
         (it.xp, it.yp, w.s2), (w.ux2, w.d2, w.gy2), WITH_GY, cfg.cross, w)
    for c in range(x.shape[0]):
        w.vx[c] += w.d[c] - w.d2[c]
    for c in range(y.shape[0]):
        w.vy[c] += w.gy[c] - w.gy2[c]
    copy_into(it.xp, x)
    copy_into(it.yp, y)
    copy_into(it.z, w.s)


@njit(cache=True, inline="always")
def vrbo_iteration(model, levels, it, w, cfg, stream, k):
    x, y = it.x, it.y
    if k % cfg.period == 0:
        _restart(model, levels, it, w, cfg, stream)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    for c in range(x.shape[0]):
        x[c] -= alpha_k * w.vx[c]
    for t in range(cfg.n_inner + 1):
        if t > 0:
            for c in range(y.shape[0]):
                y[c] -= beta_k * w.vy[c]
        _correct(model, levels, it, w, cfg, stream)
