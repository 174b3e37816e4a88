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

from typing import NamedTuple

from ..core.records import F, G
from ..core.solves import (FULL_HESSIANS, NEUMANN, ONE_POINT,
                           SAMPLED_HESSIANS, TWO_POINTS, WITH_GY, fresh,
                           inverse_hvp, keep, phi, phi2, ul_pass, ul_pass2)
from ..core.schedule import schedule
from ..jit.refcount import copy_into
from ..numba_cache import njit
from . import Family, Parameter


class Params(NamedTuple):
    period: int  # q: outer iterations between full restarts


@njit(cache=True, inline="always")
def _restart(model, levels, iterates, work, cfg, stream):
    """Full-batch directions at P = u_k (n + (1 + Q) m evaluations)."""
    x, y = iterates.x, iterates.y
    lf, lg = levels[F], levels[G]
    ul_pass(model, levels, stream, lf.ident, lf.N, (x, y), (work.ux, work.r),
            work)
    inverse_hvp(model, levels, stream, cfg, FULL_HESSIANS, ONE_POINT, (x, y),
                (work.r, work.s), (x, y), (work.r2, work.s2), work)
    phi(model, levels, stream, lg.ident, lg.N, (x, y, work.s),
        (work.ux, work.vx, work.vy), WITH_GY, cfg.cross, work)
    copy_into(iterates.xp, x)
    copy_into(iterates.yp, y)
    copy_into(iterates.z, work.s)


@njit(cache=True, inline="always")
def _correct(model, levels, iterates, work, cfg, stream):
    """SARAH correction from P = (xp, yp) to N = (x, y); P <- N."""
    b = cfg.batch
    blocks = cfg.blocks
    x, y = iterates.x, iterates.y
    xp, yp = iterates.xp, iterates.yp
    ids = fresh(stream, levels[F], b, blocks)
    J = keep(levels[G].cur, fresh(stream, levels[G], b, blocks), b)
    ul_pass2(model, levels, stream, ids, b, (x, y), (work.ux, work.r),
             (xp, yp), (work.ux2, work.r2), work)
    inverse_hvp(model, levels, stream, cfg, SAMPLED_HESSIANS, TWO_POINTS,
                (x, y), (work.r, work.s), (xp, yp), (work.r2, work.s2), work)
    phi2(model, levels, stream, J, b, (x, y, work.s),
         (work.ux, work.d, work.gy), (xp, yp, work.s2),
         (work.ux2, work.d2, work.gy2), WITH_GY, cfg.cross, work)
    for c in range(x.shape[0]):
        work.vx[c] += work.d[c] - work.d2[c]
    for c in range(y.shape[0]):
        work.vy[c] += work.gy[c] - work.gy2[c]
    copy_into(iterates.xp, x)
    copy_into(iterates.yp, y)
    copy_into(iterates.z, work.s)


@njit(cache=True, inline="always")
def vrbo_iteration(model, levels, iterates, work, cfg, stream, k):
    x, y = iterates.x, iterates.y
    if k % cfg.own.period == 0:
        _restart(model, levels, iterates, work, cfg, stream)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    for c in range(x.shape[0]):
        x[c] -= alpha_k * work.vx[c]
    for t in range(cfg.n_inner + 1):
        if t > 0:
            for c in range(y.shape[0]):
                y[c] -= beta_k * work.vy[c]
        _correct(model, levels, iterates, work, cfg, stream)


FAMILY = Family(
    marker="Restart", label="restart", iteration=vrbo_iteration,
    algorithms={"VRBO": NEUMANN},
    parameters={
        "period": Parameter(100, ("integer", 1),
                            "q, outer iterations between full restarts"),
    },
    params=Params)
